/**
 * Public market data, folded from committed events (architecture.md rule 6): per series the
 * book as depth events describe it, the recent public trades, the 24-hour statistics and the
 * open interest; per pair the open interest of its live series. Replies are built from this
 * state and the catalog, and cached as serialised JSON until an event touches the series,
 * so a ticker or book read does no work and usually no serialisation either.
 *
 * The book is the one mirror both the REST order book and the WebSocket depth snapshot read.
 * It moves only when a committed depth event is folded (before any stream listener sees the
 * event), so its `seq` is exactly the last published delta's and the next delta a new
 * subscriber receives has `prevSeq` equal to it; it never shows a change that is not durable.
 * Seeded by events only: after a restart from the snapshot's read state, or from the
 * engine's image (one depth event per book, prevBookSeq 0, every level).
 */
import type { Hex, SeriesSettledEvent, TradeEvent, VenueEvent, DepthEvent, DepthLevel } from '../../engine/index.ts';
import { floatToWad, wadToFloat, UINT256_MAX, impliedVol, SECONDS_PER_YEAR } from '../../engine/index.ts';
import type { Form } from '../http/route.ts';
import type { Catalog, SeriesInfo } from './catalog.ts';

export type SeriesJson = { seriesId: Hex; symbol: string; pairId: Hex; pairSymbol: string; strike: string; expiry: number; isCall: boolean; isSettled: boolean; settlementPrice: string | null };

export function seriesJson(s: SeriesInfo): SeriesJson {
  return {
    seriesId: s.seriesId,
    symbol: s.symbol,
    pairId: s.pairId,
    pairSymbol: s.pairSymbol,
    strike: s.strike.toString(),
    expiry: s.expiry,
    isCall: s.isCall,
    isSettled: s.settled,
    settlementPrice: s.settlementPrice === null ? null : s.settlementPrice.toString(),
  };
}

/** A public trade as the series keeps it (ts in ms). */
export type PublicTrade = { readonly id: string; readonly price: bigint; readonly size: bigint; readonly side: 'buy' | 'sell'; readonly ts: number };

/** A book as streamed: `seq` is the series' book sequence, levels [price, size] as strings, best first. */
export type DepthLevels = { readonly seq: number; readonly bids: [string, string][]; readonly asks: [string, string][] };

/** The last trades kept per series (the engine's `recentTradesPerSeries` before issue 19). */
export const RECENT_TRADES_PER_SERIES = 1000;
const DAY_MS = 24 * 3600 * 1000;
/** More levels than any book holds: the whole side. */
const ALL_LEVELS = 1_000_000;

/** A FIFO of items with O(1) amortised push, shift, pop and both ends. */
class Queue<T> {
  private items: T[] = [];
  private head = 0;
  get length(): number {
    return this.items.length - this.head;
  }
  first(): T | undefined {
    return this.items[this.head];
  }
  last(): T | undefined {
    return this.length > 0 ? this.items[this.items.length - 1] : undefined;
  }
  at(i: number): T | undefined {
    return i >= 0 && i < this.length ? this.items[this.head + i] : undefined;
  }
  push(x: T): void {
    this.items.push(x);
  }
  pop(): void {
    if (this.length > 0) this.items.pop();
  }
  shift(): void {
    if (this.length === 0) return;
    this.items[this.head++] = undefined as T;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }
  toArray(): T[] {
    return this.items.slice(this.head);
  }
}

type Level = { size: bigint; count: number };

class SeriesMarket {
  bookSeq = 0;
  readonly bids = new Map<bigint, Level>(); // price WAD -> level
  readonly asks = new Map<bigint, Level>();
  openInterest = 0n; // WAD
  /** The last RECENT_TRADES_PER_SERIES trades, oldest first. */
  readonly recent = new Queue<PublicTrade>();
  /** Trades of the last 24 hours (pruned on every trade and clock), with their volume and the high and low as monotonic queues. */
  readonly window = new Queue<PublicTrade>();
  windowVolume = 0n;
  private readonly highs = new Queue<PublicTrade>();
  private readonly lows = new Queue<PublicTrade>();

  recordTrade(t: PublicTrade): void {
    this.recent.push(t);
    if (this.recent.length > RECENT_TRADES_PER_SERIES) this.recent.shift();
    this.enterWindow(t);
    this.pruneWindow(t.ts);
  }

  enterWindow(t: PublicTrade): void {
    this.window.push(t);
    this.windowVolume += t.size;
    for (let b = this.highs.last(); b !== undefined && b.price <= t.price; b = this.highs.last()) this.highs.pop();
    this.highs.push(t);
    for (let b = this.lows.last(); b !== undefined && b.price >= t.price; b = this.lows.last()) this.lows.pop();
    this.lows.push(t);
  }

  /** Trades at or before `nowMs` - 24 h leave the window. */
  pruneWindow(nowMs: number): boolean {
    const cutoff = nowMs - DAY_MS;
    let pruned = false;
    for (let t = this.window.first(); t !== undefined && t.ts <= cutoff; t = this.window.first()) {
      this.window.shift();
      this.windowVolume -= t.size;
      if (this.highs.first() === t) this.highs.shift();
      if (this.lows.first() === t) this.lows.shift();
      pruned = true;
    }
    return pruned;
  }

  windowStats() {
    return { volume: this.windowVolume, count: this.window.length, high: this.highs.first()?.price ?? null, low: this.lows.first()?.price ?? null, first: this.window.first() ?? null, last: this.window.last() ?? null };
  }

  applyDepth(e: DepthEvent): void {
    this.bookSeq = e.bookSeq;
    setLevels(this.bids, e.bids);
    setLevels(this.asks, e.asks);
  }

  bestBid(): bigint | null {
    let best: bigint | null = null;
    for (const p of this.bids.keys()) if (best === null || p > best) best = p;
    return best;
  }

  bestAsk(): bigint | null {
    let best: bigint | null = null;
    for (const p of this.asks.keys()) if (best === null || p < best) best = p;
    return best;
  }
  /** The size (WAD) resting at `price` on one side, 0 when none. */
  sizeAt(isBid: boolean, price: bigint | null): bigint {
    return price === null ? 0n : ((isBid ? this.bids : this.asks).get(price)?.size ?? 0n);
  }
}

function setLevels(side: Map<bigint, Level>, levels: readonly DepthLevel[]): void {
  for (const [price, size, count] of levels) {
    if (size === 0n) side.delete(price);
    else side.set(price, { size, count });
  }
}

function sortedLevels(side: Map<bigint, Level>, descending: boolean, max: number): [bigint, Level][] {
  const prices = [...side.keys()].sort((a, b) => (a === b ? 0 : (a < b) === descending ? 1 : -1));
  if (prices.length > max) prices.length = max;
  return prices.map((p) => [p, side.get(p)!]);
}

type SeriesMarketState = {
  seriesId: Hex;
  bookSeq: number;
  bids: [bigint, bigint, number][];
  asks: [bigint, bigint, number][];
  openInterest: bigint;
  recent: PublicTrade[];
  window: PublicTrade[];
};
type MarketDataState = { series: SeriesMarketState[]; gaps: number };

export class MarketData {
  private readonly series = new Map<Hex, SeriesMarket>();
  /** Open interest of the live series of each pair (WAD). */
  private readonly pairOI = new Map<Hex, { call: bigint; put: bigint }>();
  /** Depth events whose prevBookSeq did not follow the book (a broken invariant upstream); counted for tests and alerts. */
  gaps = 0;
  private readonly books = new Map<string, string>();
  private readonly tickers = new Map<Hex, string>();

  /** `now`: the time (Unix ms) of the last command folded (ReadModels.ts). */
  constructor(
    private readonly catalog: Catalog,
    private readonly now: () => number,
  ) {}

  private market(seriesId: Hex): SeriesMarket {
    let m = this.series.get(seriesId);
    if (m === undefined) this.series.set(seriesId, (m = new SeriesMarket()));
    return m;
  }

  apply(e: VenueEvent): void {
    switch (e.type) {
      case 'depth': {
        const m = this.market(e.seriesId);
        if (e.prevBookSeq !== m.bookSeq) this.gaps++;
        m.applyDepth(e);
        this.invalidate(e.seriesId);
        return;
      }
      case 'trade':
        this.trade(e);
        this.invalidate(e.seriesId);
        return;
      case 'series_settled':
        this.settled(e);
        this.tickers.clear();
        this.books.clear();
        return;
      case 'series_listed': {
        // 0 when listed; the engine's image carries a live series' current open interest.
        const m = this.market(e.seriesId);
        this.addPairOI(e.seriesId, e.openInterest - m.openInterest);
        m.openInterest = e.openInterest;
        this.tickers.clear();
        this.books.clear();
        return;
      }
      case 'oracle':
        this.tickers.clear();
        this.books.clear();
        return;
      case 'clock':
        // Tickers carry 24-hour statistics that age with time.
        for (const m of this.series.values()) m.pruneWindow(e.ts);
        this.tickers.clear();
        return;
      default:
        return;
    }
  }

  private trade(e: TradeEvent): void {
    const m = this.market(e.seriesId);
    this.addPairOI(e.seriesId, e.openInterest - m.openInterest);
    m.openInterest = e.openInterest;
    m.recordTrade({ id: e.tradeId, price: e.price, size: e.size, side: e.takerSide, ts: e.ts });
  }

  private settled(e: SeriesSettledEvent): void {
    const m = this.market(e.seriesId);
    // A settled series leaves its pair's sum.
    this.addPairOI(e.seriesId, -m.openInterest);
    m.openInterest = e.openInterest;
  }

  private addPairOI(seriesId: Hex, delta: bigint): void {
    if (delta === 0n) return;
    const s = this.catalog.series.get(seriesId);
    if (!s) return;
    let oi = this.pairOI.get(s.pairId);
    if (oi === undefined) this.pairOI.set(s.pairId, (oi = { call: 0n, put: 0n }));
    if (s.isCall) oi.call += delta;
    else oi.put += delta;
  }

  private invalidate(seriesId: Hex): void {
    this.tickers.delete(seriesId);
    for (const key of this.books.keys()) if (key.startsWith(seriesId)) this.books.delete(key);
  }

  /** Resolve a canonical or user-facing symbol or a seriesId (catalog.find). */
  find(text: string): SeriesInfo | null {
    return this.catalog.find(text);
  }

  /** The published book of a series, best levels first, up to `maxLevels` per side. */
  levels(seriesId: Hex, maxLevels = ALL_LEVELS): DepthLevels {
    const m = this.series.get(seriesId);
    if (!m) return { seq: 0, bids: [], asks: [] };
    const str = ([p, l]: [bigint, Level]): [string, string] => [p.toString(), l.size.toString()];
    return { seq: m.bookSeq, bids: sortedLevels(m.bids, true, maxLevels).map(str), asks: sortedLevels(m.asks, false, maxLevels).map(str) };
  }

  /** Recent public trades of a series, oldest first (at most RECENT_TRADES_PER_SERIES). */
  recentTrades(seriesId: Hex): { readonly length: number; at(i: number): PublicTrade | undefined; first(): PublicTrade | undefined } {
    return this.series.get(seriesId)?.recent ?? EMPTY_TRADES;
  }

  /** The 24-hour statistics of a series (as of the last prune). */
  windowStats(seriesId: Hex) {
    return (this.series.get(seriesId) ?? EMPTY_SERIES).windowStats();
  }

  /** The best bid and ask of a series with the size at each (WAD; null where the side is empty). */
  touch(seriesId: Hex): { bestBid: bigint | null; bestBidSize: bigint | null; bestAsk: bigint | null; bestAskSize: bigint | null } {
    const m = this.series.get(seriesId) ?? EMPTY_SERIES;
    const bestBid = m.bestBid();
    const bestAsk = m.bestAsk();
    return { bestBid, bestBidSize: bestBid === null ? null : m.sizeAt(true, bestBid), bestAsk, bestAskSize: bestAsk === null ? null : m.sizeAt(false, bestAsk) };
  }

  /** A series' open interest (WAD). */
  seriesOpenInterest(seriesId: Hex): bigint {
    return this.series.get(seriesId)?.openInterest ?? 0n;
  }

  /** The open interest of a pair's live calls or puts (WAD). */
  pairOpenInterest(pairId: Hex, isCall: boolean): bigint {
    const oi = this.pairOI.get(pairId);
    return oi === undefined ? 0n : isCall ? oi.call : oi.put;
  }

  /** The book reply; the levels are cached until the book changes, the timestamp is the request's. */
  orderbookJson(s: SeriesInfo, depth: number, nowMs: number): string {
    return `${this.orderbookPrefix(s, depth)},"timestamp":${nowMs}}`;
  }

  private orderbookPrefix(s: SeriesInfo, depth: number): string {
    const key = `${s.seriesId}|${depth}`;
    const cached = this.books.get(key);
    if (cached !== undefined) return cached;
    const m = this.series.get(s.seriesId) ?? EMPTY_SERIES;
    const level = ([price, l]: [bigint, Level]) => ({ price: price.toString(), size: l.size.toString(), orderCount: l.count });
    const json = JSON.stringify({
      symbol: s.symbol,
      seriesId: s.seriesId,
      bids: sortedLevels(m.bids, true, depth).map(level),
      asks: sortedLevels(m.asks, false, depth).map(level),
      seq: m.bookSeq,
    }).slice(0, -1);
    this.books.set(key, json);
    return json;
  }

  tickerJson(s: SeriesInfo): string {
    const cached = this.tickers.get(s.seriesId);
    if (cached !== undefined) return cached;
    const json = JSON.stringify(this.ticker(s));
    this.tickers.set(s.seriesId, json);
    return json;
  }

  ticker(s: SeriesInfo) {
    const oracle = this.catalog.oracles.get(s.pairId);
    const m = this.series.get(s.seriesId) ?? EMPTY_SERIES;
    const bestBid = m.bestBid();
    const bestAsk = m.bestAsk();
    const w = m.windowStats();
    const last = m.recent.last();
    const k = s.marks;
    const zero = '0';
    return {
      symbol: s.symbol,
      seriesId: s.seriesId,
      markPrice: s.settled ? '0' : k.mark.toString(),
      indexPrice: oracle?.spot.toString() ?? zero,
      bestBid: bestBid?.toString() ?? null,
      bestAsk: bestAsk?.toString() ?? null,
      delta: k.delta.toString(),
      gamma: k.gamma.toString(),
      vega: k.vega.toString(),
      theta: k.theta.toString(),
      rho: k.rho.toString(),
      iv: this.iv(s, bestBid, bestAsk).toString(),
      volume24h: w.volume.toString(),
      trades24h: w.count,
      priceChange24h: w.first !== null && w.last !== null ? (w.last.price - w.first.price).toString() : zero,
      high24h: w.high?.toString() ?? null,
      low24h: w.low?.toString() ?? null,
      openInterest: m.openInterest.toString(),
      lastTradeAt: last ? Math.floor(last.ts / 1000) : null,
      isSettled: s.settled,
      settlementPrice: s.settlementPrice?.toString() ?? null,
    };
  }

  /**
   * Implied volatility (WAD): of the book's mid price when both sides are quoted and a
   * volatility fits it, else the oracle's volatility (which the mark is priced with).
   */
  private iv(s: SeriesInfo, bid: bigint | null, ask: bigint | null): bigint {
    const oracle = this.catalog.oracles.get(s.pairId);
    if (!oracle) return 0n;
    if (bid !== null && ask !== null && !s.settled) {
      const T = (s.expiry * 1000 - this.now()) / 1000 / SECONDS_PER_YEAR;
      const mid = wadToFloat((bid + ask) / 2n);
      const r = impliedVol(s.isCall, mid, wadToFloat(oracle.spot), wadToFloat(s.strike), T, wadToFloat(oracle.riskFreeRate), 0);
      if (r.ok) return floatToWad(r.vol);
    }
    return oracle.volatility;
  }

  pairJson(pairId: Hex, form: Form) {
    const p = this.catalog.pairs.get(pairId)!;
    return form === 'current'
      ? { pairId, symbol: p.symbol, underlying: p.underlying, quote: p.quote, tickDecimals: p.tickDecimals, minSize: p.minSize.toString(), sizeStep: p.sizeStep.toString() }
      : { pairId, symbol: p.symbol, baseCurrency: p.underlying, quoteCurrency: p.quote, tickDecimals: p.tickDecimals, minSize: p.minSize.toString(), sizeStep: p.sizeStep.toString() };
  }

  openInterest(pairId: Hex) {
    const p = this.catalog.pairs.get(pairId)!;
    const callOI = this.pairOpenInterest(pairId, true);
    const putOI = this.pairOpenInterest(pairId, false);
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

  exportState(): MarketDataState {
    const series: SeriesMarketState[] = [];
    const plain = (side: Map<bigint, Level>): [bigint, bigint, number][] => [...side].map(([p, l]) => [p, l.size, l.count]);
    for (const [seriesId, m] of this.series) {
      series.push({ seriesId, bookSeq: m.bookSeq, bids: plain(m.bids), asks: plain(m.asks), openInterest: m.openInterest, recent: m.recent.toArray().map((t) => ({ ...t })), window: m.window.toArray().map((t) => ({ ...t })) });
    }
    return { series, gaps: this.gaps };
  }

  importState(s: MarketDataState): void {
    for (const x of s.series) {
      const m = this.market(x.seriesId);
      m.bookSeq = x.bookSeq;
      setLevels(m.bids, x.bids);
      setLevels(m.asks, x.asks);
      m.openInterest = x.openInterest;
      for (const t of x.recent) m.recent.push({ ...t });
      for (const t of x.window) m.enterWindow({ ...t });
      const info = this.catalog.series.get(x.seriesId);
      if (info && !info.settled) this.addPairOI(x.seriesId, x.openInterest);
    }
    this.gaps = s.gaps;
  }
}

const EMPTY_SERIES = new SeriesMarket();
const EMPTY_TRADES = new Queue<PublicTrade>();
