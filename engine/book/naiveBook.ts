/**
 * The reference order book: plain objects in sorted arrays, written to be obviously right
 * rather than fast (docs/book.md, the reference book). Tests drive it and the fast book with the same commands
 * and require identical fills, returns and final books. Not for production use.
 */
import { assertPlaceArgs, assertReduceBy } from './assertArgs.ts';
import { BookInvariantError } from './bookInvariantError.ts';
import type { LevelView, MatchSink, OrderBook, RestingOrder } from './types.ts';

type Level = { tick: number; orders: RestingOrder[] };

export function createNaiveBook(): OrderBook {
  const bids: Level[] = []; // best (highest tick) first
  const asks: Level[] = []; // best (lowest tick) first
  const byRef = new Map<number, RestingOrder>();
  let busy = false;

  const sideOf = (isBuy: boolean): Level[] => (isBuy ? bids : asks);
  const better = (isBuy: boolean, a: number, b: number): boolean => (isBuy ? a > b : a < b);
  const crosses = (takerIsBuy: boolean, takerTick: number, makerTick: number): boolean =>
    takerIsBuy ? makerTick <= takerTick : makerTick >= takerTick;

  function remove(order: RestingOrder): void {
    const side = sideOf(order.isBuy);
    const li = side.findIndex((l) => l.tick === order.tick);
    const level = side[li]!;
    level.orders.splice(level.orders.indexOf(order), 1);
    if (level.orders.length === 0) side.splice(li, 1);
    byRef.delete(order.ref);
  }

  function enter(what: string): void {
    if (busy) throw new BookInvariantError(`${what} called from inside a MatchSink callback`);
  }

  function copy(o: RestingOrder): RestingOrder {
    return { ref: o.ref, owner: o.owner, isBuy: o.isBuy, tick: o.tick, qty: o.qty };
  }

  return {
    place(ref, owner, isBuy, tick, qty, sink: MatchSink, restRemainder = true) {
      assertPlaceArgs(ref, owner, tick, qty);
      enter('place');
      if (byRef.has(ref)) throw new BookInvariantError(`order ref ${ref} is already resting`);
      busy = true;
      try {
        const opposite = sideOf(!isBuy);
        let remaining = qty;
        let stopped = false;
        while (!stopped && remaining > 0 && opposite.length > 0 && crosses(isBuy, tick, opposite[0]!.tick)) {
          const maker = opposite[0]!.orders[0]!;
          if (maker.owner === owner) {
            remove(maker);
            sink.onSelfTradeCancel(maker.ref, maker.qty);
            continue;
          }
          if (sink.screen && sink.screen(maker.ref, maker.owner)) {
            remove(maker);
            sink.onScreenCancel!(maker.ref, maker.qty);
            continue;
          }
          const fill = Math.min(remaining, maker.qty);
          remaining -= fill;
          maker.qty -= fill;
          if (maker.qty === 0) remove(maker);
          // The sink may stop the taker (market maker protection): no further match, nothing rests.
          stopped = sink.onFill(maker.ref, maker.owner, maker.tick, fill, maker.qty) === true;
        }
        if (remaining > 0 && restRemainder && !stopped) {
          const order: RestingOrder = { ref, owner, isBuy, tick, qty: remaining };
          const side = sideOf(isBuy);
          let li = side.findIndex((l) => !better(isBuy, l.tick, tick));
          if (li === -1) li = side.length;
          if (side[li]?.tick !== tick) side.splice(li, 0, { tick, orders: [] });
          side[li]!.orders.push(order);
          byRef.set(ref, order);
        }
        return remaining;
      } finally {
        busy = false;
      }
    },

    cancel(ref) {
      enter('cancel');
      const order = byRef.get(ref);
      if (!order) return 0;
      remove(order);
      return order.qty;
    },

    reduce(ref, by) {
      assertReduceBy(by);
      enter('reduce');
      const order = byRef.get(ref);
      if (!order) return 0;
      if (by >= order.qty) {
        remove(order);
        return 0;
      }
      order.qty -= by;
      return order.qty;
    },

    get(ref) {
      const order = byRef.get(ref);
      return order ? copy(order) : undefined;
    },

    has: (ref) => byRef.has(ref),
    bestBid: () => bids[0]?.tick ?? -1,
    bestAsk: () => asks[0]?.tick ?? -1,

    depth(isBuy, maxLevels) {
      return sideOf(isBuy)
        .slice(0, maxLevels > 0 ? Math.floor(maxLevels) : 0)
        .map((l): LevelView => ({ tick: l.tick, qty: l.orders.reduce((a, o) => a + o.qty, 0), count: l.orders.length }));
    },

    levelQty(isBuy, tick) {
      const level = sideOf(isBuy).find((l) => l.tick === tick);
      return level ? level.orders.reduce((a, o) => a + o.qty, 0) : 0;
    },

    levelCount(isBuy, tick) {
      return sideOf(isBuy).find((l) => l.tick === tick)?.orders.length ?? 0;
    },

    orderCount: () => byRef.size,

    orders() {
      return [...bids, ...asks].flatMap((l) => l.orders.map(copy));
    },

    checkInvariants() {
      for (const [side, isBuy] of [[bids, true], [asks, false]] as const) {
        for (let i = 0; i < side.length; i++) {
          const level = side[i]!;
          if (level.orders.length === 0) return `empty level at tick ${level.tick}`;
          if (i > 0 && !better(isBuy, side[i - 1]!.tick, level.tick)) return `${isBuy ? 'bids' : 'asks'} not sorted at ${i}`;
          for (const o of level.orders) {
            if (o.tick !== level.tick || o.isBuy !== isBuy) return `order ${o.ref} sits in the wrong level`;
            if (!(Number.isSafeInteger(o.qty) && o.qty > 0)) return `order ${o.ref} has qty ${o.qty}`;
            if (byRef.get(o.ref) !== o) return `order ${o.ref} missing from the ref map`;
          }
        }
      }
      if (bids.length > 0 && asks.length > 0 && bids[0]!.tick >= asks[0]!.tick) return 'book is crossed';
      const count = [...bids, ...asks].reduce((a, l) => a + l.orders.length, 0);
      if (count !== byRef.size) return `${count} orders in levels, ${byRef.size} in the ref map`;
      return null;
    },
  };
}
