// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {BlackScholes} from "./BlackScholes.sol";
import {ISeriesRegistry} from "./Interfaces.sol";

/// @title Black-Scholes quotes of listed series, a view for anyone to check the venue's prices.
/// @notice WAD fixed point throughout; the approximation is BlackScholes's (normal CDF error
/// below 7.5e-8). Time to expiry is `(expiry - time) / 31,536,000` years (docs/pricing.md).
contract Quoter {
    uint256 public constant SECONDS_PER_YEAR = 31_536_000;

    /// @notice The registry the series' terms come from.
    ISeriesRegistry public immutable seriesRegistry;

    error SeriesNotListed(bytes32 seriesId);

    constructor(address seriesRegistry_) {
        seriesRegistry = ISeriesRegistry(seriesRegistry_);
    }

    /// @notice The premium of one contract of a listed series at `time` (Unix seconds) for a
    /// spot, volatility and risk-free rate (WAD; 0.2 = 20%). At or after expiry: its intrinsic value.
    function quote(bytes32 seriesId, uint256 spot, uint256 volatility, uint256 riskFreeRate, uint256 time)
        external
        view
        returns (uint256 premium)
    {
        (, uint256 strike, uint256 expiry, bool isCall, bool listed, ) = seriesRegistry.seriesOf(seriesId);
        if (!listed) revert SeriesNotListed(seriesId);
        uint256 years_ = time < expiry ? ((expiry - time) * 1e18) / SECONDS_PER_YEAR : 0;
        return BlackScholes.price(isCall, spot, strike, years_, volatility, riskFreeRate);
    }

    /// @notice The premium of one contract for explicit terms: time to expiry in years (WAD).
    function price(bool isCall, uint256 spot, uint256 strike, uint256 years_, uint256 volatility, uint256 riskFreeRate)
        external
        pure
        returns (uint256)
    {
        return BlackScholes.price(isCall, spot, strike, years_, volatility, riskFreeRate);
    }
}
