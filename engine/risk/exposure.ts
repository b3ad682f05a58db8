/**
 * What the margin book (marginBook.ts) keeps per series in a margin account, as dense rows:
 * each exposure is an integer row (reused through a free list), its numbers a row of one
 * `Float64Array` slab (the 15 scenario PnL sums of positions, the 15 of open orders' losses,
 * the two short floors and the four cash figures, next to each other), its other fields in
 * typed arrays (account, series, list links) or plain arrays beside them (the WAD balance and
 * open sells, the ends of its order list). Slabs grow by doubling; counting an order, a fill
 * or a mark allocates no object. Data only; the book's rules live in marginBook.ts.
 *
 * The orders are typed as the margin book counts them (CountedOrder): side, remaining size,
 * limit price, reservation and the links of this list. The venue's open order
 * (engine/actors/portfolio.ts) is one of them with more fields, so this module sits below it.
 */
import type { Hex } from '../domain/hex.ts';
import { SCENARIOS } from './margin.ts';

/** An order as the margin book counts it, and its links in the list of the exposure that counts it. */
export type CountedOrder = {
  readonly orderId: Hex;
  readonly seriesId: Hex;
  readonly isBuy: boolean;
  remaining: bigint; // WAD
  readonly price: bigint; // WAD
  /**
   * For a buy: the cash it reserves (remaining x price, COLLATERAL6) as the margin book last
   * counted it, so taking it away needs no recompute; an integer in a double, NaN above 2^53 - 1
   * (exactCash.ts). Derived: snapshots leave it out.
   */
  reserve: number;
  /** The row of the margin exposure that counts it (-1: none), and its neighbours in that exposure's list. */
  exposure: number;
  ePrev: CountedOrder | null;
  eNext: CountedOrder | null;
};

/** A row of the numeric slabs (accounts' and exposures' alike): offsets of its fields. */
export const POS = 0; // 15 scenario PnL sums of positions, risk units
export const ORD = SCENARIOS; // 15 scenario losses of open orders, risk units
export const FLOOR_POS = 2 * SCENARIOS; // short floor of the positions, risk units
export const FLOOR_ORD = FLOOR_POS + 1; // short floor if every open sell filled
export const PREMIUM = FLOOR_POS + 2; // deferred premium, COLLATERAL6 (exactCash.ts)
export const OWED = FLOOR_POS + 3; // premium owed on long positions
export const MARK = FLOOR_POS + 4; // mark value of the positions
export const RESERVE = FLOOR_POS + 5; // cash reserved by open buys
export const STRIDE = FLOOR_POS + 6;

/** A typed array twice as long (at least `min`), with the old contents. */
export function grown<T extends Float64Array | Int32Array | Uint8Array>(a: T, min: number): T {
  let n = a.length * 2;
  while (n < min) n *= 2;
  const b = new (a.constructor as new (n: number) => T)(n);
  b.set(a);
  return b;
}

/** The exposures of a margin book: rows, their slabs and their order lists. */
export class ExposureRows {
  /** STRIDE numbers a row (see above). */
  num = new Float64Array(16 * STRIDE);
  /** The account row and the series row of each exposure. */
  account = new Int32Array(16);
  series = new Int32Array(16);
  /** Open orders in its list. */
  orderCount = new Int32Array(16);
  /** The series has new marks this exposure's contribution was not revalued with yet. */
  stale = new Uint8Array(16);
  /** Its neighbours in its account's list of exposures (aNext also chains the free rows). */
  aNext = new Int32Array(16);
  aPrev = new Int32Array(16);
  /** Its neighbours in its series' list of exposures (oldest first: the accounts exposed to it). */
  sNext = new Int32Array(16);
  sPrev = new Int32Array(16);
  /** The next in its account's list of stale exposures. */
  staleNext = new Int32Array(16);
  /** Signed balance and open sells on the series, WAD. */
  readonly balance: bigint[] = [];
  readonly sellWad: bigint[] = [];
  /** Its open orders, oldest first, as an intrusive list through the orders themselves. */
  readonly first: (CountedOrder | null)[] = [];
  readonly last: (CountedOrder | null)[] = [];
  private rows = 0;
  private free = -1;

  /** A zeroed row for `account`'s exposure to `series`. */
  alloc(account: number, series: number): number {
    let e = this.free;
    if (e !== -1) this.free = this.aNext[e]!;
    else {
      e = this.rows++;
      if (e === this.account.length) this.grow(e + 1);
      this.balance.push(0n);
      this.sellWad.push(0n);
      this.first.push(null);
      this.last.push(null);
    }
    this.num.fill(0, e * STRIDE, (e + 1) * STRIDE);
    this.account[e] = account;
    this.series[e] = series;
    this.orderCount[e] = 0;
    this.stale[e] = 0;
    this.balance[e] = 0n;
    this.sellWad[e] = 0n;
    this.first[e] = null;
    this.last[e] = null;
    return e;
  }

  /** Back to the free rows (its lists unlinked by the caller). */
  release(e: number): void {
    if (this.stale[e] !== 0 || this.orderCount[e] !== 0) throw new Error(`exposure row ${e} released while stale or counting orders`);
    this.account[e] = -1;
    this.aNext[e] = this.free;
    this.free = e;
  }

  /** Every row free (a rebuild). */
  clear(): void {
    this.rows = 0;
    this.free = -1;
    this.balance.length = 0;
    this.sellWad.length = 0;
    this.first.length = 0;
    this.last.length = 0;
  }

  private grow(min: number): void {
    this.num = grown(this.num, min * STRIDE);
    this.account = grown(this.account, min);
    this.series = grown(this.series, min);
    this.orderCount = grown(this.orderCount, min);
    this.stale = grown(this.stale, min);
    this.aNext = grown(this.aNext, min);
    this.aPrev = grown(this.aPrev, min);
    this.sNext = grown(this.sNext, min);
    this.sPrev = grown(this.sPrev, min);
    this.staleNext = grown(this.staleNext, min);
  }

  addOrder(e: number, r: CountedOrder): void {
    if (r.exposure !== -1) throw new Error(`order ${r.orderId} is already counted in an exposure`);
    const last = this.last[e]!;
    r.exposure = e;
    r.ePrev = last;
    r.eNext = null;
    if (last === null) this.first[e] = r;
    else last.eNext = r;
    this.last[e] = r;
    this.orderCount[e]!++;
  }

  removeOrder(r: CountedOrder): void {
    const e = r.exposure;
    if (r.ePrev === null) this.first[e] = r.eNext;
    else r.ePrev.eNext = r.eNext;
    if (r.eNext === null) this.last[e] = r.ePrev;
    else r.eNext.ePrev = r.ePrev;
    r.exposure = -1;
    r.ePrev = null;
    r.eNext = null;
    this.orderCount[e]!--;
  }
}

/**
 * Exposure rows by (account row, series row): an open-addressing table of typed arrays
 * (linear probing, deletion by backward shift), so finding an account's exposure to a series
 * reads no per-account hash table and allocates nothing.
 */
export class PairIndex {
  private keyA = new Int32Array(64).fill(-1);
  private keyS = new Int32Array(64);
  private value = new Int32Array(64);
  private mask = 63;
  private size = 0;

  private static slot(a: number, s: number, mask: number): number {
    let h = Math.imul(a, 0x9e3779b1) ^ Math.imul(s + 0x7f4a7c15, 0x85ebca6b);
    h ^= h >>> 15;
    return h & mask;
  }

  /** The exposure row, or -1. */
  get(a: number, s: number): number {
    const mask = this.mask;
    for (let i = PairIndex.slot(a, s, mask); ; i = (i + 1) & mask) {
      const k = this.keyA[i]!;
      if (k === -1) return -1;
      if (k === a && this.keyS[i] === s) return this.value[i]!;
    }
  }

  /** Add a pair not in the table. */
  set(a: number, s: number, e: number): void {
    if ((this.size + 1) * 2 > this.keyA.length) this.resize();
    const mask = this.mask;
    let i = PairIndex.slot(a, s, mask);
    while (this.keyA[i] !== -1) i = (i + 1) & mask;
    this.keyA[i] = a;
    this.keyS[i] = s;
    this.value[i] = e;
    this.size++;
  }

  delete(a: number, s: number): void {
    const mask = this.mask;
    let i = PairIndex.slot(a, s, mask);
    for (; ; i = (i + 1) & mask) {
      const k = this.keyA[i]!;
      if (k === -1) return;
      if (k === a && this.keyS[i] === s) break;
    }
    // Backward shift: move later entries of the run into the hole when their home slot allows it.
    for (let j = (i + 1) & mask; this.keyA[j] !== -1; j = (j + 1) & mask) {
      const home = PairIndex.slot(this.keyA[j]!, this.keyS[j]!, mask);
      const stays = i <= j ? home > i && home <= j : home > i || home <= j;
      if (stays) continue;
      this.keyA[i] = this.keyA[j]!;
      this.keyS[i] = this.keyS[j]!;
      this.value[i] = this.value[j]!;
      i = j;
    }
    this.keyA[i] = -1;
    this.size--;
  }

  clear(): void {
    this.keyA.fill(-1);
    this.size = 0;
  }

  private resize(): void {
    const { keyA, keyS, value } = this;
    const n = keyA.length * 2;
    this.keyA = new Int32Array(n).fill(-1);
    this.keyS = new Int32Array(n);
    this.value = new Int32Array(n);
    this.mask = n - 1;
    this.size = 0;
    for (let i = 0; i < keyA.length; i++) if (keyA[i] !== -1) this.set(keyA[i]!, keyS[i]!, value[i]!);
  }
}
