// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {BatchFills} from "./BatchFills.sol";
import {BatchItems} from "./BatchItems.sol";
import {DirectOrders} from "./DirectOrders.sol";
import {CalldataReader as C} from "./CalldataReader.sol";
import {NotRelayer, BadSeq, MatchTimeBackwards, MatchTimeInFuture, JournalBackwards} from "./StreamErrors.sol";

/// @title The settlement stream's entry point, the signed orders' fills and the nonce floors (docs/chain.md).
/// @notice The venue matches off chain; its relayer carries every committed item of the one
/// ordered settlement stream here in batches, `settle(seq, matchTime, journalPos, items)`,
/// accepted only as `lastSeq + 1`. `settleHash` commits to every batch settled, in order.
contract OrderBook is DirectOrders {
    /// @notice The only account that may call `settle`.
    address public immutable relayer;

    /// lastSeq (bits 0-63) | lastMatchTime (64-127) | lastJournalPos (128-255).
    uint256 private _batch;
    /// @notice `keccak256(abi.encode(previous, batchHash))` over every settled batch; zero at genesis.
    bytes32 public settleHash;

    /// @notice Batch `seq` settled. `stateHash` is the engine's state hash after journal command
    /// `stateSeq` (the newest the relayer computed when it cut the batch), for the auditor to
    /// check against its own replay of the published journal (docs/chain.md "The audit").
    event Settled(uint256 indexed seq, uint256 journalPos, uint256 matchTime, bytes32 settleHash, uint256 fills, uint256 stateSeq, bytes32 stateHash);

    error NonceFloorNotRaised(uint256 current, uint256 given);
    error LengthMismatch();

    /// @param serviceName the venue's SERVICE_NAME (domain `${serviceName}OptionsOrderBook`, version 1)
    /// @param domainAddress the verifying contract of the domain: the published address, or zero for this one
    /// @param relayer_ the venue's relayer
    /// @param takerFeeCapRate_ the fee cap per fill, a WAD fraction of its premium (12.5% = 125e15)
    /// @param insuranceFund_ the insurance fund's wallet (portfolio 1)
    constructor(
        string memory serviceName,
        address domainAddress,
        address relayer_,
        uint256 takerFeeCapRate_,
        address insuranceFund_,
        address positionManager_,
        address collateralVault_,
        address seriesRegistry_,
        address rfq_,
        address oracle_
    )
        BatchFills(serviceName, domainAddress, positionManager_, seriesRegistry_, rfq_, takerFeeCapRate_, insuranceFund_)
        BatchItems(collateralVault_, oracle_)
    {
        relayer = relayer_;
    }

    /// @notice Settles batch `seq` of the stream: `items` packed as docs/chain.md "Items" says,
    /// `matchTime` the venue time (Unix seconds) of the batch's first command, `journalPos` =
    /// `journalSeq x 2^32 + itemCount` where the batch ends, `stateHash` the engine's state hash
    /// after journal command `stateSeq` (carried, not checked: the auditor checks it). Relayer only.
    function settle(uint256 seq, uint256 matchTime, uint256 journalPos, uint256 stateSeq, bytes32 stateHash, bytes calldata items) external {
        if (msg.sender != relayer) revert NotRelayer(msg.sender);
        uint256 last = _batch;
        if (seq != uint64(last) + 1) revert BadSeq(uint64(last) + 1, seq);
        if (matchTime < uint64(last >> 64)) revert MatchTimeBackwards(uint64(last >> 64), matchTime);
        if (matchTime > block.timestamp) revert MatchTimeInFuture(matchTime, block.timestamp);
        if (journalPos <= last >> 128 || journalPos >> 128 != 0) revert JournalBackwards(last >> 128, journalPos);
        bytes32 itemsHash;
        assembly {
            let m := mload(0x40)
            calldatacopy(m, items.offset, items.length)
            itemsHash := keccak256(m, items.length)
        }
        bytes32 hash = keccak256(abi.encode(settleHash, keccak256(abi.encode(seq, matchTime, journalPos, stateSeq, stateHash, itemsHash))));
        _batch = seq | (matchTime << 64) | (journalPos << 128);
        settleHash = hash;
        uint256 fills = _process(C.offsetOf(items), items.length, matchTime);
        emit Settled(seq, journalPos, matchTime, hash, fills, stateSeq, stateHash);
    }

    /// @notice The last batch settled (0 before the first).
    function lastSeq() external view returns (uint256) {
        return uint64(_batch);
    }

    /// @notice The match time of the last batch settled.
    function lastMatchTime() external view returns (uint256) {
        return uint64(_batch >> 64);
    }

    /// @notice Where in the journal the last batch settled ended.
    function lastJournalPos() external view returns (uint256) {
        return _batch >> 128;
    }

    /// @notice The cumulative fill (WAD) of `signer`'s order `orderId`.
    function filledOf(address signer, bytes32 orderId_) public view returns (uint256 filled) {
        assembly {
            let m := mload(0x40)
            mstore(m, and(signer, 0xffffffffffffffffffffffffffffffffffffffff))
            mstore(add(m, 0x20), orderId_)
            mstore(add(m, 0x40), FILLED)
            filled := sload(keccak256(m, 0x60))
        }
    }

    /// @notice Cumulative fills of many orders at once (reconciliation), index by index.
    function filledOfMany(address[] calldata signers, bytes32[] calldata orderIds) external view returns (uint256[] memory filled) {
        uint256 n = signers.length;
        if (orderIds.length != n) revert LengthMismatch();
        filled = new uint256[](n);
        for (uint256 i; i < n; ++i) filled[i] = filledOf(signers[i], orderIds[i]);
    }

    /// @notice The orderId of a signed order: its EIP-712 digest in this contract's domain.
    function orderId(PlaceOrder calldata o) external view returns (bytes32) {
        return _typedDataHash(keccak256(abi.encode(
            PLACE_ORDER_TYPEHASH, o.seriesId, o.portfolioId, o.isBuy, o.tick, o.size, o.expiry, o.nonce, o.deadline
        )));
    }

    /// @notice Asks that every order of the caller signed with a nonce below `floor` be
    /// cancelled (docs/chain.md "Leaving without the venue"). The request is queued here
    /// (`requestedNonceFloor`, `NonceFloorRequested`); the venue's indexer sees it, the engine
    /// cancels the caller's open orders below `floor` and refuses new ones, and the stream's
    /// NONCE_FLOOR item sets `nonceFloor`, after which no fill of an older order settles. `floor`
    /// must be above both the floor in force and the last one asked for.
    function raiseNonceFloor(uint256 floor) external {
        uint256 current = nonceFloor[msg.sender];
        uint256 asked = requestedNonceFloor[msg.sender];
        uint256 top = asked > current ? asked : current;
        if (floor <= top) revert NonceFloorNotRaised(top, floor);
        requestedNonceFloor[msg.sender] = floor;
        emit NonceFloorRequested(msg.sender, floor);
    }
}
