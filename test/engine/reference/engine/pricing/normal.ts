/**
 * Standard normal distribution for pricing. The CDF is W. J. Cody's rational Chebyshev
 * approximation for the normal integral (as in R's pnorm), accurate to about 1e-15
 * relative in both tails: the implied-volatility solver works in the tails (deep
 * out-of-the-money options), where 1 - N(x) style shortcuts would lose every digit.
 */

export const INV_SQRT_2PI = 0.3989422804014327; // 1/sqrt(2*pi)
export const SQRT_2PI = 2.5066282746310002;
/** Below this |x| the central rational form is used. */
const SPLIT1 = 0.67448975;
/** sqrt(32): above, the asymptotic form. */
const SPLIT2 = 5.656854249492380195206754896838;

const A0 = 2.2352520354606839287, A1 = 161.02823106855587881, A2 = 1067.6894854603709582, A3 = 18154.981253343561249, A4 = 0.065682337918207449113;
const B0 = 47.20258190468824187, B1 = 976.09855173777669322, B2 = 10260.932208618978205, B3 = 45507.789335026729956;
const C0 = 0.39894151208813466764, C1 = 8.8831497943883759412, C2 = 93.506656132177855979, C3 = 597.27027639480026226,
  C4 = 2494.5375852903726711, C5 = 6848.1904505362823326, C6 = 11602.651437647350124, C7 = 9842.7148383839780218,
  C8 = 1.0765576773720192317e-8;
const D0 = 22.266688044328115691, D1 = 235.38790178262499861, D2 = 1519.377599407554805, D3 = 6485.558298266760755,
  D4 = 18615.571640885098091, D5 = 34900.952721145977266, D6 = 38912.003286093271411, D7 = 19685.429676859990727;
const P0 = 0.21589853405795699, P1 = 0.1274011611602473639, P2 = 0.022235277870649807, P3 = 0.001421619193227893466,
  P4 = 2.9112874951168792e-5, P5 = 0.02307344176494017303;
const Q0 = 1.28426009614491121, Q1 = 0.468238212480865118, Q2 = 0.0659881378689285515, Q3 = 0.00378239633202758244,
  Q4 = 7.29751555083966205e-5;

/**
 * exp(-x^2 / 2), computed as exp(-xs^2/2) * exp(-(x - xs)(x + xs)/2) with xs = x rounded
 * to 1/16 when |x| is large, so that the rounding of x*x does not cost relative accuracy
 * in the far tail (at x = 30 a plain exp would be off by about 1e-13).
 */
export function gaussExp(x: number): number {
  const y = x < 0 ? -x : x;
  if (y < SPLIT2) return Math.exp(-0.5 * y * y);
  if (!(y < 40)) return y === y ? 0 : NaN; // underflows past 38.6; keeps Infinity from Inf - Inf
  const ys = Math.trunc(y * 16) / 16;
  return Math.exp(-0.5 * ys * ys) * Math.exp(-0.5 * (y - ys) * (y + ys));
}

/** Standard normal density. */
export function normPdf(x: number): number {
  return INV_SQRT_2PI * gaussExp(x);
}

/**
 * Lower tail N(-y) for y >= 0, given g = exp(-y^2/2) from the caller (pricing needs the
 * density at the same point, so one exponential serves both). g is ignored for y < 0.674.
 */
export function normTail(y: number, g: number): number {
  if (y <= SPLIT1) {
    const ysq = y * y;
    const num = (((A4 * ysq + A0) * ysq + A1) * ysq + A2) * ysq + A3;
    const den = (((ysq + B0) * ysq + B1) * ysq + B2) * ysq + B3;
    return 0.5 - (y * num) / den;
  }
  if (y <= SPLIT2) {
    const num = (((((((C8 * y + C0) * y + C1) * y + C2) * y + C3) * y + C4) * y + C5) * y + C6) * y + C7;
    const den = (((((((y + D0) * y + D1) * y + D2) * y + D3) * y + D4) * y + D5) * y + D6) * y + D7;
    return (g * num) / den;
  }
  const r = 1 / (y * y);
  const num = ((((P5 * r + P0) * r + P1) * r + P2) * r + P3) * r + P4;
  const den = ((((r + Q0) * r + Q1) * r + Q2) * r + Q3) * r + Q4;
  return (g * (INV_SQRT_2PI - (r * num) / den)) / y;
}

/** N(x) given g = exp(-x^2/2) (see normTail). */
export function normCdfWithExp(x: number, g: number): number {
  return x < 0 ? normTail(-x, g) : 1 - normTail(x, g);
}

/** Standard normal CDF N(x). NaN in, NaN out; +-Infinity give 1 and 0. */
export function normCdf(x: number): number {
  return normCdfWithExp(x, gaussExp(x));
}

/**
 * Inverse standard normal CDF (P. J. Acklam's rational approximation, relative error
 * about 1e-9). Used only for the implied-volatility solver's starting point, which the
 * solver then refines, so its accuracy bounds the iteration count, not the result.
 */
export function normInvApprox(p: number): number {
  if (!(p > 0)) return -Infinity;
  if (!(p < 1)) return Infinity;
  const pLow = 0.02425;
  if (p < pLow) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((-7.784894002430293e-3 * q - 3.223964580411365e-1) * q - 2.400758277161838) * q - 2.549732539343734) * q + 4.374664141464968) * q + 2.938163982698783) /
      ((((7.784695709041462e-3 * q + 3.224671290700398e-1) * q + 2.445134137142996) * q + 3.754408661907416) * q + 1);
  }
  if (p > 1 - pLow) {
    const q = Math.sqrt(-2 * Math.log1p(-p));
    return -(((((-7.784894002430293e-3 * q - 3.223964580411365e-1) * q - 2.400758277161838) * q - 2.549732539343734) * q + 4.374664141464968) * q + 2.938163982698783) /
      ((((7.784695709041462e-3 * q + 3.224671290700398e-1) * q + 2.445134137142996) * q + 3.754408661907416) * q + 1);
  }
  const q = p - 0.5;
  const r = q * q;
  return ((((((-3.969683028665376e1 * r + 2.209460984245205e2) * r - 2.759285104469687e2) * r + 1.38357751867269e2) * r - 3.066479806614716e1) * r + 2.506628277459239) * q) /
    (((((-5.447609879822406e1 * r + 1.615858368580409e2) * r - 1.556989798598866e2) * r + 6.680131188771972e1) * r - 1.328068155288572e1) * r + 1);
}
