/**
 * Collects the events of one command. Every event is stamped with the command's sequence
 * number and time; position and portfolio changes are deduplicated and depth changes
 * gathered per series, then emitted once the command has completed (style.md habit 7) with
 * the figures as they stand after it: a reader folding the events needs nothing else.
 */
import type { Hex } from '../domain/hex.ts';
import { WAD_PER_C6 } from '../domain/fixed.ts';
import type { VenueEvent } from '../events.ts';
import { depositOf, type Portfolio } from '../actors/portfolio.ts';
import { balanceOf, emptyPosition, premiumOf, realizedOf, type Position } from '../actors/position.ts';
import type { VenueState } from '../state.ts';
import type { SeriesActor } from '../actors/series.ts';

/** The id a client sees: a market maker's internal portfolios are shown as its portfolio 0. */
export function publicPortfolioId(p: Portfolio): number {
  return p.internalPair !== null ? 0 : p.id;
}

/** An event as a flow builds it; the sink adds the command's `seq` and `ts`. */
export type UnstampedEvent = VenueEvent extends infer E ? (E extends VenueEvent ? Omit<E, 'seq' | 'ts'> : never) : never;

const abs = (x: bigint): bigint => (x < 0n ? -x : x);

/** A position's average price: |premium| (C6) x this / |balance| (WAD) is WAD per contract. */
const AVERAGE_PRICE_SCALE = WAD_PER_C6 * 10n ** 18n;

/** A flat position's event: what is left of a position that closed. */
const FLAT: Position = emptyPosition('0x', 1n);

/** Touched positions and portfolios up to which a linear scan finds them (above it, a map). */
const LINEAR = 64;

function indexPosition(index: Map<Portfolio, Map<Hex, number>>, p: Portfolio, seriesId: Hex, i: number): void {
  let bySeries = index.get(p);
  if (bySeries === undefined) index.set(p, (bySeries = new Map()));
  bySeries.set(seriesId, i);
}

export class EventSink {
  events: VenueEvent[] = [];
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

  /** Start the next command: sequence `seq`, venue time `ts` (ms); a fresh event list, nothing touched. */
  begin(seq: number, ts: number): void {
    this.seq = seq;
    this.ts = ts;
    this.events = [];
    this.positionCount = 0;
    this.portfolioCount = 0;
    this.positionIndex = null;
    this.portfolioIndex = null;
    this.bookCount = 0;
  }

  /** Append an event, stamped with the command's sequence number and time. */
  push(e: UnstampedEvent): void {
    const stamped = e as { seq?: number; ts?: number };
    stamped.seq = this.seq;
    stamped.ts = this.ts;
    this.events.push(e as VenueEvent);
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

  /** The figures of `p`'s margin account changed (cash, positions, orders, marks). */
  portfolio(p: Portfolio): void {
    const owner = p.owner;
    const id = publicPortfolioId(p);
    const index = this.portfolioIndex;
    if (index !== null) {
      const key = `${id}|${owner}`;
      if (index.has(key)) return;
      index.add(key);
    } else {
      for (let i = 0; i < this.portfolioCount; i++) {
        const q = this.portfolios[i]!;
        if (q.owner === owner && publicPortfolioId(q) === id) return;
      }
      if (this.portfolioCount + 1 > LINEAR) {
        // A command touching many portfolios (an oracle update, a liquidation pass): a set, not a scan.
        const built = (this.portfolioIndex = new Set([`${id}|${owner}`]));
        for (let i = 0; i < this.portfolioCount; i++) built.add(`${publicPortfolioId(this.portfolios[i]!)}|${this.portfolios[i]!.owner}`);
      }
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

  /** Append the deduplicated depth, position and portfolio events; returns all events. */
  finish(state: VenueState): VenueEvent[] {
    for (let i = 0; i < this.bookCount; i++) {
      const s = this.books[i]!;
      const pair = state.pairs.get(s.spec.pairId);
      if (!pair) continue;
      const touched = s.drainTouched(pair.tickDecimals, pair.sizeStep);
      if (!touched) continue;
      const prevBookSeq = s.bookSeq;
      s.bookSeq++;
      this.push({ type: 'depth', seriesId: s.spec.seriesId, bookSeq: s.bookSeq, prevBookSeq, bids: touched.bids, asks: touched.asks });
    }
    for (let i = 0; i < this.positionCount; i++) {
      const portfolio = this.positionPortfolios[i]!;
      const seriesId = this.positionSeries[i]!;
      const live = portfolio.positions.get(seriesId);
      const pos = live ?? this.positionObjects[i] ?? FLAT;
      // A closed position keeps its realised PnL in the event; its balance and premium are 0.
      this.push(positionEventOf(portfolio, seriesId, pos, live !== undefined));
    }
    for (let i = 0; i < this.portfolioCount; i++) this.push(portfolioEvent(state, this.portfolios[i]!));
    return this.events;
  }
}

/**
 * The position event of `p` (its public id) on `seriesId` from `pos`: balance WAD (from its
 * lots), deferred premium and realised PnL C6; the average price follows. A position that is
 * no longer held (`live` false) shows balance and premium 0 and keeps its realised PnL.
 */
export function positionEventOf(p: Portfolio, seriesId: Hex, pos: Position, live: boolean): UnstampedEvent {
  const balance = live ? balanceOf(pos) : 0n;
  const premium = live ? premiumOf(pos) : 0n;
  const realizedPnl = realizedOf(pos);
  return {
    type: 'position',
    owner: p.owner,
    portfolioId: publicPortfolioId(p),
    seriesId,
    balance,
    premium,
    averagePrice: balance === 0n ? null : (abs(premium) * AVERAGE_PRICE_SCALE) / abs(balance),
    realizedPnl,
  };
}

/** The figures of `p`'s margin account now, as the portfolio event carries them (the public portfolio's view). */
export function portfolioEvent(state: VenueState, p: Portfolio): UnstampedEvent {
  const shown = p.internalPair !== null ? state.accounts.cashPortfolio(p.owner, state.now) : p;
  const r = state.accounts.risk(shown);
  const deposit = depositOf(shown);
  const own = deposit > 0n ? deposit : 0n;
  return {
    type: 'portfolio',
    owner: shown.owner,
    portfolioId: shown.id,
    createdAt: shown.createdAt,
    deposit: r.deposit,
    unrealizedPnl: r.unrealizedPnl,
    equity: r.equity,
    initialMargin: r.initialMargin,
    initialMarginWithOrders: r.initialMarginWithOrders,
    maintenanceMargin: r.maintenanceMargin,
    healthRatio: r.healthRatio,
    isHealthy: r.isHealthy,
    maxWithdraw: r.maxWithdraw < own ? r.maxWithdraw : own,
    positionCount: r.positionCount,
  };
}
