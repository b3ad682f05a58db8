/**
 * The series side's order records, recycled instead of allocated per order (issue 3/8: no
 * allocation per command on the hot path).
 *
 * One pool per venue, held by its `SeriesTable` (`state.series.records`) and shared by its
 * series actors. A record is taken for a new order (`newRecord`, a liquidation's closing order)
 * and re-initialised in place, every field every time, so all records keep one hidden class
 * and stable field representations. A record leaves when its order leaves its series' book
 * (`SeriesActor.forget`: filled, cancelled, expired, removed by self-trade prevention or market
 * maker protection, or never rested: IOC, FOK, a stopped taker, a taker filled whole): it is
 * only marked leaving then, because within the command the match's outcome lists
 * (`fillMaker`, `selfTradeCancels`, `mmpCancels`), `settleMatch`, the order events and the
 * results still read it. The venue returns the leaving records to the free list at the start
 * of its next `apply` (`Venue.apply` -> `recycle`), when the command's events and results
 * (valid until then) are no longer read. So no holder may keep a record past its command: the
 * series' `byRef` map holds only open orders' records, the account side copies the fields it
 * needs into its slots (actors/openOrders.ts), events copy theirs (flows/orders.ts
 * `orderEventOf`), snapshots and images read open orders only, and the outcome lists are read
 * only up to their counts during the match's command.
 *
 * Records made elsewhere (restored from a snapshot: parsed objects; tests' literals) are never
 * recycled: only a `SeriesRecord` joins the free list, so the pool's records share one class.
 */
import type { Hex } from '../domain/hex.ts';
import type { OrderStatus } from '../events.ts';
import type { OrderInstructions } from '../domain/instructions.ts';
import type { OrderRecord } from './orderRecord.ts';
import type { SignedOrderFields } from '../commands.ts';

/**
 * A pooled record. Its fields are declared in the order of the object literal it replaced, so
 * a snapshot (JSON of the open records) is byte-identical; numbers that are doubles in use
 * (`expiry`, `createdAt`) start as doubles (NaN), the others as small integers.
 */
export class SeriesRecord implements OrderRecord {
  orderId: Hex = '0x';
  seriesId: Hex = '0x';
  ref = 0;
  owner = '';
  ownerIndex = 0;
  portfolioId = 0;
  routedPortfolioId = 0;
  isBuy = false;
  tick = 0;
  lots = 0;
  filledLots = 0;
  nonce: bigint | undefined = undefined;
  status: OrderStatus = 'open';
  expiry = NaN;
  createdAt = NaN;
  instructions: OrderInstructions = POISONED_INSTRUCTIONS;
  signed: SignedOrderFields | null = null;

  /**
   * Every field but `createdAt`, status open and nothing filled: a new order's record (`nonce`
   * undefined for the venue's own orders). The caller stores `createdAt` (Unix ms, beyond the
   * small integers: passed to a call the compiler did not inline, it would be boxed).
   */
  init(orderId: Hex, seriesId: Hex, ref: number, owner: string, ownerIndex: number, portfolioId: number, routedPortfolioId: number, isBuy: boolean, tick: number, lots: number, nonce: bigint | undefined, expiry: number, instructions: OrderInstructions, signed: SignedOrderFields | null): this {
    this.orderId = orderId;
    this.seriesId = seriesId;
    this.ref = ref;
    this.owner = owner;
    this.ownerIndex = ownerIndex;
    this.portfolioId = portfolioId;
    this.routedPortfolioId = routedPortfolioId;
    this.isBuy = isBuy;
    this.tick = tick;
    this.lots = lots;
    this.filledLots = 0;
    this.nonce = nonce;
    this.status = 'open';
    this.expiry = expiry;
    this.instructions = instructions;
    this.signed = signed;
    return this;
  }

  /** Sentinels in every field (same representations), so a read after release shows up (tests: `RecordPool.poison`). */
  poison(): void {
    this.init(POISONED_ID, POISONED_ID, -1, 'poisoned', -1, -1, -1, !this.isBuy, -1, -1, -1n, NaN, POISONED_INSTRUCTIONS, POISONED_SIGNED);
    this.createdAt = NaN;
    this.filledLots = -1;
    this.status = 'poisoned' as OrderStatus;
  }
}

const POISONED_ID = `0x${'dead'.repeat(16)}` as Hex;
/** Instructions no order has (a late read of a released record's instructions stands out). */
const POISONED_INSTRUCTIONS: OrderInstructions = Object.freeze({ timeInForce: 'GTC', postOnly: true, reduceOnly: true, mmp: true, clientOrderId: 'poisoned' });
const POISONED_SIGNED: SignedOrderFields = Object.freeze({ expiry: -1, deadline: -1, signature: POISONED_ID });

export class RecordPool {
  /** Records free for a new order (a stack: the one released last is taken first). */
  private readonly free: SeriesRecord[] = [];
  private freeCount = 0;
  /** Records whose order left its book during the current command, returned by `recycle`. */
  private readonly leaving: SeriesRecord[] = [];
  private leavingCount = 0;
  /** Records made since the pool was (bounded in steady state: the most held at once). */
  made = 0;
  /** Tests: write sentinels into every record released, so a late read differs from the reference. */
  poison = false;
  /** The fill-or-kill probe's record (flows/orders.ts `probeRecord`): rewritten per probe, never on a book. */
  readonly probe = new SeriesRecord();

  /** A record for a new order: a free one, or a new one when none is free. The caller initialises it (`init`). */
  take(): SeriesRecord {
    if (this.freeCount > 0) {
      return this.free[--this.freeCount]!;
    }
    this.made++;
    return new SeriesRecord();
  }

  /** `r`'s order has left its book: free it at the end of the command (`recycle`). Records the pool did not make are left to the collector. */
  leave(r: OrderRecord): void {
    if (r instanceof SeriesRecord) this.leaving[this.leavingCount++] = r;
  }

  /** The end of a command: its leaving records become free. */
  recycle(): void {
    const n = this.leavingCount;
    if (n === 0) return;
    for (let i = 0; i < n; i++) {
      const r = this.leaving[i]!;
      if (this.poison) r.poison();
      this.free[this.freeCount++] = r;
    }
    this.leavingCount = 0;
  }

  /** Records free now (tests). */
  get freeRecords(): number {
    return this.freeCount;
  }
}
