/**
 * A position as data, and the position arithmetic of a fill.
 *
 * Premium is deferred (api.md): a fill moves `premium` (COLLATERAL6; negative for a long who
 * owes it, positive for a short who is owed it). Cash moves only when a position is reduced
 * (the closed fraction of the deferred premium is realised into the deposit) and at
 * settlement. The premium of a fill is computed once and is the same amount on both sides, so
 * cash is conserved exactly.
 *
 * `premium` and `realized` are integers in doubles (engine/risk/exactCash.ts): exact while
 * |v| <= 2^53 - 1 COLLATERAL6, which every change checks. A position whose premium or realised
 * PnL leaves that bound is wide: both fields are NaN and `wide` holds them in bigint, until a
 * change brings both back within it (so a position is wide exactly when a figure is beyond the
 * bound). Readers at the edges (events, snapshots, the image) take `premiumOf`/`realizedOf`.
 */
import type { Hex } from '../domain/hex.ts';
import { exact, exactOf } from '../risk/exactCash.ts';

/** A position's premium and realised PnL in bigint, when one of them is beyond the doubles' bound. */
export type WideCash = { premium: bigint; realized: bigint };

export type Position = {
  readonly seriesId: Hex;
  balance: bigint; // WAD, signed
  /** COLLATERAL6, deferred premium balance: an exact integer, NaN when wide. */
  premium: number;
  /** COLLATERAL6, realised PnL to date: an exact integer, NaN when wide. */
  realized: number;
  /** Both figures in bigint while one of them is beyond 2^53 - 1; null otherwise. */
  wide: WideCash | null;
};

/** A position from bigint figures (a snapshot's, a test's), in doubles where they are exact. */
export function newPosition(seriesId: Hex, balance: bigint, premium: bigint, realized: bigint): Position {
  const p: Position = { seriesId, balance, premium: 0, realized: 0, wide: null };
  setCash(p, premium, realized);
  return p;
}

/** The deferred premium, exact (COLLATERAL6). */
export function premiumOf(p: Position): bigint {
  return p.wide === null ? BigInt(p.premium) : p.wide.premium;
}

/** The realised PnL to date, exact (COLLATERAL6). */
export function realizedOf(p: Position): bigint {
  return p.wide === null ? BigInt(p.realized) : p.wide.realized;
}

/** Whether the position holds nothing: no balance and no deferred premium (what is left to drop). */
export function isFlat(p: Position): boolean {
  return p.balance === 0n && (p.wide === null ? p.premium === 0 : p.wide.premium === 0n);
}

/** Set both figures from bigint: in doubles when both are within the bound, else wide. */
export function setCash(p: Position, premium: bigint, realized: bigint): void {
  const pn = exactOf(premium);
  const rn = exactOf(realized);
  if (exact(pn) && exact(rn)) {
    p.premium = pn;
    p.realized = rn;
    p.wide = null;
  } else {
    p.premium = NaN;
    p.realized = NaN;
    p.wide = { premium, realized };
  }
}

/** Result of moving a position by a fill: the cash to realise and the balance change. */
export type PositionChange = { readonly before: bigint; readonly after: bigint; readonly realized: bigint };

/**
 * Apply a fill of `qty` (WAD, signed: + bought, - sold) for `premiumFlow` (COLLATERAL6:
 * negative when paying, positive when receiving) to a position.
 * When the fill reduces the position, the closed fraction of the deferred premium plus this
 * fill's premium for the closed part is realised; the rest stays deferred.
 *
 * In doubles where that is exact: a fill that opens or adds (one checked sum), and one that
 * closes the whole position (the whole premium is released: no division). A fill that closes
 * part of the position, or flips it, divides WAD sizes (beyond doubles): that split is done in
 * bigint (`splitInBigint`, the formula as it always was), and so is every change of a wide
 * position or one whose sum leaves the bound. The results are the bigint formula's to the unit
 * (test/engine/actors/accountCash.test.ts).
 */
export function applyToPosition(p: Position, qty: bigint, premiumFlow: bigint): PositionChange {
  const before = p.balance;
  const after = before + qty;
  const flow = exactOf(premiumFlow);
  if (p.wide === null && exact(flow)) {
    const reducing = before !== 0n && (before > 0n) !== (qty > 0n);
    if (!reducing) {
      const premium = p.premium + flow;
      if (exact(premium)) {
        p.premium = premium;
        p.balance = after;
        return { before, after, realized: 0n };
      }
    } else if (after === 0n) {
      // Closes the whole position: the closed part is all of it and all of this fill.
      const realizedNow = p.premium + flow;
      const realized = p.realized + realizedNow;
      if (exact(realizedNow) && exact(realized)) {
        p.premium = 0;
        p.realized = realized;
        p.balance = after;
        return { before, after, realized: BigInt(realizedNow) };
      }
    }
  }
  return splitInBigint(p, before, qty, premiumFlow);
}

/** applyToPosition's arithmetic in bigint (the reference formula), the result kept in doubles where exact. */
function splitInBigint(p: Position, before: bigint, qty: bigint, premiumFlow: bigint): PositionChange {
  const after = before + qty;
  let premium = premiumOf(p);
  let realized = 0n;
  const reducing = before !== 0n && (before > 0n) !== (qty > 0n);
  if (!reducing) {
    premium += premiumFlow;
  } else {
    const absBefore = before < 0n ? -before : before;
    const absQty = qty < 0n ? -qty : qty;
    const closed = absQty < absBefore ? absQty : absBefore;
    // Fraction of the old deferred premium that the closed contracts carried (floor toward zero
    // keeps the split exact: released + kept = old premium).
    const released = (premium * closed) / absBefore;
    // This fill's premium splits between the closing part and any opening remainder.
    const flowClosing = absQty === closed ? premiumFlow : (premiumFlow * closed) / absQty;
    realized = released + flowClosing;
    premium = premium - released + (premiumFlow - flowClosing);
  }
  p.balance = after;
  setCash(p, premium, realizedOf(p) + realized);
  return { before, after, realized };
}

// 10^30 as two single-word divisors: V8 divides by one machine word much faster than by two,
// and truncating twice toward zero equals truncating once.
const E15 = 10n ** 15n;

/**
 * The product of two WAD values (a size and a price, a balance and a mark) in COLLATERAL6,
 * truncated toward zero: a premium, a notional, a payout.
 */
export function collateralOf(a: bigint, b: bigint): bigint {
  return (a * b) / E15 / E15;
}

/** Long open interest contributed by a balance. */
export function longPart(balance: bigint): bigint {
  return balance > 0n ? balance : 0n;
}
