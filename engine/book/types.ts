/**
 * The limit order book of one series, in small integers (docs/book.md).
 *
 * The book never sees bigint: `tick` is a price on the pair's tick grid (integer 0..2^32-1),
 * `qty` a size in lots (positive safe integer), `ref` an order reference the caller assigns
 * (unique positive safe integer) and `owner` an interned account index (0..2^31-1). The series
 * actor converts WAD prices and sizes at its boundary; keeping the book in plain numbers is what
 * lets it live in typed arrays with no allocation per order.
 */

/**
 * Receives what one `place()` did, in order, while it runs. The book has already applied each
 * event when the sink hears of it, so reads (`get`, `has`, `depth`) from a sink are consistent;
 * mutating the book from a sink (`place`, `cancel`, `reduce`) is a broken invariant and throws.
 */
export type MatchSink = {
  /**
   * A fill against resting order `makerRef` at the maker's tick. `makerRemaining` is what remains
   * resting after it. Returning `true` stops the taker: it matches no further and its remainder
   * does not rest (market maker protection froze the taker's own owner).
   */
  onFill(makerRef: number, makerOwner: number, tick: number, qty: number, makerRemaining: number): boolean | void;
  /** Self-trade prevention: a resting order of the taker's own owner was removed instead of matched (docs/order-entry.md). */
  onSelfTradeCancel(makerRef: number, remaining: number): void;
  /**
   * Optional screen of resting orders (market maker protection: a frozen owner's mmp quotes), read
   * once per `place`. When set, it is asked about each resting order of another owner before that
   * order is matched; `true` removes the order instead (reported through `onScreenCancel`) and
   * matching continues. Absent or null costs the matching loop nothing.
   */
  readonly screen?: ((makerRef: number, makerOwner: number) => boolean) | null;
  /** A resting order the screen removed instead of matching, with the qty it had. */
  onScreenCancel?(makerRef: number, remaining: number): void;
};

export type RestingOrder = { ref: number; owner: number; isBuy: boolean; tick: number; qty: number };

export type LevelView = { tick: number; qty: number; count: number };

export type OrderBook = {
  /** Match a limit order against the opposite side with price-time priority (fills reported to sink in order),
   *  then rest any remainder at `tick` unless `restRemainder` is false (IOC). Returns the remaining qty after matching. */
  place(ref: number, owner: number, isBuy: boolean, tick: number, qty: number, sink: MatchSink, restRemainder?: boolean): number;
  /** Remove a resting order; returns the qty it had (0 if unknown). */
  cancel(ref: number): number;
  /** Reduce a resting order's qty in place keeping its priority (used by the actor when needed); returns new qty.
   *  Reducing by the whole qty or more removes the order and returns 0; an unknown ref returns 0. */
  reduce(ref: number, by: number): number;
  get(ref: number): RestingOrder | undefined; // may allocate; not on the hot path
  has(ref: number): boolean;
  bestBid(): number; // tick, or -1 when empty
  bestAsk(): number; // tick, or -1 when empty
  /** Up to maxLevels levels of one side, best first. */
  depth(isBuy: boolean, maxLevels: number): LevelView[];
  levelQty(isBuy: boolean, tick: number): number;
  /** Resting orders at one level (0 when the level is empty). */
  levelCount(isBuy: boolean, tick: number): number;
  orderCount(): number;
  /** All resting orders in an order that, replayed through place() into an empty book, reproduces identical
   *  priority (per side, per level, FIFO). Used for snapshots. */
  orders(): RestingOrder[];
  /** Internal consistency check: returns null when consistent, else a description of the first problem found. */
  checkInvariants(): string | null;
};
