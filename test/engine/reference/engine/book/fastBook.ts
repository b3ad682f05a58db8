/**
 * The fast order book (docs/book.md): price-time priority matching over typed arrays.
 *
 * Layout, all in typed arrays indexed by small integers so that placing, cancelling and matching
 * allocate nothing:
 * - order slots: ref, qty, owner, level, and prev/next links of an intrusive doubly linked FIFO
 *   per level; free slots form a singly linked free list through `oNext`; the arrays double when
 *   the free list runs dry.
 * - levels: tick, total qty, order count, head and tail slot, side; free levels are recycled
 *   through `lHead` the same way.
 * - lookups: ref -> slot and (side, tick) -> level in two `IntIndex` hash tables; per side a
 *   `PriceLadder` (sorted occupied levels, best last) gives the best price in O(1).
 *
 * qty is kept in Float64Array: lots can exceed 2^31 and doubles are exact for integers up to
 * 2^53, which the argument checks guarantee per order (a level's total stays exact while it is
 * below 2^53 too).
 */
import { assertPlaceArgs, assertReduceBy } from './assertArgs.ts';
import { BookInvariantError } from './bookInvariantError.ts';
import { IntIndex } from './intIndex.ts';
import { PriceLadder } from './priceLadder.ts';
import type { LevelView, MatchSink, OrderBook, RestingOrder } from './types.ts';

const NONE = -1;

export function createFastBook(capacityHint = 1024): OrderBook {
  // --- order slots -------------------------------------------------------------------------
  let cap = 16;
  while (cap < capacityHint) cap *= 2;
  let oRef = new Float64Array(cap); // 0 marks a free slot
  let oQty = new Float64Array(cap);
  let oOwner = new Int32Array(cap);
  let oLevel = new Int32Array(cap);
  let oPrev = new Int32Array(cap);
  let oNext = new Int32Array(cap);
  let freeSlot = chainFree(oNext, 0, cap);
  let live = 0;
  const slotOf = new IntIndex(cap);

  // --- price levels ------------------------------------------------------------------------
  let lcap = 64;
  let lTick = new Float64Array(lcap);
  let lQty = new Float64Array(lcap);
  let lCount = new Int32Array(lcap);
  let lHead = new Int32Array(lcap);
  let lTail = new Int32Array(lcap);
  let lBuy = new Uint8Array(lcap);
  let freeLevel = chainFree(lHead, 0, lcap);
  const levelOf = new IntIndex(lcap);
  const bids = new PriceLadder(true);
  const asks = new PriceLadder(false);

  // Set while place() runs: a sink that calls back into the book would see (and corrupt) a
  // level in the middle of being consumed.
  let busy = false;
  // Set by match() when the sink stopped the taker (its remainder does not rest).
  let stopped = false;

  function growSlots(): void {
    const next = cap * 2;
    oRef = grownF64(oRef, next);
    oQty = grownF64(oQty, next);
    oOwner = grownI32(oOwner, next);
    oLevel = grownI32(oLevel, next);
    oPrev = grownI32(oPrev, next);
    oNext = grownI32(oNext, next);
    freeSlot = chainFree(oNext, cap, next);
    cap = next;
  }

  function growLevels(): void {
    const next = lcap * 2;
    lTick = grownF64(lTick, next);
    lQty = grownF64(lQty, next);
    lCount = grownI32(lCount, next);
    lHead = grownI32(lHead, next);
    lTail = grownI32(lTail, next);
    const buy = new Uint8Array(next);
    buy.set(lBuy);
    lBuy = buy;
    freeLevel = chainFree(lHead, lcap, next);
    lcap = next;
  }

  /** Append a new order at the tail of its level, creating the level if needed. */
  function rest(ref: number, owner: number, isBuy: boolean, tick: number, qty: number): void {
    const key = levelKey(isBuy, tick);
    let lvl = levelOf.get(key);
    if (lvl === NONE) {
      if (freeLevel === NONE) growLevels();
      lvl = freeLevel;
      freeLevel = lHead[lvl]!;
      lTick[lvl] = tick;
      lQty[lvl] = 0;
      lCount[lvl] = 0;
      lHead[lvl] = NONE;
      lTail[lvl] = NONE;
      lBuy[lvl] = isBuy ? 1 : 0;
      levelOf.set(key, lvl);
      (isBuy ? bids : asks).insert(tick, lvl);
    }
    if (freeSlot === NONE) growSlots();
    const s = freeSlot;
    freeSlot = oNext[s]!;
    oRef[s] = ref;
    oQty[s] = qty;
    oOwner[s] = owner;
    oLevel[s] = lvl;
    const tail = lTail[lvl]!;
    oPrev[s] = tail;
    oNext[s] = NONE;
    if (tail === NONE) lHead[lvl] = s;
    else oNext[tail] = s;
    lTail[lvl] = s;
    lQty[lvl] = lQty[lvl]! + qty;
    lCount[lvl] = lCount[lvl]! + 1;
    slotOf.set(ref, s);
    live++;
  }

  /** Unlink slot `s` from its level, free it, and drop the level if it became empty. */
  function removeSlot(s: number): void {
    const lvl = oLevel[s]!;
    const prev = oPrev[s]!;
    const next = oNext[s]!;
    if (prev === NONE) lHead[lvl] = next;
    else oNext[prev] = next;
    if (next === NONE) lTail[lvl] = prev;
    else oPrev[next] = prev;
    lQty[lvl] = lQty[lvl]! - oQty[s]!;
    slotOf.delete(oRef[s]!);
    oRef[s] = 0;
    oQty[s] = 0;
    oNext[s] = freeSlot;
    freeSlot = s;
    live--;
    const left = lCount[lvl]! - 1;
    lCount[lvl] = left;
    if (left === 0) {
      const isBuy = lBuy[lvl] === 1;
      const tick = lTick[lvl]!;
      levelOf.delete(levelKey(isBuy, tick));
      (isBuy ? bids : asks).remove(tick);
      lQty[lvl] = 0;
      lHead[lvl] = freeLevel;
      freeLevel = lvl;
    }
  }

  /**
   * Consume the opposite side from its best price while it crosses `tick`. Each event is
   * applied to the book before the sink hears of it, so the book is whole at every callback.
   */
  function match(owner: number, isBuy: boolean, tick: number, qty: number, sink: MatchSink): number {
    const side = isBuy ? asks : bids;
    const screen = sink.screen ?? null;
    stopped = false;
    while (qty > 0) {
      const lvl = side.bestLevel();
      if (lvl === NONE) break;
      const lt = lTick[lvl]!;
      if (isBuy ? lt > tick : lt < tick) break;
      const s = lHead[lvl]!;
      const makerRef = oRef[s]!;
      const makerOwner = oOwner[s]!;
      const makerQty = oQty[s]!;
      if (makerOwner === owner) {
        removeSlot(s);
        sink.onSelfTradeCancel(makerRef, makerQty);
      } else if (screen !== null && screen(makerRef, makerOwner)) {
        removeSlot(s);
        sink.onScreenCancel!(makerRef, makerQty);
      } else if (makerQty <= qty) {
        qty -= makerQty;
        removeSlot(s);
        if (sink.onFill(makerRef, makerOwner, lt, makerQty, 0) === true) {
          stopped = true;
          break;
        }
      } else {
        const fill = qty;
        qty = 0;
        oQty[s] = makerQty - fill;
        lQty[lvl] = lQty[lvl]! - fill;
        sink.onFill(makerRef, makerOwner, lt, fill, makerQty - fill);
      }
    }
    return qty;
  }

  function enter(what: string): void {
    if (busy) throw new BookInvariantError(`${what} called from inside a MatchSink callback`);
  }

  function view(s: number): RestingOrder {
    const lvl = oLevel[s]!;
    return { ref: oRef[s]!, owner: oOwner[s]!, isBuy: lBuy[lvl] === 1, tick: lTick[lvl]!, qty: oQty[s]! };
  }

  function checkInvariants(): string | null {
    for (const ladder of [bids, asks]) {
      const problem = ladder.check();
      if (problem) return problem;
    }
    const bb = bids.bestTick();
    const ba = asks.bestTick();
    if (bb !== NONE && ba !== NONE && bb >= ba) return `book is crossed: best bid ${bb} >= best ask ${ba}`;
    if (levelOf.size !== bids.size + asks.size) return `level index has ${levelOf.size} entries, ladders ${bids.size + asks.size}`;
    let seen = 0;
    for (const ladder of [bids, asks]) {
      const isBuy = ladder.isBuy;
      for (let i = 0; i < ladder.size; i++) {
        const lvl = ladder.levelAt(i);
        const tick = ladder.tickAt(i);
        if (lTick[lvl] !== tick) return `level ${lvl} has tick ${lTick[lvl]}, ladder says ${tick}`;
        if ((lBuy[lvl] === 1) !== isBuy) return `level ${lvl} at tick ${tick} is on the wrong side`;
        if (levelOf.get(levelKey(isBuy, tick)) !== lvl) return `level index does not map tick ${tick} to level ${lvl}`;
        let count = 0;
        let qty = 0;
        let prev = NONE;
        for (let s = lHead[lvl]!; s !== NONE; s = oNext[s]!) {
          if (count > live) return `cycle in level at tick ${tick}`;
          if (oPrev[s] !== prev) return `slot ${s} prev link is ${oPrev[s]}, expected ${prev}`;
          if (oLevel[s] !== lvl) return `slot ${s} points at level ${oLevel[s]}, lives in ${lvl}`;
          const q = oQty[s]!;
          if (!(Number.isSafeInteger(q) && q > 0)) return `order ${oRef[s]} has qty ${q}`;
          if (slotOf.get(oRef[s]!) !== s) return `ref index does not map order ${oRef[s]} to slot ${s}`;
          count++;
          qty += q;
          prev = s;
        }
        if (count === 0) return `empty level at tick ${tick}`;
        if (lTail[lvl] !== prev) return `level at tick ${tick} tail is ${lTail[lvl]}, expected ${prev}`;
        if (lCount[lvl] !== count) return `level at tick ${tick} count is ${lCount[lvl]}, orders ${count}`;
        if (lQty[lvl] !== qty) return `level at tick ${tick} qty is ${lQty[lvl]}, orders sum to ${qty}`;
        seen += count;
      }
    }
    if (seen !== live) return `${seen} orders in levels, ${live} counted live`;
    if (slotOf.size !== live) return `ref index has ${slotOf.size} entries, ${live} live orders`;
    let free = 0;
    for (let s = freeSlot; s !== NONE; s = oNext[s]!) {
      if (oRef[s] !== 0) return `free slot ${s} still holds ref ${oRef[s]}`;
      if (++free > cap) return 'cycle in the free slot list';
    }
    if (free + live !== cap) return `${free} free + ${live} live slots != capacity ${cap}`;
    return null;
  }

  return {
    place(ref, owner, isBuy, tick, qty, sink, restRemainder = true) {
      assertPlaceArgs(ref, owner, tick, qty);
      enter('place');
      if (slotOf.get(ref) !== NONE) throw new BookInvariantError(`order ref ${ref} is already resting`);
      busy = true;
      try {
        const remaining = match(owner, isBuy, tick, qty, sink);
        if (remaining > 0 && restRemainder && !stopped) rest(ref, owner, isBuy, tick, remaining);
        return remaining;
      } finally {
        busy = false;
      }
    },

    cancel(ref) {
      enter('cancel');
      const s = slotOf.get(ref);
      if (s === NONE) return 0;
      const qty = oQty[s]!;
      removeSlot(s);
      return qty;
    },

    reduce(ref, by) {
      assertReduceBy(by);
      enter('reduce');
      const s = slotOf.get(ref);
      if (s === NONE) return 0;
      const qty = oQty[s]!;
      if (by >= qty) {
        removeSlot(s);
        return 0;
      }
      oQty[s] = qty - by;
      const lvl = oLevel[s]!;
      lQty[lvl] = lQty[lvl]! - by;
      return qty - by;
    },

    get(ref) {
      const s = slotOf.get(ref);
      return s === NONE ? undefined : view(s);
    },

    has(ref) {
      return slotOf.get(ref) !== NONE;
    },

    bestBid: () => bids.bestTick(),
    bestAsk: () => asks.bestTick(),

    depth(isBuy, maxLevels) {
      const ladder = isBuy ? bids : asks;
      const n = maxLevels > 0 ? Math.min(ladder.size, Math.floor(maxLevels)) : 0; // NaN gives 0 levels
      const out: LevelView[] = new Array(n);
      for (let i = 0; i < n; i++) {
        const lvl = ladder.levelAt(i);
        out[i] = { tick: lTick[lvl]!, qty: lQty[lvl]!, count: lCount[lvl]! };
      }
      return out;
    },

    levelQty(isBuy, tick) {
      if (!(Number.isInteger(tick) && tick >= 0)) return 0;
      const lvl = levelOf.get(levelKey(isBuy, tick));
      return lvl === NONE ? 0 : lQty[lvl]!;
    },

    levelCount(isBuy, tick) {
      if (!(Number.isInteger(tick) && tick >= 0)) return 0;
      const lvl = levelOf.get(levelKey(isBuy, tick));
      return lvl === NONE ? 0 : lCount[lvl]!;
    },

    orderCount: () => live,

    orders() {
      // Level by level, FIFO within each: resting bids and asks never cross, so replaying this
      // list places every order without matching and in its original queue position.
      const out: RestingOrder[] = [];
      for (const ladder of [bids, asks]) {
        for (let i = 0; i < ladder.size; i++) {
          for (let s = lHead[ladder.levelAt(i)]!; s !== NONE; s = oNext[s]!) out.push(view(s));
        }
      }
      return out;
    },

    checkInvariants,
  };
}

/** Key of a level in the level index: side and tick in one positive integer (< 2^34). */
function levelKey(isBuy: boolean, tick: number): number {
  return tick * 2 + (isBuy ? 2 : 1);
}

/** Link slots from..to-1 into a free list ending in NONE; returns its head. */
function chainFree(next: Int32Array, from: number, to: number): number {
  for (let i = from; i < to - 1; i++) next[i] = i + 1;
  next[to - 1] = NONE;
  return from;
}

function grownF64(a: Float64Array, size: number): Float64Array<ArrayBuffer> {
  const b = new Float64Array(size);
  b.set(a);
  return b;
}

function grownI32(a: Int32Array, size: number): Int32Array<ArrayBuffer> {
  const b = new Int32Array(size);
  b.set(a);
  return b;
}
