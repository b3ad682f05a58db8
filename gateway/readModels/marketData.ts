/**
 * Public market data read models (architecture.md rule 6): replies are built from the
 * engine's state and cached as serialised JSON until an event touches the series, so a
 * ticker or book read does no matching work and usually no serialisation either.
 */
import type { Venue } from '../../engine/venue.ts';
import type { SeriesActor } from '../../engine/actors/series.ts';
import type { VenueEvent } from '../../engine/events.ts';
import type { Hex } from '../../engine/domain/hex.ts';
import { tickToPrice } from '../../engine/domain/ticks.ts';
import { floatToWad, wadToFloat, UINT256_MAX } from '../../engine/domain/fixed.ts';
import { impliedVol } from '../../engine/pricing/impliedVol.ts';
import { SECONDS_PER_YEAR } from '../../engine/flows/marks.ts';
import type { Form } from '../http/route.ts';
import { findSeries } from './seriesLookup.ts';

export type SeriesJson = { seriesId: Hex; symbol: string; pairId: Hex; pairSymbol: string; strike: string; expiry: number; isCall: boolean; isSettled: boolean; settlementPrice: string | null };

export function seriesJson(s: SeriesActor): SeriesJson {
  return {
    seriesId: s.spec.seriesId,
    symbol: s.spec.symbol,
    pairId: s.spec.pairId,
    pairSymbol: s.spec.pairSymbol,
    strike: s.spec.strike.toString(),
    expiry: s.spec.expiry,
    isCall: s.spec.isCall,
    isSettled: s.settled,
    settlementPrice: s.settlementPrice === null ? null : s.settlementPrice.toString(),
  };
}

export class MarketData {
  private readonly books = new Map<string, string>();
  private readonly tickers = new Map<Hex, string>();
  private readonly lookups = new Map<string, SeriesActor>();

  constructor(private readonly venue: Venue) {}

  /** Drop cached replies that the events made stale. */
  onEvents(events: readonly VenueEvent[]): void {
    for (const e of events) {
      switch (e.type) {
        case 'depth':
        case 'trade':
          this.invalidate(e.seriesId);
          break;
        case 'oracle':
        case 'series_settled':
        case 'series_listed':
          this.tickers.clear();
          this.books.clear();
          break;
        default:
          break;
      }
    }
  }

  /** Tickers carry 24-hour statistics that age with time: the clock drops them too. */
  onClock(): void {
    this.tickers.clear();
  }

  private invalidate(seriesId: Hex): void {
    this.tickers.delete(seriesId);
    for (const key of this.books.keys()) if (key.startsWith(seriesId)) this.books.delete(key);
  }

  /**
   * Resolve a symbol or seriesId, remembering hits: resolving a symbol hashes (keccak) and
   * a hot read path should not. Only found series are remembered, so the map is bounded by
   * the forms clients actually use for listed series.
   */
  find(text: string): SeriesActor | null {
    const hit = this.lookups.get(text);
    if (hit !== undefined) return hit;
    const found = findSeries(this.venue, text);
    if (found && this.lookups.size < 100_000) this.lookups.set(text, found);
    return found;
  }

  /** The book reply; the levels are cached until the book changes, the timestamp is the request's. */
  orderbookJson(s: SeriesActor, depth: number, nowMs: number): string {
    return `${this.orderbookPrefix(s, depth)},"timestamp":${nowMs}}`;
  }

  private orderbookPrefix(s: SeriesActor, depth: number): string {
    const key = `${s.spec.seriesId}|${depth}`;
    const cached = this.books.get(key);
    if (cached !== undefined) return cached;
    const pair = this.venue.state.pairs.get(s.spec.pairId)!;
    const level = (l: { tick: number; qty: number; count: number }) => ({
      price: tickToPrice(l.tick, pair.tickDecimals).toString(),
      size: (BigInt(l.qty) * pair.sizeStep).toString(),
      orderCount: l.count,
    });
    const json = JSON.stringify({
      symbol: s.spec.symbol,
      seriesId: s.spec.seriesId,
      bids: s.book.depth(true, depth).map(level),
      asks: s.book.depth(false, depth).map(level),
      seq: s.bookSeq,
    }).slice(0, -1);
    this.books.set(key, json);
    return json;
  }

  tickerJson(s: SeriesActor): string {
    const cached = this.tickers.get(s.spec.seriesId);
    if (cached !== undefined) return cached;
    const json = JSON.stringify(this.ticker(s));
    this.tickers.set(s.spec.seriesId, json);
    return json;
  }

  ticker(s: SeriesActor) {
    const state = this.venue.state;
    const pair = state.pairs.get(s.spec.pairId)!;
    const oracle = state.oracles.get(s.spec.pairId);
    const bidTick = s.book.bestBid();
    const askTick = s.book.bestAsk();
    const bestBid = bidTick < 0 ? null : tickToPrice(bidTick, pair.tickDecimals);
    const bestAsk = askTick < 0 ? null : tickToPrice(askTick, pair.tickDecimals);
    const w = s.windowStats();
    const last = s.recentTrades.last();
    const m = s.marks;
    const zero = '0';
    return {
      symbol: s.spec.symbol,
      seriesId: s.spec.seriesId,
      markPrice: s.settled ? '0' : (m?.mark.toString() ?? zero),
      indexPrice: oracle?.spot.toString() ?? zero,
      bestBid: bestBid?.toString() ?? null,
      bestAsk: bestAsk?.toString() ?? null,
      delta: m?.delta.toString() ?? zero,
      gamma: m?.gamma.toString() ?? zero,
      vega: m?.vega.toString() ?? zero,
      theta: m?.theta.toString() ?? zero,
      rho: m?.rho.toString() ?? zero,
      iv: this.iv(s, bestBid, bestAsk).toString(),
      volume24h: w.volume.toString(),
      trades24h: w.count,
      priceChange24h: w.first !== null && w.last !== null ? (w.last.price - w.first.price).toString() : zero,
      high24h: w.high?.toString() ?? null,
      low24h: w.low?.toString() ?? null,
      openInterest: s.openInterest.toString(),
      lastTradeAt: last ? Math.floor(last.ts / 1000) : null,
      isSettled: s.settled,
      settlementPrice: s.settlementPrice?.toString() ?? null,
    };
  }

  /**
   * Implied volatility (WAD): of the book's mid price when both sides are quoted and a
   * volatility fits it, else the oracle's volatility (which the mark is priced with).
   */
  private iv(s: SeriesActor, bid: bigint | null, ask: bigint | null): bigint {
    const state = this.venue.state;
    const oracle = state.oracles.get(s.spec.pairId);
    if (!oracle) return 0n;
    if (bid !== null && ask !== null && !s.settled) {
      const T = (s.spec.expiry * 1000 - state.now) / 1000 / SECONDS_PER_YEAR;
      const mid = wadToFloat((bid + ask) / 2n);
      const r = impliedVol(s.spec.isCall, mid, wadToFloat(oracle.spot), wadToFloat(s.spec.strike), T, wadToFloat(oracle.riskFreeRate), 0);
      if (r.ok) return floatToWad(r.vol);
    }
    return oracle.volatility;
  }

  pairJson(pairId: Hex, form: Form) {
    const p = this.venue.state.pairs.get(pairId)!;
    return form === 'current'
      ? { pairId, symbol: p.symbol, underlying: p.underlying, quote: p.quote, tickDecimals: p.tickDecimals, minSize: p.minSize.toString(), sizeStep: p.sizeStep.toString() }
      : { pairId, symbol: p.symbol, baseCurrency: p.underlying, quoteCurrency: p.quote, tickDecimals: p.tickDecimals, minSize: p.minSize.toString(), sizeStep: p.sizeStep.toString() };
  }

  openInterest(pairId: Hex) {
    const state = this.venue.state;
    const p = state.pairs.get(pairId)!;
    const callOI = state.pairOpenInterest(pairId, true);
    const putOI = state.pairOpenInterest(pairId, false);
    // Unlimited (cap 0) reports the largest uint256, as a contract's view function would.
    const remaining = (cap: bigint, oi: bigint) => (cap === 0n ? UINT256_MAX : cap > oi ? cap - oi : 0n).toString();
    return {
      pairId,
      symbol: p.symbol,
      callOI: callOI.toString(),
      putOI: putOI.toString(),
      maxCallOI: p.maxCallOI.toString(),
      maxPutOI: p.maxPutOI.toString(),
      callsRemaining: remaining(p.maxCallOI, callOI),
      putsRemaining: remaining(p.maxPutOI, putOI),
    };
  }
}
