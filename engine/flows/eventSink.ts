/**
 * Collects the events of one command. Position and portfolio changes are deduplicated and
 * depth changes gathered per series, then all are emitted once the command has completed
 * (style.md habit 7).
 */
import type { Hex } from '../domain/hex.ts';
import type { VenueEvent } from '../events.ts';
import type { Portfolio } from '../actors/portfolio.ts';
import type { VenueState } from '../state.ts';
import type { SeriesActor } from '../actors/series.ts';

/** The id a client sees: a market maker's internal portfolios are shown as its portfolio 0. */
export function publicPortfolioId(p: Portfolio): number {
  return p.internalPair !== null ? 0 : p.id;
}

export class EventSink {
  events: VenueEvent[] = [];
  private ts: number;
  // What the command touched: few entries, so parallel arrays with a linear scan (no keys to
  // build or hash). The arrays are kept from command to command and only their counts reset
  // (`length = 0` would free their storage), so collecting allocates nothing.
  private readonly positionPortfolios: Portfolio[] = [];
  private readonly positionSeries: Hex[] = [];
  private positionCount = 0;
  private readonly owners: string[] = [];
  private readonly portfolioIds: number[] = [];
  private portfolioCount = 0;
  private readonly books: SeriesActor[] = [];
  private bookCount = 0;

  constructor(ts: number) {
    this.ts = ts;
  }

  /** Start the next command at venue time `ts` (ms): a fresh event list, nothing touched. */
  begin(ts: number): void {
    this.ts = ts;
    this.events = [];
    this.positionCount = 0;
    this.portfolioCount = 0;
    this.bookCount = 0;
  }

  push(e: VenueEvent): void {
    this.events.push(e);
  }

  position(p: Portfolio, seriesId: Hex): void {
    let seen = false;
    for (let i = 0; i < this.positionCount; i++) if (this.positionPortfolios[i] === p && this.positionSeries[i] === seriesId) seen = true;
    if (!seen) {
      this.positionPortfolios[this.positionCount] = p;
      this.positionSeries[this.positionCount++] = seriesId;
    }
    this.portfolio(p);
  }

  portfolio(p: Portfolio): void {
    const portfolioId = publicPortfolioId(p);
    for (let i = 0; i < this.portfolioCount; i++) if (this.portfolioIds[i] === portfolioId && this.owners[i] === p.owner) return;
    this.owners[this.portfolioCount] = p.owner;
    this.portfolioIds[this.portfolioCount++] = portfolioId;
  }

  book(series: SeriesActor): void {
    for (let i = 0; i < this.bookCount; i++) if (this.books[i] === series) return;
    this.books[this.bookCount++] = series;
  }

  /** Append the deduplicated position, portfolio and depth events; returns all events. */
  finish(state: VenueState): VenueEvent[] {
    for (let i = 0; i < this.bookCount; i++) {
      const s = this.books[i]!;
      const pair = state.pairs.get(s.spec.pairId);
      if (!pair) continue;
      const touched = s.drainTouched(pair.tickDecimals, pair.sizeStep);
      if (!touched) continue;
      const prevSeq = s.bookSeq;
      s.bookSeq++;
      this.events.push({ type: 'depth', seriesId: s.spec.seriesId, seq: s.bookSeq, prevSeq, bids: touched.bids, asks: touched.asks, ts: this.ts });
    }
    for (let i = 0; i < this.positionCount; i++) {
      const portfolio = this.positionPortfolios[i]!;
      const seriesId = this.positionSeries[i]!;
      const balance = portfolio.positions.get(seriesId)?.balance ?? 0n;
      this.events.push({ type: 'position', owner: portfolio.owner, portfolioId: publicPortfolioId(portfolio), seriesId, balance, ts: this.ts });
    }
    for (let i = 0; i < this.portfolioCount; i++) this.events.push({ type: 'portfolio', owner: this.owners[i]!, portfolioId: this.portfolioIds[i]!, ts: this.ts });
    return this.events;
  }
}
