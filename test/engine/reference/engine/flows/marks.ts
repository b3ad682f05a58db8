/**
 * Marks, Greeks and margin-scenario values of a series for an oracle state. The gateway
 * computes these in workers for every series when the oracle moves and sends them on the
 * oracle command; the engine uses this same function for series the command did not cover
 * (for example one listed after the values were computed), so the result never depends on
 * where it ran.
 */
import type { Hex } from '../domain/hex.ts';
import { floatToWad, wadToFloat } from '../domain/fixed.ts';
import { bsGreeks } from '../pricing/blackScholes.ts';
import { scenarioValues, SCENARIO_COUNT } from '../pricing/scenarios.ts';
import type { SeriesMarks } from '../commands.ts';

export const SECONDS_PER_YEAR = 365 * 24 * 3600;

export type MarkInput = {
  readonly seriesId: Hex;
  readonly isCall: boolean;
  readonly strike: bigint;
  readonly expiry: number; // seconds
  readonly spot: bigint;
  readonly volatility: bigint;
  readonly riskFreeRate: bigint;
  readonly nowMs: number;
};

export function computeMarks(m: MarkInput): SeriesMarks {
  const S = wadToFloat(m.spot);
  const K = wadToFloat(m.strike);
  const T = Math.max(0, (m.expiry * 1000 - m.nowMs) / 1000 / SECONDS_PER_YEAR);
  const vol = wadToFloat(m.volatility);
  const r = wadToFloat(m.riskFreeRate);
  const g = bsGreeks(m.isCall, S, K, T, r, 0, vol);
  const values = new Float64Array(SCENARIO_COUNT);
  scenarioValues(m.isCall, S, K, T, r, vol, values, 0);
  return {
    seriesId: m.seriesId,
    mark: floatToWad(g.price),
    delta: floatToWad(g.delta),
    gamma: floatToWad(g.gamma),
    vega: floatToWad(g.vega),
    theta: floatToWad(g.theta),
    rho: floatToWad(g.rho),
    scenarios: Array.from(values, (v) => floatToWad(v)),
  };
}
