/**
 * What the margin book (marginBook.ts) keeps per series in a margin account, as dense rows:
 * each exposure is an integer row (reused through a free list), its numbers a row of one
 * `Float64Array` slab (the 15 scenario PnL sums of positions, the 15 of open orders' losses,
 * the two short floors and the four cash figures, next to each other), its other fields in
 * typed arrays (account, series, list links, the ends of its order list) or plain arrays beside
 * them (the balance and open sells in lots: domain/lots.ts). Slabs grow by doubling; counting
 * an order, a fill or a mark allocates no object. Data only; the book's rules live in
 * marginBook.ts.
 *
 * The orders an exposure counts are the account actor's open-order slots (actors/openOrders.ts):
 * the book keeps its own row per slot (the exposure counting it, its neighbours in that
 * exposure's list, the reservation it counted), so an order's record carries nothing of the
 * book's and a second book over the same orders (an audit's) keeps its own links.
 */
import type { Hex } from '../domain/hex.ts';
import type { Lots } from '../domain/lots.ts';
import { SCENARIOS } from './margin.ts';

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
  /** Signed balance and open sells on the series, in lots of its pair's size step. */
  readonly balance: Lots[] = [];
  readonly sellLots: Lots[] = [];
  /** Its open orders (slots), oldest first, as a list through the per-slot rows below (-1: none). */
  first = new Int32Array(16);
  last = new Int32Array(16);
  /**
   * By order slot: the exposure counting it (-1: none), its neighbours in that exposure's list,
   * and for a buy the cash it reserves (remaining x price, COLLATERAL6) as last counted, so
   * taking it away needs no recompute (an integer in a double, NaN above 2^53 - 1: exactCash.ts).
   */
  oExposure = new Int32Array(64).fill(-1);
  oPrev = new Int32Array(64);
  oNext = new Int32Array(64);
  oReserve = new Float64Array(64);
  private rows = 0;
  private free = -1;

  /** A zeroed row for `account`'s exposure to `series`. */
  alloc(account: number, series: number): number {
    let e = this.free;
    if (e !== -1) this.free = this.aNext[e]!;
    else {
      e = this.rows++;
      if (e === this.account.length) this.grow(e + 1);
      this.balance.push(0);
      this.sellLots.push(0);
    }
    this.num.fill(0, e * STRIDE, (e + 1) * STRIDE);
    this.account[e] = account;
    this.series[e] = series;
    this.orderCount[e] = 0;
    this.stale[e] = 0;
    this.balance[e] = 0;
    this.sellLots[e] = 0;
    this.first[e] = -1;
    this.last[e] = -1;
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
    this.sellLots.length = 0;
    this.oExposure.fill(-1);
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
    this.first = grown(this.first, min);
    this.last = grown(this.last, min);
  }

  /** Room for order slot `o`. */
  private orderRoom(o: number): void {
    if (o < this.oExposure.length) return;
    const n = this.oExposure.length;
    this.oExposure = grown(this.oExposure, o + 1);
    this.oExposure.fill(-1, n);
    this.oPrev = grown(this.oPrev, o + 1);
    this.oNext = grown(this.oNext, o + 1);
    this.oReserve = grown(this.oReserve, o + 1);
  }

  /** The exposure counting order slot `o`, or -1. */
  exposureOf(o: number): number {
    return o < this.oExposure.length ? this.oExposure[o]! : -1;
  }

  addOrder(e: number, o: number, orderId: Hex): void {
    this.orderRoom(o);
    if (this.oExposure[o] !== -1) throw new Error(`order ${orderId} is already counted in an exposure`);
    const last = this.last[e]!;
    this.oExposure[o] = e;
    this.oPrev[o] = last;
    this.oNext[o] = -1;
    if (last === -1) this.first[e] = o;
    else this.oNext[last] = o;
    this.last[e] = o;
    this.orderCount[e]!++;
  }

  removeOrder(o: number): void {
    const e = this.oExposure[o]!;
    const prev = this.oPrev[o]!;
    const next = this.oNext[o]!;
    if (prev === -1) this.first[e] = next;
    else this.oNext[prev] = next;
    if (next === -1) this.last[e] = prev;
    else this.oPrev[next] = prev;
    this.oExposure[o] = -1;
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
