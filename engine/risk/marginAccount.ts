/**
 * What the margin book (marginBook.ts) keeps per margin account and per exposure: the sums it
 * updates incrementally, and each exposure's open orders as an intrusive list through the
 * orders themselves. Data only; the book's rules live in marginBook.ts.
 */
import type { Hex } from '../domain/hex.ts';
import type { Portfolio } from '../actors/portfolio.ts';
import type { OpenOrder } from '../actors/openOrders.ts';
import type { QuoteCell } from './riskQuote.ts';
import { SCENARIOS } from './margin.ts';

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
  private first: OpenOrder | null = null;
  private last: OpenOrder | null = null;
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

  addOrder(r: OpenOrder): void {
    if (r.exposure !== null) throw new Error(`order ${r.orderId} is already counted in an exposure`);
    r.exposure = this;
    r.ePrev = this.last;
    r.eNext = null;
    if (this.last === null) this.first = r;
    else this.last.eNext = r;
    this.last = r;
    this.orderCount++;
  }

  removeOrder(r: OpenOrder): void {
    if (r.ePrev === null) this.first = r.eNext;
    else r.ePrev.eNext = r.eNext;
    if (r.eNext === null) this.last = r.ePrev;
    else r.eNext.ePrev = r.ePrev;
    r.exposure = null;
    r.ePrev = null;
    r.eNext = null;
    this.orderCount--;
  }

  *orders(): IterableIterator<OpenOrder> {
    for (let r = this.first; r !== null; r = r.eNext) yield r;
  }
}

/** A margin account: the sums over its exposures. */
export class MarginAccount extends Sums {
  readonly exposures = new Map<Hex, Exposure>();
  /** Exposures with a position (balance not 0): the account's open positions (one portfolio of the group holds a series). */
  positions = 0;
  /** Exposures marked stale by new marks, revalued before the account is next used. */
  readonly stale: Exposure[] = [];
  /** An ordinary portfolio is its own margin account; a market maker's portfolio 0 shares its with the internal ones. */
  readonly single: boolean;
  constructor(readonly anchor: Portfolio) {
    super();
    this.single = anchor.id > 0;
  }
}
