// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title Item kinds of the settlement stream and the ledger the order book hands on.
/// @notice Items (docs/chain.md "Items") are packed: a one-byte kind, then fixed-width big-endian
/// fields. The order book checks every item and turns the ones that move positions or cash into
/// a ledger, in item order, which it passes to the position manager in one call; the position
/// manager applies the position entries and returns the cash entries, which the order book
/// passes to the vault in one call. Ledger entries, packed like items:
///
/// | tag | entry | bytes |
/// |---|---|---|
/// | `0x80` POSITION | item 3, owner 20, portfolioId 8, seriesId 32, qty int128 16 (WAD, + bought), flow int128 16 (C6, + received), fee int128 16 (C6, paid to the fees account) | 112 |
/// | `0x81` SETTLE | item 3, owner 20, portfolioId 8, seriesId 32, intrinsic 32 (WAD) | 96 |
/// | `0x01` DELTA (position manager to vault) | item 3, owner 20, portfolioId 8, delta int256 32 (C6) | 64 |
/// | `0x10`-`0x18` a cash item | item 3, then the item's own fields | the item's length + 3 |
///
/// `item` is the position of the item in the batch, carried so that an error raised by the
/// position manager or the vault names it.
library StreamItems {
    uint256 internal constant ORDER = 0x01;
    uint256 internal constant FILL = 0x02;
    uint256 internal constant LIQUIDATION_FILL = 0x03;
    uint256 internal constant FUND_FILL = 0x04;
    uint256 internal constant RFQ_FILL = 0x05;
    uint256 internal constant MMM_NONCE = 0x06;
    uint256 internal constant NONCE_FLOOR = 0x07;
    uint256 internal constant DEPOSIT = 0x10;
    uint256 internal constant DEPOSIT_REFUND = 0x11;
    uint256 internal constant MINT = 0x12;
    uint256 internal constant WITHDRAW = 0x13;
    uint256 internal constant TRANSFER = 0x14;
    uint256 internal constant LIQUIDATION_FEE = 0x15;
    uint256 internal constant DEFICIT = 0x16;
    uint256 internal constant REBATE = 0x17;
    uint256 internal constant FORCED_WITHDRAW = 0x18;
    uint256 internal constant PAIR = 0x20;
    uint256 internal constant SERIES = 0x21;
    uint256 internal constant MMM = 0x22;
    uint256 internal constant SETTLEMENT_PRICE = 0x23;
    uint256 internal constant SERIES_SETTLED = 0x24;
    uint256 internal constant SETTLE_POSITION = 0x25;

    uint256 internal constant ORDER_LENGTH = 215;
    uint256 internal constant FILL_LENGTH = 53;
    uint256 internal constant RFQ_FILL_LENGTH = 609;

    uint256 internal constant TAG_DELTA = 0x01;
    uint256 internal constant TAG_POSITION = 0x80;
    uint256 internal constant TAG_SETTLE = 0x81;
    uint256 internal constant POSITION_ENTRY_LENGTH = 112;
    uint256 internal constant SETTLE_ENTRY_LENGTH = 96;
    uint256 internal constant DELTA_ENTRY_LENGTH = 64;

    /// @notice The length of a cash item (kind byte included), 0 for any other kind.
    function cashItemLength(uint256 kind) internal pure returns (uint256 len) {
        // Two bytes per kind 0x10..0x1f, the first in the highest bytes of the word (0: none).
        // 0x10 9, 0x11 9, 0x12 45, 0x13 53, 0x14 53, 0x15 45, 0x16 61, 0x17 37, 0x18 25.
        assembly {
            if eq(shr(4, kind), 1) {
                len := and(shr(sub(240, shl(4, and(kind, 15))), 0x00090009002d00350035002d003d002500190000000000000000000000000000), 0xffff)
            }
        }
    }

    /// @notice The length of an item of `kind` (kind byte included) and the ledger bytes it
    /// produces; `len` 0 for an unknown kind.
    function lengths(uint256 kind) internal pure returns (uint256 len, uint256 ledger) {
        if (kind == ORDER) return (ORDER_LENGTH, 0);
        if (kind == FILL) return (FILL_LENGTH, 2 * POSITION_ENTRY_LENGTH);
        if (kind >= 0x10 && kind <= 0x1f) {
            len = cashItemLength(kind);
            return len == 0 ? (0, 0) : (len, len + 3);
        }
        if (kind == LIQUIDATION_FILL) return (47, 2 * POSITION_ENTRY_LENGTH);
        if (kind == FUND_FILL) return (94, 2 * POSITION_ENTRY_LENGTH);
        if (kind == RFQ_FILL) return (RFQ_FILL_LENGTH, 2 * POSITION_ENTRY_LENGTH);
        if (kind == MMM_NONCE) return (53, 0);
        if (kind == NONCE_FLOOR) return (53, 0);
        if (kind == PAIR) return (34, 0);
        if (kind == SERIES) return (74, 0);
        if (kind == MMM) return (22, 0);
        if (kind == SETTLEMENT_PRICE) return (138, 0);
        if (kind == SERIES_SETTLED) return (33, 0);
        if (kind == SETTLE_POSITION) return (61, SETTLE_ENTRY_LENGTH);
        return (0, 0);
    }
}
