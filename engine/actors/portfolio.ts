/**
 * A portfolio and its open orders, as data: the account actor's records
 * (engine/actors/accounts.ts owns them). They point at each other (an open order names the
 * portfolio its fills go to; a portfolio lists its open orders), so they live in one module.
 *
 * An open order as the account side holds it: one object with its own copy of the order's fixed
 * fields (the series actor keeps its own record of fills and status: no pointer into it, and
 * the series is named by id only), the portfolio its fills go to, its margin reservation, and
 * its links in the two lists it sits in:
 * its portfolio's open orders (here) and its margin exposure's (engine/risk/exposure.ts, which
 * types it as the order it counts). The lists are intrusive, linked through fields of the order
 * itself, so resting and removing an order costs a few field writes on objects the command
 * already holds instead of an insert into (and a delete from) a map and a set: those were the
 * costliest lines of the order path with many wallets, each a walk through a hash table that is
 * a cache miss (docs/book.md "Where the series actor's time goes"). Both lists keep insertion
 * order, which snapshots depend on.
 */
import type { Hex } from '../domain/hex.ts';
import type { CountedOrder } from '../risk/exposure.ts';
import type { OrderRecord } from './orderRecord.ts';
import type { Position } from './position.ts';
import type { OrderInstructions } from '../domain/instructions.ts';

/**
 * The key of a portfolio's margin handle: the row of the margin account it anchors in the venue's
 * margin book (engine/risk/marginBook.ts), kept on the portfolio so that finding the account is a
 * field read, not a hash lookup. A symbol key, so that JSON (the snapshot's encoding) leaves it
 * out; the book checks it against its own rows before trusting it.
 */
export const MARGIN_ROW: unique symbol = Symbol('marginRow');

export type Portfolio = {
  readonly owner: string;
  /** Its wallet's handle in the account actor (accounts.ts: the wallet rows). */
  readonly wallet: number;
  /** Its own handle: its row in the account actor's portfolio rows (its deposit: cashRows.ts). */
  readonly handle: number;
  /** 0 = cash portfolio; 1, 2, ... trading portfolios; negative = a market maker's internal trading portfolio. */
  readonly id: number;
  readonly positions: Map<Hex, Position>;
  /** Its open orders' reservations, oldest first. */
  readonly openOrders: OpenOrders;
  readonly createdAt: number; // Unix seconds
  /** For internal market-maker portfolios: the pair it trades. */
  readonly internalPair: Hex | null;
  /** Its margin account's row when it anchors one (see MARGIN_ROW; derived, never stored). */
  [MARGIN_ROW]?: number;
};

/**
 * A portfolio record with handle `handle` of wallet `wallet` (the account actor makes them:
 * accounts.ts; its deposit is the row `handle` of the actor's cash rows).
 */
export function newPortfolio(owner: string, wallet: number, handle: number, id: number, createdAt: number, internalPair: Hex | null = null, positions: Map<Hex, Position> = new Map()): Portfolio {
  return { owner, wallet, handle, id, positions, openOrders: new OpenOrders(), createdAt, internalPair, [MARGIN_ROW]: -1 };
}

/**
 * An open order: what the margin book counts (orderId, seriesId, isBuy, remaining, price,
 * reserve, and its exposure links: CountedOrder), the fixed fields the account side reads (a
 * copy: the series actor's record of the order, with its fills and status, stays the series'),
 * the portfolio its fills go to, and its links in that portfolio's list.
 */
export type OpenOrder = CountedOrder & {
  /** The order's ref in its series' book: how the account side names it in a message to the series. */
  readonly ref: number;
  readonly owner: string;
  /** The portfolio the order names (0 for a market maker's; `portfolio` is where its fills go). */
  readonly portfolioId: number;
  readonly pairId: Hex;
  /** Good-till time, seconds. */
  readonly expiry: number;
  readonly instructions: OrderInstructions;
  readonly portfolio: Portfolio;
  /** The portfolio list it is in, and its neighbours there (null when not listed). */
  inPortfolio: OpenOrders | null;
  pPrev: OpenOrder | null;
  pNext: OpenOrder | null;
};

/** A new, unlisted open order of `remaining` (WAD) at `price` (WAD): the fixed fields copied from the series' record, on pair `pairId`. */
export function openOrder(record: OrderRecord, pairId: Hex, portfolio: Portfolio, remaining: bigint, price: bigint): OpenOrder {
  return {
    orderId: record.orderId,
    seriesId: record.seriesId,
    isBuy: record.isBuy,
    remaining,
    price,
    reserve: 0,
    exposure: -1,
    ePrev: null,
    eNext: null,
    ref: record.ref,
    owner: record.owner,
    portfolioId: record.portfolioId,
    pairId,
    expiry: record.expiry,
    instructions: record.instructions,
    portfolio,
    inPortfolio: null,
    pPrev: null,
    pNext: null,
  };
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
