/**
 * A portfolio event's figures (docs/events.md "The engine's compact form"): the account actor's
 * risk view of a margin account's requirement (maintenance margin, health, what may be
 * withdrawn), as COLLATERAL6 `Cash`, computed in doubles while every figure is provably exact,
 * else by the bigint formulas (`AccountActor.view`'s), whose results are then given as Cash.
 * Equal to the unit either way (test/engine/risk/portfolioFigures.test.ts).
 *
 * In doubles: each input is an integer of at most 2^53 - 1 in magnitude (exactCash.ts `exactOf`,
 * NaN otherwise); the maintenance margin ceil(im x rate / WAD) is fees.ts's exact truncated
 * `im x num / den` (the rate in lowest terms) plus one when it left a remainder; equity minus
 * the margin with orders is checked against the bound (exactCash.ts `exact`); the rest are
 * compares. Healthy means a health ratio of at least 1: floor(equity x WAD / mm) >= WAD exactly
 * when equity >= mm (mm > 0), and with no margin needed when equity >= 0. The health ratio
 * itself (WAD, mostly beyond 2^53) is left to the converter (engine/wire.ts `healthRatioOf`).
 */
import type { Cash } from '../events.ts';
import { WAD } from '../domain/fixed.ts';
import { mulDivAt, rateRatio } from '../domain/fees.ts';
import { REG, R_ARG, R_MAINTENANCE, R_RESULT } from '../domain/registers.ts';
import type { Requirement } from './marginAccount.ts';
import { exact, exactOf } from './exactCash.ts';

export type PortfolioFigures = {
  deposit: Cash;
  unrealizedPnl: Cash;
  equity: Cash;
  initialMargin: Cash;
  initialMarginWithOrders: Cash;
  maintenanceMargin: Cash;
  isHealthy: boolean;
  maxWithdraw: Cash;
  positionCount: number;
};

/** A bigint as Cash: a double when exact, else the bigint. */
export function cashOf(v: bigint): Cash {
  const n = exactOf(v);
  return n === n ? n : v;
}

/** ceil(x x rate / WAD) for x >= 0 in doubles, or -1 when not provably exact. (ceilRateAt's value.) */
export function ceilRateInDoubles(x: number, rate: bigint): number {
  REG[R_ARG] = x;
  ceilRateAt(R_ARG, rate, R_RESULT);
  return REG[R_RESULT]!;
}

/** The same for x in register `x`, into register `out` (domain/registers.ts: no double crosses a call). */
export function ceilRateAt(x: number, rate: bigint, out: number): void {
  const r = rateRatio(rate);
  const xv = REG[x]!;
  mulDivAt(x, r, out);
  const q = REG[out]!;
  if (q >= 0 && q * r.den !== xv * r.num) REG[out] = q + 1;
}

/**
 * The figures of requirement `r` at maintenance rate `rate` (WAD), what may be withdrawn capped
 * at `own`, the shown portfolio's own deposit (a double, NaN when wide: then `ownWide` holds it).
 * Written into `out` (a command's scratch, read at once by the event it fills).
 */
export function portfolioFigures(out: PortfolioFigures, r: Requirement, rate: bigint, own: number, ownWide: bigint | null): PortfolioFigures {
  const f = FROM_BIGINT;
  f.deposit = exactOf(r.deposit);
  f.unrealizedPnl = exactOf(r.unrealizedPnl);
  f.equity = exactOf(r.equity);
  f.initialMargin = exactOf(r.initialMargin);
  f.initialMarginWithOrders = exactOf(r.initialMarginWithOrders);
  f.positionCount = r.positionCount;
  REG[R_ARG] = own;
  return figuresInDoubles(out, f, rate, REG, R_ARG) ? out : portfolioFiguresInBigint(out, r, rate, ownWide ?? BigInt(own));
}

/** A requirement's figures in doubles (NaN: not exact), as MarginBook.plainInDoubles gives them. */
export type FiguresN = { deposit: number; unrealizedPnl: number; equity: number; initialMargin: number; initialMarginWithOrders: number; positionCount: number };
const FROM_BIGINT: FiguresN = { deposit: 0, unrealizedPnl: 0, equity: 0, initialMargin: 0, initialMarginWithOrders: 0, positionCount: 0 };

/**
 * The figures from requirement figures in doubles `r` (each exact or NaN), written into `out`;
 * false (and `out` not to be read) when one is not provably exact: then portfolioFiguresInBigint.
 * The shown portfolio's own deposit is `ownRow[ownAt]` (the cash rows, or a register), so that
 * no double is passed to the call.
 */
export function figuresInDoubles(out: PortfolioFigures, r: FiguresN, rate: bigint, ownRow: Float64Array, ownAt: number): boolean {
  const own = ownRow[ownAt]!;
  const deposit = r.deposit;
  const upnl = r.unrealizedPnl;
  const equity = r.equity;
  const im = r.initialMargin;
  const imo = r.initialMarginWithOrders;
  REG[R_MAINTENANCE] = im;
  if (im >= 0) ceilRateAt(R_MAINTENANCE, rate, R_MAINTENANCE);
  const mm = im >= 0 ? REG[R_MAINTENANCE]! : -1;
  const free = equity - imo;
  // NaN (a figure beyond the bound) fails every compare below, so one check covers all.
  if (mm >= 0 && exact(free) && exact(deposit) && exact(upnl) && exact(own)) {
    const mw = free <= 0 ? 0 : free < deposit ? free : deposit > 0 ? deposit : 0;
    const ownPos = own > 0 ? own : 0;
    out.deposit = deposit;
    out.unrealizedPnl = upnl;
    out.equity = equity;
    out.initialMargin = im;
    out.initialMarginWithOrders = imo;
    out.maintenanceMargin = mm;
    out.isHealthy = mm === 0 ? equity >= 0 : equity >= mm;
    out.maxWithdraw = mw < ownPos ? mw : ownPos;
    out.positionCount = r.positionCount;
    return true;
  }
  return false;
}

/** The same figures by the bigint formulas (the account actor's view), each given as Cash. */
export function portfolioFiguresInBigint(out: PortfolioFigures, r: Requirement, rate: bigint, own: bigint): PortfolioFigures {
  const { deposit, equity } = r;
  const im = r.initialMargin;
  const mm = (im * rate + WAD - 1n) / WAD;
  const healthy = mm === 0n ? equity >= 0n : (equity * WAD) / mm >= WAD;
  const free = equity - r.initialMarginWithOrders;
  const mw = free <= 0n ? 0n : free < deposit ? free : deposit > 0n ? deposit : 0n;
  const ownPos = own > 0n ? own : 0n;
  out.deposit = cashOf(deposit);
  out.unrealizedPnl = cashOf(r.unrealizedPnl);
  out.equity = cashOf(equity);
  out.initialMargin = cashOf(im);
  out.initialMarginWithOrders = cashOf(r.initialMarginWithOrders);
  out.maintenanceMargin = cashOf(mm);
  out.isHealthy = healthy;
  out.maxWithdraw = cashOf(mw < ownPos ? mw : ownPos);
  out.positionCount = r.positionCount;
  return out;
}
