/**
 * The margin book's counting (marginBook.ts extends it with the checks and reads): each margin
 * account's kept figures (docs/engine.md "Margin", the header of marginBook.ts), refreshed one
 * exposure at a time as orders rest, fill and leave, positions change and marks move; and a
 * rebuild from scratch. Every contribution is rounded to whole risk units before it is added, so
 * sums below 2^53 are exact whatever the order of the additions. Open orders are the account
 * actor's slots (actors/openOrders.ts), counted in lots and ticks.
 */
import type { Hex } from '../domain/hex.ts';
import { MARGIN_ROW, type Portfolio } from '../actors/portfolio.ts';
import { collateralOf } from '../actors/position.ts';
import { addLots, contractsAt, negLots, wadOfLots, type Lots } from '../domain/lots.ts';
import { premiumAt } from '../domain/premium.ts';
import { mulDivAt, ratioOf, type Ratio } from '../domain/fees.ts';
import { REG, R_CONTRACTS, R_MARK, R_PREMIUM, R_SHORT_CONTRACTS } from '../domain/registers.ts';
import { SCENARIOS } from './margin.ts';
import { STRIDE, POS, ORD, FLOOR_POS, FLOOR_ORD, PREMIUM, OWED, MARK, RESERVE } from './exposure.ts';
import type { MarginAccount } from './marginAccount.ts';
import type { RiskQuote } from './riskQuote.ts';
import { exact, exactOf } from './exactCash.ts';
import { MarginRows, SUM_OWED, SUM_PREMIUM } from './marginRows.ts';

/** Risk units per unit of quote currency, and COLLATERAL6 per risk unit. */
export const RISK_UNITS = 10_000;
const C6_PER_UNIT = 100n;
const E30 = 10n ** 30n;
/** A zero to set a cash figure to (setCash reads its value from an array). */
const ZERO = new Float64Array(1);
/** The most risk units whose COLLATERAL6 (x 100) is an exact double. */
export const MAX_EXACT_UNITS = Math.floor(Number.MAX_SAFE_INTEGER / 100);

/** The short-option floor of `shortContracts` short contracts at `spot`, in risk units (rounded against the account). */
export function floorUnits(rate: number, spot: number, shortContracts: number): number {
  return shortContracts > 0 ? Math.ceil(rate * spot * shortContracts * RISK_UNITS) : 0;
}

/** Risk units to COLLATERAL6 (0 for none or a gain). */
export function toC6(units: number): bigint {
  if (units <= 0) return 0n;
  // One bigint instead of two while units x 100 is an exact double.
  return units <= MAX_EXACT_UNITS ? BigInt(units * 100) : BigInt(units) * C6_PER_UNIT;
}

export class MarginCounts extends MarginRows {
  /** Per series row: the quote and size step the mark ratio (lot x mark / 10^30, `markValueAt`) was last built for, and that ratio. */
  private readonly ratioQuote: (RiskQuote | null)[] = [];

  private readonly ratioLot: bigint[] = [];

  private readonly ratios: Ratio[] = [];

  /** The margin account of `p`, its stale exposures revalued first (see marksChanged). */
  account(p: Portfolio): MarginAccount {
    return this.accounts.objects[this.row(p)]!;
  }

  /** The row of the margin account of `p` (made on first use), its stale exposures revalued first. */
  protected row(p: Portfolio): number {
    const anchor = this.anchorOf(p);
    let a = anchor[MARGIN_ROW] ?? -1;
    if (a < 0 || this.accounts.objects[a]?.anchor !== anchor) {
      a = this.byAnchor.get(anchor) ?? -1;
      if (a < 0) this.byAnchor.set(anchor, (a = this.accounts.alloc(anchor)));
      if (this.stamp) anchor[MARGIN_ROW] = a;
    }
    if (this.accounts.staleHead[a] !== -1) this.refresh(a);
    return a;
  }

  /** Revalue the exposures new marks left stale (each once, with the series' current marks). */
  protected refresh(a: number): void {
    const ex = this.exposures;
    const heads = this.accounts.staleHead;
    for (let e = heads[a]!; e !== -1; e = heads[a]!) {
      heads[a] = ex.staleNext[e]!;
      ex.stale[e] = 0;
      this.revalue(a, e);
    }
  }

  /** Rest an order (slot `o` of the account actor's order store): list it in its portfolio `p` and count it. */
  addOrder(p: Portfolio, o: number): void {
    this.orders.add(p.openOrders, o);
    const a = this.row(p);
    const e = this.exposure(a, this.orders.seriesId[o]!);
    this.exposures.addOrder(e, o, this.orders.orderId[o]!);
    const q = this.quoteOf(e);
    this.countOrder(a, e, o, 1, q);
    this.floors(a, e, q);
  }

  /** An order left the book (filled, cancelled, expired): slot `o`, listed in `p`, taken out of the list and the count. */
  dropOrder(p: Portfolio, o: number): void {
    if (!this.orders.delete(p.openOrders, o)) return;
    const a = this.row(p); // first: revalues stale exposures (an exposure holding an order is never dropped by it)
    const e = this.exposures.exposureOf(o);
    if (e === -1) return;
    this.exposures.removeOrder(o);
    const q = this.quoteOf(e);
    this.countOrder(a, e, o, -1, q);
    this.floors(a, e, q);
    this.dropIfEmpty(a, e);
  }

  /** Part of a resting order filled: `lots` lots less of slot `o` (held in `p`) stays reserved. */
  reduceOrder(p: Portfolio, o: number, lots: number): void {
    const a = this.row(p);
    const e = this.exposures.exposureOf(o);
    if (e === -1) {
      this.orders.lots[o]! -= lots;
      return;
    }
    const q = this.quoteOf(e);
    this.countOrder(a, e, o, -1, q);
    this.orders.lots[o]! -= lots;
    this.countOrder(a, e, o, 1, q);
    this.floors(a, e, q);
  }

  /** A position on `seriesId` held in `p` changed (fill, settlement). */
  positionChanged(p: Portfolio, seriesId: Hex): void {
    const a = this.row(p);
    const e = this.exposure(a, seriesId);
    const q = this.quoteOf(e);
    this.countPosition(a, e, q);
    this.floors(a, e, q);
    this.dropIfEmpty(a, e);
  }

  /**
   * The quote message: new marks for a series (`quote`; null once settled), kept on the board.
   * Every account exposed to it is revalued,
   * lazily: the exposures are marked stale here (a flag each) and revalued when their account
   * is next used (a check, an order, a fill, a read), so an oracle update costs O(exposed
   * accounts) flags instead of a 15-scenario recount of every position and order on the pair
   * while no other command runs. A revaluation recounts the exposure from scratch with the
   * series' current marks, so doing it later gives the numbers doing it now would have given.
   */
  marksChanged(seriesId: Hex, quote: RiskQuote | null): void {
    this.quotes.publish(seriesId, quote);
    const s = this.seriesRow.get(seriesId);
    if (s === undefined) return;
    const ex = this.exposures;
    const heads = this.accounts.staleHead;
    for (let e = this.seriesHead[s]!; e !== -1; e = ex.sNext[e]!) {
      if (ex.stale[e] !== 0) continue;
      ex.stale[e] = 1;
      const a = ex.account[e]!;
      ex.staleNext[e] = heads[a]!;
      heads[a] = e;
    }
  }

  /** The portfolios naming the margin accounts exposed to `seriesId` (positions or open orders there). */
  *exposedAnchors(seriesId: Hex): IterableIterator<Portfolio> {
    const s = this.seriesRow.get(seriesId);
    if (s === undefined) return;
    const ex = this.exposures;
    for (let e = this.seriesHead[s]!; e !== -1; e = ex.sNext[e]!) yield this.accounts.objects[ex.account[e]!]!.anchor;
  }

  /** Count everything afresh from positions and open orders (after a restore, into an empty book; an audit's scratch book: verify). */
  rebuild(portfolios: Iterable<Portfolio>): void {
    this.accounts.clear();
    this.exposures.clear();
    this.pairs.clear();
    this.byAnchor.clear();
    this.seriesHead.fill(-1);
    this.seriesTail.fill(-1);
    const ex = this.exposures;
    for (const p of portfolios) {
      const a = this.row(p);
      const orders = this.orders;
      for (let o = p.openOrders.head; o !== -1; o = orders.pNext[o]!) ex.addOrder(this.exposure(a, orders.seriesId[o]!), o, orders.orderId[o]!);
      for (const seriesId of p.positions.keys()) this.exposure(a, seriesId);
    }
    for (let a = 0; a < this.accounts.count; a++) {
      for (let e = this.accounts.expHead[a]!; e !== -1; ) {
        const next = ex.aNext[e]!; // revalue may drop e (nothing left in it)
        this.revalue(a, e);
        e = next;
      }
    }
  }

  /**
   * `floorUnits(this.floorRate, q.spot, short contracts)` for the short contracts in register
   * `short`, into register `out` (domain/registers.ts): its formula, with no double passed to or
   * returned from a call.
   */
  protected floorAt(q: RiskQuote, short: number, out: number): void {
    const c = REG[short]!;
    REG[out] = c > 0 ? Math.ceil(this.floorRate * q.spot * c * RISK_UNITS) : 0;
  }

  /** Slot `o`'s remaining size in contracts, negative for a sell: Number(remaining WAD) / 1e18, bit for bit (domain/lots.ts), into register R_CONTRACTS. */
  protected contractsOfOrderAt(o: number): void {
    const orders = this.orders;
    contractsAt(orders.lots[o]!, orders.lot[o]!, R_CONTRACTS);
    if (orders.buy[o] !== 1) REG[R_CONTRACTS] = -REG[R_CONTRACTS]!;
  }

  /** The account's exposure to a series, made (and listed on the account and the series) on first use. */
  private exposure(a: number, seriesId: Hex): number {
    const s = this.series(seriesId);
    let e = this.pairs.get(a, s);
    if (e !== -1) return e;
    const ex = this.exposures;
    e = ex.alloc(a, s);
    this.pairs.set(a, s, e);
    const accounts = this.accounts;
    const head = accounts.expHead[a]!;
    ex.aPrev[e] = -1;
    ex.aNext[e] = head;
    if (head !== -1) ex.aPrev[head] = e;
    accounts.expHead[a] = e;
    accounts.expCount[a]!++;
    const tail = this.seriesTail[s]!;
    ex.sPrev[e] = tail;
    ex.sNext[e] = -1;
    if (tail === -1) this.seriesHead[s] = e;
    else ex.sNext[tail] = e;
    this.seriesTail[s] = e;
    return e;
  }

  /** Recompute one exposure from scratch (new marks, or a rebuild). */
  private revalue(a: number, e: number): void {
    const ex = this.exposures;
    const en = ex.num;
    const an = this.accounts.num;
    const eb = e * STRIDE;
    const ab = a * STRIDE;
    this.accounts.current[a] = 0;
    ex.stale[e] = 0;
    const q = this.quoteOf(e);
    for (let s = 0; s < SCENARIOS; s++) {
      an[ab + ORD + s]! -= en[eb + ORD + s]!;
      en[eb + ORD + s] = 0;
    }
    this.setCash(a, eb + RESERVE, ab + RESERVE, ZERO, 0);
    ex.sellLots[e] = 0;
    for (let o = ex.first[e]!; o !== -1; o = ex.oNext[o]!) this.countOrder(a, e, o, 1, q);
    this.countPosition(a, e, q);
    this.floors(a, e, q);
    this.dropIfEmpty(a, e);
  }

  /**
   * Set an exposure's cash figure (at `ei`) to `src[si]` and move its account's sum (at `ai`) by
   * the change, each step checked (exactCash.ts). The value is read from its array, not passed: a
   * double passed to a call the compiler did not inline is boxed (domain/registers.ts).
   */
  private setCash(a: number, ei: number, ai: number, src: Float64Array, si: number): void {
    const v = src[si]!;
    const en = this.exposures.num;
    const an = this.accounts.num;
    const without = an[ai]! - en[ei]!;
    const sum = without + v;
    en[ei] = v;
    an[ai] = sum;
    if (!exact(without) || !exact(sum)) this.accounts.wide[a] = 1;
  }

  /** Add `sign` x `src[si]` to an exposure's cash figure (at `ei`) and its account's sum (at `ai`), each checked. */
  private addCash(a: number, ei: number, ai: number, src: Float64Array, si: number, sign: 1 | -1): void {
    const d = sign * src[si]!;
    const en = this.exposures.num;
    const an = this.accounts.num;
    const x = en[ei]! + d;
    const y = an[ai]! + d;
    en[ei] = x;
    an[ai] = y;
    if (!exact(x) || !exact(y)) this.accounts.wide[a] = 1;
  }

  /** Add (`sign` 1) or take away (-1) one order's (slot `o`'s) reservation and scenario losses. */
  private countOrder(a: number, e: number, o: number, sign: 1 | -1, q: RiskQuote | null): void {
    this.accounts.current[a] = 0;
    const ex = this.exposures;
    const orders = this.orders;
    const eb = e * STRIDE;
    const ab = a * STRIDE;
    const lots = orders.lots[o]!;
    if (orders.buy[o] === 1) {
      // A +1 count sets the reserve; a -1 count takes away what the +1 count of the same remaining added.
      if (sign > 0) this.reserveAt(o, ex.oReserve);
      this.addCash(a, eb + RESERVE, ab + RESERVE, ex.oReserve, o, sign);
    } else {
      this.noteLot(ex.series[e]!, orders.lot[o]!);
      ex.sellLots[e] = addLots(ex.sellLots[e]!, sign > 0 ? lots : 0 - lots);
    }
    if (q === null) return;
    const en = ex.num;
    const an = this.accounts.num;
    this.contractsOfOrderAt(o);
    const qty = REG[R_CONTRACTS]!;
    const px = orders.px[o]!;
    const sc = q.scenarios;
    for (let s = 0; s < SCENARIOS; s++) {
      const effect = qty * (sc[s]! - px);
      if (effect < 0) {
        const units = sign * Math.floor(effect * RISK_UNITS);
        en[eb + ORD + s]! += units;
        an[ab + ORD + s]! += units;
      }
    }
  }

  /**
   * What a buy in slot `o` reserves: collateralOf(remaining WAD, price WAD) (COLLATERAL6, NaN
   * beyond 2^53 - 1), as lots x tick x the pair's factor in doubles while exact
   * (domain/premium.ts), else in bigint.
   */
  private reserveAt(o: number, into: Float64Array): void {
    const orders = this.orders;
    premiumAt(orders.lots[o]!, orders.tick[o]!, orders.perLotTick[o]!);
    const v = REG[R_PREMIUM]!;
    into[o] = v >= 0 ? v : exactOf(collateralOf(wadOfLots(orders.lots[o]!, orders.lot[o]!), orders.price[o]!));
  }

  /** Recount the positions the account holds on the exposure's series. */
  private countPosition(a: number, e: number, q: RiskQuote | null): void {
    const accounts = this.accounts;
    accounts.current[a] = 0;
    const ex = this.exposures;
    this.positionSums(accounts.objects[a]!, this.seriesIds[ex.series[e]!]!);
    const sumLots = this.sumLots;
    if (sumLots !== 0) this.noteLot(ex.series[e]!, this.sumLot);
    const eb = e * STRIDE;
    const ab = a * STRIDE;
    this.setCash(a, eb + PREMIUM, ab + PREMIUM, this.premiumSums, SUM_PREMIUM);
    this.setCash(a, eb + OWED, ab + OWED, this.premiumSums, SUM_OWED);
    if (q === null || sumLots === 0) REG[R_MARK] = 0;
    else this.markValueAt(ex.series[e]!, q, sumLots, this.sumLot);
    this.setCash(a, eb + MARK, ab + MARK, REG, R_MARK);
    if ((ex.balance[e] === 0) !== (sumLots === 0)) accounts.positions[a]! += sumLots === 0 ? -1 : 1;
    ex.balance[e] = sumLots;
    const en = ex.num;
    const an = accounts.num;
    contractsAt(sumLots, this.sumLot, R_CONTRACTS);
    const b = REG[R_CONTRACTS]!; // Number(balance) / 1e18, bit for bit
    for (let s = 0; s < SCENARIOS; s++) {
      const units = q === null || b === 0 ? 0 : Math.floor(b * (q.scenarios[s]! - q.mark) * RISK_UNITS);
      an[ab + POS + s]! += units - en[eb + POS + s]!;
      en[eb + POS + s] = units;
    }
  }

  /**
   * The mark value of `lots` lots of step `lot` on series row `s` at quote `q` (COLLATERAL6, NaN
   * beyond the exact range): `collateralOf(lots x lot, markWad)`, truncated toward zero. In
   * doubles as |lots| x num / den with num/den = lot x markWad / 10^30 in lowest terms, kept
   * per series until its quote changes (domain/fees.ts `mulDivInDoubles`: exact, or -1 and the
   * bigint formula); a bigint balance takes the bigint formula.
   */
  private markValueAt(s: number, q: RiskQuote, lots: Lots, lot: bigint): void {
    if (typeof lots === 'number') {
      if (this.ratioQuote[s] !== q || this.ratioLot[s] !== lot) {
        this.ratioQuote[s] = q;
        this.ratioLot[s] = lot;
        this.ratios[s] = ratioOf(lot * q.markWad, E30);
      }
      REG[R_MARK] = lots < 0 ? -lots : lots;
      mulDivAt(R_MARK, this.ratios[s]!, R_MARK);
      const v = REG[R_MARK]!;
      if (v >= 0) {
        if (lots < 0) REG[R_MARK] = 0 - v;
        return;
      }
    }
    REG[R_MARK] = exactOf(collateralOf(wadOfLots(lots, lot), q.markWad));
  }


  /** The short floors of the exposure, from its balance and open sells. */
  private floors(a: number, e: number, q: RiskQuote | null): void {
    this.accounts.current[a] = 0;
    const ex = this.exposures;
    const en = ex.num;
    const an = this.accounts.num;
    const eb = e * STRIDE;
    const ab = a * STRIDE;
    // In contracts from lots: Number(WAD) / 1e18 bit for bit (domain/lots.ts contractsAt).
    const balance = ex.balance[e]!;
    const sr = ex.series[e]!;
    const lot = this.seriesLot[sr]!;
    contractsAt(negLots(balance), lot, R_CONTRACTS);
    contractsAt(addLots(ex.sellLots[e]!, negLots(balance)), lot, R_SHORT_CONTRACTS);
    if (q !== null) {
      this.floorAt(q, R_CONTRACTS, R_CONTRACTS);
      this.floorAt(q, R_SHORT_CONTRACTS, R_SHORT_CONTRACTS);
    }
    const floorPos = q === null ? 0 : REG[R_CONTRACTS]!;
    const floorOrd = q === null ? 0 : REG[R_SHORT_CONTRACTS]!;
    an[ab + FLOOR_POS]! += floorPos - en[eb + FLOOR_POS]!;
    an[ab + FLOOR_ORD]! += floorOrd - en[eb + FLOOR_ORD]!;
    en[eb + FLOOR_POS] = floorPos;
    en[eb + FLOOR_ORD] = floorOrd;
  }

  private dropIfEmpty(a: number, e: number): void {
    const ex = this.exposures;
    if (ex.balance[e] !== 0 || ex.num[e * STRIDE + PREMIUM] !== 0 || ex.orderCount[e] !== 0) return;
    const s = ex.series[e]!;
    this.pairs.delete(a, s);
    const accounts = this.accounts;
    const aPrev = ex.aPrev[e]!;
    const aNext = ex.aNext[e]!;
    if (aPrev === -1) accounts.expHead[a] = aNext;
    else ex.aNext[aPrev] = aNext;
    if (aNext !== -1) ex.aPrev[aNext] = aPrev;
    accounts.expCount[a]!--;
    const sPrev = ex.sPrev[e]!;
    const sNext = ex.sNext[e]!;
    if (sPrev === -1) this.seriesHead[s] = sNext;
    else ex.sNext[sPrev] = sNext;
    if (sNext === -1) this.seriesTail[s] = sPrev;
    else ex.sPrev[sNext] = sPrev;
    ex.release(e);
  }
}
