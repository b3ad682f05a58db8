/**
 * Values for the documented examples (OpenAPI `example`s, llms.txt) that the venue accepts
 * when the document is built: the first configured pair and a live series of it. Route
 * files call these from their `examples` functions, so a document built at start names
 * series that exist then, not series that expired long ago.
 *
 * Examples that name something a caller owns (a portfolio, an API key, an order, an RFQ
 * request) use the first such id a new wallet gets where there is one (portfolio 1) and a
 * well-formed id otherwise; test/gateway/http/examples.test.ts lists which ones a test
 * replaces and why.
 */
import type { Services } from '../services.ts';
import type { SeriesInfo } from '../readModels/catalog.ts';
import { pairIdOf } from '../../engine/index.ts';

export type SeriesExample = {
  readonly symbol: string;
  readonly seriesId: string;
  readonly pairId: string;
  readonly strike: string;
  readonly expiry: number;
  readonly isCall: boolean;
};

export type PairExample = { readonly symbol: string; readonly pairId: string; readonly tickDecimals: number };

/** A wallet address for examples that take any address (not a caller's). */
export const exampleAddress = '0x1111111111111111111111111111111111111111';
/** A well-formed bytes32 for ids a caller gets from another call (orderId, requestId, quoteId). */
export const exampleBytes32 = `0x${'ab'.repeat(32)}`;

export function examplePair(s: Services): PairExample {
  const pair = s.config.pairs[0]!;
  return { symbol: pair.symbol, pairId: pairIdOf(pair.symbol), tickDecimals: pair.tickDecimals };
}

/**
 * A call of the first pair, live for at least a day (the nearest such expiry), strike in the
 * middle of that expiry's strikes; when nothing is listed yet, any series; when there is none
 * at all, a well-formed placeholder (a fresh venue lists series at start, so that is rare).
 */
export function exampleSeries(s: Services): SeriesExample {
  const pair = examplePair(s);
  const nowSec = Math.floor(s.pipeline.now() / 1000);
  const all = [...s.reads.catalog.series.values()];
  const live = all.filter((x) => x.pairId === pair.pairId && x.isCall && !x.settled && x.expiry >= nowSec + 86_400);
  let chosen: SeriesInfo | undefined;
  if (live.length > 0) {
    const expiry = Math.min(...live.map((x) => x.expiry));
    const strikes = live.filter((x) => x.expiry === expiry).sort((a, b) => (a.strike < b.strike ? -1 : a.strike > b.strike ? 1 : 0));
    chosen = strikes[Math.floor(strikes.length / 2)];
  } else {
    chosen = all.find((x) => !x.settled) ?? all[0];
  }
  if (chosen === undefined) return { symbol: `${pair.symbol.split('-')[0]}-20270101-100000-C`, seriesId: exampleBytes32, pairId: pair.pairId, strike: '100000000000000000000000', expiry: 1798761600, isCall: true };
  const spec = chosen;
  return { symbol: spec.symbol, seriesId: spec.seriesId, pairId: spec.pairId, strike: spec.strike.toString(), expiry: spec.expiry, isCall: spec.isCall };
}
