// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {BatchFills} from "./BatchFills.sol";
import {
    BadItem, ValueOutOfRange, BadSignature, NotMmm, BelowNonceFloor, UnknownOrder, SeriesMismatch, SameSide, ZeroSize,
    PriceOutsideLimit, OrderExpired, DeadlinePassed, Overfilled, FeeAboveCap, UnknownSeries, SeriesSettled, SeriesExpired
} from "./StreamErrors.sol";

/// @title ORDER and FILL, the items of nearly every batch, in one assembly loop (docs/chain.md "Gas").
/// @notice The same checks, in the same order, as docs/chain.md's tables. A failed check leaves
/// an error code and its values at the batch context (CTX_ERROR) and stops the loop; `_raise`
/// reverts with the custom error. Signatures are recovered as OpenZeppelin's ECDSA.tryRecover
/// does (v 27 or 28, s in the lower half of the curve order), by the ecrecover precompile. The
/// loop reads what it needs of the contract (domain, fee cap, addresses) from the context.
abstract contract BookFills is BatchFills {
    uint256 private constant HALF_ORDER = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;
    /// SeriesInfo.LISTED and SeriesInfo.SETTLED.
    uint256 private constant LISTED = 0x2000000000000000000;
    uint256 private constant SETTLED = 0x4000000000000000000;

    uint256 private constant E_UNKNOWN_ORDER = 1;
    uint256 private constant E_SERIES_MISMATCH = 2;
    uint256 private constant E_SAME_SIDE = 3;
    uint256 private constant E_ZERO_SIZE = 4;
    uint256 private constant E_RANGE = 5;
    uint256 private constant E_PRICE = 6;
    uint256 private constant E_ORDER_EXPIRED = 7;
    uint256 private constant E_DEADLINE = 8;
    uint256 private constant E_OVERFILLED = 9;
    uint256 private constant E_FEE = 10;
    uint256 private constant E_SIGNATURE = 11;
    uint256 private constant E_NONCE_FLOOR = 12;
    uint256 private constant E_BAD_ITEM = 13;
    uint256 private constant E_NOT_MMM = 14;
    uint256 private constant E_UNKNOWN_SERIES = 15;
    uint256 private constant E_SERIES_SETTLED = 16;
    uint256 private constant E_SERIES_EXPIRED = 17;

    /// Applies the consecutive ORDER and FILL items from `p` (item number `item`); returns where
    /// it stopped: `end`, another kind of item, or an item that failed a check (CTX_ERROR set).
    function _bookItems(uint256 ctx, uint256 p, uint256 end, uint256 item) internal returns (uint256, uint256) {
        assembly {
            function fail(context, code, x, y) {
                mstore(add(context, CTX_ERROR), code)
                mstore(add(context, add(CTX_ERROR, 0x20)), x)
                mstore(add(context, add(CTX_ERROR, 0x40)), y)
            }
            function bubble() {
                returndatacopy(0x00, 0x00, returndatasize())
                revert(0x00, returndatasize())
            }

            // ---- ORDER: owner 20, seriesId 32, portfolioId 8, isBuy 1, tick 4, size 16, expiry 4,
            // nonce 32, deadline 32, r 32, s 32, v 1 ----

            // The orderId: the EIP-712 digest of the PlaceOrder, hashed in memory at `m`.
            function orderIdOf(q, m, separator) -> id {
                mstore(m, PLACE_ORDER_TYPEHASH)
                mstore(add(m, 0x20), calldataload(add(q, 21))) // seriesId
                mstore(add(m, 0x40), shr(192, calldataload(add(q, 53)))) // portfolioId
                mstore(add(m, 0x60), byte(0, calldataload(add(q, 61)))) // isBuy
                mstore(add(m, 0x80), shr(224, calldataload(add(q, 62)))) // tick
                mstore(add(m, 0xa0), shr(128, calldataload(add(q, 66)))) // size
                mstore(add(m, 0xc0), shr(224, calldataload(add(q, 82)))) // expiry
                mstore(add(m, 0xe0), calldataload(add(q, 86))) // nonce
                mstore(add(m, 0x100), calldataload(add(q, 118))) // deadline
                let structHash := keccak256(m, 0x120)
                mstore(m, 0x1901000000000000000000000000000000000000000000000000000000000000)
                mstore(add(m, 0x02), separator)
                mstore(add(m, 0x22), structHash)
                id := keccak256(m, 0x42)
            }
            // The signer of `id` by the item's r, s, v: none unless v is 27 or 28 and s is low.
            function signerOf(q, m, id) -> signer {
                let v := byte(0, calldataload(add(q, 214)))
                let s := calldataload(add(q, 182))
                if and(or(eq(v, 27), eq(v, 28)), iszero(gt(s, HALF_ORDER))) {
                    mstore(m, id)
                    mstore(add(m, 0x20), v)
                    mstore(add(m, 0x40), calldataload(add(q, 150)))
                    mstore(add(m, 0x60), s)
                    mstore(0x00, 0)
                    pop(staticcall(gas(), 0x01, m, 0x80, 0x00, 0x20))
                    signer := mload(0x00)
                }
            }
            // Whether `owner`'s bit of the nonce-floor filter is set; its word read once a batch.
            function floorRaised(context, owner) -> raised {
                let bit := and(owner, 1023)
                let word := shr(8, bit)
                let at := add(add(context, CTX_FILTER), shl(5, word))
                let loaded := mload(add(context, CTX_FILTER_LOADED))
                let f := 0
                switch and(shr(word, loaded), 1)
                case 0 {
                    f := sload(add(mload(add(context, CTX_FILTER_SLOT)), word))
                    mstore(at, f)
                    mstore(add(context, CTX_FILTER_LOADED), or(loaded, shl(word, 1)))
                }
                default { f := mload(at) }
                raised := and(shr(and(bit, 255), f), 1)
            }
            // Verifies an ORDER and records it as the batch's next order: [item offset, orderId,
            // the slot of its cumulative fill].
            function declare(context, q) -> bad {
                let owner := shr(96, calldataload(add(q, 1)))
                if gt(byte(0, calldataload(add(q, 61))), 1) {
                    fail(context, E_BAD_ITEM, 0x01, 0)
                    bad := 1
                    leave
                }
                let m := mload(0x40)
                let id := orderIdOf(q, m, mload(add(context, CTX_SEPARATOR)))
                let signer := signerOf(q, m, id)
                if iszero(eq(signer, owner)) {
                    fail(context, E_SIGNATURE, owner, signer)
                    bad := 1
                    leave
                }
                // Portfolio 0 only for a market maker.
                if iszero(shr(192, calldataload(add(q, 53)))) {
                    mstore(m, mload(add(context, CTX_IS_MMM)))
                    mstore(add(m, 0x04), owner)
                    if iszero(staticcall(gas(), mload(add(context, CTX_POSITION_MANAGER)), m, 0x24, 0x00, 0x20)) { bubble() }
                    if iszero(mload(0x00)) {
                        fail(context, E_NOT_MMM, owner, 0)
                        bad := 1
                        leave
                    }
                }
                if floorRaised(context, owner) {
                    mstore(0x00, owner)
                    mstore(0x20, mload(add(context, CTX_FLOOR_SLOT)))
                    let floor := sload(keccak256(0x00, 0x40))
                    let nonce := calldataload(add(q, 86))
                    if lt(nonce, floor) {
                        fail(context, E_NONCE_FLOOR, owner, nonce)
                        mstore(add(context, add(CTX_ERROR, 0x60)), floor)
                        bad := 1
                        leave
                    }
                }
                let k := mload(add(context, CTX_ORDER_COUNT))
                let rec := add(mload(add(context, CTX_ORDERS)), mul(k, ORDER_RECORD))
                mstore(rec, q)
                mstore(add(rec, 0x20), id)
                mstore(m, owner)
                mstore(add(m, 0x20), id)
                mstore(add(m, 0x40), FILLED)
                mstore(add(rec, 0x40), keccak256(m, 0x60))
                mstore(add(context, CTX_ORDER_COUNT), add(k, 1))
            }

            // ---- FILL: maker 2, taker 2, size 16, makerFee 16 (signed), takerFee 16 (signed) ----

            // The record of order number `index` (declared before this item), or 0.
            function recordOf(context, index) -> rec {
                if lt(index, mload(add(context, CTX_ORDER_COUNT))) {
                    rec := add(mload(add(context, CTX_ORDERS)), mul(index, ORDER_RECORD))
                }
            }
            // The WAD value of a tick of a live series (listed, not settled, match time before
            // its expiry), from the cache or the registry; 0 when it is not live (error set).
            function tickValueOf(context, series) -> tv {
                let e := mload(add(context, CTX_CACHE))
                let count := mload(add(context, CTX_CACHE_COUNT))
                let free := add(e, mul(count, CACHE_ENTRY))
                for {} lt(e, free) { e := add(e, CACHE_ENTRY) } {
                    if eq(mload(e), series) {
                        tv := mload(add(e, 0x40))
                        leave
                    }
                }
                let m := mload(0x40)
                mstore(m, mload(add(context, CTX_SERIES_INFO)))
                mstore(add(m, 0x04), series)
                if iszero(staticcall(gas(), mload(add(context, CTX_REGISTRY)), m, 0x24, 0x00, 0x20)) { bubble() }
                let info := mload(0x00)
                if iszero(and(info, LISTED)) {
                    fail(context, E_UNKNOWN_SERIES, series, 0)
                    leave
                }
                if and(info, SETTLED) {
                    fail(context, E_SERIES_SETTLED, series, 0)
                    leave
                }
                let expiry := and(info, 0xffffffffffffffff)
                if iszero(lt(mload(add(context, CTX_MATCH_TIME)), expiry)) {
                    fail(context, E_SERIES_EXPIRED, series, expiry)
                    leave
                }
                tv := exp(10, sub(18, and(shr(64, info), 0xff)))
                // Cached: the next free entry, or the last one once the cache is full.
                if iszero(lt(count, CACHE_CAPACITY)) {
                    count := sub(CACHE_CAPACITY, 1)
                    free := add(mload(add(context, CTX_CACHE)), mul(count, CACHE_ENTRY))
                }
                mstore(free, series)
                mstore(add(free, 0x20), info)
                mstore(add(free, 0x40), tv)
                mstore(add(context, CTX_CACHE_COUNT), add(count, 1))
            }
            // The maker's tick is the price, the taker's its limit: a buyer's at least the price,
            // a seller's at most it.
            function priceOf(context, makerRec, takerRec, tv) -> price, bad {
                price := mul(shr(224, calldataload(add(mload(makerRec), 62))), tv)
                let limit := mul(shr(224, calldataload(add(mload(takerRec), 62))), tv)
                let takerBuys := byte(0, calldataload(add(mload(takerRec), 61)))
                bad := or(and(takerBuys, lt(limit, price)), and(iszero(takerBuys), gt(limit, price)))
                if bad { fail(context, E_PRICE, price, limit) }
            }
            // Both orders' good-till times after the match time, the taker's deadline not before it.
            function timesBad(context, makerRec, takerRec) -> bad {
                let matchTime := mload(add(context, CTX_MATCH_TIME))
                let t := shr(224, calldataload(add(mload(makerRec), 82)))
                if iszero(lt(matchTime, t)) {
                    fail(context, E_ORDER_EXPIRED, mload(add(makerRec, 0x20)), t)
                    bad := 1
                    leave
                }
                t := shr(224, calldataload(add(mload(takerRec), 82)))
                if iszero(lt(matchTime, t)) {
                    fail(context, E_ORDER_EXPIRED, mload(add(takerRec, 0x20)), t)
                    bad := 1
                    leave
                }
                t := calldataload(add(mload(takerRec), 118))
                if gt(matchTime, t) {
                    fail(context, E_DEADLINE, mload(add(takerRec, 0x20)), t)
                    bad := 1
                }
            }
            // Adds `size` to an order's cumulative fill, at most its signed size.
            function addFill(context, rec, size) -> bad {
                let slot := mload(add(rec, 0x40))
                let filled := add(sload(slot), size)
                let signed := shr(128, calldataload(add(mload(rec), 66)))
                bad := gt(filled, signed)
                switch bad
                case 0 { sstore(slot, filled) }
                default {
                    fail(context, E_OVERFILLED, mload(add(rec, 0x20)), filled)
                    mstore(add(context, add(CTX_ERROR, 0x60)), signed)
                }
            }
            // 0 <= takerFee <= cap and -cap <= makerFee <= cap, cap = premium x rate / 10^18.
            function feesBad(context, q, premium) -> bad {
                let cap := div(mul(premium, mload(add(context, CTX_FEE_CAP_RATE))), WAD)
                let fee := sar(128, calldataload(add(q, 37)))
                if or(slt(fee, 0), sgt(fee, cap)) {
                    fail(context, E_FEE, fee, cap)
                    bad := 1
                    leave
                }
                fee := sar(128, calldataload(add(q, 21)))
                if or(sgt(fee, cap), slt(fee, sub(0, cap))) {
                    fail(context, E_FEE, fee, cap)
                    bad := 1
                }
            }
            // A POSITION entry at `w` for the owner and portfolio of the ORDER at `q`.
            function entry(w, tagItem, q, qtyFlow, fee) {
                mstore(w, or(tagItem, or(shl(64, shr(96, calldataload(add(q, 1)))), shr(192, calldataload(add(q, 53))))))
                mstore(add(w, 0x20), calldataload(add(q, 21)))
                mstore(add(w, 0x40), qtyFlow)
                mstore(add(w, 0x60), shl(128, fee))
            }
            // The two POSITION entries, the buyer's first (engine/flows/fill.ts moves it first).
            function book(context, q, tagItem, makerRec, takerRec, premium) {
                let w := mload(add(context, CTX_LEDGER))
                mstore(add(context, CTX_LEDGER), add(w, 0xe0))
                let size := shr(128, calldataload(add(q, 5)))
                let bought := or(shl(128, size), and(sub(0, premium), 0xffffffffffffffffffffffffffffffff))
                let sold := or(shl(128, sub(0, size)), premium)
                switch byte(0, calldataload(add(mload(takerRec), 61)))
                case 0 {
                    entry(w, tagItem, mload(makerRec), bought, sar(128, calldataload(add(q, 21))))
                    entry(add(w, 0x70), tagItem, mload(takerRec), sold, sar(128, calldataload(add(q, 37))))
                }
                default {
                    entry(w, tagItem, mload(takerRec), bought, sar(128, calldataload(add(q, 37))))
                    entry(add(w, 0x70), tagItem, mload(makerRec), sold, sar(128, calldataload(add(q, 21))))
                }
            }
            // The checks after the series', the cumulative fills, the entries.
            function trade(context, q, index, makerRec, takerRec, tv) -> bad {
                bad := 1
                let size := shr(128, calldataload(add(q, 5)))
                if iszero(size) {
                    fail(context, E_ZERO_SIZE, 0, 0)
                    leave
                }
                if shr(127, size) {
                    fail(context, E_RANGE, 0, 0)
                    leave
                }
                let price, priceBad := priceOf(context, makerRec, takerRec, tv)
                if priceBad { leave }
                if timesBad(context, makerRec, takerRec) { leave }
                if addFill(context, makerRec, size) { leave }
                if addFill(context, takerRec, size) { leave }
                let premium := div(mul(size, price), E30)
                if feesBad(context, q, premium) { leave }
                book(context, q, or(shl(248, 0x80), shl(224, index)), makerRec, takerRec, premium)
                mstore(add(context, CTX_FILLS), add(mload(add(context, CTX_FILLS)), 1))
                bad := 0
            }
            function fill(context, q, index) -> bad {
                bad := 1
                let mi := shr(240, calldataload(add(q, 1)))
                let makerRec := recordOf(context, mi)
                if iszero(makerRec) {
                    fail(context, E_UNKNOWN_ORDER, mi, 0)
                    leave
                }
                let ti := shr(240, calldataload(add(q, 3)))
                let takerRec := recordOf(context, ti)
                if iszero(takerRec) {
                    fail(context, E_UNKNOWN_ORDER, ti, 0)
                    leave
                }
                let series := calldataload(add(mload(makerRec), 21))
                let takerSeries := calldataload(add(mload(takerRec), 21))
                if iszero(eq(series, takerSeries)) {
                    fail(context, E_SERIES_MISMATCH, series, takerSeries)
                    leave
                }
                if eq(byte(0, calldataload(add(mload(makerRec), 61))), byte(0, calldataload(add(mload(takerRec), 61)))) {
                    fail(context, E_SAME_SIDE, 0, 0)
                    leave
                }
                let tv := tickValueOf(context, series)
                if iszero(tv) { leave }
                bad := trade(context, q, index, makerRec, takerRec, tv)
            }

            for {} lt(p, end) {} {
                switch byte(0, calldataload(p))
                case 0x01 {
                    if declare(ctx, p) { break }
                    p := add(p, 215)
                }
                case 0x02 {
                    if fill(ctx, p, item) { break }
                    p := add(p, 53)
                }
                default { break }
                item := add(item, 1)
            }
        }
        return (p, item);
    }

    /// Raises the error the loop left at the context, if any.
    function _raise(uint256 ctx, uint256 item) internal pure {
        uint256 code;
        uint256 a;
        uint256 b;
        uint256 c;
        assembly {
            code := mload(add(ctx, CTX_ERROR))
            a := mload(add(ctx, add(CTX_ERROR, 0x20)))
            b := mload(add(ctx, add(CTX_ERROR, 0x40)))
            c := mload(add(ctx, add(CTX_ERROR, 0x60)))
        }
        if (code == 0) return;
        if (code == E_UNKNOWN_ORDER) revert UnknownOrder(item, a);
        if (code == E_SERIES_MISMATCH) revert SeriesMismatch(item, bytes32(a), bytes32(b));
        if (code == E_SAME_SIDE) revert SameSide(item);
        if (code == E_ZERO_SIZE) revert ZeroSize(item);
        if (code == E_RANGE) revert ValueOutOfRange(item);
        if (code == E_PRICE) revert PriceOutsideLimit(item, a, b);
        if (code == E_ORDER_EXPIRED) revert OrderExpired(item, bytes32(a), b);
        if (code == E_DEADLINE) revert DeadlinePassed(item, bytes32(a), b);
        if (code == E_OVERFILLED) revert Overfilled(item, bytes32(a), b, c);
        if (code == E_FEE) revert FeeAboveCap(item, int256(a), b);
        if (code == E_SIGNATURE) revert BadSignature(item, address(uint160(a)), address(uint160(b)));
        if (code == E_NONCE_FLOOR) revert BelowNonceFloor(item, address(uint160(a)), b, c);
        if (code == E_NOT_MMM) revert NotMmm(item, address(uint160(a)));
        if (code == E_UNKNOWN_SERIES) revert UnknownSeries(item, bytes32(a));
        if (code == E_SERIES_SETTLED) revert SeriesSettled(item, bytes32(a));
        if (code == E_SERIES_EXPIRED) revert SeriesExpired(item, bytes32(a), b);
        revert BadItem(item, a);
    }
}
