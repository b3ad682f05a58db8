/**
 * A position as data, and the position arithmetic of a fill.
 *
 * Premium is deferred (api.md): a fill moves `premium` (COLLATERAL6; negative for a long who
 * owes it, positive for a short who is owed it). Cash moves only when a position is reduced
 * (the closed fraction of the deferred premium is realised into the deposit) and at
 * settlement. All amounts are bigint; the premium of a fill is computed once and is the same
 * amount on both sides, so cash is conserved exactly.
 */
import type { Hex } from '../domain/hex.ts';

export type Position = {
  readonly seriesId: Hex;
  balance: bigint; // WAD, signed
  premium: bigint; // COLLATERAL6, deferred premium balance
  realized: bigint; // COLLATERAL6, realised PnL to date
};

/** Result of moving a position by a fill: the cash to realise and the balance change. */
export type PositionChange = { readonly before: bigint; readonly after: bigint; readonly realized: bigint };

/**
 * Apply a fill of `qty` (WAD, signed: + bought, - sold) for `premiumFlow` (COLLATERAL6:
 * negative when paying, positive when receiving) to a position.
 * When the fill reduces the position, the closed fraction of the deferred premium plus this
 * fill's premium for the closed part is realised; the rest stays deferred.
 */
export function applyToPosition(p: Position, qty: bigint, premiumFlow: bigint): PositionChange {
  const before = p.balance;
  const after = before + qty;
  let realized = 0n;
  const reducing = before !== 0n && (before > 0n) !== (qty > 0n);
  if (!reducing) {
    p.premium += premiumFlow;
  } else {
    const absBefore = before < 0n ? -before : before;
    const absQty = qty < 0n ? -qty : qty;
    const closed = absQty < absBefore ? absQty : absBefore;
    // Fraction of the old deferred premium that the closed contracts carried (floor toward zero
    // keeps the split exact: released + kept = old premium).
    const released = (p.premium * closed) / absBefore;
    // This fill's premium splits between the closing part and any opening remainder.
    const flowClosing = absQty === closed ? premiumFlow : (premiumFlow * closed) / absQty;
    realized = released + flowClosing;
    p.premium = p.premium - released + (premiumFlow - flowClosing);
  }
  p.balance = after;
  p.realized += realized;
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
