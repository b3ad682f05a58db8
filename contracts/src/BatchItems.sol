// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {BookFills} from "./BookFills.sol";
import {StreamItems} from "./StreamItems.sol";
import {CalldataReader as C} from "./CalldataReader.sol";
import {IPositionManager, ICollateralVault, IOracle, ISeriesRegistry} from "./Interfaces.sol";
import {BadItem, NotSettled, NonceFloorNotIncreasing} from "./StreamErrors.sol";

/// @title One batch of the settlement stream, item by item (docs/chain.md "Items").
/// @notice A first pass checks that the items are whole and of known kinds (`BadItem`) and
/// counts the orders and the ledger bytes, so that the batch's memory is laid out once: the
/// context, the series cache, the order records, the ledger. A second pass applies the items
/// in order: listings, prices, flags and nonces at once (their contracts), fills and cash
/// through the ledger, which goes to the position manager and then, as cash entries, to the
/// vault in one call each at the end of the batch.
abstract contract BatchItems is BookFills {
    /// @notice The vault holding collateral and cash.
    ICollateralVault public immutable collateralVault;
    /// @notice The oracle holding settlement prices.
    IOracle public immutable oracle;

    constructor(address collateralVault_, address oracle_) {
        collateralVault = ICollateralVault(collateralVault_);
        oracle = IOracle(oracle_);
    }

    /// Applies the items at `[p, p + length)` of calldata; returns the number of fills.
    function _process(uint256 p, uint256 length, uint256 matchTime) internal returns (uint256 fills) {
        uint256 end = p + length;
        (uint256 orders, uint256 ledgerBytes) = _scan(p, end);
        uint256 ctx;
        uint256 ledger;
        assembly {
            ctx := mload(0x40)
            let cache := add(ctx, CTX_SIZE)
            let records := add(cache, mul(CACHE_CAPACITY, CACHE_ENTRY))
            ledger := add(records, mul(orders, ORDER_RECORD))
            mstore(add(ctx, CTX_MATCH_TIME), matchTime)
            mstore(add(ctx, CTX_ORDERS), records)
            mstore(add(ctx, CTX_ORDER_COUNT), 0)
            // The ledger's call header: selector at +28, offset at +32, length at +64; entries from +96.
            mstore(add(ctx, CTX_LEDGER), add(ledger, 0x60))
            mstore(add(ctx, CTX_CACHE), cache)
            mstore(add(ctx, CTX_CACHE_COUNT), 0)
            mstore(add(ctx, CTX_FILLS), 0)
            mstore(add(ctx, CTX_SETTLED_SERIES), 0)
            mstore(add(ctx, CTX_ERROR), 0)
            // Room for the position manager's reply, which is at most the ledger plus 0xa0.
            mstore(0x40, add(add(ledger, 0x60), add(ledgerBytes, 0x100)))
        }
        _stage(ctx);
        uint256 item;
        while (p < end) {
            (p, item) = _bookItems(ctx, p, end, item);
            _raise(ctx, item);
            if (p >= end) break;
            uint256 kind = C.u8(p);
            (uint256 len, ) = StreamItems.lengths(kind);
            _other(ctx, p, item, kind, len);
            p += len;
            unchecked {
                ++item;
            }
        }
        _flush(ctx, ledger);
        assembly {
            fills := mload(add(ctx, CTX_FILLS))
        }
    }

    /// What the assembly loop reads of the contract, into the context.
    function _stage(uint256 ctx) private view {
        bytes32 separator = _domainSeparator;
        uint256 rate = takerFeeCapRate;
        address pm = address(positionManager);
        address registry = address(seriesRegistry);
        bytes4 isMmm = IPositionManager.isMmm.selector;
        bytes4 seriesInfo = ISeriesRegistry.seriesInfo.selector;
        assembly {
            mstore(add(ctx, CTX_SEPARATOR), separator)
            mstore(add(ctx, CTX_FEE_CAP_RATE), rate)
            mstore(add(ctx, CTX_POSITION_MANAGER), pm)
            mstore(add(ctx, CTX_REGISTRY), registry)
            mstore(add(ctx, CTX_FLOOR_SLOT), nonceFloor.slot)
            mstore(add(ctx, CTX_IS_MMM), isMmm)
            mstore(add(ctx, CTX_SERIES_INFO), seriesInfo)
            mstore(add(ctx, CTX_FILTER_SLOT), _floorFilter.slot)
            mstore(add(ctx, CTX_FILTER_LOADED), 0)
        }
    }

    /// The first pass: every item whole and of a known kind; the number of ORDER items and of
    /// ledger bytes. ORDER and FILL are looked at first; the other kinds by StreamItems.lengths.
    function _scan(uint256 p, uint256 end) private pure returns (uint256 orders, uint256 ledgerBytes) {
        uint256 item;
        while (p < end) {
            uint256 kind;
            assembly {
                for {} lt(p, end) {} {
                    kind := byte(0, calldataload(p))
                    switch kind
                    case 0x01 {
                        orders := add(orders, 1)
                        p := add(p, 215)
                    }
                    case 0x02 {
                        ledgerBytes := add(ledgerBytes, 224)
                        p := add(p, 53)
                    }
                    default { break }
                    item := add(item, 1)
                }
            }
            // An ORDER or FILL cut by the end: the loop stepped past it.
            if (p > end) revert BadItem(item - 1, kind);
            if (p == end) break;
            (uint256 len, uint256 entry) = StreamItems.lengths(kind);
            if (len == 0) revert BadItem(item, kind);
            ledgerBytes += entry;
            p += len;
            if (p > end) revert BadItem(item, kind);
            unchecked {
                ++item;
            }
        }
    }

    /// Every kind but ORDER and FILL.
    function _other(uint256 ctx, uint256 p, uint256 item, uint256 kind, uint256 len) private {
        if (kind >= StreamItems.DEPOSIT && kind <= StreamItems.FORCED_WITHDRAW) {
            // A cash item goes to the vault as it is, after its index.
            assembly {
                let w := mload(add(ctx, CTX_LEDGER))
                mstore(w, or(shl(248, kind), shl(224, item)))
                calldatacopy(add(w, 4), add(p, 1), sub(len, 1))
                mstore(add(ctx, CTX_LEDGER), add(w, add(len, 3)))
            }
        } else if (kind == StreamItems.LIQUIDATION_FILL) {
            _liquidationFill(ctx, p, item);
        } else if (kind == StreamItems.FUND_FILL) {
            _fundFill(ctx, p, item);
        } else if (kind == StreamItems.RFQ_FILL) {
            _rfqFill(ctx, p, item);
        } else if (kind == StreamItems.SETTLE_POSITION) {
            _settlePosition(ctx, p, item);
        } else if (kind == StreamItems.MMM_NONCE) {
            rfq.setMmmNonce(item, C.addr(p + 1), C.word(p + 21));
        } else if (kind == StreamItems.NONCE_FLOOR) {
            _nonceFloor(ctx, item, C.addr(p + 1), C.word(p + 21));
        } else if (kind == StreamItems.PAIR) {
            seriesRegistry.listPair(item, C.word32(p + 1), C.u8(p + 33));
        } else if (kind == StreamItems.SERIES) {
            seriesRegistry.listSeries(item, C.word32(p + 1), C.word(p + 33), C.u64(p + 65), _bool(p + 73, item, kind));
        } else if (kind == StreamItems.MMM) {
            positionManager.setMmm(item, C.addr(p + 1), _bool(p + 21, item, kind));
        } else if (kind == StreamItems.SETTLEMENT_PRICE) {
            oracle.postSettlementPrice(
                item, _matchTime(ctx), C.word32(p + 1), C.u64(p + 33), C.word(p + 41), C.word32(p + 73), C.word32(p + 105), uint8(C.u8(p + 137))
            );
        } else if (kind == StreamItems.SERIES_SETTLED) {
            seriesRegistry.markSettled(item, C.word32(p + 1));
            assembly {
                mstore(add(ctx, CTX_CACHE_COUNT), 0)
                mstore(add(ctx, CTX_SETTLED_SERIES), 0)
            }
        }
    }

    /// NONCE_FLOOR: owner 20, floor 32. Raises the owner's floor (it must rise) and sets its bit
    /// of the filter; the batch's loaded filter words are dropped so that the orders after this
    /// item read them again.
    function _nonceFloor(uint256 ctx, uint256 item, address owner, uint256 floor) private {
        uint256 current = nonceFloor[owner];
        if (floor <= current) revert NonceFloorNotIncreasing(item, owner, current, floor);
        nonceFloor[owner] = floor;
        uint256 bit = uint160(owner) % (FILTER_WORDS * 256);
        _floorFilter[bit >> 8] |= 1 << (bit & 255);
        assembly {
            mstore(add(ctx, CTX_FILTER_LOADED), 0)
        }
        emit NonceFloorRaised(owner, floor);
    }

    /// SETTLE_POSITION at `p`: owner 20, portfolioId 8, seriesId 32; a SETTLE entry with the
    /// series' intrinsic value.
    function _settlePosition(uint256 ctx, uint256 p, uint256 item) private view {
        bytes32 series = C.word32(p + 29);
        uint256 intrinsic;
        bytes32 last;
        assembly {
            last := mload(add(ctx, CTX_SETTLED_SERIES))
            intrinsic := mload(add(ctx, CTX_SETTLED_INTRINSIC))
        }
        if (last != series || series == 0) {
            bool settled;
            (settled, intrinsic) = seriesRegistry.intrinsicOf(series);
            if (!settled) revert NotSettled(item, series);
            assembly {
                mstore(add(ctx, CTX_SETTLED_SERIES), series)
                mstore(add(ctx, CTX_SETTLED_INTRINSIC), intrinsic)
            }
        }
        assembly {
            let w := mload(add(ctx, CTX_LEDGER))
            // tag, item, then owner 20 and portfolioId 8 exactly as the item holds them.
            mstore(w, or(or(shl(248, 0x81), shl(224, item)), shr(32, calldataload(add(p, 1)))))
            mstore(add(w, 0x20), series)
            mstore(add(w, 0x40), intrinsic)
            mstore(add(ctx, CTX_LEDGER), add(w, 96))
        }
    }

    /// Hands the ledger to the position manager and its cash entries to the vault.
    function _flush(uint256 ctx, uint256 ledger) private {
        address pm = address(positionManager);
        address vault = address(collateralVault);
        uint256 applyLedger = uint32(IPositionManager.applyLedger.selector);
        uint256 applyCash = uint32(ICollateralVault.applyCash.selector);
        assembly {
            let len := sub(mload(add(ctx, CTX_LEDGER)), add(ledger, 0x60))
            if len {
                mstore(ledger, applyLedger)
                mstore(add(ledger, 0x20), 0x20)
                mstore(add(ledger, 0x40), len)
                if iszero(call(gas(), pm, 0, add(ledger, 28), add(0x44, len), 0, 0)) {
                    returndatacopy(0, 0, returndatasize())
                    revert(0, returndatasize())
                }
                // The reply, (fees, imbalance, cash entries) ABI-encoded, is applyCash's arguments.
                let size := returndatasize()
                mstore(ledger, applyCash)
                returndatacopy(add(ledger, 0x20), 0, size)
                if iszero(call(gas(), vault, 0, add(ledger, 28), add(4, size), 0, 0)) {
                    returndatacopy(0, 0, returndatasize())
                    revert(0, returndatasize())
                }
            }
        }
    }

    function _bool(uint256 p, uint256 item, uint256 kind) private pure returns (bool) {
        uint256 b = C.u8(p);
        if (b > 1) revert BadItem(item, kind);
        return b == 1;
    }
}
