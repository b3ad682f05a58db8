/**
 * The margin book's cash figures (premium, owed premium, mark value, buy reservations, an
 * order's reserve; COLLATERAL6) as integers in doubles, with the bound that proves them exact
 * (docs/engine.md "Margin").
 *
 * Every such figure is an integer. A double holds every integer v with |v| <= 2^53 - 1
 * (`Number.MAX_SAFE_INTEGER`, about 9.007 x 10^9 USDC) exactly. The sum or difference of two
 * such integers, computed in doubles, is exact when the true result is within that bound; when
 * it is not, the result rounds (monotonically) to a magnitude of at least 2^53, so checking the
 * computed result against the bound tells an exact result from one that may not be. The margin
 * book therefore checks the result of every addition it keeps (`exact`), and converts a bigint
 * figure only through `exactOf`, which gives NaN above the bound (NaN fails every check and
 * stays NaN through any sum). An account whose figure fails a check is marked wide: from then
 * on its cash figures are recounted in bigint from its positions and orders (marginBook.ts
 * `wideCash`), never read from the doubles, until the book is rebuilt.
 */

export const MAX_EXACT = Number.MAX_SAFE_INTEGER;

/** An amount of cash (COLLATERAL6) as it moves on the hot path: an exact integer in a double when within the bound, else a bigint (engine/events.ts carries the same). */
export type Cash = number | bigint;

/** A bigint figure as a double when it is exact (|v| <= 2^53 - 1), else NaN. */
export function exactOf(v: bigint): number {
  const n = Number(v);
  return n <= MAX_EXACT && n >= -MAX_EXACT ? n : NaN;
}

/** Whether a double figure is an integer kept exactly (false for NaN and anything beyond the bound). */
export function exact(n: number): boolean {
  return n <= MAX_EXACT && n >= -MAX_EXACT;
}

/** The bigint of `x + y` for two exact figures, with no second conversion when the sum is exact too. */
export function bigSum(x: number, y: number): bigint {
  const s = x + y;
  return exact(s) ? BigInt(s) : BigInt(x) + BigInt(y);
}
