// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {StreamItems} from "./StreamItems.sol";
import {CalldataReader as C} from "./CalldataReader.sol";
import {NotOrderBook, BadItem, FaucetDisabled, InsufficientCash, PaidAboveRequested} from "./StreamErrors.sol";

/// @title Cash per `(owner, portfolioId)` and the entries that move it (docs/chain.md, the cash items).
/// @notice Cash is COLLATERAL6, signed. The order book hands on, once per batch and in item
/// order, the DELTA entries of fills and expiry payouts (from the position manager) and the
/// cash items (StreamItems). Every token transfer of a batch happens after all its bookkeeping.
abstract contract CashLedger {
    /// Storage slot of an account's cash: keccak256(owner, portfolioId, CASH), a preimage of
    /// three words that no Solidity mapping slot has.
    uint256 private constant CASH = 0xca5;

    /// @notice The portfolio of the vault's own address that holds the fees collected.
    uint256 public constant FEES_PORTFOLIO = 0;
    /// @notice The portfolio of the vault's own address that holds the bad debt (negative).
    uint256 public constant BAD_DEBT_PORTFOLIO = 1;
    /// @notice The insurance fund's portfolio of its wallet.
    uint256 public constant INSURANCE_FUND_PORTFOLIO = 1;

    /// @notice The order book, the only caller of `applyCash`.
    address public immutable orderBook;
    /// @notice The insurance fund's wallet (its portfolio 1 is the fund).
    address public immutable insuranceFund;
    /// @notice Whether the collateral token is the open-mint test token (MINT items allowed).
    bool public immutable faucet;

    /// @notice The sum of every account's cash, the vault's own accounts included.
    int256 public totalCash;
    /// @notice Tokens deposited and neither credited nor refunded yet.
    uint256 public pendingDeposits;
    /// @notice The sum of the intrinsic parts of expiry payouts (docs/chain.md "Solvency").
    int256 public settlementImbalance;

    event DepositCredited(uint256 indexed depositId, address indexed owner, uint256 indexed portfolioId, uint256 amount);
    event DepositRefunded(uint256 indexed depositId, address indexed depositor, uint256 amount);
    event Minted(address indexed owner, uint256 indexed portfolioId, uint256 amount);
    event Withdrawn(address indexed owner, uint256 indexed portfolioId, uint256 amount, uint256 indexed withdrawalId);
    event CashTransferred(address indexed owner, uint256 indexed fromPortfolioId, uint256 indexed toPortfolioId, uint256 amount);
    event LiquidationFeeCharged(address indexed owner, uint256 indexed portfolioId, uint256 amount);
    event DeficitCovered(address indexed owner, uint256 indexed portfolioId, uint256 fundPaid, uint256 badDebt);
    event RebatePaid(address indexed referrer, uint256 amount);
    /// The venue took forced-withdrawal request `requestId` in: `paid` of it went to the owner (0: refused).
    event ForcedWithdrawalTaken(uint256 indexed requestId, address indexed owner, uint256 indexed portfolioId, uint256 requested, uint256 paid);
    /// The venue took in a request someone had executed already: nothing moved.
    event ForcedWithdrawalSkipped(uint256 indexed requestId);

    error LengthMismatch();

    constructor(address orderBook_, address insuranceFund_, bool faucet_) {
        orderBook = orderBook_;
        insuranceFund = insuranceFund_;
        faucet = faucet_;
    }

    /// @notice The cash of an account (COLLATERAL6).
    function cashOf(address owner, uint256 portfolioId) public view returns (int256 cash) {
        uint256 slot = _slot(owner, portfolioId);
        assembly {
            cash := sload(slot)
        }
    }

    /// @notice The cash of many accounts at once (reconciliation), index by index.
    function cashOfMany(address[] calldata owners, uint256[] calldata portfolioIds) external view returns (int256[] memory cash) {
        uint256 n = owners.length;
        if (portfolioIds.length != n) revert LengthMismatch();
        cash = new int256[](n);
        for (uint256 i; i < n; ++i) cash[i] = cashOf(owners[i], portfolioIds[i]);
    }

    /// @notice The fees the venue collected, net of rebates: the cash of `(collateralVault, 0)`.
    function feesCollected() external view returns (int256) {
        return cashOf(address(this), FEES_PORTFOLIO);
    }

    /// @notice The bad debt recorded so far: minus the cash of `(collateralVault, 1)`.
    function badDebt() external view returns (int256) {
        return -cashOf(address(this), BAD_DEBT_PORTFOLIO);
    }

    /// @notice Applies a batch's cash entries (StreamItems) in order, then the fees its fills
    /// paid and the settlement imbalance it added; then pays out.
    function applyCash(int256 fees, int256 imbalance, bytes calldata entries) external {
        if (msg.sender != orderBook) revert NotOrderBook(msg.sender);
        // Payouts, a list in memory (each [next, to, amount]), made after every entry.
        uint256 payouts;
        int256 cashAdded;
        uint256 depositsTaken;
        uint256 minted;
        uint256 p;
        uint256 end;
        assembly {
            p := entries.offset
            end := add(p, entries.length)
        }
        while (p < end) {
            // The DELTA entries of fills and payouts, all in a row: one slot each, keccak256(owner,
            // portfolioId, CASH) hashed in scratch 0x00-0x5f. An entry is below 2^130 in magnitude,
            // so a sum of them cannot reach int256's bounds.
            assembly {
                let fmp := mload(0x40)
                for {} lt(p, end) {} {
                    let h := calldataload(p)
                    if iszero(eq(shr(248, h), 0x01)) { break }
                    mstore(0x00, and(shr(64, h), 0xffffffffffffffffffffffffffffffffffffffff))
                    mstore(0x20, and(h, 0xffffffffffffffff))
                    mstore(0x40, CASH)
                    let slot := keccak256(0x00, 0x60)
                    let amount := calldataload(add(p, 0x20))
                    sstore(slot, add(sload(slot), amount))
                    cashAdded := add(cashAdded, amount)
                    p := add(p, 0x40)
                }
                mstore(0x40, fmp)
            }
            if (p >= end) break;
            uint256 head;
            assembly {
                head := calldataload(p)
            }
            uint256 tag = head >> 248;
            uint256 item = uint24(head >> 224);
            if (tag == StreamItems.DEPOSIT || tag == StreamItems.DEPOSIT_REFUND) {
                uint256 id = C.u64(p + 4);
                (address owner, uint256 portfolioId, address depositor, uint256 amount) = _takeDeposit(item, id);
                depositsTaken += amount;
                if (tag == StreamItems.DEPOSIT) {
                    _add(owner, portfolioId, int256(amount));
                    cashAdded += int256(amount);
                    emit DepositCredited(id, owner, portfolioId, amount);
                } else {
                    payouts = _later(payouts, depositor, amount);
                    emit DepositRefunded(id, depositor, amount);
                }
            } else if (tag == StreamItems.MINT) {
                if (!faucet) revert FaucetDisabled(item);
                (address owner, uint256 portfolioId, uint256 amount) = (C.addr(p + 4), C.u64(p + 24), C.u128(p + 32));
                _add(owner, portfolioId, int256(amount));
                cashAdded += int256(amount);
                minted += amount;
                emit Minted(owner, portfolioId, amount);
            } else if (tag == StreamItems.WITHDRAW) {
                (address owner, uint256 portfolioId, uint256 amount) = (C.addr(p + 4), C.u64(p + 24), C.u128(p + 32));
                _debit(item, owner, portfolioId, amount);
                cashAdded -= int256(amount);
                payouts = _later(payouts, owner, amount);
                emit Withdrawn(owner, portfolioId, amount, C.u64(p + 48));
            } else if (tag == StreamItems.TRANSFER) {
                (address owner, uint256 from, uint256 to, uint256 amount) = (C.addr(p + 4), C.u64(p + 24), C.u64(p + 32), C.u128(p + 40));
                _debit(item, owner, from, amount);
                _add(owner, to, int256(amount));
                emit CashTransferred(owner, from, to, amount);
            } else if (tag == StreamItems.LIQUIDATION_FEE) {
                (address owner, uint256 portfolioId, uint256 amount) = (C.addr(p + 4), C.u64(p + 24), C.u128(p + 32));
                _add(owner, portfolioId, -int256(amount));
                _add(insuranceFund, INSURANCE_FUND_PORTFOLIO, int256(amount));
                emit LiquidationFeeCharged(owner, portfolioId, amount);
            } else if (tag == StreamItems.DEFICIT) {
                (address owner, uint256 portfolioId, uint256 fundPaid, uint256 bad) = (C.addr(p + 4), C.u64(p + 24), C.u128(p + 32), C.u128(p + 48));
                _add(owner, portfolioId, int256(fundPaid + bad));
                _add(insuranceFund, INSURANCE_FUND_PORTFOLIO, -int256(fundPaid));
                _add(address(this), BAD_DEBT_PORTFOLIO, -int256(bad));
                emit DeficitCovered(owner, portfolioId, fundPaid, bad);
            } else if (tag == StreamItems.REBATE) {
                (address referrer, uint256 amount) = (C.addr(p + 4), C.u128(p + 24));
                // Out of the fees account (counted with `fees` below) into the referrer's.
                fees -= int256(amount);
                _add(referrer, 0, int256(amount));
                cashAdded += int256(amount);
                emit RebatePaid(referrer, amount);
            } else if (tag == StreamItems.FORCED_WITHDRAW) {
                (uint256 id, uint256 paid) = (C.u64(p + 4), C.u128(p + 12));
                (bool executed, address owner, uint256 portfolioId, uint256 requested) = _takeWithdrawalRequest(item, id);
                if (executed) {
                    emit ForcedWithdrawalSkipped(id);
                } else {
                    if (paid > requested) revert PaidAboveRequested(item, id, paid, requested);
                    if (paid != 0) {
                        _debit(item, owner, portfolioId, paid);
                        cashAdded -= int256(paid);
                        payouts = _later(payouts, owner, paid);
                    }
                    emit ForcedWithdrawalTaken(id, owner, portfolioId, requested, paid);
                }
            } else {
                revert BadItem(item, tag);
            }
            p += StreamItems.cashItemLength(tag) + 3;
        }
        if (fees != 0) {
            _add(address(this), FEES_PORTFOLIO, fees);
            cashAdded += fees;
        }
        if (cashAdded != 0) totalCash += cashAdded;
        if (depositsTaken != 0) pendingDeposits -= depositsTaken;
        if (imbalance != 0) settlementImbalance += imbalance;
        if (minted != 0) _mint(minted);
        while (payouts != 0) {
            (address to, uint256 amount, uint256 next) = _payout(payouts);
            _pay(to, amount);
            payouts = next;
        }
    }

    /// Removes a pending deposit and returns it; reverts UnknownDeposit when there is none.
    function _takeDeposit(uint256 item, uint256 depositId)
        internal
        virtual
        returns (address owner, uint256 portfolioId, address depositor, uint256 amount);

    /// Marks a pending forced-withdrawal request taken and returns it, or `executed` for one
    /// someone executed already; reverts UnknownWithdrawalRequest for any other id.
    function _takeWithdrawalRequest(uint256 item, uint256 requestId)
        internal
        virtual
        returns (bool executed, address owner, uint256 portfolioId, uint256 amount);

    /// Pays out an executed forced withdrawal: at most `amount` of the account's cash, what it holds above zero.
    function _forcedPayout(address owner, uint256 portfolioId, uint256 amount) internal returns (uint256 paid) {
        int256 cash = cashOf(owner, portfolioId);
        paid = cash <= 0 ? 0 : (uint256(cash) < amount ? uint256(cash) : amount);
        if (paid != 0) {
            _add(owner, portfolioId, -int256(paid));
            totalCash -= int256(paid);
        }
    }

    /// Mints `amount` of the test token to the vault.
    function _mint(uint256 amount) internal virtual;

    /// Pays `amount` of the collateral to `to`.
    function _pay(address to, uint256 amount) internal virtual;

    function _debit(uint256 item, address owner, uint256 portfolioId, uint256 amount) private {
        uint256 slot = _slot(owner, portfolioId);
        int256 cash;
        assembly {
            cash := sload(slot)
        }
        if (cash < int256(amount)) revert InsufficientCash(item, cash, amount);
        assembly {
            sstore(slot, sub(cash, amount))
        }
    }

    function _add(address owner, uint256 portfolioId, int256 amount) private {
        uint256 slot = _slot(owner, portfolioId);
        int256 cash;
        assembly {
            cash := sload(slot)
        }
        cash += amount;
        assembly {
            sstore(slot, cash)
        }
    }

    function _slot(address owner, uint256 portfolioId) private pure returns (uint256 slot) {
        assembly {
            let m := mload(0x40)
            mstore(m, and(owner, 0xffffffffffffffffffffffffffffffffffffffff))
            mstore(add(m, 32), portfolioId)
            mstore(add(m, 64), CASH)
            slot := keccak256(m, 96)
        }
    }

    function _later(uint256 list, address to, uint256 amount) private pure returns (uint256 node) {
        assembly {
            node := mload(0x40)
            mstore(node, list)
            mstore(add(node, 32), and(to, 0xffffffffffffffffffffffffffffffffffffffff))
            mstore(add(node, 64), amount)
            mstore(0x40, add(node, 96))
        }
    }

    function _payout(uint256 node) private pure returns (address to, uint256 amount, uint256 next) {
        assembly {
            next := mload(node)
            to := mload(add(node, 32))
            amount := mload(add(node, 64))
        }
    }
}
