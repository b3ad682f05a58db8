/**
 * The series actor: alone owns one series' order book, its orders and latest marks (its
 * recent trades and 24-hour statistics are folds of the trade events: gateway/readModels/marketData.ts). It matches; it knows nothing of cash or margin (the account
 * actor's job), and reports what matching did as plain values.
 */
import type { Hex } from '../domain/hex.ts';
import type { Lots } from '../domain/lots.ts';
import type { OrderBook, MatchSink } from '../book/types.ts';
import type { EngineDepthLevel } from '../events.ts';
import type { SeriesMarks } from '../commands.ts';
import type { RiskQuote } from '../risk/riskQuote.ts';
import type { OrderRecord } from './orderRecord.ts';
import { OpenRecords } from './openRecords.ts';
import type { RecordPool } from './recordPool.ts';
import { fillableLots, wouldTake, type OwnResting } from '../book/instructions.ts';

export type SeriesSpec = {
  readonly seriesId: Hex;
  readonly pairId: Hex;
  readonly pairSymbol: string;
  readonly underlying: string;
  readonly strike: bigint; // WAD
  readonly expiry: number; // Unix seconds
  readonly isCall: boolean;
  readonly symbol: string; // canonical
  readonly listedAt: number; // ms
};

/**
 * What one match produced, before the account actor settles cash and positions: plain data in
 * a struct of arrays reused by every match of its series (valid until the series' next match),
 * no object per fill. Fill `i` (i < fillCount) took `fillLots[i]` lots from the resting order
 * of book ref `fillRef[i]` at `fillTick[i]` (the maker's tick); `fillMaker[i]` is that order's
 * record as the match left it (its fills and status, for the order event; a record whose order
 * left the book is recycled after the command, actors/recordPool.ts: read it within the
 * command, keep none). The resting orders
 * self-trade prevention removed and those market maker protection removed instead of matching
 * (their owner froze) are listed likewise, in the order the book met them. The series is named
 * by its handle (`SeriesTable.at`), not by the actor.
 */
export type MatchOutcome = {
  readonly seriesHandle: number;
  readonly fillCount: number;
  readonly fillRef: Float64Array;
  readonly fillTick: Float64Array;
  readonly fillLots: Float64Array;
  readonly fillMaker: readonly OrderRecord[];
  readonly selfTradeCount: number;
  readonly selfTradeCancels: readonly OrderRecord[];
  readonly mmpCount: number;
  /** Resting orders market maker protection removed instead of matching (their owner froze). */
  readonly mmpCancels: readonly OrderRecord[];
  /** The taker's own owner froze during the match: it stopped, and its remainder does not rest. */
  readonly stopped: boolean;
  readonly restingLots: number;
};

/** The outcome buffer one series reuses: typed arrays grown by doubling, record lists by index, counts reset per match. */
class OutcomeBuffer implements MatchOutcome {
  seriesHandle = -1;
  fillCount = 0;
  fillRef = new Float64Array(8);
  fillTick = new Float64Array(8);
  fillLots = new Float64Array(8);
  readonly fillMaker: OrderRecord[] = [];
  selfTradeCount = 0;
  readonly selfTradeCancels: OrderRecord[] = [];
  mmpCount = 0;
  readonly mmpCancels: OrderRecord[] = [];
  stopped = false;
  restingLots = 0;

  reset(): void {
    this.fillCount = 0;
    this.selfTradeCount = 0;
    this.mmpCount = 0;
    this.stopped = false;
    this.restingLots = 0;
  }

  addFill(maker: OrderRecord, tick: number, lots: number): void {
    const i = this.fillCount++;
    if (i === this.fillRef.length) this.grow();
    this.fillRef[i] = maker.ref;
    this.fillTick[i] = tick;
    this.fillLots[i] = lots;
    this.fillMaker[i] = maker;
  }

  private grow(): void {
    const n = this.fillRef.length * 2;
    const grown = (a: Float64Array) => {
      const b = new Float64Array(n);
      b.set(a);
      return b;
    };
    this.fillRef = grown(this.fillRef);
    this.fillTick = grown(this.fillTick);
    this.fillLots = grown(this.fillLots);
  }
}

/**
 * Market maker protection as one match sees it (engine/flows/mmp.ts builds it for a pair where
 * some wallet has a config): every fill is reported for both orders, and an order whose owner is
 * frozen on the pair and that counts for protection may no longer match.
 */
export type MatchGuard = {
  /** `lots` of `record` (maker or taker) filled. */
  filled(record: OrderRecord, lots: number): void;
  /** Whether `record` may no longer match (an mmp order of a wallet frozen on the pair). */
  stops(record: OrderRecord): boolean;
};


/**
 * The distinct ticks of one side touched during a command: a few, so an array with a scan (a
 * Set's clear() is a runtime call). The storage is kept from command to command and only the
 * count reset (`length = 0` would free it).
 */
class TouchedTicks {
  private readonly ticks: number[] = [];
  size = 0;

  add(tick: number): void {
    for (let i = 0; i < this.size; i++) if (this.ticks[i] === tick) return;
    this.ticks[this.size++] = tick;
  }

  /**
   * Sort the ticks best first for the side (an insertion sort over the few: Array.prototype.sort
   * would allocate its work array) and forget them; read them with `at` until the next add.
   */
  drain(isBid: boolean): number {
    const ticks = this.ticks;
    const n = this.size;
    for (let i = 1; i < n; i++) {
      const t = ticks[i]!;
      let j = i - 1;
      while (j >= 0 && (isBid ? ticks[j]! < t : ticks[j]! > t)) {
        ticks[j + 1] = ticks[j]!;
        j--;
      }
      ticks[j + 1] = t;
    }
    this.size = 0;
    return n;
  }

  at(i: number): number {
    return this.ticks[i]!;
  }
}

export class SeriesActor {
  /** Its dense index among the venue's series (SeriesTable), by which flows and outcomes name it; -1 until the table holds it. */
  handle = -1;
  /**
   * Its open orders by book ref, oldest first (the book reports fills by ref; actors/openRecords.ts:
   * no Map, whose table churn allocated). The one index of them: the venue's order index finds
   * them by id.
   */
  private readonly byRef = new OpenRecords();
  /** Book sequence for depth streams: bumps once per command that changed a level. */
  bookSeq = 0;
  settled = false;
  settlementPrice: bigint | null = null;
  marks: SeriesMarks | null = null;
  /** The marks as the risk engine reads them (floats for the scenario kernel), built once per oracle update. */
  riskQuote: RiskQuote | null = null;
  /** Sum of long balances, in lots of the pair's size step (domain/lots.ts: a bigint only beyond 2^53 - 1). */
  openInterest: Lots = 0;
  /**
   * The venue's record pool (actors/recordPool.ts), set when the series enters its table: a
   * record whose order leaves this book is handed back to it, free again after the command.
   * Null for an actor outside a venue (tests): its records are left to the collector.
   */
  records: RecordPool | null = null;
  /** Levels touched since the last drain. */
  private readonly touchedBids = new TouchedTicks();
  private readonly touchedAsks = new TouchedTicks();

  constructor(
    readonly spec: SeriesSpec,
    readonly book: OrderBook,
  ) {}

  // One match sink per actor, and one outcome whose arrays are reused by every match: no
  // closure, array or object per order or fill on the hot path.
  private readonly outcome = new OutcomeBuffer();
  private takerIsBuy = false;
  /** The match under way, for the guarded sink. */
  private taker: OrderRecord | null = null;
  private guard: MatchGuard | null = null;
  private readonly sink: MatchSink = {
    onFill: (makerRef, _owner, tick, qty) => {
      const maker = this.byRef.get(makerRef)!;
      maker.filledLots += qty;
      maker.status = maker.filledLots === maker.lots ? 'filled' : 'partial';
      this.outcome.addFill(maker, tick, qty);
      this.touch(!this.takerIsBuy, tick);
    },
    onSelfTradeCancel: (makerRef) => {
      const maker = this.byRef.get(makerRef)!;
      maker.status = 'cancelled';
      const out = this.outcome;
      out.selfTradeCancels[out.selfTradeCount++] = maker;
      this.touch(!this.takerIsBuy, maker.tick);
    },
    // No screen: an own property, so the book's one read per place finds it at once.
    screen: null,
  };
  /**
   * The sink of a match under market maker protection: the plain sink's work, each fill reported
   * to the guard for both orders (a taker whose owner froze stops), and a screen that removes a
   * resting order the guard stops instead of matching it. Used only on a pair where some wallet
   * has a config, so the plain path pays nothing.
   */
  private readonly guardedSink: MatchSink = {
    onFill: (makerRef, owner, tick, qty, remaining) => {
      this.sink.onFill(makerRef, owner, tick, qty, remaining);
      const guard = this.guard!;
      const taker = this.taker!;
      guard.filled(this.byRef.get(makerRef)!, qty);
      guard.filled(taker, qty);
      if (!guard.stops(taker)) return false;
      this.outcome.stopped = true;
      return true;
    },
    onSelfTradeCancel: (makerRef, remaining) => this.sink.onSelfTradeCancel(makerRef, remaining),
    screen: (makerRef) => this.guard!.stops(this.byRef.get(makerRef)!),
    onScreenCancel: (makerRef) => {
      const maker = this.byRef.get(makerRef)!;
      maker.status = 'cancelled';
      const out = this.outcome;
      out.mmpCancels[out.mmpCount++] = maker;
      this.touch(!this.takerIsBuy, maker.tick);
    },
  };

  /**
   * Match an incoming order and rest the remainder. The caller has validated it. The
   * outcome is valid until the next call (its arrays are reused).
   */
  match(order: OrderRecord, restRemainder = true, guard: MatchGuard | null = null): MatchOutcome {
    const out = this.outcome;
    out.reset();
    out.seriesHandle = this.handle;
    this.takerIsBuy = order.isBuy;
    this.byRef.set(order);
    let sink = this.sink;
    if (guard !== null) {
      this.guard = guard;
      this.taker = order;
      sink = this.guardedSink;
    }
    const remaining = this.book.place(order.ref, order.ownerIndex, order.isBuy, order.tick, order.lots, sink, restRemainder);
    this.guard = null;
    this.taker = null;
    const rests = restRemainder && !out.stopped;
    order.filledLots = order.lots - remaining;
    // A remainder that may not rest (IOC, FOK, a taker market maker protection stopped) is cancelled: the caller names why.
    order.status = remaining === 0 ? 'filled' : !rests ? 'cancelled' : order.filledLots > 0 ? 'partial' : 'open';
    if (remaining > 0 && rests) this.touch(order.isBuy, order.tick);
    for (let i = 0; i < out.fillCount; i++) if (out.fillMaker[i]!.status === 'filled') this.forget(out.fillMaker[i]!);
    for (let i = 0; i < out.selfTradeCount; i++) this.forget(out.selfTradeCancels[i]!);
    for (let i = 0; i < out.mmpCount; i++) this.forget(out.mmpCancels[i]!);
    if (remaining === 0 || !rests) this.forget(order);
    out.restingLots = rests ? remaining : 0;
    return out;
  }

  /**
   * Fill-or-kill under market maker protection: the lots an order could fill at once, walking
   * the opposite side in priority order as matching would (own orders skipped, orders the guard
   * stops skipped, the guard told of each fill, stopping when the taker would stop). `guard` must
   * be a dry run: it changes no state. Allocates the book's order list: only for FOK orders on a
   * pair where some wallet has a config.
   */
  fillableLotsGuarded(order: OrderRecord, want: number, guard: MatchGuard): number {
    let total = 0;
    for (const r of this.book.orders()) {
      if (total >= want) break;
      if (r.isBuy === order.isBuy) continue;
      if (order.isBuy ? r.tick > order.tick : r.tick < order.tick) break;
      if (r.owner === order.ownerIndex) continue;
      const maker = this.byRef.get(r.ref)!;
      if (guard.stops(maker)) continue;
      const lots = Math.min(want - total, r.qty);
      total += lots;
      guard.filled(maker, lots);
      guard.filled(order, lots);
      if (guard.stops(order)) break;
    }
    return total;
  }

  /** Post-only: whether an order at `tick` would take (book/instructions.ts). */
  wouldTake(isBuy: boolean, tick: number): boolean {
    return wouldTake(this.book, isBuy, tick);
  }

  /** Fill-or-kill: the lots an order of owner `ownerIndex` could fill at once at `tick` (book/instructions.ts). */
  fillableLots(ownerIndex: number, isBuy: boolean, tick: number, want: number): number {
    return fillableLots(this.book, isBuy, tick, want, this.ownResting(ownerIndex));
  }

  private *ownResting(ownerIndex: number): IterableIterator<OwnResting> {
    for (const r of this.byRef.values()) if (r.ownerIndex === ownerIndex) yield { isBuy: r.isBuy, tick: r.tick, qty: r.lots - r.filledLots };
  }

  /** Remove an open order from the book; returns its remaining lots. */
  remove(order: OrderRecord, status: 'cancelled' | 'expired'): number {
    const lots = this.book.cancel(order.ref);
    order.status = status;
    this.touch(order.isBuy, order.tick);
    this.forget(order);
    return lots;
  }

  /** Remove the open order with book ref `ref` (a message from the account side, which names its orders by ref); returns its record as it ends. */
  removeRef(ref: number, status: 'cancelled' | 'expired'): OrderRecord {
    const order = this.byRef.get(ref);
    if (order === undefined) throw new Error(`series ${this.spec.seriesId} has no open order with ref ${ref}`);
    this.remove(order, status);
    return order;
  }

  private touch(isBid: boolean, tick: number): void {
    (isBid ? this.touchedBids : this.touchedAsks).add(tick);
  }

  /**
   * Finished orders leave the live maps: they are reported by events and the account's history.
   * The record goes back to the venue's pool (once, however often it is forgotten), which frees
   * it only at the end of the command: the outcome, the flows and the events still read it.
   */
  private forget(order: OrderRecord): void {
    if (this.byRef.delete(order.ref)) this.records?.leave(order);
  }

  /** Open orders, oldest first (a fresh array: not for the hot path). */
  openOrders(): OrderRecord[] {
    return this.byRef.values();
  }

  get openOrderCount(): number {
    return this.byRef.size;
  }

  /** The open order with book ref `ref`. */
  openOrder(ref: number): OrderRecord | undefined {
    return this.byRef.get(ref);
  }

  /** The marks the risk engine counts with: none once settled (the series' quote cell for the margin book). */
  quoteNow(): RiskQuote | null {
    return this.settled ? null : this.riskQuote;
  }

  /** New marks, priced at oracle spot `spot` (WAD). */
  setMarks(marks: SeriesMarks, spot: bigint): void {
    this.marks = marks;
    const scenarios = new Float64Array(15);
    for (let i = 0; i < 15; i++) scenarios[i] = Number(marks.scenarios[i] ?? marks.mark) / 1e18;
    this.riskQuote = { markWad: marks.mark, mark: Number(marks.mark) / 1e18, scenarios, spot: Number(spot) / 1e18, spotWad: spot };
  }

  /** How many levels of a side were touched since the last drain. */
  touchedCount(isBid: boolean): number {
    return (isBid ? this.touchedBids : this.touchedAsks).size;
  }

  /**
   * The levels of a side touched since the last drain, best first, written into `out` (exactly
   * `touchedCount(isBid)` levels, the event sink's reused storage) as [tick, lots, order count]
   * at their current aggregate (the compact depth event's; engine/wire.ts makes them WAD);
   * forgets them. Returns `out`.
   */
  drainLevels(isBid: boolean, out: number[][]): EngineDepthLevel[] {
    const touched = isBid ? this.touchedBids : this.touchedAsks;
    const n = touched.drain(isBid);
    for (let i = 0; i < n; i++) {
      const tick = touched.at(i);
      const level = out[i]!;
      level[0] = tick;
      level[1] = this.book.levelQty(isBid, tick);
      level[2] = this.book.levelCount(isBid, tick);
    }
    return out as unknown as EngineDepthLevel[];
  }

  /**
   * Rebuild from a snapshot: records in their original map order (so a re-serialisation is
   * identical), then the book from refs in priority order (so matching continues identically).
   */
  restore(records: readonly OrderRecord[], priority: readonly number[]): void {
    for (const r of records) this.byRef.set(r);
    const crossed: MatchSink = {
      onFill() {
        throw new Error('restored book crossed: snapshot is inconsistent');
      },
      onSelfTradeCancel() {
        throw new Error('restored book crossed: snapshot is inconsistent');
      },
    };
    for (const ref of priority) {
      const r = this.byRef.get(ref);
      if (!r) throw new Error(`snapshot book names unknown order ref ${ref}`);
      this.book.place(r.ref, r.ownerIndex, r.isBuy, r.tick, r.lots - r.filledLots, crossed);
    }
  }
}
