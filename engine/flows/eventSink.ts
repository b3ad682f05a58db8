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
  // build or hash), kept from command to command so that collecting allocates nothing.
  private readonly positionPortfolios: Portfolio[] = [];
  private readonly positionSeries: Hex[] = [];
  private readonly owners: string[] = [];
  private readonly portfolioIds: number[] = [];
  private readonly books: SeriesActor[] = [];

  constructor(ts: number) {
    this.ts = ts;
  }

  /** Start the next command at venue time `ts` (ms): a fresh event list, nothing touched. */
  begin(ts: number): void {
    this.ts = ts;
    this.events = [];
    if (this.positionSeries.length !== 0) {
      this.positionPortfolios.length = 0;
      this.positionSeries.length = 0;
    }
    if (this.owners.length !== 0) {
      this.owners.length = 0;
      this.portfolioIds.length = 0;
    }
    if (this.books.length !== 0) this.books.length = 0;
  }

  push(e: VenueEvent): void {
    this.events.push(e);
  }

  position(p: Portfolio, seriesId: Hex): void {
    let seen = false;
    for (let i = 0; i < this.positionSeries.length; i++) if (this.positionPortfolios[i] === p && this.positionSeries[i] === seriesId) seen = true;
    if (!seen) {
      this.positionPortfolios.push(p);
      this.positionSeries.push(seriesId);
    }
    this.portfolio(p);
  }

  portfolio(p: Portfolio): void {
    const portfolioId = publicPortfolioId(p);
    for (let i = 0; i < this.owners.length; i++) if (this.portfolioIds[i] === portfolioId && this.owners[i] === p.owner) return;
    this.owners.push(p.owner);
    this.portfolioIds.push(portfolioId);
  }

  book(series: SeriesActor): void {
    if (!this.books.includes(series)) this.books.push(series);
  }

  /** Append the deduplicated position, portfolio and depth events; returns all events. */
  finish(state: VenueState): VenueEvent[] {
    for (const s of this.books) {
      const pair = state.pairs.get(s.spec.pairId);
      if (!pair) continue;
      const touched = s.drainTouched(pair.tickDecimals, pair.sizeStep);
      if (!touched) continue;
      const prevSeq = s.bookSeq;
      s.bookSeq++;
      this.events.push({ type: 'depth', seriesId: s.spec.seriesId, seq: s.bookSeq, prevSeq, bids: touched.bids, asks: touched.asks, ts: this.ts });
    }
    for (let i = 0; i < this.positionSeries.length; i++) {
      const portfolio = this.positionPortfolios[i]!;
      const seriesId = this.positionSeries[i]!;
      const balance = portfolio.positions.get(seriesId)?.balance ?? 0n;
      this.events.push({ type: 'position', owner: portfolio.owner, portfolioId: publicPortfolioId(portfolio), seriesId, balance, ts: this.ts });
    }
    for (let i = 0; i < this.owners.length; i++) this.events.push({ type: 'portfolio', owner: this.owners[i]!, portfolioId: this.portfolioIds[i]!, ts: this.ts });
    return this.events;
  }
}
