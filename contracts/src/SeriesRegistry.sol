// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IOracle} from "./Interfaces.sol";
import {SeriesInfo} from "./SeriesInfo.sol";
import {
    NotOrderBook, AlreadyListed, UnknownPair, BadTickDecimals, UnknownSeries, SeriesSettled, NoSettlementPrice,
    ValueOutOfRange
} from "./StreamErrors.sol";

/// @title The pairs and series the venue lists (docs/chain.md, PAIR, SERIES, SERIES_SETTLED).
/// @notice A series is `(pairId, strike, expiry, isCall)`, its id the venue's (docs/domain.md):
/// `keccak256(abi.encode(pairId, strike, expiry, isCall))`. Listings and the settled mark come
/// from the settlement stream only, through the order book.
contract SeriesRegistry {
    struct Series {
        bytes32 pairId;
        uint256 strike;
        /// SeriesInfo: expiry, tick decimals, isCall, listed, settled.
        uint256 info;
    }

    /// @notice The order book, the only caller of the functions that apply items.
    address public immutable orderBook;
    /// @notice The oracle holding settlement prices.
    IOracle public immutable oracle;

    /// pairId => 0x100 | tickDecimals once listed.
    mapping(bytes32 => uint256) private _pairs;
    mapping(bytes32 => Series) private _series;

    event PairListed(bytes32 indexed pairId, uint256 tickDecimals);
    event SeriesListed(bytes32 indexed seriesId, bytes32 indexed pairId, uint256 strike, uint256 expiry, bool isCall);
    event SeriesMarkedSettled(bytes32 indexed seriesId, uint256 settlementPrice);

    modifier onlyOrderBook() {
        if (msg.sender != orderBook) revert NotOrderBook(msg.sender);
        _;
    }

    constructor(address orderBook_, address oracle_) {
        orderBook = orderBook_;
        oracle = IOracle(oracle_);
    }

    /// @notice The venue's series id.
    function seriesId(bytes32 pairId, uint256 strike, uint256 expiry, bool isCall) public pure returns (bytes32) {
        return keccak256(abi.encode(pairId, strike, expiry, isCall));
    }

    /// @notice A series' terms and state; all zero for an unknown id.
    function seriesOf(bytes32 id)
        external
        view
        returns (bytes32 pairId, uint256 strike, uint256 expiry, bool isCall, bool listed, bool settled)
    {
        Series storage s = _series[id];
        uint256 info = s.info;
        return (
            s.pairId,
            s.strike,
            SeriesInfo.expiryOf(info),
            info & SeriesInfo.IS_CALL != 0,
            info & SeriesInfo.LISTED != 0,
            info & SeriesInfo.SETTLED != 0
        );
    }

    /// @notice A series' facts in one word (SeriesInfo), what a fill checks; 0 for an unknown id.
    function seriesInfo(bytes32 id) external view returns (uint256) {
        return _series[id].info;
    }

    /// @notice Whether a pair is listed, and its tick decimals.
    function pairOf(bytes32 pairId) external view returns (bool listed, uint256 tickDecimals) {
        uint256 p = _pairs[pairId];
        return (p != 0, p & 0xff);
    }

    /// @notice Whether a series is settled and, if so, the intrinsic value of one contract at its
    /// settlement price (WAD): `max(price - strike, 0)` for a call, `max(strike - price, 0)` for a put.
    function intrinsicOf(bytes32 id) external view returns (bool settled, uint256 intrinsic) {
        Series storage s = _series[id];
        uint256 info = s.info;
        if (info & SeriesInfo.SETTLED == 0) return (false, 0);
        uint256 price = oracle.settlementPrice(s.pairId, SeriesInfo.expiryOf(info));
        uint256 strike = s.strike;
        if (info & SeriesInfo.IS_CALL != 0) intrinsic = price > strike ? price - strike : 0;
        else intrinsic = strike > price ? strike - price : 0;
        return (true, intrinsic);
    }

    /// @notice PAIR: registers a pair's tick decimals (0-18).
    function listPair(uint256 item, bytes32 pairId, uint256 tickDecimals) external onlyOrderBook {
        if (_pairs[pairId] != 0) revert AlreadyListed(item, pairId);
        if (tickDecimals > 18) revert BadTickDecimals(item, tickDecimals);
        _pairs[pairId] = 0x100 | tickDecimals;
        emit PairListed(pairId, tickDecimals);
    }

    /// @notice SERIES: lists a series of a registered pair.
    function listSeries(uint256 item, bytes32 pairId, uint256 strike, uint256 expiry, bool isCall) external onlyOrderBook {
        uint256 pair = _pairs[pairId];
        if (pair == 0) revert UnknownPair(item, pairId);
        // Payouts are balance x intrinsic: a strike below 2^128 keeps the product within int256.
        if (strike >> 128 != 0) revert ValueOutOfRange(item);
        bytes32 id = seriesId(pairId, strike, expiry, isCall);
        Series storage s = _series[id];
        if (s.info != 0) revert AlreadyListed(item, id);
        s.pairId = pairId;
        s.strike = strike;
        s.info = SeriesInfo.pack(expiry, pair & 0xff, isCall);
        emit SeriesListed(id, pairId, strike, expiry, isCall);
    }

    /// @notice SERIES_SETTLED: marks a series settled once the oracle holds its settlement price.
    function markSettled(uint256 item, bytes32 id) external onlyOrderBook {
        Series storage s = _series[id];
        uint256 info = s.info;
        if (info & SeriesInfo.LISTED == 0) revert UnknownSeries(item, id);
        if (info & SeriesInfo.SETTLED != 0) revert SeriesSettled(item, id);
        bytes32 pairId = s.pairId;
        uint256 expiry = SeriesInfo.expiryOf(info);
        if (!oracle.hasSettlementPrice(pairId, expiry)) revert NoSettlementPrice(item, pairId, expiry);
        s.info = info | SeriesInfo.SETTLED;
        emit SeriesMarkedSettled(id, oracle.settlementPrice(pairId, expiry));
    }
}
