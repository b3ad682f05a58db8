/**
 * The order books as the depth stream has published them.
 *
 * The engine applies a command before its journal commit and the pipeline publishes its
 * events after (gateway/commandPipeline.ts), so at any instant the engine's book may be
 * ahead of the deltas already sent. A snapshot read from the engine could then include
 * changes whose deltas arrive after it, which a client would apply twice (deltas carry
 * absolute level sizes, so a late older delta would even roll a level back). The snapshot
 * is therefore taken from this mirror, which moves only when a depth event is published:
 * its `seq` is exactly the last published delta's, and the next delta a new subscriber
 * receives has `prevSeq` equal to it. It also never shows a change that is not durable.
 *
 * Seeded from the engine when streams attach, before any command can be in flight.
 */
import type { Venue } from '../../engine/venue.ts';
import type { Hex } from '../../engine/domain/hex.ts';
import type { DepthEvent } from '../../engine/events.ts';
import type { SeriesActor } from '../../engine/actors/series.ts';
import { tickToPrice } from '../../engine/domain/ticks.ts';

type Side = Map<bigint, bigint>; // price WAD -> size WAD
type MirrorBook = { seq: number; readonly bids: Side; readonly asks: Side };

export type DepthLevels = { readonly seq: number; readonly bids: [string, string][]; readonly asks: [string, string][] };

/** More levels than any book holds: the whole side. */
const ALL_LEVELS = 1_000_000;

export class DepthMirror {
  private readonly books = new Map<Hex, MirrorBook>();
  /** Deltas whose prevSeq did not follow the mirror (a broken invariant upstream); counted for tests and alerts. */
  gaps = 0;

  constructor(private readonly venue: Venue) {
    for (const s of venue.state.series.values()) this.books.set(s.spec.seriesId, this.fromEngine(s));
  }

  private fromEngine(s: SeriesActor): MirrorBook {
    const pair = this.venue.state.pairs.get(s.spec.pairId);
    const book: MirrorBook = { seq: s.bookSeq, bids: new Map(), asks: new Map() };
    if (!pair) return book;
    for (const [isBid, side] of [[true, book.bids], [false, book.asks]] as const) {
      for (const l of s.book.depth(isBid, ALL_LEVELS)) side.set(tickToPrice(l.tick, pair.tickDecimals), BigInt(l.qty) * pair.sizeStep);
    }
    return book;
  }

  /** Apply a published delta. */
  apply(e: DepthEvent): void {
    let book = this.books.get(e.seriesId);
    // A series listed after the streams attached starts empty at sequence 0.
    if (!book) this.books.set(e.seriesId, (book = { seq: 0, bids: new Map(), asks: new Map() }));
    if (e.prevSeq !== book.seq) this.gaps++;
    book.seq = e.seq;
    for (const [price, size] of e.bids) {
      if (size === 0n) book.bids.delete(price);
      else book.bids.set(price, size);
    }
    for (const [price, size] of e.asks) {
      if (size === 0n) book.asks.delete(price);
      else book.asks.set(price, size);
    }
  }

  /** The published book of a series, best levels first, up to `maxLevels` per side. */
  levels(seriesId: Hex, maxLevels = ALL_LEVELS): DepthLevels {
    const book = this.books.get(seriesId);
    if (!book) return { seq: 0, bids: [], asks: [] };
    return { seq: book.seq, bids: sorted(book.bids, true, maxLevels), asks: sorted(book.asks, false, maxLevels) };
  }
}

function sorted(side: Side, descending: boolean, max: number): [string, string][] {
  const prices = [...side.keys()].sort((a, b) => (a === b ? 0 : (a < b) === descending ? 1 : -1));
  if (prices.length > max) prices.length = max;
  return prices.map((p) => [p.toString(), side.get(p)!.toString()]);
}
