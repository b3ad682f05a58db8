/**
 * The event sink's reused storage (flows/eventSink.ts): the hot events of a command (order,
 * trade, position, portfolio, depth and its levels) are written into objects kept from command
 * to command, so a command allocates none once the storage has grown to its largest command.
 * What `Venue.apply` returns is therefore valid until the next `apply`, like its order results
 * (flows/orderResults.ts): a reader converts (engine/wire.ts) or copies it before then.
 */
import type { EngineDepthEvent, EngineDepthLevel, EngineOrderEvent, EnginePortfolioEvent, EnginePositionEvent, EngineTradeEvent, OrderStatus } from '../events.ts';
import type { Hex } from '../domain/hex.ts';
import { DEFAULT_INSTRUCTIONS, type CancelReason, type OrderInstructions } from '../domain/instructions.ts';
import type { SignedOrderFields } from '../commands.ts';

/** A depth event's side with no level: shared, never written. */
export const NO_LEVELS: readonly EngineDepthLevel[] = Object.freeze([]);

/** An event as its writer fills it in. */
export type Writable<T> = { -readonly [K in keyof T]: T[K] };

// Blank events of the hot kinds, every field in the order the engine has always built them, so that every
// object of a kind shares one hidden class (a fresh one for the image, a pooled one for a command).
// Numbers start as numbers (their fields keep a number representation, written in place).

export function blankOrderEvent(): Writable<EngineOrderEvent> {
  return { type: 'order', orderId: '0x', owner: '', portfolioId: 0, seriesId: '0x', side: 'buy', tick: 0, lots: 0, expiry: 0, nonce: null, createdAt: 0, instructions: DEFAULT_INSTRUCTIONS, status: 'open', filledLots: 0, remainingLots: 0, reason: null, cancelReason: null, signed: null, seq: 0, ts: 0 };
}

/** Every field of an order event but its `createdAt` written into `e` (a blank, or the sink's reused storage); returns it. The caller stores `createdAt` (Unix ms, beyond the small integers: passed to a call, it would be boxed). */
export function writeOrderEvent(
  e: Writable<EngineOrderEvent>,
  orderId: Hex,
  owner: string,
  portfolioId: number,
  seriesId: Hex,
  isBuy: boolean,
  tick: number,
  lots: number,
  expiry: number,
  nonce: bigint | null,
  instructions: OrderInstructions,
  status: OrderStatus,
  filledLots: number,
  remainingLots: number,
  reason: string | null,
  cancelReason: CancelReason | null,
  signed: SignedOrderFields | null,
): EngineOrderEvent {
  e.orderId = orderId;
  e.owner = owner;
  e.portfolioId = portfolioId;
  e.seriesId = seriesId;
  e.side = isBuy ? 'buy' : 'sell';
  e.tick = tick;
  e.lots = lots;
  e.expiry = expiry;
  e.nonce = nonce;
  e.instructions = instructions;
  e.status = status;
  e.filledLots = filledLots;
  e.remainingLots = remainingLots;
  e.reason = reason;
  e.cancelReason = cancelReason;
  e.signed = signed;
  return e;
}

export function blankTradeEvent(): Writable<EngineTradeEvent> {
  return {
    type: 'trade',
    tradeNo: 0,
    seriesId: '0x',
    tick: 0,
    lots: 0,
    priceWad: null,
    sizeWad: null,
    premium: 0,
    notional: 0,
    takerSide: 'buy',
    maker: '',
    taker: '',
    makerOrderId: null,
    takerOrderId: null,
    makerPortfolioId: 0,
    takerPortfolioId: 0,
    makerFee: 0,
    takerFee: 0,
    openInterestLots: 0,
    source: 'book',
    seq: 0,
    ts: 0,
  };
}

export function blankPositionEvent(): Writable<EnginePositionEvent> {
  return { type: 'position', owner: '', portfolioId: 0, seriesId: '0x', lots: 0, premium: 0, realizedPnl: 0, seq: 0, ts: 0 };
}

export function blankPortfolioEvent(): Writable<EnginePortfolioEvent> {
  return { type: 'portfolio', owner: '', portfolioId: 0, createdAt: 0, deposit: 0, unrealizedPnl: 0, equity: 0, initialMargin: 0, initialMarginWithOrders: 0, maintenanceMargin: 0, isHealthy: true, maxWithdraw: 0, positionCount: 0, seq: 0, ts: 0 };
}

export function blankDepthEvent(): Writable<EngineDepthEvent> {
  return { type: 'depth', seriesId: '0x', bookSeq: 0, prevBookSeq: 0, bids: NO_LEVELS, asks: NO_LEVELS, seq: 0, ts: 0 };
}

/** Objects of one shape handed out in order during a command; all of them free again at the next command's start. */
export class Pool<T> {
  private readonly items: T[] = [];
  private used = 0;

  constructor(private readonly blank: () => T) {}

  /** The next free object (a new one only when every object made so far is in use): the caller writes every field. */
  take(): T {
    if (this.used === this.items.length) this.items.push(this.blank());
    return this.items[this.used++]!;
  }

  /** Every object free again (the start of a command). */
  reset(): void {
    this.used = 0;
  }

  /** How many objects have been made (the most one command has used): for tests. */
  get made(): number {
    return this.items.length;
  }
}

/**
 * Arrays of exactly n slots for n up to `most`, one pool per length, for storage that must be
 * an array of the right length (a command's events, a depth side): reused whole, so never
 * shrunk or grown (either would reallocate its storage). A longer one is a fresh array.
 */
export class ArraysByLength<T> {
  private readonly byLength: Pool<T[]>[] = [];

  constructor(
    private readonly fill: () => T,
    private readonly most: number,
  ) {}

  /** An array of `n` slots to be written by the caller (n > 0). */
  take(n: number): T[] {
    if (n > this.most) return this.make(n);
    return (this.byLength[n] ?? this.poolOf(n)).take();
  }

  /**
   * The pool of length `n`, made on first use. Its closure lives here, not in `take`: a function
   * with a closure over its parameters allocates a context on every call, whether or not the
   * closure is made.
   */
  private poolOf(n: number): Pool<T[]> {
    const pool = new Pool(() => this.make(n));
    this.byLength[n] = pool;
    return pool;
  }

  private make(n: number): T[] {
    const out = new Array<T>(n);
    for (let i = 0; i < n; i++) out[i] = this.fill();
    return out;
  }

  reset(): void {
    const pools = this.byLength;
    for (let n = 1; n < pools.length; n++) pools[n]?.reset();
  }

  /** Arrays made so far, over every pooled length: for tests. */
  get made(): number {
    let made = 0;
    const pools = this.byLength;
    for (let n = 1; n < pools.length; n++) made += pools[n]?.made ?? 0;
    return made;
  }
}

/** The longest depth side and events list kept in the storage (a longer one, an oracle update's or a liquidation's, is a fresh array). */
export const POOLED_LENGTH = 64;

/**
 * Arrays of depth levels by length: a side of n levels is an array from the pool of length n,
 * each level ([tick, lots, count], an array of doubles) rewritten in place.
 */
export class LevelArrays {
  private readonly arrays = new ArraysByLength<number[]>(() => [0.5, 0.5, 0.5], POOLED_LENGTH); // doubles from the start: written in place, never boxed

  /** An array of `n` levels, each to be written by the caller (the empty side is a shared frozen array). */
  take(n: number): number[][] {
    return n === 0 ? (NO_LEVELS as unknown as number[][]) : this.arrays.take(n);
  }

  reset(): void {
    this.arrays.reset();
  }

  get made(): number {
    return this.arrays.made;
  }
}
