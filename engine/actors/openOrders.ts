/**
 * An open order as the venue holds it: one object with its series' record, its series, the
 * portfolio its fills go to, its margin reservation, and its links in the two lists it sits in:
 * its portfolio's open orders (here) and its margin exposure's (engine/risk/marginBook.ts). The
 * lists are intrusive, linked through fields of the order itself, so resting and removing an
 * order costs a few field writes on objects the command already holds instead of an insert into
 * (and a delete from) a map and a set: those were the costliest lines of the order path with
 * many wallets, each a walk through a hash table that is a cache miss (docs/book.md "Where the
 * series actor's time goes"). Both lists keep insertion order, which snapshots depend on.
 */
import type { Hex } from '../domain/hex.ts';
import type { Exposure } from '../risk/marginAccount.ts';
import type { OrderRecord, SeriesActor } from './series.ts';
import type { Portfolio } from './portfolio.ts';

export type OpenOrder = {
  /** The series' record of it (fills, status), its series, and the portfolio its fills go to. */
  readonly record: OrderRecord;
  readonly series: SeriesActor;
  readonly portfolio: Portfolio;
  readonly orderId: Hex;
  readonly seriesId: Hex;
  readonly isBuy: boolean;
  remaining: bigint; // WAD
  readonly price: bigint; // WAD
  /** For a buy: the cash it reserves (remaining x price, COLLATERAL6) as the margin book last counted it, so taking it away needs no recompute. Derived: snapshots leave it out. */
  reserve: bigint;
  /** The portfolio list it is in, and its neighbours there (null when not listed). */
  inPortfolio: OpenOrders | null;
  pPrev: OpenOrder | null;
  pNext: OpenOrder | null;
  /** The margin exposure that counts it, and its neighbours in that exposure's list (engine/risk/marginBook.ts). */
  exposure: Exposure | null;
  ePrev: OpenOrder | null;
  eNext: OpenOrder | null;
};

/** A new, unlisted open order of `remaining` (WAD) at `price` (WAD). */
export function openOrder(record: OrderRecord, series: SeriesActor, portfolio: Portfolio, remaining: bigint, price: bigint): OpenOrder {
  return { record, series, portfolio, orderId: record.orderId, seriesId: record.seriesId, isBuy: record.isBuy, remaining, price, reserve: 0n, inPortfolio: null, pPrev: null, pNext: null, exposure: null, ePrev: null, eNext: null };
}

/** A portfolio's open orders, oldest first. */
export class OpenOrders {
  head: OpenOrder | null = null;
  tail: OpenOrder | null = null;
  size = 0;

  add(r: OpenOrder): void {
    if (r.inPortfolio !== null) throw new Error(`order ${r.orderId} is already listed in a portfolio`);
    r.inPortfolio = this;
    r.pPrev = this.tail;
    r.pNext = null;
    if (this.tail === null) this.head = r;
    else this.tail.pNext = r;
    this.tail = r;
    this.size++;
  }

  /** Take `r` out; false when it is not in this list. */
  delete(r: OpenOrder): boolean {
    if (r.inPortfolio !== this) return false;
    if (r.pPrev === null) this.head = r.pNext;
    else r.pPrev.pNext = r.pNext;
    if (r.pNext === null) this.tail = r.pPrev;
    else r.pNext.pPrev = r.pPrev;
    r.inPortfolio = null;
    r.pPrev = null;
    r.pNext = null;
    this.size--;
    return true;
  }

  has(r: OpenOrder): boolean {
    return r.inPortfolio === this;
  }

  *values(): IterableIterator<OpenOrder> {
    for (let r = this.head; r !== null; r = r.pNext) yield r;
  }

  [Symbol.iterator](): IterableIterator<OpenOrder> {
    return this.values();
  }
}
