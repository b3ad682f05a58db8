/**
 * Implied volatility of a European option under Black-Scholes-Merton (docs/pricing.md).
 *
 * Method, after P. Jaeckel ("By implication", 2006; "Let's be rational", 2015):
 * 1. Undiscount and move to the forward F = S e^{(r-q)T}; by put-call parity replace an
 *    in-the-money option by its out-of-the-money twin (price minus intrinsic), then
 *    normalise: b(x, s) = e^{x/2} N(x/s + s/2) - e^{-x/2} N(x/s - s/2) with x = -|ln(F/K)|
 *    and s = vol sqrt(T). b rises from 0 to e^{x/2}, with one inflection at s_c = sqrt(2|x|).
 * 2. Below the inflection solve -1/ln b(s) = -1/ln beta; above it solve
 *    ln(bmax - b(s)) = ln(bmax - beta), with bmax - b computed as a sum of two positive
 *    terms (no cancellation at high volatility). Both transforms make the objective
 *    nearly linear, so Halley's method converges in two or three steps.
 * 3. Start close: above the inflection from the large-s tail bmax - b ~ 2 cosh(x/2) N(-s/2);
 *    below it from cubic Hermite interpolations that are exact at the inflection and, at
 *    the small end, follow the asymptote b ~ (2 pi |x| / 3^1.5) N(-|x| / (sqrt(3) s))^3.
 * 4. Keep a bracket from the sign of each residual and bisect whenever a step would leave
 *    it, so the solver cannot diverge; stop when a Halley step is below 1e-6 relative (or
 *    a Newton step below 1e-9): the error left is then of order 1e-18.
 * Typically 2-4 iterations of one exponential, one logarithm and two rational functions.
 * A subnormal price (below ~1e-308) carries too few bits for that: the solver bisects,
 * up to IV_MAX_ITERATIONS, to a vol the price cannot pin down anyway.
 */
import { INV_SQRT_2PI, gaussExp, normInvApprox, normPdf, normTail } from './normal.ts';

export type ImpliedVolFailure = 'below_intrinsic' | 'above_maximum' | 'no_time' | 'invalid_input';
export type ImpliedVolResult =
  | { ok: true; vol: number; iterations: number }
  | { ok: false; reason: ImpliedVolFailure };

export const IV_MAX_ITERATIONS = 60;
/**
 * Stop when the last step is below these (relative to s). The error left after a Halley
 * step of relative size d is of order d^3, after a Newton step d^2: both ~1e-18 here.
 */
const HALLEY_TOLERANCE = 1e-6;
const NEWTON_TOLERANCE = 1e-9;

// Results of the last evaluation (module scratch keeps the hot loop allocation-free).
let evB = 0; // b(x, s)
let evU = 0; // bmax - b(x, s)
let evD1 = 0; // db/ds
let evD2 = 0; // d2b/ds2

/**
 * Evaluate the normalised OTM price at s for x <= 0 (ex = e^{x/2}, ex2 = e^x), its
 * complement to bmax, and the first two derivatives in s. One exponential: since
 * e^{x/2} phi(d1) = e^{-x/2} phi(d2), exp(-d2^2/2) = exp(-d1^2/2) e^x.
 */
function evaluate(x: number, ex: number, ex2: number, s: number): void {
  const h = x / s;
  const t = 0.5 * s;
  const d1 = h + t;
  const d2 = h - t; // < 0 since x <= 0
  const g1 = gaussExp(d1);
  const t1 = normTail(d1 < 0 ? -d1 : d1, g1);
  const n2 = normTail(-d2, g1 * ex2);
  const n1 = d1 < 0 ? t1 : 1 - t1;
  const m1 = d1 < 0 ? 1 - t1 : t1;
  evB = ex * n1 - n2 / ex;
  evU = ex * m1 + n2 / ex;
  evD1 = INV_SQRT_2PI * ex * g1;
  evD2 = evD1 * ((h * h) / s - 0.25 * s);
}

/** Codes returned by solveTotalVol in place of s. */
const BELOW_INTRINSIC = -1;
const ABOVE_MAXIMUM = -2;
/** Iterations of the last solveTotalVol call (module scratch: no result object per solve). */
let lastIterations = 0;

/**
 * The forward-space solve: s = vol sqrt(T) such that the undiscounted Black price of an
 * option on forward F with strike K is p. Returns s >= 0, or BELOW_INTRINSIC /
 * ABOVE_MAXIMUM; sets lastIterations.
 */
function solveTotalVol(isCall: boolean, p: number, F: number, K: number): number {
  lastIterations = 0;
  const cap = isCall ? F : K;
  if (!(p < cap)) return ABOVE_MAXIMUM;
  const intrinsic = isCall ? F - K : K - F;
  const timeValue = intrinsic > 0 ? p - intrinsic : p;
  if (timeValue <= 0) {
    // At or below intrinsic: zero volatility, unless it is below by more than rounding.
    return timeValue < -4 * Number.EPSILON * (F > K ? F : K) ? BELOW_INTRINSIC : 0;
  }
  const sqrtFK = Math.sqrt(F * K);
  const lnFK = Math.log(F / K);
  const x = lnFK > 0 ? -lnFK : lnFK;
  const ex = Math.exp(0.5 * x);
  const beta = timeValue / sqrtFK;
  const uStar = (cap - p) / sqrtFK;
  if (!(uStar > 0) || !(beta < ex)) return ABOVE_MAXIMUM;

  const ex2 = ex * ex;
  const sc = Math.sqrt(-2 * x);
  let lower = false;
  let bc = 0;
  let bpc = 0;
  if (sc > 0) {
    evaluate(x, ex, ex2, sc);
    bc = evB;
    bpc = evD1;
    lower = beta <= bc;
  }

  let lo: number;
  let hi: number;
  let s: number;
  let target: number;
  if (lower) {
    lo = 0;
    hi = sc;
    target = -1 / Math.log(beta);
    s = lowerGuess(x, ex, ex2, sc, bc, bpc, beta, target);
  } else {
    lo = sc;
    hi = Infinity;
    target = Math.log(uStar);
    s = -2 * normInvApprox(uStar / (ex + 1 / ex));
    if (!(s > sc) || !Number.isFinite(s)) s = sc > 0 ? 2 * sc : 1;
  }

  for (let it = 1; it <= IV_MAX_ITERATIONS; it++) {
    lastIterations = it;
    evaluate(x, ex, ex2, s);
    let g: number;
    let gp: number;
    let gpp: number;
    if (lower) {
      const b = evB;
      if (!(b > 0)) {
        // Underflow or cancellation to nothing: certainly below the root.
        lo = s;
        s = 0.5 * (lo + hi);
        continue;
      }
      // In ratios b'/b and b''/b: 1/(b L^2) alone overflows once b is subnormal.
      const L = Math.log(b);
      const r1 = evD1 / b;
      const r2 = evD2 / b;
      const iL2 = 1 / (L * L);
      g = -1 / L - target;
      gp = r1 * iL2;
      gpp = (r2 - ((L + 2) / L) * r1 * r1) * iL2;
    } else {
      const u = evU;
      if (!(u > 0)) {
        hi = s;
        s = 0.5 * (lo + hi);
        continue;
      }
      g = target - Math.log(u);
      gp = evD1 / u;
      gpp = evD2 / u + gp * gp;
    }
    if (g === 0) return s;
    if (g < 0) lo = s;
    else hi = s;
    if (!(gp > 0 && gp < Infinity)) {
      s = hi === Infinity ? 2 * s : 0.5 * (lo + hi);
      continue;
    }
    const newton = -g / gp;
    // Halley: s - (g/g') / (1 - g g'' / (2 g'^2)), and -g/g' = newton.
    const denom = 1 + 0.5 * newton * (gpp / gp);
    // Halley when its correction is modest; plain Newton otherwise.
    const halley = denom > 0.5 && denom < 2;
    const step = halley ? newton / denom : newton;
    if (Math.abs(step) <= (halley ? HALLEY_TOLERANCE : NEWTON_TOLERANCE) * s) return s + step;
    const next = s + step;
    if (next > lo && next < hi) {
      s = next;
    } else {
      s = hi === Infinity ? 2 * s : 0.5 * (lo + hi);
      if (hi - lo <= 4 * Number.EPSILON * s) return s;
    }
  }
  return s;
}

const SQRT3 = 1.7320508075688772;
const TWO_PI = 6.283185307179586;

/**
 * psi(b) = |x| / (sqrt(3) * -N^-1((3 sqrt(3) b / (2 pi |x|))^(1/3))) inverts the small-s
 * asymptote b ~ (2 pi |x| / (3 sqrt(3))) N(-|x| / (sqrt(3) s))^3 (Jaeckel 2015), so
 * psi(b(s)) ~ s as s -> 0. Returns NaN where the asymptote does not apply.
 */
function psiOf(ax: number, b: number): number {
  const y = Math.cbrt((3 * SQRT3 * b) / (TWO_PI * ax));
  if (!(y < 0.5)) return NaN;
  return ax / (SQRT3 * -normInvApprox(y));
}

/**
 * Starting point below the inflection (after Jaeckel 2015). Where psi applies at the
 * inflection, s is a cubic Hermite in psi through the origin (slope 1: the asymptote is
 * exact there) and (psi(b_c), s_c). Nearer the money psi fails at b_c, so the curve is
 * also evaluated at s_l, where the tangent at the inflection meets zero: below b_l the
 * psi Hermite ends at s_l instead; between b_l and b_c, s is a cubic Hermite in b itself
 * (b is only mildly convex there). w = sqrt(-1/ln b), with slope |x|/sqrt(2) at the
 * origin, is the last resort.
 */
function lowerGuess(x: number, ex: number, ex2: number, sc: number, bc: number, bpc: number, beta: number, fTarget: number): number {
  const ax = -x;
  let s = psiHermite(ax, sc, bc, bpc, beta);
  if (Number.isNaN(s)) {
    const sl = sc - bc / bpc;
    if (sl > 0) {
      evaluate(x, ex, ex2, sl);
      const bl = evB;
      const bpl = evD1;
      if (beta >= bl && bl > 0) {
        // Hermite of s(b) on [b_l, b_c], slopes 1/b'.
        const span = bc - bl;
        s = sl + hermite((beta - bl) / span, span, 1 / bpl, sc - sl, 1 / bpc);
      } else if (bl > 0) {
        s = psiHermite(ax, sl, bl, bpl, beta);
      }
    }
  }
  if (Number.isNaN(s)) {
    const Lc = Math.log(bc);
    const wc = Math.sqrt(-1 / Lc);
    const dwds = bpc / (bc * Lc * Lc) / (2 * wc);
    s = hermite(Math.sqrt(fTarget) / wc, wc, ax * Math.SQRT1_2, sc, 1 / dwds);
  }
  return s > 0 && s < sc ? s : 0.5 * sc;
}

/** Hermite in psi on [0, psi(b_end)] ending at (psi(b_end), s_end); NaN if psi fails at b_end. */
function psiHermite(ax: number, sEnd: number, bEnd: number, bpEnd: number, beta: number): number {
  const y = Math.cbrt((3 * SQRT3 * bEnd) / (TWO_PI * ax));
  if (!(y < 0.5)) return NaN;
  const z = normInvApprox(y);
  const pe = ax / (SQRT3 * -z);
  // dpsi/db = dpsi/dz * dz/dy * dy/db = |x| / (sqrt(3) z^2) * 1 / phi(z) * y / (3 b)
  const dpsi = (ax / (SQRT3 * z * z)) * (y / (3 * bEnd)) / normPdf(z);
  const tau = psiOf(ax, beta) / pe;
  return hermite(tau, pe, 1, sEnd, 1 / (dpsi * bpEnd));
}

/** Cubic Hermite on [0, X] through (0, 0) with slope q0 and (X, Y) with slope q1, at tau = u/X. */
function hermite(tau: number, X: number, q0: number, Y: number, q1: number): number {
  const tau2 = tau * tau;
  const tau3 = tau2 * tau;
  return (tau3 - 2 * tau2 + tau) * X * q0 + (3 * tau2 - 2 * tau3) * Y + (tau3 - tau2) * X * q1;
}

function checkInputs(price: number, S: number, K: number, T: number, r: number, q: number): ImpliedVolFailure | null {
  if (!Number.isFinite(price) || !Number.isFinite(S) || !Number.isFinite(K) || !Number.isFinite(T) || !Number.isFinite(r) || !Number.isFinite(q)) {
    return 'invalid_input';
  }
  if (!(S > 0) || !(K > 0) || price < 0) return 'invalid_input';
  if (!(T > 0)) return 'no_time';
  return null;
}

/** Annualised vol from inputs already checked; negative codes pass through. */
function solveVol(isCall: boolean, price: number, S: number, K: number, T: number, r: number, q: number): number {
  const df = r === 0 ? 1 : Math.exp(-r * T);
  const F = r === q ? S : S * Math.exp((r - q) * T);
  const s = solveTotalVol(isCall, price / df, F, K);
  return s < 0 ? s : s / Math.sqrt(T);
}

/**
 * Volatility (per 1.00, annualised) that reprices `price` under Black-Scholes-Merton.
 * Failures are values: `no_time` for T <= 0, `below_intrinsic` for a price under the
 * discounted intrinsic value (beyond rounding), `above_maximum` for a price at or above
 * the no-arbitrage cap (S e^-qT for a call, K e^-rT for a put), `invalid_input` for
 * non-finite numbers, a negative price or a non-positive S or K. A price at intrinsic
 * (within rounding) gives vol 0.
 */
export function impliedVol(isCall: boolean, price: number, S: number, K: number, T: number, r: number, q: number): ImpliedVolResult {
  const bad = checkInputs(price, S, K, T, r, q);
  if (bad !== null) return { ok: false, reason: bad };
  const vol = solveVol(isCall, price, S, K, T, r, q);
  if (vol === BELOW_INTRINSIC) return { ok: false, reason: 'below_intrinsic' };
  if (vol === ABOVE_MAXIMUM) return { ok: false, reason: 'above_maximum' };
  return { ok: true, vol, iterations: lastIterations };
}

/** Input layout of impliedVolBatch: isCall (1/0), price, S, K, T, r, q. */
export const IV_IN_STRIDE = 7;

/**
 * impliedVol over many options without allocation (for a worker): out[i] is the vol of
 * option i, or NaN when impliedVol would fail (call impliedVol on that one for the reason).
 */
export function impliedVolBatch(input: Float64Array, out: Float64Array, count: number): void {
  for (let i = 0, o = 0; i < count; i++, o += IV_IN_STRIDE) {
    const price = input[o + 1]!, S = input[o + 2]!, K = input[o + 3]!, T = input[o + 4]!, r = input[o + 5]!, q = input[o + 6]!;
    if (checkInputs(price, S, K, T, r, q) !== null) {
      out[i] = NaN;
      continue;
    }
    const vol = solveVol(input[o] === 1, price, S, K, T, r, q);
    out[i] = vol < 0 ? NaN : vol;
  }
}
