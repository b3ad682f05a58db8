/**
 * A position as data, and the position arithmetic of a fill.
 *
 * Premium is deferred (docs/engine.md "Money"): a fill moves `premium` (COLLATERAL6; negative for a long who
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
 *
 * The balance is in lots of the pair's size step (`lots`, domain/lots.ts: an integer in a
 * double while |lots| <= 2^53 - 1, a bigint beyond); `balanceOf` gives it in WAD for the edges,
 * `contractsOfPosition` as the risk engine's double.
 */
import type { Hex } from '../domain/hex.ts';
import { addLots, bigLots, contractsOf, lotNumberOf, lotsOfBig, lotsOfWad, wadOfLots, type Lots } from '../domain/lots.ts';
import { exact, exactOf, type Cash } from '../risk/exactCash.ts';
import { REG, R_ARG, R_FLOW, R_FLOW_CLOSING, R_REALIZED, R_RELEASED, R_RESULT } from '../domain/registers.ts';

/** A position's premium and realised PnL in bigint, when one of them is beyond the doubles' bound. */
export type WideCash = { premium: bigint; realized: bigint };

export type Position = {
  readonly seriesId: Hex;
  /** The pair's size step (WAD per lot): the unit of `lots`. */
  readonly lot: bigint;
  /** `lot` as a double when exact, else NaN (domain/lots.ts `contractsOf`). */
  readonly lotNumber: number;
  /** Signed balance in lots (+ long): a number while |lots| <= 2^53 - 1, a bigint beyond (domain/lots.ts). */
  lots: Lots;
  /** COLLATERAL6, deferred premium balance: an exact integer, NaN when wide. */
  premium: number;
  /** COLLATERAL6, realised PnL to date: an exact integer, NaN when wide. */
  realized: number;
  /** Both figures in bigint while one of them is beyond 2^53 - 1; null otherwise. */
  wide: WideCash | null;
};

// The last size step seen and its double: positions open on the same pairs over and over.
let lastLot = -1n;
let lastLotNumber = NaN;

/** A flat position on `seriesId` of a pair whose size step is `lot` (WAD per lot). */
export function emptyPosition(seriesId: Hex, lot: bigint): Position {
  if (lot !== lastLot) {
    lastLotNumber = lotNumberOf(lot);
    lastLot = lot;
  }
  return { seriesId, lot, lotNumber: lastLotNumber, lots: 0, premium: 0, realized: 0, wide: null };
}

/** A position from bigint figures (a snapshot's, a test's: balance WAD on the grid of `lot`), in doubles where they are exact. */
export function newPosition(seriesId: Hex, lot: bigint, balance: bigint, premium: bigint, realized: bigint): Position {
  const p = emptyPosition(seriesId, lot);
  p.lots = lotsOfWad(balance, lot);
  setCash(p, premium, realized);
  return p;
}

/** The signed balance, WAD (what snapshots and events carry). */
export function balanceOf(p: Position): bigint {
  return wadOfLots(p.lots, p.lot);
}

/** The signed balance in contracts as a double: exactly `Number(balanceOf(p)) / 1e18`. */
export function contractsOfPosition(p: Position): number {
  return contractsOf(p.lots, p.lot, p.lotNumber);
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
  return p.lots === 0 && (p.wide === null ? p.premium === 0 : p.wide.premium === 0n);
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

/**
 * Result of moving a position by a fill: the balance before and after (lots) and the cash
 * realised. One value reused by every call: read it before the next.
 */
export type PositionChange = { readonly before: Lots; readonly after: Lots; readonly realized: Cash };
const CHANGE: { before: Lots; after: Lots; realized: Cash } = { before: 0, after: 0, realized: 0 };

/**
 * The same as `applyFlow` gives it: the realized cash in register R_REALIZED when it is a double,
 * else NaN there and `realizedWide` holds it (a bigint).
 */
export type FlowChange = { readonly before: Lots; readonly after: Lots; readonly realizedWide: bigint };
const FLOW_CHANGE: { before: Lots; after: Lots; realizedWide: bigint } = { before: 0, after: 0, realizedWide: 0n };

function changed(before: Lots, after: Lots): FlowChange {
  FLOW_CHANGE.before = before;
  FLOW_CHANGE.after = after;
  return FLOW_CHANGE;
}

/**
 * `a x num / den` truncated toward zero, for an exact integer `a` and integers 0 < num <= den
 * below 2^53, when that is exact in doubles; NaN otherwise. |a| x num is exact when it is at
 * most 2^53 - 1 (a product that is not rounds to at least 2^53, which the check refuses); then
 * the quotient of two exact integers below 2^53, when not a whole number, lies at least 1/den
 * from every whole number while half an ulp of it is below that, so its floor is the truncated
 * quotient (the proof in domain/fees.ts, whose final compare this repeats).
 */
export function mulDivTrunc(a: number, num: number, den: number): number {
  REG[R_ARG] = a;
  mulDivTruncAt(R_ARG, num, den, R_RESULT);
  return REG[R_RESULT]!;
}

/** The same for `a` in register `a`, into register `out` (domain/registers.ts); `num` and `den` are lot counts. */
function mulDivTruncAt(a: number, num: number, den: number, out: number): void {
  const v = REG[a]!;
  const m = v < 0 ? -v : v;
  const p = m * num;
  if (!(p <= MAX_PRODUCT)) {
    REG[out] = NaN;
    return;
  }
  let q = Math.floor(p / den);
  if (q * den > p) q--;
  REG[out] = v < 0 ? 0 - q : q;
}
const MAX_PRODUCT = Number.MAX_SAFE_INTEGER;

/**
 * Apply a fill of `qty` lots (signed: + bought, - sold) for `premiumFlow` (COLLATERAL6:
 * negative when paying, positive when receiving) to a position.
 * When the fill reduces the position, the closed fraction of the deferred premium plus this
 * fill's premium for the closed part is realised; the rest stays deferred:
 * released = premium x closed / |before| and, for a fill that flips the position, the closing
 * part of its premium = flow x closed / |qty|, each truncated toward zero (so released + kept
 * = the old premium exactly).
 *
 * In doubles where that is exact: the balance while every figure is within 2^53 - 1 lots, the
 * premiums while within 2^53 - 1 COLLATERAL6 (each sum checked), and the split's products
 * `premium x closed` and `flow x closed` while below 2^53 (`mulDivTrunc`). Anything else (a
 * wide position, a Lots beyond the bound, a product at or above 2^53) takes `splitInBigint`,
 * the formula as it always was. The results are the bigint formula's to the unit
 * (test/engine/actors/accountCash.test.ts).
 */
export function applyToPosition(p: Position, qty: Lots, premiumFlow: Cash): PositionChange {
  REG[R_FLOW] = typeof premiumFlow === 'number' ? premiumFlow : NaN;
  const c = applyFlow(p, qty, typeof premiumFlow === 'bigint' ? premiumFlow : 0n);
  const realized = REG[R_REALIZED]!;
  CHANGE.before = c.before;
  CHANGE.after = c.after;
  CHANGE.realized = realized === realized ? realized : c.realizedWide;
  return CHANGE;
}

/**
 * `applyToPosition` with the flow in register R_FLOW when it is a double (else NaN there, and
 * `flowWide` holds it), the realized cash into register R_REALIZED (else NaN there, and the
 * change's `realizedWide` holds it): the hot path's form, no double passed (domain/registers.ts).
 */
export function applyFlow(p: Position, qty: Lots, flowWide: bigint): FlowChange {
  const before = p.lots;
  const flowN = REG[R_FLOW]!;
  if (p.wide === null && typeof before === 'number' && typeof qty === 'number') {
    const flow = flowN === flowN ? flowN : exactOf(flowWide);
    const after = before + qty;
    if (exact(flow) && exact(after)) {
      if (before === 0 || before > 0 === qty > 0) {
        const premium = p.premium + flow;
        if (exact(premium)) {
          p.premium = premium;
          p.lots = after;
          REG[R_REALIZED] = 0;
          return changed(before, after);
        }
      } else {
        const absBefore = before < 0 ? -before : before;
        const absQty = qty < 0 ? -qty : qty;
        const closed = absQty < absBefore ? absQty : absBefore;
        const premium = p.premium;
        REG[R_RELEASED] = premium;
        if (closed !== absBefore) mulDivTruncAt(R_RELEASED, closed, absBefore, R_RELEASED);
        REG[R_FLOW_CLOSING] = flow;
        if (absQty !== closed) mulDivTruncAt(R_FLOW_CLOSING, closed, absQty, R_FLOW_CLOSING);
        const released = REG[R_RELEASED]!;
        const flowClosing = REG[R_FLOW_CLOSING]!;
        const realizedNow = released + flowClosing;
        const kept = premium - released + (flow - flowClosing);
        const realized = p.realized + realizedNow;
        if (exact(realizedNow) && exact(kept) && exact(realized)) {
          p.premium = kept;
          p.realized = realized;
          p.lots = after;
          REG[R_REALIZED] = realizedNow === 0 ? 0 : realizedNow;
          return changed(before, after);
        }
      }
    }
  }
  return splitInBigint(p, bigLots(before), bigLots(qty), flowN === flowN ? BigInt(flowN) : flowWide);
}

/** applyToPosition's arithmetic in bigint (the reference formula), the result kept in doubles where exact. */
function splitInBigint(p: Position, before: bigint, qty: bigint, premiumFlow: bigint): FlowChange {
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
  const lots = lotsOfBig(after);
  p.lots = lots;
  setCash(p, premium, realizedOf(p) + realized);
  REG[R_REALIZED] = NaN;
  FLOW_CHANGE.realizedWide = realized;
  return changed(lotsOfBig(before), lots);
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
