/**
 * Margin scenarios (api.md "Portfolios, collateral, positions, margin"): each series is
 * repriced with Black-Scholes (q = 0) under 5 spot shocks x 3 relative volatility shocks.
 * The account actor keeps these 15 values per series and sums them over positions, so a
 * margin check is additions, not a pricing run.
 */
import { bsPrice } from './blackScholes.ts';

/** Relative spot shocks: S x (1 + shock). */
export const SPOT_SHOCKS = [-0.3, -0.15, 0, 0.15, 0.3] as const;
/** Relative volatility shocks: vol x (1 + shock). */
export const VOL_SHOCKS = [-0.3, 0, 0.5] as const;
export const SCENARIO_COUNT = 15;
/** Index of the unshocked scenario (spot 0, vol 0): the mark. */
export const BASE_SCENARIO = 2 * VOL_SHOCKS.length + 1;
/** Input row of scenarioBatch: isCall (1/0), S, K, T, r, vol. */
export const SCENARIO_IN_STRIDE = 6;
export const SCENARIO_OUT_STRIDE = SCENARIO_COUNT;

/** Scenario index of a spot shock index (0..4) and a vol shock index (0..2): spot-major. */
export function scenarioIndex(spotIndex: number, volIndex: number): number {
  return spotIndex * VOL_SHOCKS.length + volIndex;
}

/**
 * Value per contract (one unit of the underlying) in each scenario, written to
 * out[offset .. offset+14]: out[offset + spotIndex*3 + volIndex] =
 * bsPrice(isCall, S*(1+SPOT_SHOCKS[spotIndex]), K, T, r, 0, vol*(1+VOL_SHOCKS[volIndex])).
 */
export function scenarioValues(isCall: boolean, S: number, K: number, T: number, r: number, vol: number, out: Float64Array, offset: number): void {
  let o = offset;
  for (let i = 0; i < SPOT_SHOCKS.length; i++) {
    const s = S * (1 + SPOT_SHOCKS[i]!);
    for (let j = 0; j < VOL_SHOCKS.length; j++) {
      out[o++] = bsPrice(isCall, s, K, T, r, 0, vol * (1 + VOL_SHOCKS[j]!));
    }
  }
}

/** scenarioValues over `count` rows: input stride 6 (isCall, S, K, T, r, vol), output stride 15. */
export function scenarioBatch(input: Float64Array, out: Float64Array, count: number): void {
  if (input.length < count * SCENARIO_IN_STRIDE || out.length < count * SCENARIO_OUT_STRIDE) {
    throw new RangeError(`scenarioBatch: arrays too short for ${count} rows`);
  }
  for (let i = 0; i < count; i++) {
    const a = i * SCENARIO_IN_STRIDE;
    scenarioValues(input[a] === 1, input[a + 1]!, input[a + 2]!, input[a + 3]!, input[a + 4]!, input[a + 5]!, out, i * SCENARIO_OUT_STRIDE);
  }
}
