// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {TypedDataDomain} from "./TypedDataDomain.sol";
import {SeriesInfo} from "./SeriesInfo.sol";
import {StreamItems} from "./StreamItems.sol";
import {CalldataReader as C} from "./CalldataReader.sol";
import {IPositionManager, ISeriesRegistry, IRfq, RfqTrade} from "./Interfaces.sol";
import {BadItem, ValueOutOfRange, UnknownOrder, ZeroSize, OrderExpired, Overfilled, FeeAboveCap} from "./StreamErrors.sol";

/// @title The order book's signed orders and fills within one batch (docs/chain.md, ORDER to RFQ_FILL).
/// @notice Items are read in place from calldata. A batch's working state lives in memory at a
/// context pointer `ctx` (the layout below); every ORDER is verified once and recorded by number,
/// fills name orders by that number, and every fill writes two POSITION entries to the ledger
/// (StreamItems) that the batch hands to the position manager at its end. Cumulative fills per
/// `(signer, orderId)` are kept in storage as they happen, so an order declared twice in a batch
/// still cannot fill beyond its signed size.
abstract contract BatchFills is TypedDataDomain {
    /// keccak256("PlaceOrder(bytes32 seriesId,uint256 portfolioId,bool isBuy,uint32 tick,uint128 size,uint32 expiry,uint256 nonce,uint256 deadline)")
    /// (docs/signatures.md), as a literal: assembly reads it.
    bytes32 public constant PLACE_ORDER_TYPEHASH = 0x59ccacfeaa66b9e175a7697adb1542c49cd1f9903d5a8362324a045d79fa16fb;

    /// Storage slot of a cumulative fill: keccak256(signer, orderId, FILLED).
    uint256 internal constant FILLED = 0xf111ed;
    uint256 internal constant E30 = 1e30;
    uint256 internal constant WAD = 1e18;

    // The batch context in memory, at `ctx`.
    uint256 internal constant CTX_MATCH_TIME = 0x00;
    uint256 internal constant CTX_ORDERS = 0x20; // the order records (ORDER_RECORD bytes each)
    uint256 internal constant CTX_ORDER_COUNT = 0x40;
    uint256 internal constant CTX_LEDGER = 0x60; // the ledger's write position
    uint256 internal constant CTX_CACHE = 0x80; // the series cache (CACHE_ENTRY bytes each)
    uint256 internal constant CTX_CACHE_COUNT = 0xa0;
    uint256 internal constant CTX_FILLS = 0xc0;
    uint256 internal constant CTX_SETTLED_SERIES = 0xe0; // the last series SETTLE_POSITION looked up
    uint256 internal constant CTX_SETTLED_INTRINSIC = 0x100;
    uint256 internal constant CTX_ERROR = 0x120; // an error code and its three values, left by assembly
    // What the assembly loop reads of the contract (BookFills).
    uint256 internal constant CTX_SEPARATOR = 0x1a0;
    uint256 internal constant CTX_FEE_CAP_RATE = 0x1c0;
    uint256 internal constant CTX_POSITION_MANAGER = 0x1e0;
    uint256 internal constant CTX_REGISTRY = 0x200;
    uint256 internal constant CTX_FLOOR_SLOT = 0x220;
    uint256 internal constant CTX_IS_MMM = 0x240; // the selector of isMmm(address), in the high bytes
    uint256 internal constant CTX_SERIES_INFO = 0x260; // the selector of seriesInfo(bytes32)
    uint256 internal constant CTX_FILTER_SLOT = 0x280; // the first slot of the nonce-floor filter
    uint256 internal constant CTX_FILTER_LOADED = 0x2a0; // which of its words are at CTX_FILTER (bits)
    uint256 internal constant CTX_FILTER = 0x2c0; // FILTER_WORDS words, loaded as needed
    uint256 internal constant CTX_SIZE = 0x340;
    /// An order record: the calldata offset of its ORDER item, its orderId, its fill's storage slot.
    uint256 internal constant ORDER_RECORD = 0x60;
    /// A series cache entry: seriesId, SeriesInfo word, the WAD value of a tick. Entries are
    /// only ever live series (at the batch's match time); SERIES_SETTLED empties the cache.
    uint256 internal constant CACHE_ENTRY = 0x60;
    uint256 internal constant CACHE_CAPACITY = 8;

    uint256 private constant INT128_LIMIT = 1 << 127;
    uint256 private constant PRICE_LIMIT = 1 << 128;
    uint256 private constant PORTFOLIO_LIMIT = 1 << 64;

    /// @notice The position manager (positions, market-maker flags).
    IPositionManager public immutable positionManager;
    /// @notice The series registry.
    ISeriesRegistry public immutable seriesRegistry;
    /// @notice The RFQ contract.
    IRfq public immutable rfq;
    /// @notice The fee cap per fill as a WAD fraction of its premium (12.5% = 125e15).
    uint256 public immutable takerFeeCapRate;
    /// @notice The insurance fund's wallet; its portfolio 1 is the fund.
    address public immutable insuranceFund;

    /// The nonce-floor filter: 1024 bits in FILTER_WORDS words, bit `uint160(owner) % 1024` set
    /// once `owner` has raised its floor. An ORDER reads its owner's floor only when that bit is
    /// set: a clear bit means the floor is zero, so the check is exact and most orders skip a
    /// cold storage read.
    uint256 internal constant FILTER_WORDS = 4;

    /// @notice The nonce below which an owner's orders are cancelled: the floor the venue took
    /// into the stream (a NONCE_FLOOR item) after the owner asked for it (`raiseNonceFloor`).
    mapping(address => uint256) public nonceFloor;
    uint256[FILTER_WORDS] internal _floorFilter;
    /// @notice The highest floor each owner asked for (`raiseNonceFloor`), taken in or not yet.
    mapping(address => uint256) public requestedNonceFloor;

    /// An owner asked for a nonce floor: the venue cancels its older orders and takes it in.
    event NonceFloorRequested(address indexed owner, uint256 floor);
    /// A NONCE_FLOOR item applied: fills of `owner`'s orders signed below `floor` now fail.
    event NonceFloorRaised(address indexed owner, uint256 floor);

    constructor(
        string memory serviceName,
        address domainAddress,
        address positionManager_,
        address seriesRegistry_,
        address rfq_,
        uint256 takerFeeCapRate_,
        address insuranceFund_
    ) TypedDataDomain(string.concat(serviceName, "OptionsOrderBook"), domainAddress) {
        positionManager = IPositionManager(positionManager_);
        seriesRegistry = ISeriesRegistry(seriesRegistry_);
        rfq = IRfq(rfq_);
        takerFeeCapRate = takerFeeCapRate_;
        insuranceFund = insuranceFund_;
    }

    /// LIQUIDATION_FILL at `p`: book 2, owner 20, portfolioId 8, size 16. The liquidated side is
    /// unsigned and takes the other side of the book order at its price; no fee.
    function _liquidationFill(uint256 ctx, uint256 p, uint256 item) internal {
        uint256 book = _record(ctx, C.u16(p + 1), item);
        uint256 bp = _at(book);
        uint256 tickValue = _live(ctx, C.word32(bp + 21), item);
        uint256 size = C.u128(p + 31);
        _checkSize(size, item);
        _goodTill(book, _matchTime(ctx), item);
        _addFill(book, size, item);
        uint256 premium = (size * C.u32(bp + 62) * tickValue) / E30;
        (address owner, uint256 portfolioId) = (C.addr(p + 3), C.u64(p + 23));
        if (C.u8(bp + 61) == 1) {
            _orderEntry(ctx, item, bp, int256(size), -int256(premium), 0);
            _entry(ctx, item, owner, portfolioId, C.word32(bp + 21), -int256(size), int256(premium), 0);
        } else {
            _entry(ctx, item, owner, portfolioId, C.word32(bp + 21), int256(size), -int256(premium), 0);
            _orderEntry(ctx, item, bp, -int256(size), int256(premium), 0);
        }
        _countFill(ctx);
    }

    /// FUND_FILL at `p`: owner 20, portfolioId 8, seriesId 32, isBuy 1, size 16, price 16. The
    /// insurance fund takes the other side of the liquidated portfolio at `price`; no fee.
    function _fundFill(uint256 ctx, uint256 p, uint256 item) internal view {
        bytes32 series = C.word32(p + 29);
        _live(ctx, series, item);
        uint256 isBuy = C.u8(p + 61);
        if (isBuy > 1) revert BadItem(item, StreamItems.FUND_FILL);
        uint256 size = C.u128(p + 62);
        _checkSize(size, item);
        uint256 premium = (size * C.u128(p + 78)) / E30;
        if (premium >= INT128_LIMIT) revert ValueOutOfRange(item);
        (address owner, uint256 portfolioId) = (C.addr(p + 1), C.u64(p + 21));
        if (isBuy == 1) {
            _entry(ctx, item, owner, portfolioId, series, int256(size), -int256(premium), 0);
            _entry(ctx, item, insuranceFund, 1, series, -int256(size), int256(premium), 0);
        } else {
            _entry(ctx, item, insuranceFund, 1, series, int256(size), -int256(premium), 0);
            _entry(ctx, item, owner, portfolioId, series, -int256(size), int256(premium), 0);
        }
        _countFill(ctx);
    }

    /// RFQ_FILL at `p` (docs/chain.md): the RFQ contract checks the quote and the fill; the
    /// market maker trades in `(mmm, 0)`, paying `makerFee`, the taker in its portfolio.
    function _rfqFill(uint256 ctx, uint256 p, uint256 item) internal {
        bytes calldata f;
        assembly {
            f.offset := p
            f.length := 609
        }
        RfqTrade memory t = rfq.applyFill(item, _matchTime(ctx), f);
        if (t.fillSize >= INT128_LIMIT || t.price >= PRICE_LIMIT || t.portfolioId >= PORTFOLIO_LIMIT) revert ValueOutOfRange(item);
        uint256 premium = (t.fillSize * t.price) / E30;
        if (premium >= INT128_LIMIT) revert ValueOutOfRange(item);
        int256 makerFee = C.i128(p + 577);
        int256 takerFee = C.i128(p + 593);
        _checkFees(item, premium, makerFee, takerFee);
        int256 size = int256(t.fillSize);
        if (t.takerIsBuying) {
            _entry(ctx, item, t.taker, t.portfolioId, t.seriesId, size, -int256(premium), takerFee);
            _entry(ctx, item, t.mmm, 0, t.seriesId, -size, int256(premium), makerFee);
        } else {
            _entry(ctx, item, t.mmm, 0, t.seriesId, size, -int256(premium), makerFee);
            _entry(ctx, item, t.taker, t.portfolioId, t.seriesId, -size, int256(premium), takerFee);
        }
        _countFill(ctx);
    }

    // ---- checks ----

    /// The WAD value of a tick of a live series (SeriesInfo.requireLive), through the cache.
    function _live(uint256 ctx, bytes32 series, uint256 item) internal view returns (uint256 tickValue) {
        uint256 entry;
        uint256 count;
        assembly {
            let base := mload(add(ctx, CTX_CACHE))
            count := mload(add(ctx, CTX_CACHE_COUNT))
            let end := add(base, mul(count, CACHE_ENTRY))
            for { let e := base } lt(e, end) { e := add(e, CACHE_ENTRY) } {
                if eq(mload(e), series) {
                    entry := e
                    break
                }
            }
            if entry { tickValue := mload(add(entry, 0x40)) }
        }
        if (entry != 0) return tickValue;
        uint256 info = seriesRegistry.seriesInfo(series);
        tickValue = SeriesInfo.requireLive(info, item, series, _matchTime(ctx));
        assembly {
            let slot := count
            if iszero(lt(count, CACHE_CAPACITY)) { slot := sub(CACHE_CAPACITY, 1) }
            let e := add(mload(add(ctx, CTX_CACHE)), mul(slot, CACHE_ENTRY))
            mstore(e, series)
            mstore(add(e, 0x20), info)
            mstore(add(e, 0x40), tickValue)
            if lt(count, CACHE_CAPACITY) { mstore(add(ctx, CTX_CACHE_COUNT), add(count, 1)) }
        }
    }

    function _checkSize(uint256 size, uint256 item) private pure {
        if (size == 0) revert ZeroSize(item);
        if (size >= INT128_LIMIT) revert ValueOutOfRange(item);
    }

    /// `0 <= takerFee <= cap` and `-cap <= makerFee <= cap`, `cap = premium x takerFeeCapRate / 10^18`.
    function _checkFees(uint256 item, uint256 premium, int256 makerFee, int256 takerFee) internal view {
        uint256 cap = (premium * takerFeeCapRate) / WAD;
        if (takerFee < 0 || uint256(takerFee) > cap) revert FeeAboveCap(item, takerFee, cap);
        if (makerFee > int256(cap) || makerFee < -int256(cap)) revert FeeAboveCap(item, makerFee, cap);
    }

    /// The order's good-till time (its signed `expiry`) is after the match time.
    function _goodTill(uint256 rec, uint256 matchTime, uint256 item) private pure {
        uint256 expiry = C.u32(_at(rec) + 82);
        if (matchTime >= expiry) revert OrderExpired(item, _orderId(rec), expiry);
    }

    /// Adds `size` to the order's cumulative fill, at most its signed size.
    function _addFill(uint256 rec, uint256 size, uint256 item) private {
        uint256 slot;
        uint256 filled;
        assembly {
            slot := mload(add(rec, 0x40))
            filled := add(sload(slot), size)
        }
        uint256 signed = C.u128(_at(rec) + 66);
        if (filled > signed) revert Overfilled(item, _orderId(rec), filled, signed);
        assembly {
            sstore(slot, filled)
        }
    }

    /// The record of order number `index` of the batch (declared before this item).
    function _record(uint256 ctx, uint256 index, uint256 item) private pure returns (uint256 rec) {
        uint256 count;
        assembly {
            count := mload(add(ctx, CTX_ORDER_COUNT))
            rec := add(mload(add(ctx, CTX_ORDERS)), mul(index, ORDER_RECORD))
        }
        if (index >= count) revert UnknownOrder(item, index);
    }

    // ---- the ledger ----

    /// A POSITION entry for the owner and portfolio of the ORDER item at `op`.
    function _orderEntry(uint256 ctx, uint256 item, uint256 op, int256 qty, int256 flow, int256 fee) private pure {
        _entry(ctx, item, C.addr(op + 1), C.u64(op + 53), C.word32(op + 21), qty, flow, fee);
    }

    /// A POSITION entry (StreamItems): tag, item, owner, portfolioId, seriesId, qty, flow, fee.
    function _entry(uint256 ctx, uint256 item, address owner, uint256 portfolioId, bytes32 series, int256 qty, int256 flow, int256 fee)
        internal
        pure
    {
        assembly {
            let w := mload(add(ctx, CTX_LEDGER))
            mstore(w, or(or(shl(248, 0x80), shl(224, item)), or(shl(64, and(owner, 0xffffffffffffffffffffffffffffffffffffffff)), and(portfolioId, 0xffffffffffffffff))))
            mstore(add(w, 0x20), series)
            mstore(add(w, 0x40), or(shl(128, qty), and(flow, 0xffffffffffffffffffffffffffffffff)))
            mstore(add(w, 0x60), shl(128, fee))
            mstore(add(ctx, CTX_LEDGER), add(w, 112))
        }
    }

    function _countFill(uint256 ctx) private pure {
        assembly {
            mstore(add(ctx, CTX_FILLS), add(mload(add(ctx, CTX_FILLS)), 1))
        }
    }

    // ---- reading ----

    function _matchTime(uint256 ctx) internal pure returns (uint256 t) {
        assembly {
            t := mload(add(ctx, CTX_MATCH_TIME))
        }
    }

    function _at(uint256 rec) private pure returns (uint256 p) {
        assembly {
            p := mload(rec)
        }
    }

    function _orderId(uint256 rec) private pure returns (bytes32 id) {
        assembly {
            id := mload(add(rec, 0x20))
        }
    }
}
