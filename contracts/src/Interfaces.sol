// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

// What the contracts call on each other.

interface IPositionManager {
    function isMmm(address account) external view returns (bool);
    function totalPremium() external view returns (int256);
    function setMmm(uint256 item, address account, bool flag) external;
    function applyLedger(bytes calldata ledger) external returns (int256 fees, int256 imbalance, bytes memory cashEntries);
}

interface ICollateralVault {
    function applyCash(int256 fees, int256 imbalance, bytes calldata entries) external;
}

interface ISeriesRegistry {
    function seriesInfo(bytes32 seriesId) external view returns (uint256 info);
    function seriesOf(bytes32 seriesId)
        external
        view
        returns (bytes32 pairId, uint256 strike, uint256 expiry, bool isCall, bool listed, bool settled);
    function intrinsicOf(bytes32 seriesId) external view returns (bool settled, uint256 intrinsic);
    function listPair(uint256 item, bytes32 pairId, uint256 tickDecimals) external;
    function listSeries(uint256 item, bytes32 pairId, uint256 strike, uint256 expiry, bool isCall) external;
    function markSettled(uint256 item, bytes32 seriesId) external;
}

interface IOracle {
    function hasSettlementPrice(bytes32 pairId, uint256 expiry) external view returns (bool);
    function settlementPrice(bytes32 pairId, uint256 expiry) external view returns (uint256);
    function postSettlementPrice(uint256 item, uint256 matchTime, bytes32 pairId, uint256 expiry, uint256 price, bytes32 r, bytes32 s, uint8 v)
        external;
}

/// @notice An RFQ fill as the RFQ contract accepted it: what the order book books.
struct RfqTrade {
    address mmm;
    address taker;
    uint256 portfolioId;
    bytes32 seriesId;
    bool takerIsBuying;
    uint256 price;
    uint256 fillSize;
}

interface IRfq {
    function applyFill(uint256 item, uint256 matchTime, bytes calldata fill) external returns (RfqTrade memory);
    function setMmmNonce(uint256 item, address mmm, uint256 nonce) external;
}

interface IMintableToken {
    function mint(address to, uint256 amount) external;
}
