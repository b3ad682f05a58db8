/**
 * Open orders as the account actor holds them: integer handles (slots) into one
 * struct-of-arrays store (docs/engine.md "Open orders: slots"), not one object each.
 *
 * A slot holds an open order's account-side record: its remaining size in lots and its price
 * in ticks (the numbers the margin book counts, typed arrays), the figures derived from them
 * once when it rests (its price as a double, its pair's premium factor and size step), its
 * fixed fields copied from the series' record (the series actor keeps its own record of fills
 * and status: no pointer into it, the series named by id only), the handle of the portfolio
 * its fills go to, and its links in that portfolio's list. Slots are reused through a free
 * list; a slot's handle is valid from `open` to `close` only, so nothing keeps one across
 * commands except the order index and the lists, which `close` leaves.
 *
 * A portfolio's list (`OpenOrders`) is intrusive, linked through the slots' `pPrev`/`pNext`,
 * so resting and removing an order costs a few typed-array writes and no hash-table walk
 * (docs/book.md "Where the series actor's time goes"); it keeps insertion order, which
 * snapshots depend on. The margin book keeps its own links and reservation per slot
 * (risk/exposure.ts): a slot carries no field of another actor's.
 *
 * Exact: an order's remaining lots are at most the venue's `maxOrderLots` (10^12 by default,
 * a safe integer: config.ts), its tick at most MAX_TICK; both are integers in doubles.
 */
import type { Hex } from '../domain/hex.ts';
import type { OrderInstructions } from '../domain/instructions.ts';
import type { OrderRecord } from './orderRecord.ts';
import { grown } from '../risk/exposure.ts';

/** A portfolio's open orders, oldest first: the ends and size of a list through the slots. */
export class OpenOrders {
  head = -1;
  tail = -1;
  size = 0;
  /** The handle of the portfolio the list belongs to (-1: a scratch portfolio that never holds orders). */
  constructor(readonly holder: number) {}
}

/** What resting an order needs beside its series' record: where its fills go and its pair's grid. */
export type OpenTerms = {
  readonly pairId: Hex;
  /** The portfolio its fills go to (its handle: accounts.ts). */
  readonly holder: number;
  readonly lots: number;
  /** Its limit price, WAD (what snapshots and fills carry), and as a double: Number(price) / 1e18. */
  readonly price: bigint;
  readonly px: number;
  /** The pair's size step (WAD per lot), and as an exact double (domain/lots.ts `lotNumberOf`, NaN when it is not one). */
  readonly lot: bigint;
  readonly lotNumber: number;
  /** COLLATERAL6 of one lot at one tick (domain/premium.ts `premiumPerLotTick`), 0 when not a whole number or when `price` is not the record's tick. */
  readonly perLotTick: number;
};

const INITIAL = 64;

export class OrderSlots {
  /** Remaining size in lots, and the limit price in ticks. */
  lots = new Float64Array(INITIAL);
  tick = new Float64Array(INITIAL);
  /** The limit price as a double: Number(price) / 1e18, once. */
  px = new Float64Array(INITIAL);
  /** The pair's premium factor and size step as a double (see OpenTerms). */
  perLotTick = new Float64Array(INITIAL);
  lotNumber = new Float64Array(INITIAL);
  /** Good-till time (seconds), and the order's ref in its series' book (how the account side names it to the series). */
  expiry = new Float64Array(INITIAL);
  ref = new Float64Array(INITIAL);
  /** 1 for a buy. */
  buy = new Uint8Array(INITIAL);
  /** The handle of the portfolio its fills go to; -1 for a free slot. */
  holder = new Int32Array(INITIAL).fill(-1);
  /** The portfolio the order names (0 for a market maker's; `holder` is where its fills go). */
  portfolioId = new Int32Array(INITIAL);
  /** 1 while it is in its holder's list; its neighbours there (-1: none). The free list chains through pNext. */
  listed = new Uint8Array(INITIAL);
  pPrev = new Int32Array(INITIAL);
  pNext = new Int32Array(INITIAL);
  /** Fixed fields read off the hot path, and the WAD figures the edges carry. */
  readonly orderId: Hex[] = [];
  readonly seriesId: Hex[] = [];
  readonly pairId: Hex[] = [];
  readonly owner: string[] = [];
  readonly instructions: OrderInstructions[] = [];
  readonly price: bigint[] = [];
  readonly lot: bigint[] = [];
  private rows = 0;
  private free = -1;
  /** Open orders held (slots in use). */
  live = 0;

  /** A slot for the open order of `record` on the terms `t`, not yet in a list. */
  open(record: OrderRecord, t: OpenTerms): number {
    let s = this.free;
    if (s !== -1) this.free = this.pNext[s]!;
    else {
      s = this.rows++;
      if (s === this.lots.length) this.grow();
    }
    this.live++;
    this.lots[s] = t.lots;
    this.tick[s] = record.tick;
    this.px[s] = t.px;
    this.perLotTick[s] = t.perLotTick;
    this.lotNumber[s] = t.lotNumber;
    this.expiry[s] = record.expiry;
    this.ref[s] = record.ref;
    this.buy[s] = record.isBuy ? 1 : 0;
    this.holder[s] = t.holder;
    this.portfolioId[s] = record.portfolioId;
    this.listed[s] = 0;
    this.pPrev[s] = -1;
    this.pNext[s] = -1;
    this.orderId[s] = record.orderId;
    this.seriesId[s] = record.seriesId;
    this.pairId[s] = t.pairId;
    this.owner[s] = record.owner;
    this.instructions[s] = record.instructions;
    this.price[s] = t.price;
    this.lot[s] = t.lot;
    return s;
  }

  /** Free a slot that left its list (its handle is then invalid). */
  close(s: number): void {
    if (this.holder[s] === -1) throw new Error(`order slot ${s} closed twice`);
    if (this.listed[s] !== 0) throw new Error(`order slot ${s} closed while listed`);
    this.holder[s] = -1;
    this.pNext[s] = this.free;
    this.free = s;
    this.live--;
  }

  /** Whether `s` is a slot in use. */
  isOpen(s: number): boolean {
    return s >= 0 && s < this.rows && this.holder[s] !== -1;
  }

  /** Append `s` to its holder's list `l`. */
  add(l: OpenOrders, s: number): void {
    if (this.listed[s] !== 0) throw new Error(`order ${this.orderId[s]} is already listed in a portfolio`);
    if (this.holder[s] !== l.holder) throw new Error(`order ${this.orderId[s]} is held by portfolio ${this.holder[s]}, not ${l.holder}`);
    this.listed[s] = 1;
    this.pPrev[s] = l.tail;
    this.pNext[s] = -1;
    if (l.tail === -1) l.head = s;
    else this.pNext[l.tail] = s;
    l.tail = s;
    l.size++;
  }

  /** Take `s` out of `l`; false when it is not in it. */
  delete(l: OpenOrders, s: number): boolean {
    if (!this.has(l, s)) return false;
    const prev = this.pPrev[s]!;
    const next = this.pNext[s]!;
    if (prev === -1) l.head = next;
    else this.pNext[prev] = next;
    if (next === -1) l.tail = prev;
    else this.pPrev[next] = prev;
    this.listed[s] = 0;
    this.pPrev[s] = -1;
    this.pNext[s] = -1;
    l.size--;
    return true;
  }

  has(l: OpenOrders, s: number): boolean {
    return this.isOpen(s) && this.listed[s] === 1 && this.holder[s] === l.holder;
  }

  /** The slots of `l`, oldest first (a cold path's walk; hot paths follow `pNext`). */
  *values(l: OpenOrders): IterableIterator<number> {
    for (let s = l.head; s !== -1; s = this.pNext[s]!) yield s;
  }

  private grow(): void {
    const n = this.lots.length + 1;
    this.lots = grown(this.lots, n);
    this.tick = grown(this.tick, n);
    this.px = grown(this.px, n);
    this.perLotTick = grown(this.perLotTick, n);
    this.lotNumber = grown(this.lotNumber, n);
    this.expiry = grown(this.expiry, n);
    this.ref = grown(this.ref, n);
    this.buy = grown(this.buy, n);
    this.listed = grown(this.listed, n);
    this.holder = grown(this.holder, n);
    this.portfolioId = grown(this.portfolioId, n);
    this.pPrev = grown(this.pPrev, n);
    this.pNext = grown(this.pNext, n);
  }
}
