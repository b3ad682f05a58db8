/**
 * The option chain of one expiry of a pair (extensions.md "Option chain"): every strike's
 * call and put with marks, Greeks, implied volatility, the touch and open interest, in one
 * read. Built from the catalog and the market-data fold (architecture.md rule 6).
 */
import type { Hex } from '../../engine/index.ts';
import type { Catalog, SeriesInfo } from './catalog.ts';
import type { MarketData } from './marketData.ts';

export type ChainSideJson = {
  seriesId: Hex;
  symbol: string;
  markPrice: string;
  iv: string;
  delta: string;
  gamma: string;
  vega: string;
  theta: string;
  bestBid: string | null;
  bestBidSize: string | null;
  bestAsk: string | null;
  bestAskSize: string | null;
  openInterest: string;
  volume24h: string;
};

export type ChainJson = {
  pairId: Hex;
  underlying: string;
  expiry: number;
  expiries: number[];
  indexPrice: string;
  timestamp: number;
  strikes: { strike: string; call: ChainSideJson; put: ChainSideJson }[];
};

export type ChainResult = { ok: true; chain: ChainJson } | { ok: false; reason: 'no_expiry' | 'unknown_expiry' };

/** The live expiries of a pair at `nowSec` (not settled, not past), ascending. */
export function liveExpiries(catalog: Catalog, pairId: Hex, nowSec: number): number[] {
  const out = new Set<number>();
  for (const s of catalog.series.values()) if (s.pairId === pairId && !s.settled && s.expiry > nowSec) out.add(s.expiry);
  return [...out].sort((a, b) => a - b);
}

function side(market: MarketData, s: SeriesInfo): ChainSideJson {
  const t = market.ticker(s);
  const touch = market.touch(s.seriesId);
  const str = (x: bigint | null) => (x === null ? null : x.toString());
  return {
    seriesId: s.seriesId,
    symbol: s.symbol,
    markPrice: t.markPrice,
    iv: t.iv,
    delta: t.delta,
    gamma: t.gamma,
    vega: t.vega,
    theta: t.theta,
    bestBid: str(touch.bestBid),
    bestBidSize: str(touch.bestBidSize),
    bestAsk: str(touch.bestAsk),
    bestAskSize: str(touch.bestAskSize),
    openInterest: t.openInterest,
    volume24h: t.volume24h,
  };
}

/** The chain of `pairId` (a listed pair) at `expiry`, or at its nearest live expiry when none is named. */
export function optionChain(catalog: Catalog, market: MarketData, pairId: Hex, expiry: number | undefined, nowMs: number): ChainResult {
  const expiries = liveExpiries(catalog, pairId, Math.floor(nowMs / 1000));
  const chosen = expiry ?? expiries[0];
  if (chosen === undefined) return { ok: false, reason: 'no_expiry' };
  if (!expiries.includes(chosen)) return { ok: false, reason: 'unknown_expiry' };
  const byStrike = new Map<bigint, { call: SeriesInfo | null; put: SeriesInfo | null }>();
  for (const s of catalog.series.values()) {
    if (s.pairId !== pairId || s.expiry !== chosen || s.settled) continue;
    let row = byStrike.get(s.strike);
    if (row === undefined) byStrike.set(s.strike, (row = { call: null, put: null }));
    if (s.isCall) row.call = s;
    else row.put = s;
  }
  // The venue lists a call and a put at every strike of an expiry (docs/engine.md "Listing").
  const strikes = [...byStrike].filter(([, row]) => row.call !== null && row.put !== null).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    ok: true,
    chain: {
      pairId,
      underlying: catalog.pairs.get(pairId)!.underlying,
      expiry: chosen,
      expiries,
      indexPrice: (catalog.oracles.get(pairId)?.spot ?? 0n).toString(),
      timestamp: nowMs,
      strikes: strikes.map(([strike, row]) => ({ strike: strike.toString(), call: side(market, row.call!), put: side(market, row.put!) })),
    },
  };
}
