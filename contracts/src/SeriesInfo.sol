// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {UnknownSeries, SeriesSettled, SeriesExpired} from "./StreamErrors.sol";

/// @title A series' trading facts in one word, as the registry stores and returns them.
/// @notice Bits 0-63 the expiry (Unix seconds), 64-71 the pair's tick decimals, 72 isCall,
/// 73 listed, 74 settled.
library SeriesInfo {
    uint256 internal constant IS_CALL = 1 << 72;
    uint256 internal constant LISTED = 1 << 73;
    uint256 internal constant SETTLED = 1 << 74;

    function pack(uint256 expiry, uint256 tickDecimals, bool isCall) internal pure returns (uint256) {
        return expiry | (tickDecimals << 64) | (isCall ? IS_CALL : 0) | LISTED;
    }

    function expiryOf(uint256 info) internal pure returns (uint256) {
        return uint64(info);
    }

    function tickDecimalsOf(uint256 info) internal pure returns (uint256) {
        return uint8(info >> 64);
    }

    /// @notice Reverts unless the series is listed, not settled and `matchTime` is before its
    /// expiry; returns the WAD value of one tick, `10^(18 - tickDecimals)`.
    function requireLive(uint256 info, uint256 item, bytes32 seriesId, uint256 matchTime) internal pure returns (uint256 tickValue) {
        if (info & LISTED == 0) revert UnknownSeries(item, seriesId);
        if (info & SETTLED != 0) revert SeriesSettled(item, seriesId);
        uint256 expiry = uint64(info);
        if (matchTime >= expiry) revert SeriesExpired(item, seriesId, expiry);
        return 10 ** (18 - uint8(info >> 64));
    }
}
