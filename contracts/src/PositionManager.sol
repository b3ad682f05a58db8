// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

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
        bytes32 settledTopic = PositionSettled.selector;
        int256 premiumDelta;
        uint256 failed;
        uint256 failedTag;
        assembly {
            // engine/actors/position.ts splitInBigint: a fill of `qty` for `flow` on a position of
            // `before` with deferred `premium`; returns the premium kept and the cash realised.
            function split(before, premium, qty, flow) -> kept, realized {
                // Not reducing (flat, or the same side): the flow joins the deferred premium.
                if or(iszero(before), eq(sgt(before, 0), sgt(qty, 0))) {
                    kept := add(premium, flow)
                    leave
                }
                let absBefore := before
                if slt(before, 0) { absBefore := sub(0, before) }
                let absQty := qty
                if slt(qty, 0) { absQty := sub(0, qty) }
                let closed := absQty
                if lt(absBefore, absQty) { closed := absBefore }
                // The closed fraction of the deferred premium, and the closing part of the flow,
                // each truncated toward zero.
                let released := premium
                if iszero(eq(closed, absBefore)) { released := sdiv(mul(premium, closed), absBefore) }
                let closing := flow
                if iszero(eq(closed, absQty)) { closing := sdiv(mul(flow, closed), absQty) }
                realized := add(released, closing)
                kept := add(sub(premium, released), sub(flow, closing))
            }
            // The slot of the entry's position: keccak256(owner, portfolioId, seriesId), hashed in
            // scratch memory 0x00-0x5f (the free memory pointer is restored after the loop).
            function slotOf(head, q) -> slot {
                mstore(0x00, and(shr(64, head), 0xffffffffffffffffffffffffffffffffffffffff))
                mstore(0x20, and(head, 0xffffffffffffffff))
                mstore(0x40, calldataload(add(q, 32)))
                slot := keccak256(0x00, 0x60)
            }
            // A POSITION entry: returns the cash realised, the premium change, and whether a
            // figure left int128.
            function move(head, q) -> realized, premiumChange, bad {
                let slot := slotOf(head, q)
                let v := sload(slot)
                let premium := signextend(15, v)
                let qf := calldataload(add(q, 64))
                let qty := sar(128, qf)
                let after := add(sar(128, v), qty)
                let kept := 0
                kept, realized := split(sar(128, v), premium, qty, signextend(15, qf))
                bad := or(iszero(eq(signextend(15, after), after)), iszero(eq(signextend(15, kept), kept)))
                sstore(slot, or(shl(128, after), and(kept, 0xffffffffffffffffffffffffffffffff)))
                premiumChange := sub(kept, premium)
            }
            // A SETTLE entry: pays `balance x intrinsic / 10^30 + premium` and removes the
            // position. |balance| < 2^127 and intrinsic < 2^128 (the oracle's bound): the product fits.
            function settle(head, q, w, topic) -> payout, value, premium {
                let slot := slotOf(head, q)
                let v := sload(slot)
                if iszero(v) { leave }
                let held := sar(128, v)
                premium := signextend(15, v)
                value := sdiv(mul(held, calldataload(add(q, 64))), 1000000000000000000000000000000)
                payout := add(value, premium)
                sstore(slot, 0)
                // PositionSettled(owner, portfolioId, seriesId, balance, payout), its data at `w`.
                mstore(w, held)
                mstore(add(w, 0x20), payout)
                log4(w, 0x40, topic, and(shr(64, head), 0xffffffffffffffffffffffffffffffffffffffff), and(head, 0xffffffffffffffff), calldataload(add(q, 32)))
            }
            // A DELTA entry for the vault: the account of `head`, `amount`.
            function delta(w, head, amount) -> next {
                next := w
                if amount {
                    mstore(w, or(and(head, 0x00ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff), shl(248, 0x01)))
                    mstore(add(w, 0x20), amount)
                    next := add(w, 0x40)
                }
            }

            cash := mload(0x40)
            let w := add(cash, 0x20)
            let p := ledger.offset
            let end := add(p, ledger.length)
            for {} lt(p, end) {} {
                let head := calldataload(p)
                let tag := shr(248, head)
                if eq(tag, 0x80) {
                    let realized, premiumChange, bad := move(head, p)
                    if bad {
                        failed := add(and(shr(224, head), 0xffffff), 1)
                        break
                    }
                    let fee := sar(128, calldataload(add(p, 96)))
                    fees := add(fees, fee)
                    premiumDelta := add(premiumDelta, premiumChange)
                    w := delta(w, head, sub(realized, fee))
                    p := add(p, 112)
                    continue
                }
                if eq(tag, 0x81) {
                    let payout, value, premium := settle(head, p, w, settledTopic)
                    imbalance := add(imbalance, value)
                    premiumDelta := sub(premiumDelta, premium)
                    w := delta(w, head, payout)
                    p := add(p, 96)
                    continue
                }
                // A cash item, as it is (StreamItems.cashItemLength + 3).
                let len := 0
                if eq(shr(4, tag), 1) {
                    len := and(shr(sub(240, shl(4, and(tag, 15))), 0x00090009002d00350035002d003d002500190000000000000000000000000000), 0xffff)
                }
                if iszero(len) {
                    failed := add(and(shr(224, head), 0xffffff), 1)
                    failedTag := tag
                    break
                }
                len := add(len, 3)
                calldatacopy(w, p, len)
                w := add(w, len)
                p := add(p, len)
            }
            mstore(cash, sub(sub(w, cash), 0x20))
            mstore(0x40, and(add(w, 31), not(31)))
        }
        if (failed != 0) {
            if (failedTag != 0) revert BadItem(failed - 1, failedTag);
            revert ValueOutOfRange(failed - 1);
        }
        if (premiumDelta != 0) totalPremium += premiumDelta;
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
