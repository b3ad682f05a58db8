/**
 * Black-Scholes-Merton price and Greeks of a European option on a spot S with continuous
 * yield q (the venue uses q = 0; the published test values need it).
 *
 * Units (docs/pricing.md): price and theta in the quote currency per contract (one unit of
 * the underlying); delta per 1.00 of spot; gamma per 1.00 of spot, squared; vega per 1.00
 * of volatility (0.20 -> 1.20), so per vol point divide by 100; theta per calendar year
 * (per day divide by 365), as the option's value change when time passes (-dV/dT); rho
 * per 1.00 of rate, per basis point divide by 10,000.
 *
 * Degenerate inputs are valued on the forward: with T <= 0 or vol <= 0 the value is the
 * discounted intrinsic value max(S e^-qT - K e^-rT, 0) for a call (the put mirrors it),
 * delta is a step (half at the money), gamma and vega are 0; theta and rho are their limits
 * as vol -> 0 while T > 0, and 0 once T <= 0 (an expired option no longer ages). NaN or an
 * infinite T or vol gives NaN everywhere: that input is a bug upstream, not a market.
 */
import { INV_SQRT_2PI, gaussExp, normTail } from './normal.ts';

export type Greeks = { price: number; delta: number; gamma: number; vega: number; theta: number; rho: number };

function isBadTime(T: number, vol: number): boolean {
  return T !== T || vol !== vol || T === Infinity || vol === Infinity;
}

/** Smallest g1 from which g2 = g1 * F/K keeps full precision (well above subnormals). */
const G_MIN = 1e-280;

/**
 * exp(-d2^2/2) from exp(-d1^2/2): phi(d2) = phi(d1) * (S e^-qT) / (K e^-rT) exactly, so
 * the second exponential is a multiplication. Falls back to exp when g1 underflows.
 */
function secondExp(g1: number, ratio: number, d2: number): number {
  return g1 > G_MIN && ratio < Infinity ? g1 * ratio : gaussExp(d2);
}

/**
 * Price and five Greeks written to out[o .. o+5] (price, delta, gamma, vega, theta, rho).
 * d1/d2, the discount factors and exp(-d1^2/2) are computed once; N(d1) reuses the
 * density's exponential and N(d2) gets its own from it by one multiplication. No allocation.
 */
export function greeksInto(
  isCall: boolean, S: number, K: number, T: number, r: number, q: number, vol: number,
  out: Float64Array, o: number,
): void {
  if (isBadTime(T, vol)) {
    out.fill(NaN, o, o + 6);
    return;
  }
  const sqrtT = T > 0 ? Math.sqrt(T) : 0;
  const sd = vol > 0 ? vol * sqrtT : 0;
  const Tc = T > 0 ? T : 0;
  const dfr = r === 0 ? 1 : Math.exp(-r * Tc);
  const dfq = q === 0 ? 1 : Math.exp(-q * Tc);
  const Sq = S * dfq;
  const Kr = K * dfr;
  if (!(sd > 0)) {
    degenerateInto(isCall, T, r, q, Sq, Kr, dfq, out, o);
    return;
  }
  const d1 = (Math.log(S / K) + (r - q + 0.5 * vol * vol) * T) / sd;
  const d2 = d1 - sd;
  const g1 = gaussExp(d1);
  const g2 = secondExp(g1, Sq / Kr, d2);
  // Tails N(-|d|); N(d) and N(-d) both come from them without cancellation in the tails.
  const t1 = normTail(d1 < 0 ? -d1 : d1, g1);
  const t2 = normTail(d2 < 0 ? -d2 : d2, g2);
  const pdf1 = INV_SQRT_2PI * g1;
  const decay = (-Sq * pdf1 * vol) / (2 * sqrtT);
  if (isCall) {
    const n1 = d1 < 0 ? t1 : 1 - t1;
    const n2 = d2 < 0 ? t2 : 1 - t2;
    const price = Sq * n1 - Kr * n2;
    out[o] = price > 0 ? price : 0;
    out[o + 1] = dfq * n1;
    out[o + 4] = decay - r * Kr * n2 + q * Sq * n1;
    out[o + 5] = Kr * T * n2;
  } else {
    const m1 = d1 > 0 ? t1 : 1 - t1;
    const m2 = d2 > 0 ? t2 : 1 - t2;
    const price = Kr * m2 - Sq * m1;
    out[o] = price > 0 ? price : 0;
    out[o + 1] = -dfq * m1;
    out[o + 4] = decay + r * Kr * m2 - q * Sq * m1;
    out[o + 5] = -Kr * T * m2;
  }
  out[o + 2] = (dfq * pdf1) / (S * sd);
  out[o + 3] = Sq * pdf1 * sqrtT;
}

function degenerateInto(
  isCall: boolean, T: number, r: number, q: number, Sq: number, Kr: number, dfq: number,
  out: Float64Array, o: number,
): void {
  const diff = Sq - Kr;
  // Probability of exercise in the zero-volatility limit; 1/2 exactly at the money.
  const callStep = diff > 0 ? 1 : diff < 0 ? 0 : 0.5;
  const step = isCall ? callStep : 1 - callStep;
  const sign = isCall ? 1 : -1;
  const intrinsic = sign * diff;
  out[o] = intrinsic > 0 ? intrinsic : 0;
  out[o + 1] = sign * dfq * step;
  out[o + 2] = 0;
  out[o + 3] = 0;
  out[o + 4] = T > 0 ? sign * (q * Sq - r * Kr) * step : 0;
  out[o + 5] = T > 0 ? sign * Kr * T * step : 0;
}

/**
 * Price alone, with the same operations in the same order as greeksInto, so that
 * bsPrice(...) === bsGreeks(...).price bit for bit.
 */
export function bsPrice(isCall: boolean, S: number, K: number, T: number, r: number, q: number, vol: number): number {
  if (isBadTime(T, vol)) return NaN;
  const sqrtT = T > 0 ? Math.sqrt(T) : 0;
  const sd = vol > 0 ? vol * sqrtT : 0;
  const Tc = T > 0 ? T : 0;
  const dfr = r === 0 ? 1 : Math.exp(-r * Tc);
  const dfq = q === 0 ? 1 : Math.exp(-q * Tc);
  const Sq = S * dfq;
  const Kr = K * dfr;
  if (!(sd > 0)) {
    const intrinsic = isCall ? Sq - Kr : Kr - Sq;
    return intrinsic > 0 ? intrinsic : 0;
  }
  const d1 = (Math.log(S / K) + (r - q + 0.5 * vol * vol) * T) / sd;
  const d2 = d1 - sd;
  const g1 = gaussExp(d1);
  const g2 = secondExp(g1, Sq / Kr, d2);
  const t1 = normTail(d1 < 0 ? -d1 : d1, g1);
  const t2 = normTail(d2 < 0 ? -d2 : d2, g2);
  const price = isCall
    ? Sq * (d1 < 0 ? t1 : 1 - t1) - Kr * (d2 < 0 ? t2 : 1 - t2)
    : Kr * (d2 > 0 ? t2 : 1 - t2) - Sq * (d1 > 0 ? t1 : 1 - t1);
  return price > 0 ? price : 0;
}

const scratch = new Float64Array(6);

/** Price and Greeks as an object (allocates one; use greeksInto or greeksBatch in bulk). */
export function bsGreeks(isCall: boolean, S: number, K: number, T: number, r: number, q: number, vol: number): Greeks {
  greeksInto(isCall, S, K, T, r, q, vol, scratch, 0);
  return {
    price: scratch[0]!,
    delta: scratch[1]!,
    gamma: scratch[2]!,
    vega: scratch[3]!,
    theta: scratch[4]!,
    rho: scratch[5]!,
  };
}
