// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";

/// @title Black-Scholes prices in WAD fixed point (docs/pricing.md, q = 0).
/// @notice The normal CDF is Abramowitz and Stegun 26.2.17, a rational approximation in
/// `t = 1 / (1 + 0.2316419 |x|)` whose absolute error is below 7.5e-8; a price is therefore
/// within about 7.5e-8 x (spot + strike) of the exact one, plus the last digits of the fixed
/// point (exp and ln are series to 1e-18). Degenerate inputs are valued as the engine values
/// them (engine/pricing/blackScholes.ts): with no time or no volatility, the discounted
/// intrinsic value on the forward.
library BlackScholes {
    int256 internal constant WAD = 1e18;
    int256 private constant LN2 = 693147180559945309;
    int256 private constant INV_SQRT_2PI = 398942280401432678;
    int256 private constant P = 231641900000000000;
    int256 private constant B1 = 319381530000000000;
    int256 private constant B2 = -356563782000000000;
    int256 private constant B3 = 1781477937000000000;
    int256 private constant B4 = -1821255978000000000;
    int256 private constant B5 = 1330274429000000000;

    error ExpOverflow(int256 x);
    error LnOfNonPositive(int256 x);

    /// @notice The premium of one contract (WAD): spot, strike, time to expiry in years,
    /// volatility and the continuously compounded rate, all WAD.
    function price(bool isCall, uint256 spot, uint256 strike, uint256 years_, uint256 volatility, uint256 rate)
        internal
        pure
        returns (uint256)
    {
        int256 S = int256(spot);
        int256 K = int256(strike);
        int256 T = int256(years_);
        int256 r = int256(rate);
        int256 Kr = T == 0 || r == 0 ? K : (K * expWad(-(r * T) / WAD)) / WAD;
        int256 sd = (int256(volatility) * int256(Math.sqrt(years_ * 1e18))) / WAD;
        int256 value;
        if (sd == 0 || S == 0 || K == 0) {
            value = isCall ? S - Kr : Kr - S;
        } else {
            int256 d1 = _d1(S, K, T, r, int256(volatility), sd);
            value = _value(isCall, S, Kr, d1, d1 - sd);
        }
        return value > 0 ? uint256(value) : 0;
    }

    /// (ln(S/K) + (r + vol^2/2) T) / (vol sqrt T).
    function _d1(int256 S, int256 K, int256 T, int256 r, int256 vol, int256 sd) private pure returns (int256) {
        return ((lnWad((S * WAD) / K) + ((r + (vol * vol) / (2 * WAD)) * T) / WAD) * WAD) / sd;
    }

    /// S N(d1) - K e^-rT N(d2) for a call, K e^-rT N(-d2) - S N(-d1) for a put, from the tails
    /// N(-|d|) (no cancellation in the tails, as the engine computes them).
    function _value(bool isCall, int256 S, int256 Kr, int256 d1, int256 d2) private pure returns (int256) {
        int256 t1 = normTail(d1);
        int256 t2 = normTail(d2);
        if (isCall) return (S * (d1 < 0 ? t1 : WAD - t1) - Kr * (d2 < 0 ? t2 : WAD - t2)) / WAD;
        return (Kr * (d2 > 0 ? t2 : WAD - t2) - S * (d1 > 0 ? t1 : WAD - t1)) / WAD;
    }

    /// @notice N(-|x|), the normal distribution's tail beyond |x| (x WAD), by A&S 26.2.17.
    function normTail(int256 x) internal pure returns (int256) {
        int256 a = x < 0 ? -x : x;
        if (a > 40 * WAD) return 0;
        int256 t = (WAD * WAD) / (WAD + (P * a) / WAD);
        int256 poly = B5;
        poly = B4 + (poly * t) / WAD;
        poly = B3 + (poly * t) / WAD;
        poly = B2 + (poly * t) / WAD;
        poly = B1 + (poly * t) / WAD;
        poly = (poly * t) / WAD;
        int256 density = (INV_SQRT_2PI * expWad(-(a * a) / (2 * WAD))) / WAD;
        int256 tail = (density * poly) / WAD;
        return tail > 0 ? tail : int256(0);
    }

    /// @notice e^x for a WAD x (at most 100): 2^k e^r with |r| < ln 2, e^r by its series.
    function expWad(int256 x) internal pure returns (int256) {
        if (x < -42 * WAD) return 0;
        if (x > 100 * WAD) revert ExpOverflow(x);
        int256 k = x / LN2;
        int256 r = x - k * LN2;
        int256 term = WAD;
        int256 sum = WAD;
        for (int256 n = 1; n < 30; ++n) {
            term = (term * r) / (n * WAD);
            if (term == 0) break;
            sum += term;
        }
        return k >= 0 ? sum << uint256(k) : sum >> uint256(-k);
    }

    /// @notice ln(x) for a WAD x > 0: k ln 2 + ln(m) with m in [1, 2), ln(m) = 2 atanh((m-1)/(m+1)).
    function lnWad(int256 x) internal pure returns (int256) {
        if (x <= 0) revert LnOfNonPositive(x);
        if (x < WAD) return -lnWad((WAD * WAD) / x);
        uint256 k = Math.log2(uint256(x / WAD));
        int256 m = x >> k;
        int256 z = ((m - WAD) * WAD) / (m + WAD);
        int256 z2 = (z * z) / WAD;
        int256 term = z;
        int256 sum = z;
        for (int256 n = 3; n < 80; n += 2) {
            term = (term * z2) / WAD;
            if (term == 0) break;
            sum += term / n;
        }
        return int256(k) * LN2 + 2 * sum;
    }
}
