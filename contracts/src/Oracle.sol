// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {TypedDataDomain} from "./TypedDataDomain.sol";
import {Signatures} from "./Signatures.sol";
import {NotOrderBook, BadOracleSignature, NotExpired, PriceAlreadyPosted, ValueOutOfRange} from "./StreamErrors.sol";

/// @title Expiry settlement prices signed by the oracle key (docs/chain.md, SETTLEMENT_PRICE).
/// @notice A price is posted through the settlement stream, once per `(pairId, expiry)`, only
/// with the oracle key's EIP-712 `SettlementPrice` signature (domain
/// `${serviceName}OptionsOracle`, version 1), a key that is not the relayer's.
contract Oracle is TypedDataDomain {
    bytes32 public constant SETTLEMENT_PRICE_TYPEHASH =
        keccak256("SettlementPrice(bytes32 pairId,uint256 expiry,uint256 price)");
    uint256 private constant POSTED = 1 << 128;

    /// @notice The key whose signature a settlement price needs.
    address public immutable signer;
    /// @notice The order book, the only caller of `postSettlementPrice`.
    address public immutable orderBook;

    /// keccak256(pairId, expiry) => POSTED | price.
    mapping(bytes32 => uint256) private _prices;

    event SettlementPricePosted(bytes32 indexed pairId, uint256 indexed expiry, uint256 price);

    constructor(string memory serviceName, address domainAddress, address signer_, address orderBook_)
        TypedDataDomain(string.concat(serviceName, "OptionsOracle"), domainAddress)
    {
        signer = signer_;
        orderBook = orderBook_;
    }

    /// @notice The EIP-712 digest the oracle key signs for a settlement price.
    function settlementPriceDigest(bytes32 pairId, uint256 expiry, uint256 price) public view returns (bytes32) {
        return _typedDataHash(keccak256(abi.encode(SETTLEMENT_PRICE_TYPEHASH, pairId, expiry, price)));
    }

    /// @notice Whether the settlement price of `(pairId, expiry)` is posted.
    function hasSettlementPrice(bytes32 pairId, uint256 expiry) external view returns (bool) {
        return _prices[_key(pairId, expiry)] != 0;
    }

    /// @notice The settlement price of `(pairId, expiry)` (WAD), 0 until it is posted.
    function settlementPrice(bytes32 pairId, uint256 expiry) external view returns (uint256) {
        return uint128(_prices[_key(pairId, expiry)]);
    }

    /// @notice SETTLEMENT_PRICE: posts a signed price, once `matchTime >= expiry`.
    function postSettlementPrice(
        uint256 item,
        uint256 matchTime,
        bytes32 pairId,
        uint256 expiry,
        uint256 price,
        bytes32 r,
        bytes32 s,
        uint8 v
    ) external {
        if (msg.sender != orderBook) revert NotOrderBook(msg.sender);
        address recovered = Signatures.recover(settlementPriceDigest(pairId, expiry, price), v, r, s);
        if (recovered != signer) revert BadOracleSignature(item, recovered);
        if (matchTime < expiry) revert NotExpired(item, expiry, matchTime);
        if (price >= POSTED) revert ValueOutOfRange(item);
        bytes32 key = _key(pairId, expiry);
        if (_prices[key] != 0) revert PriceAlreadyPosted(item, pairId, expiry);
        _prices[key] = POSTED | price;
        emit SettlementPricePosted(pairId, expiry, price);
    }

    function _key(bytes32 pairId, uint256 expiry) private pure returns (bytes32) {
        return keccak256(abi.encode(pairId, expiry));
    }
}
