/**
 * Collects the events of one command. Position and portfolio changes are deduplicated and
 * depth changes gathered per series, then all are emitted once the command has completed
 * (style.md habit 7).
 */
import type { Hex } from '../domain/hex.ts';
import type { VenueEvent } from '../events.ts';
import type { Portfolio } from '../actors/portfolio.ts';
import type { VenueState } from '../state.ts';
import { tickToPrice } from '../domain/ticks.ts';

/** The id a client sees: a market maker's internal portfolios are shown as its portfolio 0. */
export function publicPortfolioId(p: Portfolio): number {
  return p.internalPair !== null ? 0 : p.id;
}

export class EventSink {
  readonly events: VenueEvent[] = [];
  // Few per command, so plain arrays with a linear scan beat hash maps keyed by built strings.
  private positions: { portfolio: Portfolio; seriesId: Hex }[] | null = null;
  private portfolios: { owner: string; portfolioId: number }[] | null = null;
  private books: Hex[] | null = null;

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

  book(seriesId: Hex): void {
    const list = (this.books ??= []);
    if (!list.includes(seriesId)) list.push(seriesId);
  }

  /** Append the deduplicated position, portfolio and depth events; returns all events. */
  finish(state: VenueState): VenueEvent[] {
    for (const seriesId of this.books ?? []) {
      const s = state.series.get(seriesId);
      const pair = s && state.pairs.get(s.spec.pairId);
      if (!s || !pair) continue;
      const touched = s.drainTouched();
      if (!touched) continue;
      const lot = pair.sizeStep;
      const prevSeq = s.bookSeq;
      s.bookSeq++;
      this.events.push({
        type: 'depth',
        seriesId,
        seq: s.bookSeq,
        prevSeq,
        bids: touched.bids.map((l) => [tickToPrice(l.tick, pair.tickDecimals), BigInt(l.qty) * lot] as const),
        asks: touched.asks.map((l) => [tickToPrice(l.tick, pair.tickDecimals), BigInt(l.qty) * lot] as const),
        ts: this.ts,
      });
    }
    for (const { portfolio, seriesId } of this.positions ?? []) {
      const balance = portfolio.positions.get(seriesId)?.balance ?? 0n;
      this.events.push({ type: 'position', owner: portfolio.owner, portfolioId: publicPortfolioId(portfolio), seriesId, balance, ts: this.ts });
    }
    for (const p of this.portfolios ?? []) this.events.push({ type: 'portfolio', owner: p.owner, portfolioId: p.portfolioId, ts: this.ts });
    return this.events;
  }
}
