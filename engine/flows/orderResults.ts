/**
 * The result value of an order command (place, replace, strategy) in the engine's compact
 * form, and the storage it lives in (docs/engine.md "Order results"). A place's outcome gives
 * its filled and remaining size in lots and its trades as trade id, tick and lots; the
 * converter at the edge (engine/wire.ts `WireEvents.result`) turns it into the wire form
 * (`OrderOutcome`: WAD sizes and prices, trade ids as decimal strings) from the series' grid.
 *
 * The storage is the venue's, reused from command to command (it belongs to the event sink,
 * reset by `begin`): the outcome objects, their list and the trades' typed arrays are made once
 * and grown to the largest command. So `Venue.apply`'s value for an order command is valid
 * until the venue's next `apply`; every caller converts or reads it before then (the gateway's
 * `WireVenue.apply`, the tests' harness and the benchmarks, which drop it).
 */
import type { Hex } from '../domain/hex.ts';
import type { OrderRecord } from '../actors/orderRecord.ts';
import type { CancelReason, OrderInstructions } from '../domain/instructions.ts';
import { grown } from '../risk/exposure.ts';

/**
 * The trades of one command's fills, in order: parallel arrays of trade id, tick and lots.
 * Doubles, exact: a trade id is the state's counter (a double, at most 2^53 - 1 ids), a tick is
 * at most MAX_TICK (2^32 - 1) and lots at most the venue's maxOrderLots (both checked by the
 * order rules before a book is reached).
 */
export class TradeTape {
  count = 0;
  ids: Float64Array = new Float64Array(8);
  ticks: Float64Array = new Float64Array(8);
  lots: Float64Array = new Float64Array(8);

  /** Append one fill's trade. */
  push(id: number, tick: number, lots: number): void {
    const i = this.count;
    if (i === this.ids.length) {
      this.ids = grown(this.ids, i + 1);
      this.ticks = grown(this.ticks, i + 1);
      this.lots = grown(this.lots, i + 1);
    }
    this.ids[i] = id;
    this.ticks[i] = tick;
    this.lots[i] = lots;
    this.count = i + 1;
  }
}

/** A place's result in the engine's compact form: sizes in lots, trades as entries of the command's tape. */
export type EngineOrderOutcome = {
  readonly orderId: Hex;
  /** Its series, whose grid (tick decimals, lot size) the converter turns ticks and lots into WAD with. */
  readonly seriesId: Hex;
  readonly status: OrderRecord['status'];
  readonly filledLots: number;
  /** What rests on the book (0 when nothing does). */
  readonly remainingLots: number;
  /** Its trades: entries `tradeStart` .. `tradeStart + tradeCount - 1` of `trades`. */
  readonly trades: TradeTape;
  readonly tradeStart: number;
  readonly tradeCount: number;
  readonly instructions: OrderInstructions;
  /** ioc, fok or mmp when the instruction cancelled it (whole or its rest), else null. */
  readonly cancelReason: CancelReason | null;
};

/** One trade of a place in the wire form. */
export type OrderTrade = { readonly tradeId: string; readonly price: bigint; readonly size: bigint };

/** A place's result in the wire form (what the gateway reads and the REST and WebSocket replies carry). */
export type OrderOutcome = {
  readonly orderId: Hex;
  readonly status: OrderRecord['status'];
  readonly filled: bigint;
  readonly remaining: bigint;
  readonly trades: readonly OrderTrade[];
  readonly instructions: OrderInstructions;
  /** ioc, fok or mmp when the instruction cancelled it (whole or its rest), else null. */
  readonly cancelReason: CancelReason | null;
};

type Writable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * The order command's value (`{ outcomes }`), rewritten by every order command: the outcome
 * objects are a pool grown to the largest command, and each count of outcomes has its own value
 * object and list (made on first use, at most the venue's batch size of them), so no list
 * changes length and nothing is allocated once every count has been seen.
 */
export class OrderResults {
  readonly trades = new TradeTape();
  private readonly pool: Writable<EngineOrderOutcome>[] = [];
  private count = 0;
  private readonly values: ({ readonly outcomes: readonly EngineOrderOutcome[] } | undefined)[] = [];

  /** Start a command: no trades, no outcomes. */
  begin(): void {
    this.trades.count = 0;
    this.count = 0;
  }

  /** Append the next place's outcome; its trades are the last `tradeCount` on the tape. */
  add(orderId: Hex, seriesId: Hex, status: OrderRecord['status'], filledLots: number, remainingLots: number, tradeCount: number, instructions: OrderInstructions, cancelReason: CancelReason | null): void {
    let o = this.pool[this.count];
    if (o === undefined) {
      o = { orderId, seriesId, status, filledLots, remainingLots, trades: this.trades, tradeStart: 0, tradeCount: 0, instructions, cancelReason };
      this.pool.push(o);
    }
    this.count++;
    o.orderId = orderId;
    o.seriesId = seriesId;
    o.status = status;
    o.filledLots = filledLots;
    o.remainingLots = remainingLots;
    o.tradeStart = this.trades.count - tradeCount;
    o.tradeCount = tradeCount;
    o.instructions = instructions;
    o.cancelReason = cancelReason;
  }

  /** The outcomes added since `begin`, in order. */
  value(): { readonly outcomes: readonly EngineOrderOutcome[] } {
    const n = this.count;
    let v = this.values[n];
    if (v === undefined) this.values[n] = v = { outcomes: this.pool.slice(0, n) };
    return v;
  }
}
