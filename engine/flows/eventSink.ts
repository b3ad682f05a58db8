/**
 * Collects the events of one command. Every event is stamped with the command's sequence
 * number and time; position and portfolio changes are deduplicated and depth changes
 * gathered per series, then emitted once the command has completed (style.md habit 7) with
 * the figures as they stand after it: a reader folding the events needs nothing else.
 */
import type { Hex } from '../domain/hex.ts';
import type { EngineDepthEvent, EngineEvent, EngineOrderEvent, EnginePortfolioEvent, EnginePositionEvent, EngineTradeEvent } from '../events.ts';
import type { Portfolio } from '../actors/portfolio.ts';
import { emptyPosition, type Position } from '../actors/position.ts';
import type { VenueState } from '../state.ts';
import type { SeriesActor } from '../actors/series.ts';
import { figuresInDoubles, portfolioFigures, type PortfolioFigures } from '../risk/portfolioFigures.ts';
import { OrderResults } from './orderResults.ts';
import { ArraysByLength, blankDepthEvent, blankOrderEvent, blankPortfolioEvent, blankPositionEvent, blankTradeEvent, LevelArrays, Pool, POOLED_LENGTH, type Writable } from './eventPool.ts';

/** The id a client sees: a market maker's internal portfolios are shown as its portfolio 0. */
export function publicPortfolioId(p: Portfolio): number {
  return p.internalPair !== null ? 0 : p.id;
}

/**
 * A portfolio's key in a command's set of touched portfolios. Its own function, called only on
 * that path: built inline, the optimising compiler converted the id to a string (and boxed it)
 * ahead of the branch, on every call.
 */
function portfolioKey(p: Portfolio): string {
  return `${publicPortfolioId(p)}|${p.owner}`;
}

/** An event as a flow builds it (the engine's compact form, events.ts); the sink adds the command's `seq` and `ts`. */
export type UnstampedEvent = EngineEvent extends infer E ? (E extends EngineEvent ? Omit<E, 'seq' | 'ts'> : never) : never;

/** A flat position's event: what is left of a position that closed. */
const FLAT: Position = emptyPosition('0x', 1n);

/** Touched positions and portfolios up to which a linear scan finds them (above it, a map). */
const LINEAR = 64;

function indexPosition(index: Map<Portfolio, Map<Hex, number>>, p: Portfolio, seriesId: Hex, i: number): void {
  let bySeries = index.get(p);
  if (bySeries === undefined) index.set(p, (bySeries = new Map()));
  bySeries.set(seriesId, i);
}

/** A command's events when it has none: shared, never written. */
const NO_EVENTS: readonly EngineEvent[] = Object.freeze([]);

export class EventSink {
  /**
   * The command's events as they are pushed: one array kept from command to command (its first
   * `count` entries are the command's), never shrunk, so collecting allocates nothing once it has
   * grown to the largest command. `finish` copies them into an array of exactly `count` from
   * `lists` (eventPool.ts): valid until the next command.
   */
  private readonly events: EngineEvent[] = [];
  private count = 0;
  private readonly lists = new ArraysByLength<EngineEvent>(() => null as unknown as EngineEvent, POOLED_LENGTH);
  /** The hot events' objects, reused (eventPool.ts): a flow takes one stamped (orderEvent, tradeEvent), writes every field and appends it. */
  private readonly orders = new Pool(blankOrderEvent);
  private readonly trades = new Pool(blankTradeEvent);
  private readonly positions = new Pool(blankPositionEvent);
  private readonly portfolioEvents = new Pool(blankPortfolioEvent);
  private readonly depths = new Pool(blankDepthEvent);
  private readonly levels = new LevelArrays();
  seq = 0;
  ts = 0;
  // What the command touched: few entries, so parallel arrays with a linear scan (no keys to
  // build or hash). The arrays are kept from command to command and only their counts reset
  // (`length = 0` would free their storage), so collecting allocates nothing.
  private readonly positionPortfolios: Portfolio[] = [];
  private readonly positionSeries: Hex[] = [];
  /** The position object as last touched (it may have left its portfolio's map since: closed). */
  private readonly positionObjects: (Position | null)[] = [];
  private positionCount = 0;
  private readonly portfolios: Portfolio[] = [];
  private portfolioCount = 0;
  /** Lookups for a command that touches more than LINEAR positions or portfolios (null until then). */
  private positionIndex: Map<Portfolio, Map<Hex, number>> | null = null;
  private portfolioIndex: Set<string> | null = null;
  private readonly books: SeriesActor[] = [];
  private bookCount = 0;
  /** The order command's result value and its trades (orderResults.ts): the venue's storage, reset by every command. */
  readonly results = new OrderResults();

  /** Start the next command: sequence `seq`, at the venue's time (`state.now`, ms); a fresh event list, nothing touched. */
  begin(seq: number, state: VenueState): void {
    this.seq = seq;
    this.ts = state.now;
    this.count = 0;
    this.orders.reset();
    this.trades.reset();
    this.positions.reset();
    this.portfolioEvents.reset();
    this.depths.reset();
    this.levels.reset();
    this.lists.reset();
    this.positionCount = 0;
    this.portfolioCount = 0;
    this.positionIndex = null;
    this.portfolioIndex = null;
    this.bookCount = 0;
    this.results.begin();
  }

  /**
   * Append an event, stamped with the command's sequence number and time. The hot events are
   * built with `seq` and `ts` already in place (0, last), so stamping rewrites two fields instead
   * of adding two (which would give each object an out-of-object property store).
   */
  push(e: UnstampedEvent | EngineEvent): void {
    const stamped = e as { seq?: number; ts?: number };
    stamped.seq = this.seq;
    stamped.ts = this.ts;
    this.events[this.count++] = e as EngineEvent;
  }

  // The pooled events are stamped where they are taken, one site per kind: a store of `ts` (a
  // double beyond the small integers) at a site that sees every kind of event boxes it anew.

  /** An order event from the storage, stamped, for the caller to fill in whole and `append`. */
  orderEvent(): Writable<EngineOrderEvent> {
    const e = this.orders.take();
    e.seq = this.seq;
    e.ts = this.ts;
    return e;
  }

  /** A trade event from the storage, stamped, for the caller to fill in whole and `append`. */
  tradeEvent(): Writable<EngineTradeEvent> {
    const e = this.trades.take();
    e.seq = this.seq;
    e.ts = this.ts;
    return e;
  }

  private positionEvent(): Writable<EnginePositionEvent> {
    const e = this.positions.take();
    e.seq = this.seq;
    e.ts = this.ts;
    return e;
  }

  private portfolioEvent(): Writable<EnginePortfolioEvent> {
    const e = this.portfolioEvents.take();
    e.seq = this.seq;
    e.ts = this.ts;
    return e;
  }

  private depthEvent(): Writable<EngineDepthEvent> {
    const e = this.depths.take();
    e.seq = this.seq;
    e.ts = this.ts;
    return e;
  }

  /** Append an event taken stamped from the storage (orderEvent, tradeEvent). */
  append(e: EngineEvent): void {
    this.events[this.count++] = e;
  }

  /** Objects the reused storage has made so far (each pool's most in one command): for tests. */
  storageMade(): number {
    return this.orders.made + this.trades.made + this.positions.made + this.portfolioEvents.made + this.depths.made + this.levels.made + this.lists.made;
  }

  /** A position of `p` on `seriesId` changed; `pos` is its object (kept even when it has just closed). */
  position(p: Portfolio, seriesId: Hex, pos: Position | null): void {
    let i = 0;
    const index = this.positionIndex;
    if (index !== null) i = index.get(p)?.get(seriesId) ?? this.positionCount;
    else while (i < this.positionCount && !(this.positionPortfolios[i] === p && this.positionSeries[i] === seriesId)) i++;
    if (i === this.positionCount) {
      this.positionPortfolios[i] = p;
      this.positionSeries[i] = seriesId;
      this.positionCount++;
      if (index !== null) indexPosition(index, p, seriesId, i);
      else if (this.positionCount > LINEAR) {
        // A command touching many positions (an oracle shock's liquidations): look them up, not scan.
        const built = (this.positionIndex = new Map());
        for (let k = 0; k < this.positionCount; k++) indexPosition(built, this.positionPortfolios[k]!, this.positionSeries[k]!, k);
      }
    }
    this.positionObjects[i] = pos;
    this.portfolio(p);
  }

  /** The keys of the portfolios listed so far and of `p`. */
  private portfolioSet(p: Portfolio): Set<string> {
    const built = new Set([portfolioKey(p)]);
    for (let i = 0; i < this.portfolioCount; i++) built.add(portfolioKey(this.portfolios[i]!));
    return built;
  }

  /** The figures of `p`'s margin account changed (cash, positions, orders, marks). */
  portfolio(p: Portfolio): void {
    const index = this.portfolioIndex;
    if (index !== null) {
      const key = portfolioKey(p);
      if (index.has(key)) return;
      index.add(key);
    } else {
      const owner = p.owner;
      const id = publicPortfolioId(p);
      for (let i = 0; i < this.portfolioCount; i++) {
        const q = this.portfolios[i]!;
        if (q.owner === owner && publicPortfolioId(q) === id) return;
      }
      // A command touching many portfolios (an oracle update, a liquidation pass): a set, not a scan.
      if (this.portfolioCount + 1 > LINEAR) this.portfolioIndex = this.portfolioSet(p);
    }
    this.portfolios[this.portfolioCount++] = p;
  }

  /** How many portfolios the command has touched so far (the liquidation pass checks them). */
  touchedCount(): number {
    return this.portfolioCount;
  }

  /** The `i`th portfolio the command touched, in order (i below touchedCount()). */
  touchedAt(i: number): Portfolio {
    return this.portfolios[i]!;
  }

  book(series: SeriesActor): void {
    for (let i = 0; i < this.bookCount; i++) if (this.books[i] === series) return;
    this.books[this.bookCount++] = series;
  }

  /**
   * Append the deduplicated depth, position and portfolio events; returns all the command's
   * events (the sink's storage: valid until the next command).
   */
  finish(state: VenueState): readonly EngineEvent[] {
    for (let i = 0; i < this.bookCount; i++) {
      const s = this.books[i]!;
      const pair = state.pairs.get(s.spec.pairId);
      if (!pair) continue;
      const bids = s.touchedCount(true);
      const asks = s.touchedCount(false);
      if (bids + asks === 0) continue;
      const e = this.depthEvent();
      e.seriesId = s.spec.seriesId;
      e.prevBookSeq = s.bookSeq;
      e.bookSeq = ++s.bookSeq;
      e.bids = s.drainLevels(true, this.levels.take(bids));
      e.asks = s.drainLevels(false, this.levels.take(asks));
      this.append(e);
    }
    for (let i = 0; i < this.positionCount; i++) {
      const portfolio = this.positionPortfolios[i]!;
      const seriesId = this.positionSeries[i]!;
      const live = portfolio.positions.get(seriesId);
      const pos = live ?? this.positionObjects[i] ?? FLAT;
      // A closed position keeps its realised PnL in the event; its balance and premium are 0.
      this.append(writePositionEvent(this.positionEvent(), portfolio, seriesId, pos, live !== undefined));
    }
    for (let i = 0; i < this.portfolioCount; i++) this.append(writePortfolioEvent(this.portfolioEvent(), state, this.portfolios[i]!));
    const n = this.count;
    if (n === 0) return NO_EVENTS;
    const out = this.lists.take(n);
    const events = this.events;
    for (let i = 0; i < n; i++) out[i] = events[i]!;
    return out;
  }
}

/**
 * The position event of `p` (its public id) on `seriesId` from `pos`: balance in lots, deferred
 * premium and realised PnL C6 (the converter adds the WAD balance and the average price). A
 * position that is no longer held (`live` false) shows balance and premium 0 and keeps its
 * realised PnL. A fresh object (the image's).
 */
export function positionEventOf(p: Portfolio, seriesId: Hex, pos: Position, live: boolean): EngineEvent {
  return writePositionEvent(blankPositionEvent(), p, seriesId, pos, live);
}

/** positionEventOf written into `e` (the sink's reused storage, or a blank). */
function writePositionEvent(e: Writable<EnginePositionEvent>, p: Portfolio, seriesId: Hex, pos: Position, live: boolean): EnginePositionEvent {
  e.owner = p.owner;
  e.portfolioId = publicPortfolioId(p);
  e.seriesId = seriesId;
  e.lots = live ? pos.lots : 0;
  // Each from its double or its bigint by a store of its own (a double merged with a bigint into one value is boxed when beyond the small integers).
  const wide = pos.wide;
  if (!live) e.premium = 0;
  else if (wide === null) e.premium = pos.premium;
  else e.premium = wide.premium;
  if (wide === null) e.realizedPnl = pos.realized;
  else e.realizedPnl = wide.realized;
  return e;
}

/**
 * The figures of a portfolio event, written here and copied into the event at once: one scratch
 * for figures in doubles and one for the bigint path, so that the first's fields only ever hold
 * numbers (a field that once held a bigint boxes every double stored in it afterwards). The two
 * list their fields in different orders: two literals of one shape share V8's hidden class, and
 * with it the fields' representation. (The event's own fields are Cash on both paths.)
 */
const FIGURES: PortfolioFigures = { deposit: 0, unrealizedPnl: 0, equity: 0, initialMargin: 0, initialMarginWithOrders: 0, maintenanceMargin: 0, isHealthy: true, maxWithdraw: 0, positionCount: 0 };
const FIGURES_WIDE: PortfolioFigures = { positionCount: 0, isHealthy: true, maxWithdraw: 0, maintenanceMargin: 0, initialMarginWithOrders: 0, initialMargin: 0, equity: 0, unrealizedPnl: 0, deposit: 0 };

/**
 * The figures of `p`'s margin account now, as the portfolio event carries them (the public
 * portfolio's view), in doubles where exact (risk/portfolioFigures.ts); the converter adds
 * the health ratio. A fresh object (the image's).
 */
export function portfolioEvent(state: VenueState, p: Portfolio): EngineEvent {
  return writePortfolioEvent(blankPortfolioEvent(), state, p);
}

/** portfolioEvent written into `e` (the sink's reused storage, or a blank). */
function writePortfolioEvent(e: Writable<EnginePortfolioEvent>, state: VenueState, p: Portfolio): EnginePortfolioEvent {
  const shown = p.internalPair !== null ? state.accounts.cashOfWallet(p.wallet, state.now) : p;
  const cash = state.accounts.cash;
  // In doubles straight from the margin book's rows when every figure is exact (no bigint made), else from the bigint requirement.
  const margin = state.accounts.margin;
  const rate = state.config.maintenanceRate;
  const n = margin.plainInDoubles(shown);
  const f = n !== null && figuresInDoubles(FIGURES, n, rate, cash.deposit, shown.handle) ? FIGURES : portfolioFigures(FIGURES_WIDE, margin.requirement(shown), rate, cash.deposit[shown.handle]!, cash.wideOf(shown.handle));
  e.owner = shown.owner;
  e.portfolioId = shown.id;
  e.createdAt = shown.createdAt;
  e.deposit = f.deposit;
  e.unrealizedPnl = f.unrealizedPnl;
  e.equity = f.equity;
  e.initialMargin = f.initialMargin;
  e.initialMarginWithOrders = f.initialMarginWithOrders;
  e.maintenanceMargin = f.maintenanceMargin;
  e.isHealthy = f.isHealthy;
  e.maxWithdraw = f.maxWithdraw;
  e.positionCount = f.positionCount;
  return e;
}
