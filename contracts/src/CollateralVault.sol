// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IMintableToken, IPositionManager} from "./Interfaces.sol";
import {CashLedger} from "./CashLedger.sol";
import {UnknownDeposit, UnknownWithdrawalRequest} from "./StreamErrors.sol";

/// @title Custody of the collateral and cash per `(owner, portfolioId)` (docs/chain.md "Accounts", "Solvency").
/// @notice Wallets deposit here (`deposit`, `depositFor`); the venue credits a deposit through
/// the settlement stream (DEPOSIT) or returns it (DEPOSIT_REFUND). Tokens leave only to the
/// owner of the cash paid out (WITHDRAW) or back to the depositor (DEPOSIT_REFUND). Cash moves
/// only through the ledger the order book passes on (CashLedger), or by a forced withdrawal: an
/// owner's request (`requestWithdrawal`) that the venue takes into the stream
/// (FORCED_WITHDRAW: paid up to free collateral, or refused), or that anyone may execute
/// (`executeForcedWithdrawal`) once `forcedActionTimeout` seconds passed without the venue
/// taking it: the owner's cash above zero, up to the amount asked for, goes to the owner.
/// Two accounts are the vault's own: `(collateralVault, 0)` holds the fees the venue
/// collected, `(collateralVault, 1)` the bad debt (negative).
contract CollateralVault is CashLedger {
    using SafeERC20 for IERC20;

    struct Deposit {
        address owner;
        uint64 portfolioId;
        address depositor;
        uint96 amount;
    }

    /// @notice The collateral (6 decimals).
    IERC20 public immutable collateralToken;
    /// @notice The position manager, whose total premium the solvency identity counts.
    address public immutable positionManager;

    /// A forced-withdrawal request: PENDING until the venue takes it in (TAKEN) or anyone
    /// executes it after the timeout (EXECUTED).
    struct WithdrawalRequest {
        address owner;
        uint64 portfolioId;
        uint8 state;
        uint128 amount;
        uint64 requestedAt;
    }

    uint8 private constant PENDING = 1;
    uint8 private constant TAKEN = 2;
    uint8 private constant EXECUTED = 3;

    /// @notice Seconds after which a forced-withdrawal request the venue did not take in may be executed by anyone.
    uint256 public immutable forcedActionTimeout;

    /// @notice The number of deposits made so far: the last depositId (ids start at 1).
    uint256 public depositCount;
    mapping(uint256 => Deposit) private _deposits;
    /// @notice The number of forced-withdrawal requests made so far: the last request id (ids start at 1).
    uint256 public withdrawalRequestCount;
    mapping(uint256 => WithdrawalRequest) private _requests;
    /// @notice Forced withdrawals executed so far (reconciliation waits until the venue took each in).
    uint256 public forcedExecutions;

    event Deposited(address indexed owner, uint256 indexed portfolioId, uint256 amount, uint256 indexed depositId);
    event WithdrawalRequested(address indexed owner, uint256 indexed portfolioId, uint256 amount, uint256 indexed requestId);
    event ForcedWithdrawalExecuted(uint256 indexed requestId, address indexed owner, uint256 indexed portfolioId, uint256 requested, uint256 paid);

    error ZeroAmount();
    error AmountTooLarge(uint256 amount);
    error PortfolioIdTooLarge(uint256 portfolioId);
    /// `executeForcedWithdrawal` of a request that is not pending (unknown, taken or executed: `state` 0, 2, 3).
    error RequestNotPending(uint256 requestId, uint256 state);
    /// `executeForcedWithdrawal` before the timeout: executable from `executableAt`.
    error TooEarly(uint256 requestId, uint256 executableAt);

    constructor(address collateralToken_, address orderBook_, address positionManager_, address insuranceFund_, bool faucet_, uint256 forcedActionTimeout_)
        CashLedger(orderBook_, insuranceFund_, faucet_)
    {
        collateralToken = IERC20(collateralToken_);
        positionManager = positionManager_;
        forcedActionTimeout = forcedActionTimeout_;
    }

    /// @notice Asks for `amount` (COLLATERAL6) of the caller's portfolio to be paid to the
    /// caller, without the venue's API (docs/chain.md "Leaving without the venue"). The venue
    /// takes the request in (paid up to the portfolio's free collateral, or refused with a
    /// reason in its event); one it has not taken after `forcedActionTimeout` seconds anyone may
    /// execute.
    function requestWithdrawal(uint256 portfolioId, uint256 amount) external returns (uint256 requestId) {
        if (amount == 0) revert ZeroAmount();
        if (amount > type(uint128).max) revert AmountTooLarge(amount);
        if (portfolioId > type(uint64).max) revert PortfolioIdTooLarge(portfolioId);
        requestId = ++withdrawalRequestCount;
        _requests[requestId] = WithdrawalRequest(msg.sender, uint64(portfolioId), PENDING, uint128(amount), uint64(block.timestamp));
        emit WithdrawalRequested(msg.sender, portfolioId, amount, requestId);
    }

    /// @notice Executes a pending request `forcedActionTimeout` seconds after it was made: pays
    /// its owner the portfolio's cash above zero, up to the amount asked for. Anyone may call it.
    function executeForcedWithdrawal(uint256 requestId) external {
        WithdrawalRequest storage r = _requests[requestId];
        if (r.state != PENDING) revert RequestNotPending(requestId, r.state);
        uint256 executableAt = uint256(r.requestedAt) + forcedActionTimeout;
        if (block.timestamp < executableAt) revert TooEarly(requestId, executableAt);
        r.state = EXECUTED;
        ++forcedExecutions;
        (address owner, uint256 portfolioId, uint256 requested) = (r.owner, r.portfolioId, r.amount);
        uint256 paid = _forcedPayout(owner, portfolioId, requested);
        emit ForcedWithdrawalExecuted(requestId, owner, portfolioId, requested, paid);
        if (paid != 0) collateralToken.safeTransfer(owner, paid);
    }

    /// @notice A forced-withdrawal request: its owner, portfolio, amount asked for, time and
    /// state (0 unknown, 1 pending, 2 taken by the venue, 3 executed).
    function withdrawalRequestOf(uint256 requestId)
        external
        view
        returns (address owner, uint256 portfolioId, uint256 amount, uint256 requestedAt, uint256 state)
    {
        WithdrawalRequest storage r = _requests[requestId];
        return (r.owner, r.portfolioId, r.amount, r.requestedAt, r.state);
    }

    /// @notice Deposits `amount` (COLLATERAL6) from the caller for its own portfolio; approve the
    /// vault first. The venue credits it after its confirmations (docs/chain.md).
    function deposit(uint256 portfolioId, uint256 amount) external returns (uint256 depositId) {
        return _deposit(msg.sender, portfolioId, amount);
    }

    /// @notice Deposits `amount` from the caller into `owner`'s portfolio; a refused deposit goes
    /// back to the caller.
    function depositFor(address owner, uint256 portfolioId, uint256 amount) external returns (uint256 depositId) {
        return _deposit(owner, portfolioId, amount);
    }

    /// @notice A pending deposit; all zero once credited or refunded, or for an unknown id.
    function depositOf(uint256 depositId)
        external
        view
        returns (address owner, uint256 portfolioId, address depositor, uint256 amount)
    {
        Deposit storage d = _deposits[depositId];
        return (d.owner, d.portfolioId, d.depositor, d.amount);
    }

    /// @notice `(tokenBalance, totalCash, totalPremium, pendingDeposits, settlementImbalance)`:
    /// `tokenBalance == totalCash + totalPremium + pendingDeposits - settlementImbalance` always.
    function solvency()
        external
        view
        returns (uint256 tokenBalance, int256 totalCash_, int256 totalPremium_, uint256 pendingDeposits_, int256 settlementImbalance_)
    {
        return (
            collateralToken.balanceOf(address(this)),
            totalCash,
            IPositionManager(positionManager).totalPremium(),
            pendingDeposits,
            settlementImbalance
        );
    }

    function _deposit(address owner, uint256 portfolioId, uint256 amount) private returns (uint256 depositId) {
        if (amount == 0) revert ZeroAmount();
        if (amount > type(uint96).max) revert AmountTooLarge(amount);
        if (portfolioId > type(uint64).max) revert PortfolioIdTooLarge(portfolioId);
        depositId = ++depositCount;
        _deposits[depositId] = Deposit(owner, uint64(portfolioId), msg.sender, uint96(amount));
        pendingDeposits += amount;
        emit Deposited(owner, portfolioId, amount, depositId);
        collateralToken.safeTransferFrom(msg.sender, address(this), amount);
    }

    function _takeDeposit(uint256 item, uint256 depositId)
        internal
        override
        returns (address owner, uint256 portfolioId, address depositor, uint256 amount)
    {
        Deposit storage d = _deposits[depositId];
        amount = d.amount;
        if (amount == 0) revert UnknownDeposit(item, depositId);
        (owner, portfolioId, depositor) = (d.owner, d.portfolioId, d.depositor);
        delete _deposits[depositId];
    }

    function _takeWithdrawalRequest(uint256 item, uint256 requestId)
        internal
        override
        returns (bool executed, address owner, uint256 portfolioId, uint256 amount)
    {
        WithdrawalRequest storage r = _requests[requestId];
        if (r.state == EXECUTED) return (true, r.owner, r.portfolioId, r.amount);
        if (r.state != PENDING) revert UnknownWithdrawalRequest(item, requestId);
        r.state = TAKEN;
        return (false, r.owner, r.portfolioId, r.amount);
    }

    function _mint(uint256 amount) internal override {
        IMintableToken(address(collateralToken)).mint(address(this), amount);
    }

    function _pay(address to, uint256 amount) internal override {
        collateralToken.safeTransfer(to, amount);
    }
}
