// @ts-check
/**
 * A local order book rebuilt from the public depth stream (docs/streams.md "Depth:
 * snapshot, deltas, sequence"): a snapshot replaces everything; a delta applies only if
 * its `prevSeq` is the last `seq` seen, else the book is stale and the caller
 * re-subscribes (which sends a fresh snapshot). Deltas that arrive while waiting for
 * that snapshot are dropped.
 */

/** @typedef {[string, string]} Level price and size, WAD strings */
/** @typedef {{ type: 'snapshot', seq: number, bids: Level[], asks: Level[] }} Snapshot */
/** @typedef {{ type: 'delta', seq: number, prevSeq: number, bids: Level[], asks: Level[] }} Delta */

export class DepthBook {
  /** The `seq` of the last frame applied; null before the first snapshot and after a gap. */
  /** @type {number | null} */
  seq = null;
  /** @type {Map<string, string>} */
  bids = new Map();
  /** @type {Map<string, string>} */
  asks = new Map();

  /**
   * Applies one depth frame's `data`.
   * @param {Snapshot | Delta} data
   * @returns {'ok' | 'gap' | 'waiting'} `gap`: a message was missed, re-subscribe; `waiting`: dropped while no snapshot is held
   */
  apply(data) {
    if (data.type === 'snapshot') {
      this.bids = new Map(data.bids);
      this.asks = new Map(data.asks);
      this.seq = data.seq;
      return 'ok';
    }
    if (this.seq === null) return 'waiting';
    if (data.prevSeq !== this.seq) {
      this.seq = null;
      return 'gap';
    }
    for (const [side, levels] of /** @type {const} */ ([[this.bids, data.bids], [this.asks, data.asks]])) {
      for (const [price, size] of levels) {
        if (BigInt(size) === 0n) side.delete(price);
        else side.set(price, size);
      }
    }
    this.seq = data.seq;
    return 'ok';
  }

  /**
   * One side, best first.
   * @param {'bids' | 'asks'} side
   * @returns {Level[]}
   */
  levels(side) {
    const desc = side === 'bids';
    return [...this[side].entries()].sort(([a], [b]) => {
      const x = BigInt(a);
      const y = BigInt(b);
      return x === y ? 0 : (x < y) === desc ? 1 : -1;
    });
  }
}
