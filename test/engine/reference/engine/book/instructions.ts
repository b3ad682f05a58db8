/**
 * The two order instructions checked above the book, before `place` (docs/engine.md "Order
 * instructions"): post-only (would it take?) and fill-or-kill (could it fill at once?). On
 * any OrderBook, so the reference and the fast book answer alike (the differential tests
 * run them on both).
 */
import type { OrderBook } from './types.ts';

/** Whether an order at `tick` would take: the best opposite level is at or through it (any owner's). */
export function wouldTake(book: OrderBook, isBuy: boolean, tick: number): boolean {
  const best = isBuy ? book.bestAsk() : book.bestBid();
  return best !== -1 && (isBuy ? best <= tick : best >= tick);
}

/** A resting order of the taker's own owner, as far as the fill-or-kill count needs it. */
export type OwnResting = { readonly isBuy: boolean; readonly tick: number; readonly qty: number };

/**
 * The lots an order at `tick` could fill at once, looking no further once `want` is reached
 * among all owners: the opposite levels at `tick` or better, less `own` resting orders there
 * (self-trade prevention removes them instead of filling them).
 */
export function fillableLots(book: OrderBook, isBuy: boolean, tick: number, want: number, own: Iterable<OwnResting>): number {
  let total = 0;
  let levels = 16;
  for (;;) {
    const depth = book.depth(!isBuy, levels);
    total = 0;
    let through = false;
    for (const level of depth) {
      if (isBuy ? level.tick > tick : level.tick < tick) {
        through = true;
        break;
      }
      total += level.qty;
    }
    if (through || depth.length < levels) break;
    levels *= 4;
  }
  if (total < want) return total;
  for (const r of own) {
    if (r.isBuy === isBuy) continue;
    if (isBuy ? r.tick > tick : r.tick < tick) continue;
    total -= r.qty;
  }
  return total;
}
