/**
 * Seeded random command streams for the order book tests: places on both sides around a
 * moving mid, crossing orders (some IOC, some fill-or-kill), post-only orders (checked above
 * the book by engine/book/instructions.ts, as the series actor does), cancels of live and dead refs, reduces and reads,
 * with few owners so that self-trade prevention triggers often.
 *
 * The stream is interactive: it keeps the set of live refs from the events it is shown
 * (`observe`), so that most cancels and reduces hit resting orders instead of missing.
 */
import type { MatchSink, OrderBook } from '../../../../engine/book/types.ts';
import { Prng } from './prng.ts';
import { fillableLots, wouldTake, type OwnResting } from '../../../../engine/book/instructions.ts';
import { FILL } from './recorder.ts';

export type Command =
  | { kind: 'place'; ref: number; owner: number; isBuy: boolean; tick: number; qty: number; ioc: boolean; fok: boolean; postOnly: boolean }
  | { kind: 'cancel'; ref: number }
  | { kind: 'reduce'; ref: number; by: number }
  | { kind: 'read'; isBuy: boolean; tick: number; ref: number };

export type StreamOptions = {
  owners: number;
  /** Starting mid tick. */
  mid: number;
  /** Soft bound on resting orders: above it, cancels become much more likely. */
  target: number;
  /** Largest qty of an ordinary order (a few orders are much larger). */
  maxQty: number;
  /** Share of commands that are passive places while below the target (default 0.6). */
  passive?: number;
};

export class RandomStream {
  private readonly rng: Prng;
  private mid: number;
  private nextRef = 1;
  private readonly live: number[] = [];
  private readonly liveAt = new Map<number, number>();
  readonly stats = { places: 0, crossing: 0, ioc: 0, fok: 0, fokKilled: 0, postOnly: 0, postOnlyRefused: 0, cancels: 0, deadCancels: 0, reduces: 0, reads: 0 };

  constructor(seed: number, private readonly opts: StreamOptions) {
    this.rng = new Prng(seed);
    this.mid = opts.mid;
  }

  next(): Command {
    const r = this.rng;
    if (r.chance(0.1)) this.mid = Math.max(30, this.mid + r.int(-1, 1));
    if (r.chance(0.002)) this.mid = Math.max(30, this.mid + r.int(-40, 40)); // a jump: deep sweeps
    const crowded = this.live.length > this.opts.target;
    const u = r.next();
    // Below the target the book grows (places outnumber cancels and sweeps); above it, it shrinks.
    const passive = this.opts.passive ?? 0.6;
    if (u < (crowded ? 0.35 : passive)) return this.passive();
    if (u < (crowded ? 0.45 : passive + 0.1)) return this.crossing();
    if (u < 0.9) return this.cancel();
    if (u < 0.96) return this.reduce();
    this.stats.reads++;
    const isBuy = r.chance(0.5);
    return { kind: 'read', isBuy, tick: this.mid + (isBuy ? -r.int(0, 5) : r.int(0, 5)), ref: this.anyRef() };
  }

  /** Update the live set from what a command did on the reference book. */
  observe(cmd: Command, result: number | string, events: readonly number[]): void {
    for (let i = 0; i < events.length; ) {
      if (events[i] === FILL) {
        if (events[i + 5] === 0) this.drop(events[i + 1]!);
        i += 6;
      } else {
        this.drop(events[i + 1]!);
        i += 3;
      }
    }
    if (cmd.kind === 'place' && result === FOK_KILLED) this.stats.fokKilled++;
    if (cmd.kind === 'place' && result === POST_ONLY_REFUSED) this.stats.postOnlyRefused++;
    if (cmd.kind === 'place' && !cmd.ioc && !cmd.fok && typeof result === 'number' && result !== 0) {
      this.liveAt.set(cmd.ref, this.live.length);
      this.live.push(cmd.ref);
    } else if (cmd.kind === 'cancel' || (cmd.kind === 'reduce' && result === 0)) {
      this.drop(cmd.ref);
    }
  }

  private passive(): Command {
    const r = this.rng;
    const isBuy = r.chance(0.5);
    // Mostly at or near the touch, sometimes deep: a geometric-ish offset.
    const offset = r.chance(0.8) ? r.int(1, 4) : r.int(5, 40);
    return this.place(isBuy, isBuy ? this.mid - offset : this.mid + offset, false, false, r.chance(0.15));
  }

  private crossing(): Command {
    const r = this.rng;
    const isBuy = r.chance(0.5);
    const reach = r.int(0, 12);
    this.stats.crossing++;
    const u = r.next();
    return this.place(isBuy, isBuy ? this.mid + reach : this.mid - reach, u < 0.3, u >= 0.3 && u < 0.5, u >= 0.5 && u < 0.55);
  }

  private place(isBuy: boolean, tick: number, ioc: boolean, fok: boolean, postOnly: boolean): Command {
    const r = this.rng;
    this.stats.places++;
    if (ioc) this.stats.ioc++;
    if (fok) this.stats.fok++;
    if (postOnly) this.stats.postOnly++;
    const qty = r.chance(0.01) ? r.int(1, 2 ** 40) : r.int(1, this.opts.maxQty);
    return { kind: 'place', ref: this.nextRef++, owner: r.int(0, this.opts.owners - 1), isBuy, tick: Math.min(0xffffffff, Math.max(0, tick)), qty, ioc, fok, postOnly };
  }

  private cancel(): Command {
    this.stats.cancels++;
    const ref = this.rng.chance(0.85) && this.live.length > 0 ? this.liveRef() : this.anyRef();
    if (!this.liveAt.has(ref)) this.stats.deadCancels++;
    return { kind: 'cancel', ref };
  }

  private reduce(): Command {
    this.stats.reduces++;
    const r = this.rng;
    const ref = r.chance(0.9) && this.live.length > 0 ? this.liveRef() : this.anyRef();
    return { kind: 'reduce', ref, by: r.chance(0.2) ? r.int(1, 2 ** 41) : r.int(1, Math.max(1, this.opts.maxQty >> 2)) };
  }

  private liveRef(): number {
    return this.live[this.rng.int(0, this.live.length - 1)]!;
  }

  /** Any ref ever handed out, or one never used: mostly dead orders. */
  private anyRef(): number {
    return this.rng.chance(0.9) ? this.rng.int(1, this.nextRef) : this.nextRef + this.rng.int(1, 1000);
  }

  private drop(ref: number): void {
    const at = this.liveAt.get(ref);
    if (at === undefined) return;
    const last = this.live.pop()!;
    if (last !== ref) {
      this.live[at] = last;
      this.liveAt.set(last, at);
    }
    this.liveAt.delete(ref);
  }
}

export const POST_ONLY_REFUSED = 'post_only_refused';
export const FOK_KILLED = 'fok_killed';
export const FOK_REMAINDER = 'fok_left_a_remainder';

function* ownResting(book: OrderBook, owner: number): IterableIterator<OwnResting> {
  for (const o of book.orders()) if (o.owner === owner) yield o;
}

/**
 * Apply one command; returns the book's return value, or for a read a line of everything it
 * saw. A post-only order that would take is refused, and a fill-or-kill order that cannot fill
 * at once killed, before the book sees it (as the series actor does); a fill-or-kill order that
 * passed and still left a remainder answers FOK_REMAINDER, which no test accepts.
 */
export function apply(book: OrderBook, cmd: Command, sink: MatchSink): number | string {
  switch (cmd.kind) {
    case 'place': {
      if (cmd.postOnly && wouldTake(book, cmd.isBuy, cmd.tick)) return POST_ONLY_REFUSED;
      if (cmd.fok && fillableLots(book, cmd.isBuy, cmd.tick, cmd.qty, ownResting(book, cmd.owner)) < cmd.qty) return FOK_KILLED;
      const left = book.place(cmd.ref, cmd.owner, cmd.isBuy, cmd.tick, cmd.qty, sink, !cmd.ioc && !cmd.fok);
      return cmd.fok && left !== 0 ? FOK_REMAINDER : left;
    }
    case 'cancel':
      return book.cancel(cmd.ref);
    case 'reduce':
      return book.reduce(cmd.ref, cmd.by);
    case 'read': {
      const o = book.get(cmd.ref);
      const order = o ? `${o.ref}/${o.owner}/${o.isBuy}/${o.tick}/${o.qty}` : '-';
      return `${book.bestBid()} ${book.bestAsk()} ${book.levelQty(cmd.isBuy, cmd.tick)} ${book.has(cmd.ref)} ${order} ${book.orderCount()}`;
    }
  }
}
