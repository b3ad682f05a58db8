/**
 * An order book rebuilt from a depth channel (docs/streams.md "Depth"): a snapshot replaces
 * it, each delta sets its levels ("0" removes one) when its `prevSeq` is the book's `seq`.
 * Anything else is a gap: the book is marked stale and `apply` answers 'gap', on which the
 * stream re-subscribes for a fresh snapshot. Types are the stream's own schemas.
 */
import type { Static } from '@sinclair/typebox';
import type { DepthDelta, DepthSnapshot } from '../gateway/streams/schemas.ts';

export type DepthSnapshotFrame = Static<typeof DepthSnapshot>;
export type DepthDeltaFrame = Static<typeof DepthDelta>;
export type Level = [price: string, size: string];

export class DepthBook {
  seq = -1;
  /** False until a snapshot arrives, and again after a gap until the next snapshot. */
  synced = false;
  private readonly bidLevels = new Map<string, string>();
  private readonly askLevels = new Map<string, string>();

  /** Apply a depth frame: 'ok', 'gap' (a delta that does not follow: resync), or 'ignored' (a delta while not synced). */
  apply(f: DepthSnapshotFrame | DepthDeltaFrame): 'ok' | 'gap' | 'ignored' {
    if (f.type === 'snapshot') {
      this.bidLevels.clear();
      this.askLevels.clear();
      for (const [p, s] of f.bids) this.bidLevels.set(p, s);
      for (const [p, s] of f.asks) this.askLevels.set(p, s);
      this.seq = f.seq;
      this.synced = true;
      return 'ok';
    }
    if (!this.synced) return 'ignored';
    if (f.prevSeq !== this.seq) {
      this.synced = false;
      return 'gap';
    }
    for (const [side, levels] of [[this.bidLevels, f.bids], [this.askLevels, f.asks]] as const) {
      for (const [p, s] of levels) {
        if (/^0+$/.test(s)) side.delete(p);
        else side.set(p, s);
      }
    }
    this.seq = f.seq;
    return 'ok';
  }

  /** Bids, best (highest) first. */
  bids(): Level[] {
    return sorted(this.bidLevels, -1);
  }

  /** Asks, best (lowest) first. */
  asks(): Level[] {
    return sorted(this.askLevels, 1);
  }
}

function sorted(levels: Map<string, string>, dir: 1 | -1): Level[] {
  return [...levels].sort((a, b) => {
    const x = BigInt(a[0]);
    const y = BigInt(b[0]);
    return x === y ? 0 : (x < y ? -1 : 1) * dir;
  });
}
