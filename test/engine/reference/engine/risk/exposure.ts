/**
 * What the margin book (marginBook.ts) keeps per series in a margin account: the sums it
 * updates incrementally, and the exposure's open orders as an intrusive list through the
 * orders themselves. Data only; the book's rules live in marginBook.ts.
 *
 * The orders are typed as the margin book counts them (CountedOrder): side, remaining size,
 * limit price, reservation and the links of this list. The venue's open order
 * (engine/actors/portfolio.ts) is one of them with more fields, so this module sits below it.
 */
import type { Hex } from '../domain/hex.ts';
import type { QuoteCell } from './riskQuote.ts';
import { SCENARIOS } from './margin.ts';

/** An order as the margin book counts it, and its links in the list of the exposure that counts it. */
export type CountedOrder = {
  readonly orderId: Hex;
  readonly seriesId: Hex;
  readonly isBuy: boolean;
  remaining: bigint; // WAD
  readonly price: bigint; // WAD
  /** For a buy: the cash it reserves (remaining x price, COLLATERAL6) as the margin book last counted it, so taking it away needs no recompute. Derived: snapshots leave it out. */
  reserve: bigint;
  /** The margin exposure that counts it, and its neighbours in that exposure's list. */
  exposure: Exposure | null;
  ePrev: CountedOrder | null;
  eNext: CountedOrder | null;
};

/** Scenario PnL of positions (pos) and open orders' losses (ord) in risk units, short floors, and cash figures. */
export class Sums {
  readonly pos = new Float64Array(SCENARIOS);
  readonly ord = new Float64Array(SCENARIOS);
  floorPos = 0;
  floorOrd = 0;
  premium = 0n;
  owed = 0n;
  markValue = 0n;
  buyReserve = 0n;
}

/**
 * One series in one margin account, and what it last added to the account's sums. Its open
 * orders are an intrusive list through the orders themselves (`exposure`, `ePrev`, `eNext`), so
 * counting an order in or out touches no hash table.
 */
export class Exposure extends Sums {
  private first: CountedOrder | null = null;
  private last: CountedOrder | null = null;
  orderCount = 0;
  balance = 0n;
  sellWad = 0n;
  /** The series has new marks this exposure's contribution was not revalued with yet. */
  stale = false;
  constructor(
    readonly seriesId: Hex,
    readonly quote: QuoteCell,
  ) {
    super();
  }

  addOrder(r: CountedOrder): void {
    if (r.exposure !== null) throw new Error(`order ${r.orderId} is already counted in an exposure`);
    r.exposure = this;
    r.ePrev = this.last;
    r.eNext = null;
    if (this.last === null) this.first = r;
    else this.last.eNext = r;
    this.last = r;
    this.orderCount++;
  }

  removeOrder(r: CountedOrder): void {
    if (r.ePrev === null) this.first = r.eNext;
    else r.ePrev.eNext = r.eNext;
    if (r.eNext === null) this.last = r.ePrev;
    else r.eNext.ePrev = r.ePrev;
    r.exposure = null;
    r.ePrev = null;
    r.eNext = null;
    this.orderCount--;
  }

  *orders(): IterableIterator<CountedOrder> {
    for (let r = this.first; r !== null; r = r.eNext) yield r;
  }
}
