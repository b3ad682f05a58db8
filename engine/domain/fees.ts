/**
 * A fill's notional and fees (COLLATERAL6) in doubles while that is provably exact, with a
 * checked fallback to bigint (docs/book.md, issue 3/8 step 3; premiums: domain/premium.ts).
 *
 * Both are one shape, `x x num / den` truncated, with x a non-negative integer and num/den a
 * ratio fixed per pair, spot or fee rate:
 * - notional = spot x size / 10^30 (position.ts `collateralOf`) with size = lots x sizeStep,
 *   so x = lots and num/den = spot x sizeStep / 10^30 reduced to lowest terms;
 * - a fee = amount x rate / 10^18 (WAD rate; amount a notional or premium in COLLATERAL6),
 *   so x = amount and num/den = rate / 10^18 reduced (3 bp: 3 / 10,000).
 *
 * In doubles, for a ratio whose num and den are integers of at most 2^53 - 1 (else the ratio
 * is marked unusable and the bigint path is always taken): the product p = x x num is exact
 * when it is at most 2^53 - 1, and a product that is not exact rounds to at least 2^53
 * (rounding is monotone and 2^53 is a double), so the check `p <= MAX_SAFE_INTEGER` tells an
 * exact product from one that is not. Then q = floor(p / den): p and den are exact integers
 * below 2^53; when p / den is not a whole number it lies at least 1/den from every whole
 * number while half an ulp of it is below 1/den (ulp(y) <= y x 2^-52 < 2/den for
 * y < 2^53 / den), so the rounded quotient does not cross a whole number and its floor is the
 * truncated quotient. (The result is checked once more, `q x den > p`, which costs a compare.)
 * For x >= 0 truncation and floor agree, so the value is the bigint division's to the unit.
 * When x x num is not exact, num is split (num = whole x den + rest) and the two terms are
 * computed as above, so a ratio with a large num (a mark value's) still has its exact value in
 * doubles while x x whole and x x rest stay below 2^53.
 * Anything else (a negative or fractional x, a product at or above 2^53 either way, a ratio that
 * does not reduce below 2^53) answers -1 and the caller computes in bigint.
 */
import { WAD } from './fixed.ts';
import { premiumAt, premiumInBigint, premiumPerLotTick } from './premium.ts';
import { REG, R_ARG, R_FEE_BY_NOTIONAL, R_FEE_CAP, R_MAKER_FEE, R_NOTIONAL, R_PREMIUM, R_RESULT, R_TAKER_FEE, R_WORST_FEE } from './registers.ts';

const SAFE = Number.MAX_SAFE_INTEGER;
const SAFE_BIG = BigInt(SAFE);
const E15 = 10n ** 15n;
const E30 = E15 * E15;

/** A non-negative ratio num/den in lowest terms, both at most 2^53 - 1; den 0 when it does not reduce that far (the bigint path). */
export type Ratio = { readonly num: number; readonly den: number };

const UNUSABLE: Ratio = { num: 0, den: 0 };

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) {
    const r = a % b;
    a = b;
    b = r;
  }
  return a;
}

/** `numer / denom` (numer >= 0, denom > 0) as a Ratio in doubles, or UNUSABLE. */
export function ratioOf(numer: bigint, denom: bigint): Ratio {
  if (numer < 0n || denom <= 0n) return UNUSABLE;
  if (numer === 0n) return { num: 0, den: 1 };
  const g = gcd(numer, denom);
  const num = numer / g;
  const den = denom / g;
  return num <= SAFE_BIG && den <= SAFE_BIG ? { num: Number(num), den: Number(den) } : UNUSABLE;
}

/** `x x num / den` truncated, when exact in doubles (see above); -1 otherwise. (mulDivAt's value.) */
export function mulDivInDoubles(x: number, r: Ratio): number {
  REG[R_ARG] = x;
  mulDivAt(R_ARG, r, R_RESULT);
  return REG[R_RESULT]!;
}

/**
 * `x x num / den` truncated for x in register `x`, into register `out` (domain/registers.ts):
 * exact in doubles (see above), or -1.
 */
export function mulDivAt(x: number, r: Ratio, out: number): void {
  const v = REG[x]!;
  const den = r.den;
  if (den === 0 || !(v >= 0) || !Number.isInteger(v)) {
    REG[out] = -1;
    return;
  }
  let whole = 0;
  let p = v * r.num;
  if (p > SAFE) {
    // x x num beyond 2^53 (a mark value: num/den = lot x mark / 10^30 rarely reduces): with num =
    // whole x den + rest (rest < den; `%` of exact integers is exact, and so is the division of
    // num - rest, a multiple of den), x x num / den = x x whole + x x rest / den, the first term
    // a whole number: truncated, x x whole + floor(x x rest / den), each step checked as above.
    const rest = r.num % den;
    whole = v * ((r.num - rest) / den);
    p = v * rest;
    if (whole > SAFE || p > SAFE) {
      REG[out] = -1;
      return;
    }
  }
  // floor(p / den) for exact integers 0 <= p, 0 < den below 2^53 (see above).
  let q = Math.floor(p / den);
  if (q * den > p) q -= 1;
  const sum = whole + q;
  REG[out] = sum <= SAFE ? sum : -1;
}

// The last spot and lot size's notional ratio: a fill and a check name the same pair over and over.
let lastSpot = -1n;
let lastStep = -1n;
let lastNotional: Ratio = UNUSABLE;

/** The notional ratio of one lot at spot `spot` (WAD) on a pair of lot `sizeStep` (WAD): spot x sizeStep / 10^30. */
export function notionalPerLot(spot: bigint, sizeStep: bigint): Ratio {
  if (spot === lastSpot && sizeStep === lastStep) return lastNotional;
  lastNotional = ratioOf(spot * sizeStep, E30);
  lastSpot = spot;
  lastStep = sizeStep;
  return lastNotional;
}

/** The notional in bigint: spot x (lots x sizeStep) / 10^30, truncated (position.ts `collateralOf`'s arithmetic). */
export function notionalInBigint(lots: number, spot: bigint, sizeStep: bigint): bigint {
  return (spot * (BigInt(lots) * sizeStep)) / E15 / E15;
}

/** Notional (COLLATERAL6) of `lots` lots at `spot`: `collateralOf(spot, lots x sizeStep)`, in doubles, or -1 (the bigint path). (notionalAt's value.) */
export function notionalInDoubles(lots: number, spot: bigint, sizeStep: bigint): number {
  notionalAt(lots, spot, sizeStep);
  return REG[R_NOTIONAL]!;
}

/** The same into register R_NOTIONAL (`lots` a small integer: the lots of an order or fill). */
export function notionalAt(lots: number, spot: bigint, sizeStep: bigint): void {
  REG[R_NOTIONAL] = lots;
  mulDivAt(R_NOTIONAL, notionalPerLot(spot, sizeStep), R_NOTIONAL);
}

// The fee rates seen, a few (the venue's taker, cap and maker rates): a scan, no hashing of bigints.
const rates: bigint[] = [];
const rateRatios: Ratio[] = [];

/** A WAD rate as a Ratio over 10^18 (kept for the next fill). */
export function rateRatio(rate: bigint): Ratio {
  for (let i = 0; i < rates.length; i++) if (rates[i] === rate) return rateRatios[i]!;
  const r = ratioOf(rate, WAD);
  if (rates.length === 8) {
    rates.length = 0;
    rateRatios.length = 0;
  }
  rates.push(rate);
  rateRatios.push(r);
  return r;
}

/** `amount x rate / WAD` truncated (a fee, COLLATERAL6) for an amount given in doubles: exact, or -1 (also for amount -1, a value the caller has only in bigint). (feeAt's value.) */
export function feeInDoubles(amount: number, rate: bigint): number {
  REG[R_ARG] = amount;
  feeAt(R_ARG, rate, R_RESULT);
  return REG[R_RESULT]!;
}

/** The same for the amount in register `amount`, into register `out`. */
export function feeAt(amount: number, rate: bigint, out: number): void {
  if (REG[amount]! < 0) REG[out] = -1;
  else mulDivAt(amount, rateRatio(rate), out);
}

/** The taker fee min(notional x rate, premium x cap) / WAD in doubles, or -1 when either part is not exact (the bigint path). (takerFeeAt's value.) */
export function takerFeeInDoubles(notional: number, premium: number, rate: bigint, cap: bigint): number {
  REG[R_NOTIONAL] = notional;
  REG[R_PREMIUM] = premium;
  takerFeeAt(rate, cap);
  return REG[R_TAKER_FEE]!;
}

/** The same from registers R_NOTIONAL and R_PREMIUM, into R_TAKER_FEE. */
export function takerFeeAt(rate: bigint, cap: bigint): void {
  feeAt(R_NOTIONAL, rate, R_FEE_BY_NOTIONAL);
  feeAt(R_PREMIUM, cap, R_FEE_CAP);
  const byNotional = REG[R_FEE_BY_NOTIONAL]!;
  const capped = REG[R_FEE_CAP]!;
  REG[R_TAKER_FEE] = byNotional < 0 || capped < 0 ? -1 : byNotional < capped ? byNotional : capped;
}

/** The venue's fee rates (WAD), as config.ts names them. */
export type FeeRates = { readonly takerFeeRate: bigint; readonly takerFeeCapRate: bigint; readonly makerFeeRate: bigint };

/** The taker fee in bigint: min(notional x rate, premium x cap) / WAD, each truncated (api.md). */
export function takerFeeInBigint(rates: FeeRates, notional: bigint, premium: bigint): bigint {
  const byNotional = (notional * rates.takerFeeRate) / WAD;
  const cap = (premium * rates.takerFeeCapRate) / WAD;
  return byNotional < cap ? byNotional : cap;
}

/** The maker fee in bigint: notional x rate / WAD, truncated. */
export function makerFeeInBigint(rates: FeeRates, notional: bigint): bigint {
  return (notional * rates.makerFeeRate) / WAD;
}

/**
 * What a fill moves in COLLATERAL6. Each figure is in its double (`premiumN`, ...) when that is
 * exact, and then its bigint field is not written (a stale value: read `moneyFigure` of the pair);
 * else the double is -1 and the bigint holds it (the compact trade event and the accounts take
 * whichever is set, engine/events.ts `Cash`). Most fills make no bigint at all.
 */
export type FillMoney = { premium: bigint; notional: bigint; takerFee: bigint; makerFee: bigint; premiumN: number; notionalN: number; takerFeeN: number; makerFeeN: number };

/** A FillMoney figure as Cash: its double when exact (`n` >= 0), else its bigint. */
export function moneyFigure(n: number, big: bigint): number | bigint {
  return n >= 0 ? n : big;
}

/** A FillMoney figure as a bigint (the bigint formulas' inputs). */
function bigOf(n: number, big: bigint): bigint {
  return n >= 0 ? BigInt(n) : big;
}

/**
 * The money of a fill of `lots` lots at `tick` on a pair (lot `sizeStep`, `tickDecimals`) at
 * oracle spot `spot`, written into `out`: each figure in doubles when exact, else in bigint
 * with the formulas above (premium.ts for the premium); fees 0 when `feeFree`.
 */
export function fillMoneyOf(out: FillMoney, lots: number, tick: number, sizeStep: bigint, tickDecimals: number, spot: bigint, rates: FeeRates, feeFree: boolean): FillMoney {
  premiumAt(lots, tick, premiumPerLotTick(sizeStep, tickDecimals));
  notionalAt(lots, spot, sizeStep);
  const premiumN = REG[R_PREMIUM]!;
  const notionalN = REG[R_NOTIONAL]!;
  out.premiumN = premiumN;
  out.notionalN = notionalN;
  if (premiumN < 0) out.premium = premiumInBigint(lots, tick, sizeStep, tickDecimals);
  if (notionalN < 0) out.notional = notionalInBigint(lots, spot, sizeStep);
  if (feeFree) {
    out.takerFeeN = 0;
    out.makerFeeN = 0;
    return out;
  }
  takerFeeAt(rates.takerFeeRate, rates.takerFeeCapRate);
  const takerN = REG[R_TAKER_FEE]!;
  out.takerFeeN = takerN;
  if (takerN < 0) out.takerFee = takerFeeInBigint(rates, bigOf(notionalN, out.notional), bigOf(premiumN, out.premium));
  feeAt(R_NOTIONAL, rates.makerFeeRate, R_MAKER_FEE);
  const makerN = REG[R_MAKER_FEE]!;
  out.makerFeeN = makerN;
  if (makerN < 0) out.makerFee = makerFeeInBigint(rates, bigOf(notionalN, out.notional));
  return out;
}

/** The larger of a fill's taker and maker fee from its notional and premium in doubles (either -1: not known there), or -1 (the bigint path). (worstFeeAt's value.) */
export function worstFeeInDoubles(notional: number, premium: number, rates: FeeRates): number {
  REG[R_NOTIONAL] = notional;
  REG[R_PREMIUM] = premium;
  worstFeeAt(rates);
  return REG[R_WORST_FEE]!;
}

/** The same from registers R_NOTIONAL and R_PREMIUM, into R_WORST_FEE. */
export function worstFeeAt(rates: FeeRates): void {
  takerFeeAt(rates.takerFeeRate, rates.takerFeeCapRate);
  feeAt(R_NOTIONAL, rates.makerFeeRate, R_MAKER_FEE);
  const taker = REG[R_TAKER_FEE]!;
  const maker = REG[R_MAKER_FEE]!;
  REG[R_WORST_FEE] = taker < 0 || maker < 0 ? -1 : taker > maker ? taker : maker;
}
