// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title The test collateral of local and test networks: a 6-decimal ERC-20 anyone may mint (the faucet).
/// @notice Name and symbol are constants of the code, not storage, so the runtime code alone is
/// the whole token (docs/chain.md "Operations").
contract MockCollateralToken is ERC20 {
    constructor() ERC20("", "") {}

    /// @notice "Mock USD Coin".
    function name() public pure override returns (string memory) {
        return "Mock USD Coin";
    }

    /// @notice "mUSDC".
    function symbol() public pure override returns (string memory) {
        return "mUSDC";
    }

    /// @notice 6, as USDC.
    function decimals() public pure override returns (uint8) {
        return 6;
    }

    /// @notice Mints `amount` to `to`; open to anyone.
    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }
}
