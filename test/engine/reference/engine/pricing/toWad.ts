/**
 * The boundary between float pricing and bigint money: every conversion rounds to the
 * nearest WAD explicitly (floatToWad), in the units documented in docs/pricing.md.
 */
import { floatToWad, wadToFloat, type Wad } from '../domain/fixed.ts';
import type { Greeks } from './blackScholes.ts';
import { SCENARIO_COUNT } from './scenarios.ts';

export type GreeksWad = { price: Wad; delta: Wad; gamma: Wad; vega: Wad; theta: Wad; rho: Wad };

/**
 * Greeks in WAD, in the pricer's units: vega per 1.00 of volatility, theta per year, rho
 * per 1.00 of rate. A NaN or infinite Greek is a broken invariant and throws.
 */
export function greeksToWad(g: Greeks): GreeksWad {
  return {
    price: floatToWad(g.price),
    delta: floatToWad(g.delta),
    gamma: floatToWad(g.gamma),
    vega: floatToWad(g.vega),
    theta: floatToWad(g.theta),
    rho: floatToWad(g.rho),
  };
}

/** One row of greeksBatch output (price, delta, gamma, vega, theta, rho) in WAD. */
export function greeksRowToWad(out: Float64Array, offset: number): GreeksWad {
  return {
    price: floatToWad(out[offset]!),
    delta: floatToWad(out[offset + 1]!),
    gamma: floatToWad(out[offset + 2]!),
    vega: floatToWad(out[offset + 3]!),
    theta: floatToWad(out[offset + 4]!),
    rho: floatToWad(out[offset + 5]!),
  };
}

/** The 15 scenario values of one series (per contract) in WAD. */
export function scenarioRowToWad(values: Float64Array, offset: number): Wad[] {
  const row: Wad[] = new Array<Wad>(SCENARIO_COUNT);
  for (let i = 0; i < SCENARIO_COUNT; i++) row[i] = floatToWad(values[offset + i]!);
  return row;
}

/**
 * Pricing inputs from the venue's WAD state (spot, strike, vol, rate) as floats; time to
 * expiry in years from seconds, on a 365-day year.
 */
export const SECONDS_PER_YEAR = 365 * 86_400;
export function pricingInputs(spot: Wad, strike: Wad, vol: Wad, rate: Wad, expirySec: number, nowSec: number): {
  S: number; K: number; vol: number; r: number; T: number;
} {
  return { S: wadToFloat(spot), K: wadToFloat(strike), vol: wadToFloat(vol), r: wadToFloat(rate), T: (expirySec - nowSec) / SECONDS_PER_YEAR };
}
