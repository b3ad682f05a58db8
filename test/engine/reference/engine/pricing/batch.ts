/**
 * Greeks in bulk for a Piscina worker: Float64Arrays in and out (transferable), no
 * allocation per option. Each option's row is priced by the same code as bsGreeks, so
 * batch and scalar results are bit-for-bit identical.
 */
import { greeksInto } from './blackScholes.ts';

/** Input row: isCall (1 = call, 0 = put), S, K, T (years), r, q, vol. */
export const GREEKS_IN_STRIDE = 7;
/** Output row: price, delta, gamma, vega, theta, rho (units in blackScholes.ts). */
export const GREEKS_OUT_STRIDE = 6;

/**
 * Price and Greeks of `count` options: input[i*7 .. i*7+6] -> out[i*6 .. i*6+5].
 * Throws only if the arrays are too short for `count` (a caller bug).
 */
export function greeksBatch(input: Float64Array, out: Float64Array, count: number): void {
  if (input.length < count * GREEKS_IN_STRIDE || out.length < count * GREEKS_OUT_STRIDE) {
    throw new RangeError(`greeksBatch: arrays too short for ${count} options`);
  }
  for (let i = 0, a = 0, b = 0; i < count; i++, a += GREEKS_IN_STRIDE, b += GREEKS_OUT_STRIDE) {
    greeksInto(input[a] === 1, input[a + 1]!, input[a + 2]!, input[a + 3]!, input[a + 4]!, input[a + 5]!, input[a + 6]!, out, b);
  }
}
