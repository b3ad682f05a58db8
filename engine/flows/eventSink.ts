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
  readonly events: VenueEvent[] = [];
  // Few per command, so plain arrays with a linear scan beat hash maps keyed by built strings.
  private positions: { portfolio: Portfolio; seriesId: Hex }[] | null = null;
  private portfolios: { owner: string; portfolioId: number }[] | null = null;
  private books: SeriesActor[] | null = null;

  constructor(private readonly ts: number) {}

  push(e: VenueEvent): void {
    this.events.push(e);
  }

  position(p: Portfolio, seriesId: Hex): void {
    const list = (this.positions ??= []);
    let seen = false;
    for (const x of list) if (x.portfolio === p && x.seriesId === seriesId) seen = true;
    if (!seen) list.push({ portfolio: p, seriesId });
    this.portfolio(p);
  }

  portfolio(p: Portfolio): void {
    const portfolioId = publicPortfolioId(p);
    const list = (this.portfolios ??= []);
    for (const x of list) if (x.portfolioId === portfolioId && x.owner === p.owner) return;
    list.push({ owner: p.owner, portfolioId });
  }

  book(series: SeriesActor): void {
    const list = (this.books ??= []);
    if (!list.includes(series)) list.push(series);
  }

  /** Append the deduplicated position, portfolio and depth events; returns all events. */
  finish(state: VenueState): VenueEvent[] {
    for (const s of this.books ?? []) {
      const pair = state.pairs.get(s.spec.pairId);
      if (!pair) continue;
      const touched = s.drainTouched(pair.tickDecimals, pair.sizeStep);
      if (!touched) continue;
      const prevSeq = s.bookSeq;
      s.bookSeq++;
      this.events.push({ type: 'depth', seriesId: s.spec.seriesId, seq: s.bookSeq, prevSeq, bids: touched.bids, asks: touched.asks, ts: this.ts });
    }
    for (const { portfolio, seriesId } of this.positions ?? []) {
      const balance = portfolio.positions.get(seriesId)?.balance ?? 0n;
      this.events.push({ type: 'position', owner: portfolio.owner, portfolioId: publicPortfolioId(portfolio), seriesId, balance, ts: this.ts });
    }
    for (const p of this.portfolios ?? []) this.events.push({ type: 'portfolio', owner: p.owner, portfolioId: p.portfolioId, ts: this.ts });
    return this.events;
  }
}
