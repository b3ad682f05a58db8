// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IMintableToken, IPositionManager} from "./Interfaces.sol";
import {CashLedger} from "./CashLedger.sol";
import {UnknownDeposit} from "./StreamErrors.sol";

/// @title Custody of the collateral and cash per `(owner, portfolioId)` (docs/chain.md "Accounts", "Solvency").
/// @notice Wallets deposit here (`deposit`, `depositFor`); the venue credits a deposit through
/// the settlement stream (DEPOSIT) or returns it (DEPOSIT_REFUND). Tokens leave only to the
/// owner of the cash paid out (WITHDRAW) or back to the depositor (DEPOSIT_REFUND). Cash moves
/// only through the ledger the order book passes on (CashLedger). Two accounts are the vault's
/// own: `(collateralVault, 0)` holds the fees the venue collected, `(collateralVault, 1)` the
/// bad debt (negative).
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

    /// @notice The number of deposits made so far: the last depositId (ids start at 1).
    uint256 public depositCount;
    mapping(uint256 => Deposit) private _deposits;

    event Deposited(address indexed owner, uint256 indexed portfolioId, uint256 amount, uint256 indexed depositId);

    error ZeroAmount();
    error AmountTooLarge(uint256 amount);
    error PortfolioIdTooLarge(uint256 portfolioId);

    constructor(address collateralToken_, address orderBook_, address positionManager_, address insuranceFund_, bool faucet_)
        CashLedger(orderBook_, insuranceFund_, faucet_)
    {
        collateralToken = IERC20(collateralToken_);
        positionManager = positionManager_;
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

    function _mint(uint256 amount) internal override {
        IMintableToken(address(collateralToken)).mint(address(this), amount);
    }

    function _pay(address to, uint256 amount) internal override {
        collateralToken.safeTransfer(to, amount);
    }
}
