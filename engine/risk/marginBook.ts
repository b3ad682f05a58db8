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
 * and orders and gets the same numbers as the run that never stopped. Cash stays bigint.
 */
import type { Hex } from '../domain/hex.ts';
import { newPortfolio, type OpenOrder, type Portfolio } from '../actors/portfolio.ts';
import { collateralOf } from '../actors/position.ts';
import { SCENARIOS } from './margin.ts';
import { Exposure, type CountedOrder } from './exposure.ts';
import { MarginAccount, type Requirement } from './marginAccount.ts';
import type { QuoteBoard, RiskQuote } from './riskQuote.ts';

/** Risk units per unit of quote currency, and COLLATERAL6 per risk unit. */
export const RISK_UNITS = 10_000;
const C6_PER_UNIT = 100n;
const MAX_EXACT_UNITS = Math.floor(Number.MAX_SAFE_INTEGER / 100);

/** The portfolios that share a margin account with `p` (p itself for an ordinary portfolio). */
export type MemberSource = (anchor: Portfolio) => readonly Portfolio[];

/** A prospective order of a pre-trade check. */
export type ProspectiveOrder = {
  readonly seriesId: Hex;
  readonly isBuy: boolean;
  readonly size: bigint;
  readonly price: bigint;
  readonly worstFee: bigint;
  /** size x price in COLLATERAL6, when the caller has it already. */
  readonly premium?: bigint;
};

export type { Requirement } from './marginAccount.ts';

// Scratch for checks (the engine is single-threaded and a check never re-enters): scenario
// deltas, and the sells a check adds per series (few series per check, so a linear scan).
const delta = new Float64Array(SCENARIOS);
const NO_ORDERS: readonly OpenOrder[] = [];
/** No prospective orders (a figure as it stands): one shared empty list, not one allocated per call. */
export const NO_PROSPECTIVE: readonly ProspectiveOrder[] = [];
// Kept with a count, not emptied (`length = 0` would free their storage and the next push allocate it again).
const sellSeries: Hex[] = [];
const sellWads: bigint[] = [];
let sellCount = 0;

function addSell(seriesId: Hex, wad: bigint): void {
  for (let i = 0; i < sellCount; i++) {
    if (sellSeries[i] === seriesId) {
      sellWads[i]! += wad;
      return;
    }
  }
  sellSeries[sellCount] = seriesId;
  sellWads[sellCount++] = wad;
}

/** Loss of an order if filled at its limit in each scenario (0 where filling would gain), in whole risk units rounded down (the same sum as countOrder's). */
function addOrderLoss(into: Float64Array, sign: number, isBuy: boolean, size: bigint, price: bigint, q: RiskQuote): void {
  const qty = (isBuy ? 1 : -1) * (Number(size) / 1e18);
  const px = Number(price) / 1e18;
  const sc = q.scenarios;
  for (let s = 0; s < SCENARIOS; s++) {
    const effect = qty * (sc[s]! - px);
    if (effect < 0) into[s]! += sign * Math.floor(effect * RISK_UNITS);
  }
}

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

export class MarginBook {
  private readonly accounts = new Map<Portfolio, MarginAccount>();
  private readonly bySeries = new Map<Hex, Set<MarginAccount>>();

  constructor(
    /** The risk quotes as the quote messages left them (marksChanged). */
    readonly quotes: QuoteBoard,
    private readonly anchorOf: (p: Portfolio) => Portfolio,
    private readonly members: MemberSource,
    /** Short-option floor as a fraction of spot x short contracts. */
    private readonly floorRate: number,
  ) {}

  /** The margin account of `p`, its stale exposures revalued first (see marksChanged). */
  account(p: Portfolio): MarginAccount {
    const anchor = this.anchorOf(p);
    let a = this.accounts.get(anchor);
    if (a === undefined) this.accounts.set(anchor, (a = new MarginAccount(anchor)));
    else if (a.stale.length !== 0) this.refresh(a);
    return a;
  }

  /** Revalue the exposures new marks left stale (each once, with the series' current marks). */
  private refresh(a: MarginAccount): void {
    // revalue may drop an exposure from the account (nothing left in it): the list, not the map, is walked.
    for (let i = 0; i < a.stale.length; i++) {
      const e = a.stale[i]!;
      if (e.stale && a.exposures.get(e.seriesId) === e) this.revalue(a, e);
      e.stale = false;
    }
    a.stale.length = 0;
  }

  /** Rest an order: reserve it in its portfolio and count it. */
  addOrder(p: Portfolio, ref: OpenOrder): void {
    p.openOrders.add(ref);
    const a = this.account(p);
    const e = this.exposure(a, ref.seriesId);
    e.addOrder(ref);
    const q = e.quote.quote;
    this.countOrder(a, e, ref, 1, q);
    this.floors(a, e, q);
  }

  /** An order left the book (filled, cancelled, expired); `ref` is its reservation in `p`. */
  dropOrder(p: Portfolio, ref: OpenOrder): void {
    if (!p.openOrders.delete(ref)) return;
    const a = this.account(p); // first: revalues stale exposures (an exposure holding an order is never dropped by it)
    const e = ref.exposure;
    if (e === null) return;
    e.removeOrder(ref);
    const q = e.quote.quote;
    this.countOrder(a, e, ref, -1, q);
    this.floors(a, e, q);
    this.dropIfEmpty(a, e);
  }

  /** Part of a resting order filled: `size` (WAD) less of its reservation `ref` (held in `p`) stays reserved. */
  reduceOrder(p: Portfolio, ref: OpenOrder, size: bigint): void {
    const a = this.account(p);
    const e = ref.exposure;
    if (e === null) {
      ref.remaining -= size;
      return;
    }
    const q = e.quote.quote;
    this.countOrder(a, e, ref, -1, q);
    ref.remaining -= size;
    this.countOrder(a, e, ref, 1, q);
    this.floors(a, e, q);
  }

  /** A position on `seriesId` held in `p` changed (fill, settlement). */
  positionChanged(p: Portfolio, seriesId: Hex): void {
    const a = this.account(p);
    const e = this.exposure(a, seriesId);
    const q = e.quote.quote;
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
    const exposed = this.bySeries.get(seriesId);
    if (exposed === undefined) return;
    for (const a of exposed) {
      const e = a.exposures.get(seriesId)!;
      if (e.stale) continue;
      e.stale = true;
      a.stale.push(e);
    }
  }

  /** The portfolios naming the margin accounts exposed to `seriesId` (positions or open orders there). */
  *exposedAnchors(seriesId: Hex): IterableIterator<Portfolio> {
    const exposed = this.bySeries.get(seriesId);
    if (exposed !== undefined) for (const a of exposed) yield a.anchor;
  }

  /**
   * Count everything afresh from positions and open orders (after a restore, into an empty
   * book). The orders are linked into this book's exposures; `copies` links copies of them
   * instead, leaving the originals in the exposures of the book that counts them (verify).
   */
  rebuild(portfolios: Iterable<Portfolio>, copies = false): void {
    this.accounts.clear();
    this.bySeries.clear();
    for (const p of portfolios) {
      const a = this.account(p);
      for (const ref of p.openOrders.values()) this.exposure(a, ref.seriesId).addOrder(copies ? { ...ref, exposure: null, ePrev: null, eNext: null } : ref);
      for (const seriesId of p.positions.keys()) this.exposure(a, seriesId);
    }
    for (const a of this.accounts.values()) for (const e of [...a.exposures.values()]) this.revalue(a, e);
  }

  /**
   * What the margin account of `p` needs with `extra` orders added and the open orders in
   * `exclude` taken away (a replace's cancels; those of other accounts are ignored).
   */
  requirement(p: Portfolio, extra: readonly ProspectiveOrder[] = NO_PROSPECTIVE, exclude: readonly OpenOrder[] = NO_ORDERS): Requirement {
    const a = this.account(p);
    const members = a.single ? null : this.members(a.anchor);
    let deposit = 0n;
    if (members === null) deposit = a.anchor.deposit;
    else for (const q of members) deposit += q.deposit;
    // The figures as they stand (every portfolio event asks for them): no scenario deltas to
    // add, and asked again with nothing changed (the liquidation pass's check, then the
    // portfolio event), the same object.
    const plain = extra.length === 0 && exclude.length === 0;
    if (plain && a.plain !== null && a.plain.deposit === deposit) return a.plain;
    let floorOrd = a.floorOrd;
    let cashNeeded = a.owed + a.buyReserve;
    let fees = 0n;
    if (!plain) delta.fill(0);
    sellCount = 0;
    for (const o of extra) {
      fees += o.worstFee;
      if (o.isBuy) cashNeeded += (o.premium ?? collateralOf(o.size, o.price)) + o.worstFee;
      const q = this.quotes.quote(o.seriesId);
      if (q === null) continue; // a settled series carries no risk
      addOrderLoss(delta, 1, o.isBuy, o.size, o.price, q);
      if (!o.isBuy) addSell(o.seriesId, o.size);
    }
    if (exclude.length > 0) {
      for (const q of members ?? [a.anchor]) {
        for (const ref of exclude) {
          if (!q.openOrders.has(ref)) continue;
          if (ref.isBuy) cashNeeded -= collateralOf(ref.remaining, ref.price);
          const quote = this.quotes.quote(ref.seriesId);
          if (quote === null) continue;
          addOrderLoss(delta, -1, ref.isBuy, ref.remaining, ref.price, quote);
          if (!ref.isBuy) addSell(ref.seriesId, -ref.remaining);
        }
      }
    }
    for (let i = 0; i < sellCount; i++) {
      const seriesId = sellSeries[i]!;
      const e = a.exposures.get(seriesId);
      const q = this.quotes.quote(seriesId)!;
      const short = Number((e?.sellWad ?? 0n) + sellWads[i]! - (e?.balance ?? 0n)) / 1e18;
      floorOrd += floorUnits(this.floorRate, q.spot, short) - (e?.floorOrd ?? 0);
    }
    let worst = 0;
    let worstWithOrders = 0;
    for (let s = 0; s < SCENARIOS; s++) {
      const pos = a.pos[s]!;
      if (pos < worst) worst = pos;
      const all = plain ? pos + a.ord[s]! : pos + a.ord[s]! + delta[s]!;
      if (all < worstWithOrders) worstWithOrders = all;
    }
    const unrealizedPnl = a.premium + a.markValue;
    const r: Requirement = {
      deposit,
      unrealizedPnl,
      equity: deposit + unrealizedPnl,
      initialMargin: toC6(Math.max(a.floorPos, -worst)),
      initialMarginWithOrders: toC6(Math.max(floorOrd, -worstWithOrders)) + fees,
      cashNeeded,
      positionCount: a.positions,
    };
    if (plain) a.plain = r;
    return r;
  }

  /** Compare with a rebuild from scratch; the first difference, or null. For tests and audits. */
  verify(portfolios: Iterable<Portfolio>): string | null {
    for (const a of this.accounts.values()) if (a.stale.length !== 0) this.refresh(a);
    const fresh = new MarginBook(this.quotes, this.anchorOf, this.members, this.floorRate);
    fresh.rebuild(portfolios, true);
    const empty = new MarginAccount(newPortfolio('', 1, 0));
    for (const anchor of new Set([...this.accounts.keys(), ...fresh.accounts.keys()])) {
      const k = this.accounts.get(anchor) ?? empty;
      const f = fresh.accounts.get(anchor) ?? empty;
      const who = `${anchor.owner}/${anchor.id}`;
      for (let s = 0; s < SCENARIOS; s++) if (k.pos[s] !== f.pos[s] || k.ord[s] !== f.ord[s]) return `${who}: scenario ${s} differs (${k.pos[s]}/${k.ord[s]} kept, ${f.pos[s]}/${f.ord[s]} rebuilt)`;
      for (const field of ['floorPos', 'floorOrd', 'premium', 'owed', 'markValue', 'buyReserve', 'positions'] as const) {
        if (k[field] !== f[field]) return `${who}: ${field} ${k[field]} kept, ${f[field]} rebuilt`;
      }
      if (k.exposures.size !== f.exposures.size) return `${who}: ${k.exposures.size} exposures kept, ${f.exposures.size} rebuilt`;
      const linked = k === empty ? null : this.verifyLinks(k);
      if (linked !== null) return `${who}: ${linked}`;
    }
    return null;
  }

  /** Each open order of the account's portfolios is in the list of its series' exposure there, and nothing else (no order outside them) is. */
  private verifyLinks(a: MarginAccount): string | null {
    const listed = new Set<CountedOrder>();
    for (const q of a.single ? [a.anchor] : this.members(a.anchor)) {
      for (const ref of q.openOrders.values()) {
        listed.add(ref);
        if (ref.exposure === null || a.exposures.get(ref.seriesId) !== ref.exposure) return `order ${ref.orderId} is not in its exposure's list`;
      }
    }
    let counted = 0;
    for (const e of a.exposures.values()) {
      let n = 0;
      for (const ref of e.orders()) {
        n++;
        if (ref.exposure !== e || ref.seriesId !== e.seriesId || !listed.has(ref)) return `exposure ${e.seriesId} lists order ${ref.orderId} wrongly`;
      }
      if (n !== e.orderCount) return `exposure ${e.seriesId} counts ${e.orderCount} orders and lists ${n}`;
      counted += n;
    }
    return counted === listed.size ? null : `${listed.size} open orders in the portfolios, ${counted} in the exposures`;
  }

  private exposure(a: MarginAccount, seriesId: Hex): Exposure {
    let e = a.exposures.get(seriesId);
    if (e === undefined) {
      a.exposures.set(seriesId, (e = new Exposure(seriesId, this.quotes.cell(seriesId))));
      let set = this.bySeries.get(seriesId);
      if (set === undefined) this.bySeries.set(seriesId, (set = new Set()));
      set.add(a);
    }
    return e;
  }

  /** Recompute one exposure from scratch (new marks, or a rebuild). */
  private revalue(a: MarginAccount, e: Exposure): void {
    a.plain = null;
    e.stale = false;
    const q = e.quote.quote;
    for (let s = 0; s < SCENARIOS; s++) a.ord[s]! -= e.ord[s]!;
    e.ord.fill(0);
    a.buyReserve -= e.buyReserve;
    e.buyReserve = 0n;
    e.sellWad = 0n;
    for (const o of e.orders()) this.countOrder(a, e, o, 1, q);
    this.countPosition(a, e, q);
    this.floors(a, e, q);
    this.dropIfEmpty(a, e);
  }

  /** Add (`sign` 1) or take away (-1) one order's reservation and scenario losses. */
  private countOrder(a: MarginAccount, e: Exposure, o: CountedOrder, sign: 1 | -1, q: RiskQuote | null): void {
    a.plain = null;
    if (o.isBuy) {
      if (sign > 0) {
        const reserve = (o.reserve = collateralOf(o.remaining, o.price));
        e.buyReserve += reserve;
        a.buyReserve += reserve;
      } else {
        // What the +1 count of the same remaining added.
        e.buyReserve -= o.reserve;
        a.buyReserve -= o.reserve;
      }
    } else if (sign > 0) e.sellWad += o.remaining;
    else e.sellWad -= o.remaining;
    if (q === null) return;
    const qty = (o.isBuy ? 1 : -1) * (Number(o.remaining) / 1e18);
    const px = Number(o.price) / 1e18;
    const sc = q.scenarios;
    for (let s = 0; s < SCENARIOS; s++) {
      const effect = qty * (sc[s]! - px);
      if (effect < 0) {
        const units = sign * Math.floor(effect * RISK_UNITS);
        e.ord[s]! += units;
        a.ord[s]! += units;
      }
    }
  }

  /** Recount the positions the account holds on the exposure's series. */
  private countPosition(a: MarginAccount, e: Exposure, q: RiskQuote | null): void {
    a.plain = null;
    let balance = 0n;
    let premium = 0n;
    let owed = 0n;
    if (a.single) {
      const pos = a.anchor.positions.get(e.seriesId);
      if (pos !== undefined) {
        balance = pos.balance;
        premium = pos.premium;
        if (pos.premium < 0n) owed = -pos.premium;
      }
    } else {
      for (const m of this.members(a.anchor)) {
        const pos = m.positions.get(e.seriesId);
        if (pos === undefined) continue;
        balance += pos.balance;
        premium += pos.premium;
        if (pos.premium < 0n) owed -= pos.premium;
      }
    }
    const markValue = q === null ? 0n : collateralOf(balance, q.markWad);
    a.premium += premium - e.premium;
    a.owed += owed - e.owed;
    a.markValue += markValue - e.markValue;
    if ((e.balance === 0n) !== (balance === 0n)) a.positions += balance === 0n ? -1 : 1;
    e.balance = balance;
    e.premium = premium;
    e.owed = owed;
    e.markValue = markValue;
    const b = Number(balance) / 1e18;
    for (let s = 0; s < SCENARIOS; s++) {
      const units = q === null || b === 0 ? 0 : Math.floor(b * (q.scenarios[s]! - q.mark) * RISK_UNITS);
      a.pos[s]! += units - e.pos[s]!;
      e.pos[s] = units;
    }
  }

  /** The short floors of the exposure, from its balance and open sells. */
  private floors(a: MarginAccount, e: Exposure, q: RiskQuote | null): void {
    a.plain = null;
    const floorPos = q === null ? 0 : floorUnits(this.floorRate, q.spot, -Number(e.balance) / 1e18);
    const floorOrd = q === null ? 0 : floorUnits(this.floorRate, q.spot, Number(e.sellWad - e.balance) / 1e18);
    a.floorPos += floorPos - e.floorPos;
    a.floorOrd += floorOrd - e.floorOrd;
    e.floorPos = floorPos;
    e.floorOrd = floorOrd;
  }

  private dropIfEmpty(a: MarginAccount, e: Exposure): void {
    if (e.balance !== 0n || e.premium !== 0n || e.orderCount !== 0) return;
    a.exposures.delete(e.seriesId);
    const set = this.bySeries.get(e.seriesId)!;
    set.delete(a);
    if (set.size === 0) this.bySeries.delete(e.seriesId);
  }
}
