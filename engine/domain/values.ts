/**
 * The value lists the engine's events carry (docs/events.md), as `as const` arrays: each type
 * is derived from its list, and the wire's schemas are built from the same lists
 * (gateway/wire/literals.ts), so a value added here is in every validator and document, and
 * none can be left out of one.
 */

/** An order's statuses: open and partial while it rests, then filled, cancelled or expired (`OrderStatus`, engine/events.ts). */
export const ORDER_STATUSES = ['open', 'partial', 'filled', 'cancelled', 'expired'] as const;

/** A side of an order, a trade or a position's change. */
export const SIDES = ['buy', 'sell'] as const;
export type Side = (typeof SIDES)[number];

/** Where a trade came from: the book, an RFQ fill, or the insurance fund taking over a liquidated position. */
export const TRADE_SOURCES = ['book', 'rfq', 'liquidation'] as const;
export type TradeSource = (typeof TRADE_SOURCES)[number];
