/** Pairs, the oracle and series listing. */
import type { Hex } from '../domain/hex.ts';
import { pairIdOf, seriesIdOf } from '../domain/ids.ts';
import { canonicalSymbol } from '../domain/symbols.ts';
import type { PairListing, SeriesMarks } from '../commands.ts';
import { reject, type Rejection } from '../codes.ts';
import type { VenueState } from '../state.ts';
import { SeriesActor } from '../actors/series.ts';
import { strikeGrid, missingExpiries } from '../actors/registry.ts';
import { createFastBook } from '../book/fastBook.ts';
import type { EventSink } from './eventSink.ts';
import type { SeriesMarkValues } from '../events.ts';
import { computeMarks } from './marks.ts';

export function listPair(state: VenueState, sink: EventSink, pair: PairListing): Rejection | null {
  const pairId = pairIdOf(pair.symbol);
  if (state.pairs.has(pairId)) return reject('pair_exists', { pairId });
  state.pairs.set(pairId, {
    pairId,
    symbol: pair.symbol,
    underlying: pair.underlying,
    quote: pair.quote,
    tickDecimals: pair.tickDecimals,
    minSize: pair.minSize,
    sizeStep: pair.sizeStep,
    maxCallOI: pair.maxCallOI,
    maxPutOI: pair.maxPutOI,
    listedAt: state.now,
  });
  state.listedExpiries.set(pairId, new Set());
  sink.push({
    type: 'pair_listed',
    pairId,
    symbol: pair.symbol,
    underlying: pair.underlying,
    quote: pair.quote,
    tickDecimals: pair.tickDecimals,
    minSize: pair.minSize,
    sizeStep: pair.sizeStep,
    maxCallOI: pair.maxCallOI,
    maxPutOI: pair.maxPutOI,
  });
  return null;
}

/** Keep at most this much spot history per pair: the settlement window plus a margin. */
const HISTORY_MS = 2 * 3600 * 1000;

export function updateOracle(
  state: VenueState,
  sink: EventSink,
  pairId: Hex,
  spot: bigint,
  volatility: bigint,
  riskFreeRate: bigint,
  marks: readonly SeriesMarks[],
): Rejection | null {
  if (!state.pairs.has(pairId)) return reject('unknown_pair', { pairId });
  if (spot <= 0n || volatility <= 0n) return reject('bad_oracle_value');
  let o = state.oracles.get(pairId);
  if (!o) state.oracles.set(pairId, (o = { spot, volatility, riskFreeRate, lastUpdate: state.nowSec, history: [] }));
  o.spot = spot;
  o.volatility = volatility;
  o.riskFreeRate = riskFreeRate;
  o.lastUpdate = state.nowSec;
  o.history.push([state.now, spot]);
  while (o.history.length > 1 && o.history[1]![0] <= state.now - HISTORY_MS) o.history.shift();
  const given = new Map(marks.map((m) => [m.seriesId, m]));
  const values: SeriesMarkValues[] = [];
  for (const s of state.series.values()) {
    if (s.spec.pairId !== pairId || s.settled) continue;
    const m = given.get(s.spec.seriesId) ?? marksFor(state, s);
    s.setMarks(m, spot);
    state.accounts.margin.marksChanged(s.spec.seriesId, s.quoteNow());
    values.push(markValues(m));
    // Every margin account exposed to the series is revalued: its portfolio event carries the new figures.
    for (const anchor of state.accounts.margin.exposedAnchors(s.spec.seriesId)) sink.portfolio(anchor);
  }
  sink.push({ type: 'oracle', pairId, spot, volatility, riskFreeRate, marks: values });
  return null;
}

/** The marks an event carries (the margin scenarios stay inside the engine). */
export function markValues(m: SeriesMarks): SeriesMarkValues {
  return { seriesId: m.seriesId, mark: m.mark, delta: m.delta, gamma: m.gamma, vega: m.vega, theta: m.theta, rho: m.rho };
}

function marksFor(state: VenueState, s: SeriesActor): SeriesMarks {
  const o = state.oracles.get(s.spec.pairId)!;
  return computeMarks({ seriesId: s.spec.seriesId, isCall: s.spec.isCall, strike: s.spec.strike, expiry: s.spec.expiry, spot: o.spot, volatility: o.volatility, riskFreeRate: o.riskFreeRate, nowMs: state.now });
}

/** List every expiry of the schedule not yet listed, on a strike grid around the current spot. */
export function listDueSeries(state: VenueState, sink: EventSink): void {
  for (const pair of state.pairs.values()) {
    const oracle = state.oracles.get(pair.pairId);
    if (!oracle) continue; // strikes need a spot
    const listed = state.listedExpiries.get(pair.pairId)!;
    for (const expiry of missingExpiries(state.nowSec, listed)) {
      listed.add(expiry);
      for (const strike of strikeGrid(oracle.spot, state.config.strikeRange)) {
        for (const isCall of [true, false]) {
          const seriesId = seriesIdOf(pair.pairId, strike, expiry, isCall);
          if (state.series.has(seriesId)) continue;
          const actor = new SeriesActor(
            { seriesId, pairId: pair.pairId, pairSymbol: pair.symbol, underlying: pair.underlying, strike, expiry, isCall, symbol: canonicalSymbol({ underlying: pair.underlying, strike, isCall, expiry }), listedAt: state.now },
            createFastBook(),
          );
          state.series.set(seriesId, actor);
          const m = marksFor(state, actor);
          actor.setMarks(m, oracle.spot);
          state.accounts.margin.marksChanged(seriesId, actor.quoteNow());
          const spec = actor.spec;
          sink.push({ type: 'series_listed', seriesId, pairId: pair.pairId, pairSymbol: pair.symbol, underlying: pair.underlying, symbol: spec.symbol, strike, expiry, isCall, marks: markValues(m), openInterest: 0n });
        }
      }
    }
  }
}
