/**
 * Margin kept up to date, not recomputed: each margin account (a portfolio, or a market
 * maker's cash portfolio with its internal ones) holds per series what it has at risk there
 * (positions, open orders) and that exposure's contribution to the account's 15 scenario
 * PnL sums, its short floors, its deferred premium, mark value and cash reservations. A
 * fill, a resting or removed order or a new mark refreshes one exposure, and a pre-trade
 * check reads the sums and adds only the new orders: O(15) per order instead of a pass over
 * the whole portfolio (performance.md "risk").
 *
 * Exact and path independent, so that replay and restore agree to the last unit: every
 * contribution is rounded to whole risk units (1e-4 of the quote currency; losses and floors
 * rounded against the account, so margin is never understated) before it is added, and sums
 * of integers below 2^53 (9e11 USD per scenario) are exact in a double whatever the order of
 * the additions. A snapshot therefore stores none of it: restore rebuilds it from positions
 * and orders and gets the same numbers as the run that never stopped.
 *
 * The data is dense (docs/engine.md "Margin"): accounts and exposures are integer rows (the
 * rows and their reads: marginRows.ts; the counting that keeps them: marginCounts.ts, which this
 * book extends with the checks and reads; its audit: marginAudit.ts) whose
 * numbers live in Float64Array slabs (marginAccount.ts, exposure.ts), an account's row is kept
 * on its anchor portfolio, an account's exposure to a series is found through a table of
 * typed arrays, and the exposures of a series are a list through the rows. The cash figures
 * (premium, owed, mark value, reservations; COLLATERAL6) are integers in doubles, every sum
 * checked against 2^53 - 1 (exactCash.ts); an account whose figure leaves that range has its
 * cash recounted in bigint from its positions and orders instead (`wideCash`).
 */
import type { Hex } from '../domain/hex.ts';
import type { Portfolio } from '../actors/portfolio.ts';
import { collateralOf } from '../actors/position.ts';
import { addLots, contractsAt, negLots, wadOfLots, type Lots } from '../domain/lots.ts';
import { REG, R_CONTRACTS, R_PX, R_SHORT_CONTRACTS } from '../domain/registers.ts';
import { SCENARIOS } from './margin.ts';
import { STRIDE, POS, ORD, FLOOR_POS, FLOOR_ORD, PREMIUM, OWED, MARK, RESERVE } from './exposure.ts';
import type { MarginAccount, MutableRequirement, Requirement } from './marginAccount.ts';
import type { RiskQuote } from './riskQuote.ts';
import { bigSum, exact } from './exactCash.ts';
import type { KeptExposure, KeptSums, CashFigures } from './marginRows.ts';
import { verifyRows } from './marginAudit.ts';
import { MarginCounts, MAX_EXACT_UNITS, RISK_UNITS, floorUnits, toC6 } from './marginCounts.ts';

export { RISK_UNITS, floorUnits, toC6 } from './marginCounts.ts';


export type { MemberSource, KeptSums, KeptExposure, CashFigures } from './marginRows.ts';

/** A prospective order of a pre-trade check. */
export type ProspectiveOrder = {
  readonly seriesId: Hex;
  readonly isBuy: boolean;
  readonly size: bigint;
  readonly price: bigint;
  readonly worstFee: bigint;
  /** size x price in COLLATERAL6, when the caller has it already. */
  readonly premium?: bigint;
  /** The premium and the worst fee as integers in doubles, when the caller has them exact (a check then may be decided in doubles: MarginBook.fitsInDoubles). */
  readonly premiumN?: number;
  readonly worstFeeN?: number;
  /** Its size in lots of `lot` (its pair's size step, WAD), when the caller has it: a check then counts its open sells in lots, no bigint. */
  readonly lots?: number;
  readonly lot?: bigint;
  /** Its price as a double, Number(price) / 1e18 (domain/ticks.ts `tickToPx`), when the caller has it. */
  readonly px?: number;
};

export type { Requirement } from './marginAccount.ts';

// Scratch for checks (the engine is single-threaded and a check never re-enters): scenario
// deltas, and the sells a check adds per series (few series per check, so a linear scan).
const delta = new Float64Array(SCENARIOS);
const NO_ORDERS: readonly number[] = [];
/** No prospective orders (a figure as it stands): one shared empty list, not one allocated per call. */
export const NO_PROSPECTIVE: readonly ProspectiveOrder[] = [];
// Kept with a count, not emptied (`length = 0` would free their storage and the next push allocate it again).
// Per series: the sells added (taken away: negative) in lots of `sellLot`, and in WAD those given without lots.
const sellSeries: Hex[] = [];
const sellLotsOf: Lots[] = [];
const sellLot: bigint[] = [];
const sellWads: bigint[] = [];
let sellCount = 0;
// What orderDeltas counted for a check: the short floor's change, fees and cash needed (bigint, or
// doubles). The doubles in a typed array: a module variable is a context slot, and every double
// written to one is boxed (a new heap number).
let chkFees = 0n;
let chkCash = 0n;
const chk = new Float64Array(3);
const FLOOR_ORD_CHANGE = 0;
const FEES = 1;
const CASH = 2;
/** A margin account's figures as they stand in doubles (MarginBook.plainInDoubles), COLLATERAL6. */
export type PlainFigures = { deposit: number; unrealizedPnl: number; equity: number; initialMargin: number; initialMarginWithOrders: number; positionCount: number };
/** Bits of AccountRows.current: the requirement memo, and the figures in doubles kept on the account, match the sums (any count clears both). */
const MEMO = 1;
const IN_DOUBLES = 2;
const PLAIN: PlainFigures = { deposit: 0, unrealizedPnl: 0, equity: 0, initialMargin: 0, initialMarginWithOrders: 0, positionCount: 0 };
/** The figures of a check (with prospective orders or exclusions): one object, rewritten by every check. */
const CHECKED: MutableRequirement = { deposit: 0n, unrealizedPnl: 0n, equity: 0n, initialMargin: 0n, initialMarginWithOrders: 0n, cashNeeded: 0n, positionCount: 0 };

/** A check's open sells on `seriesId` move by `lots` lots of `lot` (when lot is null: by `wad`, WAD). */
function addSell(seriesId: Hex, lots: Lots, lot: bigint | null, wad: bigint): void {
  let i = 0;
  while (i < sellCount && sellSeries[i] !== seriesId) i++;
  if (i === sellCount) {
    sellSeries[i] = seriesId;
    sellLotsOf[i] = 0;
    sellLot[i] = 0n;
    sellWads[i] = 0n;
    sellCount++;
  }
  if (lot === null) sellWads[i]! += wad;
  else {
    sellLotsOf[i] = addLots(sellLotsOf[i]!, lots);
    sellLot[i] = lot;
  }
}

/**
 * Loss of an order of `qty` contracts (negative: a sell) if filled at `px` in each scenario (0
 * where filling would gain), in whole risk units rounded down (the same sum as countOrder's).
 * The size and price are in registers R_CONTRACTS and R_PX (domain/registers.ts).
 */
function addOrderLoss(into: Float64Array, sign: number, q: RiskQuote): void {
  const qty = REG[R_CONTRACTS]!;
  const px = REG[R_PX]!;
  const sc = q.scenarios;
  for (let s = 0; s < SCENARIOS; s++) {
    const effect = qty * (sc[s]! - px);
    if (effect < 0) into[s]! += sign * Math.floor(effect * RISK_UNITS);
  }
}



/** Whether one of `members` has portfolio handle `h`. */
function holds(members: readonly Portfolio[], h: number): boolean {
  for (let i = 0; i < members.length; i++) if (members[i]!.handle === h) return true;
  return false;
}

export class MarginBook extends MarginCounts {
  /** Compare with a rebuild from scratch; the first difference, or null. For tests and audits (marginAudit.ts). */
  verify(portfolios: Iterable<Portfolio>): string | null {
    for (let a = 0; a < this.accounts.count; a++) if (this.accounts.staleHead[a] !== -1) this.refresh(a);
    const fresh = new MarginBook(this.quotes, this.deposits, this.orders, this.anchorOf, this.members, this.floorRate, false);
    fresh.rebuild(portfolios);
    return verifyRows(this, fresh);
  }

  /**
   * What the margin account of `p` needs with the first `extraCount` of `extra` orders added and
   * the first `excludeCount` open orders of `exclude` taken away (a replace's cancels; those of
   * other accounts are ignored). Allocates no object: the figures as they stand (nothing added
   * or taken away) are the account's memo, rewritten in place when they change; a check's
   * figures are one scratch object shared by every check, valid until the next check (read
   * what you keep before asking again).
   */
  requirement(p: Portfolio, extra: readonly ProspectiveOrder[] = NO_PROSPECTIVE, exclude: readonly number[] = NO_ORDERS, extraCount = extra.length, excludeCount = exclude.length): Requirement {
    const a = this.row(p);
    const acc = this.accounts.objects[a]!;
    const members = acc.single ? null : this.members(acc.anchor);
    // The deposit in doubles (engine/actors/portfolio.ts), every partial sum checked: NaN when
    // a portfolio's is wide or a sum leaves the bound, then counted in bigint. Its bigint is
    // made once per change of the double.
    let depositN = 0;
    const rows = this.deposits.deposit;
    if (members === null) depositN = rows[acc.anchor.handle]!;
    else for (const q of members) if (!exact((depositN += rows[q.handle]!))) depositN = NaN;
    let deposit: bigint;
    if (exact(depositN)) {
      if (depositN !== acc.depositN) {
        acc.depositBig = BigInt(depositN);
        acc.depositN = depositN;
      }
      deposit = acc.depositBig;
    } else if (members === null) deposit = this.deposits.of(acc.anchor.handle);
    else {
      deposit = 0n;
      for (const q of members) deposit += this.deposits.of(q.handle);
    }
    // The figures as they stand (every portfolio event asks for them): no scenario deltas to
    // add, and asked again with nothing changed (the liquidation pass's check, then the
    // portfolio event), the same object.
    const plain = extraCount === 0 && excludeCount === 0;
    const memo = acc.plain;
    if (plain && memo !== null && (this.accounts.current[a]! & MEMO) !== 0 && memo.deposit === deposit) return memo;
    const num = this.accounts.num;
    const base = a * STRIDE;
    let floorOrd = num[base + FLOOR_ORD]!;
    let cashNeeded: bigint;
    let unrealizedPnl: bigint;
    if (this.accounts.wide[a] === 0) {
      cashNeeded = bigSum(num[base + OWED]!, num[base + RESERVE]!);
      unrealizedPnl = bigSum(num[base + PREMIUM]!, num[base + MARK]!);
    } else {
      const c = this.wideCash(a);
      cashNeeded = c.owed + c.buyReserve;
      unrealizedPnl = c.premium + c.markValue;
    }
    if (!plain) {
      this.orderDeltas(a, acc, members, extra, extraCount, exclude, excludeCount, cashNeeded);
      cashNeeded = chkCash;
    } else chk[FLOOR_ORD_CHANGE] = 0;
    const fees = plain ? 0n : chkFees;
    floorOrd += chk[FLOOR_ORD_CHANGE]!;
    let worst = 0;
    let worstWithOrders = 0;
    for (let s = 0; s < SCENARIOS; s++) {
      const pos = num[base + POS + s]!;
      if (pos < worst) worst = pos;
      const all = plain ? pos + num[base + ORD + s]! : pos + num[base + ORD + s]! + delta[s]!;
      if (all < worstWithOrders) worstWithOrders = all;
    }
    const initialMargin = toC6(Math.max(num[base + FLOOR_POS]!, -worst));
    const initialMarginWithOrders = toC6(Math.max(floorOrd, -worstWithOrders)) + fees;
    const equity = deposit + unrealizedPnl;
    // The memo, rewritten in place (one object per account; its view no longer applies), or the checks' scratch.
    const r = !plain ? CHECKED : (memo ?? (acc.plain = { deposit, unrealizedPnl, equity, initialMargin, initialMarginWithOrders, cashNeeded, positionCount: 0 }));
    r.deposit = deposit;
    r.unrealizedPnl = unrealizedPnl;
    r.equity = equity;
    r.initialMargin = initialMargin;
    r.initialMarginWithOrders = initialMarginWithOrders;
    r.cashNeeded = cashNeeded;
    r.positionCount = this.accounts.positions[a]!;
    if (!plain) return r;
    acc.viewCurrent = false;
    this.accounts.current[a]! |= MEMO;
    return r;
  }

  /**
   * Whether the pre-trade check of the first `extraCount` orders of `extra` (with the first
   * `excludeCount` of `exclude` taken away) surely passes, decided in doubles with no bigint:
   * cash (when `buys`) and margin with orders, as `requirement` counts them. Every figure and sum
   * is an integer checked against 2^53 - 1 (exactCash.ts), and the margin in risk units
   * converts exactly while `toC6` would take its double path, so a true answer is the bigint
   * check's. False when it fails or cannot be decided exactly (an account or order beyond the
   * bound, an order without its doubles): then ask `requirement`.
   */
  fitsInDoubles(p: Portfolio, buys: boolean, extra: readonly ProspectiveOrder[], exclude: readonly number[], extraCount: number, excludeCount: number): boolean {
    const a = this.row(p);
    if (this.accounts.wide[a] !== 0) return false;
    const acc = this.accounts.objects[a]!;
    const members = acc.single ? null : this.members(acc.anchor);
    const depositN = members === null ? this.deposits.deposit[acc.anchor.handle]! : +this.depositInDoubles(acc, members); // as in plainInDoubles
    if (!exact(depositN)) return false;
    if (!this.orderDeltas(a, acc, members, extra, extraCount, exclude, excludeCount, null)) return false;
    const num = this.accounts.num;
    const base = a * STRIDE;
    if (buys) {
      const needed = num[base + OWED]! + num[base + RESERVE]! + chk[CASH]!;
      if (!exact(num[base + OWED]! + num[base + RESERVE]!) || !exact(needed) || depositN < needed) return false;
    }
    let worstWithOrders = 0;
    for (let s = 0; s < SCENARIOS; s++) {
      const all = num[base + POS + s]! + num[base + ORD + s]! + delta[s]!;
      if (all < worstWithOrders) worstWithOrders = all;
    }
    const units = Math.max(num[base + FLOOR_ORD]! + chk[FLOOR_ORD_CHANGE]!, -worstWithOrders);
    if (!(units <= MAX_EXACT_UNITS)) return false;
    const imWithOrders = (units <= 0 ? 0 : units * 100) + chk[FEES]!;
    const unrealized = num[base + PREMIUM]! + num[base + MARK]!;
    const equity = depositN + unrealized;
    return exact(imWithOrders) && exact(unrealized) && exact(equity) && equity >= imWithOrders;
  }

  /** The margin account's deposit (its portfolios' summed) in doubles, each partial sum checked; NaN when one is not exact. */
  private depositInDoubles(acc: MarginAccount, members: readonly Portfolio[] | null): number {
    const rows = this.deposits.deposit;
    if (members === null) return rows[acc.anchor.handle]!;
    let depositN = 0;
    // An index loop: `for...of` closes its iterator in a finally, and the value returned through it is boxed.
    for (let i = 0; i < members.length; i++) if (!exact((depositN += rows[members[i]!.handle]!))) return NaN;
    return depositN;
  }

  /**
   * The figures of `p`'s margin account as they stand (`requirement` with nothing added or taken
   * away), in doubles: each an integer of COLLATERAL6 checked against 2^53 - 1 as in
   * `fitsInDoubles`, so each equals the bigint `requirement` gives. Null when one is not exact
   * (a wide account, deposit or sum): then ask `requirement`. One scratch object, rewritten by
   * every call; the portfolio event and the liquidation pass read it at once, and no bigint is made.
   */
  plainInDoubles(p: Portfolio): PlainFigures | null {
    const a = this.row(p);
    if (this.accounts.wide[a] !== 0) return null;
    const acc = this.accounts.objects[a]!;
    // The single portfolio's row read here, and the sum of a group's taken as a number (`+`): a
    // double merged with a call's result would otherwise be boxed on every call.
    const deposit = acc.single ? this.deposits.deposit[acc.anchor.handle]! : +this.depositInDoubles(acc, this.members(acc.anchor));
    const f = PLAIN;
    f.positionCount = this.accounts.positions[a]!;
    // Asked again with nothing counted since and the same deposit (the liquidation pass after the portfolio event): the kept figures.
    if ((this.accounts.current[a]! & IN_DOUBLES) !== 0 && acc.nDeposit === deposit) {
      f.deposit = deposit;
      f.unrealizedPnl = acc.nUnrealizedPnl;
      f.equity = deposit + acc.nUnrealizedPnl;
      f.initialMargin = acc.nInitialMargin;
      f.initialMarginWithOrders = acc.nInitialMarginWithOrders;
      return f;
    }
    const num = this.accounts.num;
    const base = a * STRIDE;
    let worst = 0;
    let worstWithOrders = 0;
    for (let s = 0; s < SCENARIOS; s++) {
      const pos = num[base + POS + s]!;
      if (pos < worst) worst = pos;
      const all = pos + num[base + ORD + s]!;
      if (all < worstWithOrders) worstWithOrders = all;
    }
    const im = Math.max(num[base + FLOOR_POS]!, -worst);
    const imo = Math.max(num[base + FLOOR_ORD]!, -worstWithOrders);
    const upnl = num[base + PREMIUM]! + num[base + MARK]!;
    const equity = deposit + upnl;
    // toC6's double path: whole risk units times 100 while exact.
    if (!(im <= MAX_EXACT_UNITS && imo <= MAX_EXACT_UNITS) || !exact(deposit) || !exact(upnl) || !exact(equity)) return null;
    f.deposit = deposit;
    f.unrealizedPnl = upnl;
    f.equity = equity;
    f.initialMargin = im <= 0 ? 0 : im * 100;
    f.initialMarginWithOrders = imo <= 0 ? 0 : imo * 100;
    acc.nDeposit = deposit;
    acc.nUnrealizedPnl = upnl;
    acc.nInitialMargin = f.initialMargin;
    acc.nInitialMarginWithOrders = f.initialMarginWithOrders;
    this.accounts.current[a]! |= IN_DOUBLES;
    return f;
  }

  /**
   * The prospective orders' and the excluded orders' effect on a check, into the module's
   * scratch: scenario deltas (`delta`), the change of the short floor with orders
   * (`chk[FLOOR_ORD_CHANGE]`), and the fees and cash needed, in bigint (given `cashBase`, the cash needed
   * before: `chkFees`, `chkCash` from it) or in doubles (`chk[FEES]`, `chk[CASH]` from 0; false when
   * one is not an exact integer, and then the rest is not counted).
   */
  private orderDeltas(a: number, acc: MarginAccount, members: readonly Portfolio[] | null, extra: readonly ProspectiveOrder[], extraCount: number, exclude: readonly number[], excludeCount: number, cashBase: bigint | null): boolean {
    const big = cashBase !== null;
    delta.fill(0);
    sellCount = 0;
    chkFees = 0n;
    chkCash = cashBase ?? 0n;
    chk[FEES] = 0;
    chk[CASH] = 0;
    for (let i = 0; i < extraCount; i++) {
      const o = extra[i]!;
      if (big) {
        chkFees += o.worstFee;
        if (o.isBuy) chkCash += (o.premium ?? collateralOf(o.size, o.price)) + o.worstFee;
      } else {
        // Each partial sum checked (one beyond the bound may round).
        const fee = o.worstFeeN!;
        if (!(fee >= 0) || (o.isBuy && !(o.premiumN! >= 0))) return false;
        if (!exact((chk[FEES] += fee))) return false;
        if (o.isBuy && !(exact(o.premiumN! + fee) && exact((chk[CASH] += o.premiumN! + fee)))) return false;
      }
      const q = this.quotes.quote(o.seriesId);
      if (q === null) continue; // a settled series carries no risk
      // Its size and price as doubles, Number(WAD) / 1e18 bit for bit: from lots and tick when given (no heap number made), else from the WAD.
      if (o.lots !== undefined && o.lot !== undefined) contractsAt(o.lots, o.lot, R_CONTRACTS);
      else REG[R_CONTRACTS] = Number(o.size) / 1e18;
      if (!o.isBuy) REG[R_CONTRACTS] = -REG[R_CONTRACTS]!;
      REG[R_PX] = o.px !== undefined ? o.px : Number(o.price) / 1e18;
      addOrderLoss(delta, 1, q);
      if (!o.isBuy) {
        if (o.lots !== undefined && o.lot !== undefined) addSell(o.seriesId, o.lots, o.lot, 0n);
        else addSell(o.seriesId, 0, null, o.size);
      }
    }
    const orders = this.orders;
    const ex = this.exposures;
    for (let i = 0; i < excludeCount; i++) {
      // Only an order resting in one of the account's portfolios (held there and listed).
      const o = exclude[i]!;
      const h = orders.holder[o]!;
      if (!orders.isOpen(o) || orders.listed[o] !== 1 || (members === null ? h !== acc.anchor.handle : !holds(members, h))) continue;
      if (orders.buy[o] === 1) {
        // Its reserve as the book counted it: collateralOf(remaining, price) while it is linked.
        if (big) chkCash -= collateralOf(wadOfLots(orders.lots[o]!, orders.lot[o]!), orders.price[o]!);
        else if (ex.exposureOf(o) === -1) return false;
        else if (!exact((chk[CASH] -= ex.oReserve[o]!))) return false;
      }
      const seriesId = orders.seriesId[o]!;
      const quote = this.quotes.quote(seriesId);
      if (quote === null) continue;
      this.contractsOfOrderAt(o);
      REG[R_PX] = orders.px[o]!;
      addOrderLoss(delta, -1, quote);
      if (orders.buy[o] !== 1) addSell(seriesId, 0 - orders.lots[o]!, orders.lot[o]!, 0n);
    }
    chk[FLOOR_ORD_CHANGE] = 0;
    for (let i = 0; i < sellCount; i++) {
      const seriesId = sellSeries[i]!;
      const e = this.findExposure(a, seriesId);
      const q = this.quotes.quote(seriesId)!;
      // Open sells less the balance, in lots (all in one pair's size step), with the check's added.
      const standing = e === -1 ? 0 : addLots(ex.sellLots[e]!, negLots(ex.balance[e]!));
      const lot = sellLot[i] !== 0n ? sellLot[i]! : e === -1 ? 1n : this.seriesLot[ex.series[e]!]!;
      const lots = addLots(standing, sellLotsOf[i]!);
      // Number(WAD) / 1e18 bit for bit (domain/lots.ts contractsOf); with sells given in WAD only (a what-if's), in WAD.
      if (sellWads[i] === 0n) contractsAt(lots, lot, R_SHORT_CONTRACTS);
      else REG[R_SHORT_CONTRACTS] = Number(wadOfLots(lots, lot) + sellWads[i]!) / 1e18;
      this.floorAt(q, R_SHORT_CONTRACTS, R_SHORT_CONTRACTS);
      chk[FLOOR_ORD_CHANGE] += REG[R_SHORT_CONTRACTS]! - (e === -1 ? 0 : ex.num[e * STRIDE + FLOOR_ORD]!);
    }
    return true;
  }

  /** The kept scenario sums and floors of the account of `p` (copies: a read-only query's, flows/whatIf.ts). */
  sums(p: Portfolio): KeptSums {
    return this.keptSums(this.accounts.num, this.row(p));
  }

  /** The same of the account's exposure to `seriesId`, with its balance and open sells (null when it has none). */
  exposureSums(p: Portfolio, seriesId: Hex): KeptExposure | null {
    const e = this.findExposure(this.row(p), seriesId);
    if (e === -1) return null;
    const ex = this.exposures;
    const lot = this.seriesLot[ex.series[e]!]!;
    return { ...this.keptSums(ex.num, e), balance: wadOfLots(ex.balance[e]!, lot), sellWad: wadOfLots(ex.sellLots[e]!, lot) };
  }

  /** The cash figures of the account of `p` in bigint (whichever way they are kept). */
  cash(p: Portfolio): CashFigures {
    return this.cashOf(this.row(p));
  }

  /** Whether the account of `p` keeps its cash figures in doubles (false once one left the exact range: exactCash.ts). */
  cashInDoubles(p: Portfolio): boolean {
    return this.accounts.wide[this.row(p)] === 0;
  }
}
