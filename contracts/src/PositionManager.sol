// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {StreamItems} from "./StreamItems.sol";
import {CalldataReader as C} from "./CalldataReader.sol";
import {NotOrderBook, ValueOutOfRange, BadItem} from "./StreamErrors.sol";

/// @title Positions per `(owner, portfolioId, seriesId)` and the market-maker flags (docs/chain.md "Accounts").
/// @notice A position is its signed balance (WAD contracts, + long) and its deferred premium
/// (COLLATERAL6, signed), both int128, in one slot. They move only through the order book's
/// ledger, with the venue's own arithmetic (engine/actors/position.ts, docs/engine.md
/// "Positions"): a fill that reduces a position realises the closed fraction of its deferred
/// premium plus the closing part of the fill's premium, each truncated toward zero; at expiry a
/// position is paid `balance x intrinsic / 10^30` (truncated toward zero) plus its premium.
contract PositionManager {
    /// Storage slot of a position: keccak256(owner, portfolioId, seriesId), a preimage of three
    /// words that no Solidity mapping slot has.

    /// @notice The order book, the only caller of the functions that apply items.
    address public immutable orderBook;

    /// @notice Whether an account is a market maker (MMM): it may trade in portfolio 0.
    mapping(address => bool) public isMmm;
    /// @notice The sum of every position's deferred premium (COLLATERAL6).
    int256 public totalPremium;

    event MmmSet(address indexed account, bool isMmm);
    event PositionSettled(
        address indexed owner, uint256 indexed portfolioId, bytes32 indexed seriesId, int256 balance, int256 payout
    );

    error LengthMismatch();

    constructor(address orderBook_) {
        orderBook = orderBook_;
    }

    /// @notice The signed balance of a position (WAD contracts, + long).
    function positionOf(address owner, uint256 portfolioId, bytes32 seriesId) external view returns (int256 position) {
        uint256 v = _load(owner, portfolioId, seriesId);
        assembly {
            position := sar(128, v)
        }
    }

    /// @notice The deferred premium of a position (COLLATERAL6, + owed to the owner).
    function premiumOf(address owner, uint256 portfolioId, bytes32 seriesId) external view returns (int256 premium) {
        uint256 v = _load(owner, portfolioId, seriesId);
        assembly {
            premium := signextend(15, v)
        }
    }

    /// @notice Balances and premiums of many positions at once (reconciliation); the three
    /// arrays are read together, index by index.
    function positionsOf(address[] calldata owners, uint256[] calldata portfolioIds, bytes32[] calldata seriesIds)
        external
        view
        returns (int256[] memory balances, int256[] memory premiums)
    {
        uint256 n = owners.length;
        if (portfolioIds.length != n || seriesIds.length != n) revert LengthMismatch();
        balances = new int256[](n);
        premiums = new int256[](n);
        for (uint256 i; i < n; ++i) {
            uint256 v = _load(owners[i], portfolioIds[i], seriesIds[i]);
            int256 b;
            int256 p;
            assembly {
                b := sar(128, v)
                p := signextend(15, v)
            }
            balances[i] = b;
            premiums[i] = p;
        }
    }

    /// @notice MMM: sets or clears a market maker flag.
    function setMmm(uint256, address account, bool flag) external {
        if (msg.sender != orderBook) revert NotOrderBook(msg.sender);
        isMmm[account] = flag;
        emit MmmSet(account, flag);
    }

    /// @notice Applies a batch's ledger (StreamItems) in order: moves positions, settles them, and
    /// returns the cash entries for the vault with the fees (paid to the fees account) and the
    /// settlement imbalance (docs/chain.md "Solvency") the batch adds.
    function applyLedger(bytes calldata ledger) external returns (int256 fees, int256 imbalance, bytes memory cash) {
        if (msg.sender != orderBook) revert NotOrderBook(msg.sender);
        cash = new bytes(ledger.length);
        uint256 w;
        assembly {
            w := add(cash, 32)
        }
        int256 premiumDelta;
        uint256 p = C.offsetOf(ledger);
        uint256 end = p + ledger.length;
        while (p < end) {
            uint256 head;
            assembly {
                head := calldataload(p)
            }
            uint256 tag = head >> 248;
            if (tag == StreamItems.TAG_POSITION) {
                (int256 realizedLessFee, int256 fee, int256 dPremium) = _move(head, p);
                unchecked {
                    fees += fee;
                    premiumDelta += dPremium;
                }
                if (realizedLessFee != 0) w = _delta(w, head, realizedLessFee);
                p += StreamItems.POSITION_ENTRY_LENGTH;
            } else if (tag == StreamItems.TAG_SETTLE) {
                (int256 payout, int256 value, int256 premium) = _settle(head, p);
                unchecked {
                    imbalance += value;
                    premiumDelta -= premium;
                }
                if (payout != 0) w = _delta(w, head, payout);
                p += StreamItems.SETTLE_ENTRY_LENGTH;
            } else {
                uint256 len = StreamItems.cashItemLength(tag) + 3;
                if (len == 3) revert BadItem(uint24(head >> 224), tag);
                assembly {
                    calldatacopy(w, p, len)
                }
                w += len;
                p += len;
            }
        }
        assembly {
            mstore(cash, sub(sub(w, cash), 32))
            mstore(0x40, add(cash, and(add(sub(w, cash), 31), not(31))))
        }
        if (premiumDelta != 0) totalPremium += premiumDelta;
    }

    /// A POSITION entry: the position moves by `qty` for `flow` (engine/actors/position.ts
    /// splitInBigint); returns the cash it realises less the fee, the fee, and the premium change.
    function _move(uint256 head, uint256 p) private returns (int256 cashDelta, int256 fee, int256 premiumDelta) {
        uint256 slot = _slotOf(head, p);
        bool ok;
        assembly {
            let v := sload(slot)
            let before := sar(128, v)
            let premium := signextend(15, v)
            let qf := calldataload(add(p, 64))
            let qty := sar(128, qf)
            let flow := signextend(15, qf)
            fee := sar(128, calldataload(add(p, 96)))
            let after := add(before, qty)
            let kept := 0
            let realized := 0
            // Reducing: a position held, and the fill on its other side.
            switch and(iszero(iszero(before)), iszero(eq(sgt(before, 0), sgt(qty, 0))))
            case 0 { kept := add(premium, flow) }
            default {
                let absBefore := before
                if slt(before, 0) { absBefore := sub(0, before) }
                let absQty := qty
                if slt(qty, 0) { absQty := sub(0, qty) }
                let closed := absQty
                if lt(absBefore, absQty) { closed := absBefore }
                let released := premium
                if iszero(eq(closed, absBefore)) { released := sdiv(mul(premium, closed), absBefore) }
                let flowClosing := flow
                if iszero(eq(closed, absQty)) { flowClosing := sdiv(mul(flow, closed), absQty) }
                realized := add(released, flowClosing)
                kept := add(sub(premium, released), sub(flow, flowClosing))
            }
            // Both figures within int128.
            ok := and(eq(signextend(15, after), after), eq(signextend(15, kept), kept))
            sstore(slot, or(shl(128, after), and(kept, 0xffffffffffffffffffffffffffffffff)))
            premiumDelta := sub(kept, premium)
            cashDelta := sub(realized, fee)
        }
        if (!ok) revert ValueOutOfRange(uint24(head >> 224));
    }

    /// A SETTLE entry: pays the position `balance x intrinsic / 10^30 + premium` and removes it;
    /// returns the payout, its intrinsic part and the premium it held.
    function _settle(uint256 head, uint256 p) private returns (int256 payout, int256 value, int256 premium) {
        uint256 slot = _slotOf(head, p);
        int256 held;
        assembly {
            let v := sload(slot)
            held := sar(128, v)
            premium := signextend(15, v)
            // |held| < 2^127 and intrinsic < 2^128 (the oracle's bound): the product fits.
            value := sdiv(mul(held, calldataload(add(p, 64))), 1000000000000000000000000000000)
            payout := add(value, premium)
            if v { sstore(slot, 0) }
        }
        if (held != 0 || premium != 0) {
            emit PositionSettled(address(uint160(head >> 64)), uint64(head), C.word32(p + 32), held, payout);
        }
    }

    /// Writes a DELTA entry for the account of `head` at `w`; returns the next write position.
    function _delta(uint256 w, uint256 head, int256 amount) private pure returns (uint256) {
        assembly {
            mstore(w, or(and(head, 0x00ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff), shl(248, 0x01)))
            mstore(add(w, 32), amount)
        }
        return w + StreamItems.DELTA_ENTRY_LENGTH;
    }

    function _slotOf(uint256 head, uint256 p) private pure returns (uint256 slot) {
        assembly {
            let m := mload(0x40)
            mstore(m, and(shr(64, head), 0xffffffffffffffffffffffffffffffffffffffff))
            mstore(add(m, 32), and(head, 0xffffffffffffffff))
            mstore(add(m, 64), calldataload(add(p, 32)))
            slot := keccak256(m, 96)
        }
    }

    function _load(address owner, uint256 portfolioId, bytes32 seriesId) private view returns (uint256 v) {
        assembly {
            let m := mload(0x40)
            mstore(m, and(owner, 0xffffffffffffffffffffffffffffffffffffffff))
            mstore(add(m, 32), portfolioId)
            mstore(add(m, 64), seriesId)
            v := sload(keccak256(m, 96))
        }
    }
}
