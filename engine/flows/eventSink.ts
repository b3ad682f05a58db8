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
  private readonly positions = new Map<string, { owner: string; portfolioId: number; seriesId: Hex; portfolio: Portfolio }>();
  private readonly portfolios = new Map<string, { owner: string; portfolioId: number }>();
  private readonly books = new Set<Hex>();

  constructor(private readonly ts: number) {}

  push(e: VenueEvent): void {
    this.events.push(e);
  }

  position(p: Portfolio, seriesId: Hex): void {
    const portfolioId = publicPortfolioId(p);
    this.positions.set(`${p.owner}|${p.id}|${seriesId}`, { owner: p.owner, portfolioId, seriesId, portfolio: p });
    this.portfolio(p);
  }

  portfolio(p: Portfolio): void {
    const portfolioId = publicPortfolioId(p);
    this.portfolios.set(`${p.owner}|${portfolioId}`, { owner: p.owner, portfolioId });
  }

  book(seriesId: Hex): void {
    this.books.add(seriesId);
  }

  /** Append the deduplicated position, portfolio and depth events; returns all events. */
  finish(state: VenueState): VenueEvent[] {
    for (const seriesId of this.books) {
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
    for (const p of this.positions.values()) {
      const balance = p.portfolio.positions.get(p.seriesId)?.balance ?? 0n;
      this.events.push({ type: 'position', owner: p.owner, portfolioId: p.portfolioId, seriesId: p.seriesId, balance, ts: this.ts });
    }
    for (const p of this.portfolios.values()) this.events.push({ type: 'portfolio', owner: p.owner, portfolioId: p.portfolioId, ts: this.ts });
    return this.events;
  }
}
