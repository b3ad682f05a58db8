/**
 * A hash map from a positive safe integer to a non-negative int32, in typed arrays.
 *
 * The fast book needs two lookups on its hot path (order ref -> slot, tick -> level). A JS Map
 * would do, but refs above 2^30 are heap numbers in V8 and every entry lives in the Map's own
 * backing store; here the keys sit in one Float64Array and the values in one Int32Array, the
 * table only grows (by doubling, at half load), and nothing is allocated per entry.
 *
 * Open addressing with linear probing; deletion shifts the following run back (no tombstones),
 * so lookups stay short after millions of insert/delete cycles. Key 0 marks an empty bucket,
 * which is why keys must be >= 1.
 */
export class IntIndex {
  private keys: Float64Array;
  private vals: Int32Array;
  private mask: number;
  private count = 0;

  constructor(capacityHint = 16) {
    let cap = 16;
    while (cap < capacityHint * 2) cap *= 2;
    this.keys = new Float64Array(cap);
    this.vals = new Int32Array(cap);
    this.mask = cap - 1;
  }

  get size(): number {
    return this.count;
  }

  /** Number of buckets (for tests and invariant checks). */
  get capacity(): number {
    return this.mask + 1;
  }

  /** The value stored for `key`, or -1. */
  get(key: number): number {
    const keys = this.keys;
    const mask = this.mask;
    let i = hash(key) & mask;
    for (;;) {
      const k = keys[i]!;
      // Empty first: a lookup of key 0 (never stored) must not match an empty bucket.
      if (k === 0) return -1;
      if (k === key) return this.vals[i]!;
      i = (i + 1) & mask;
    }
  }

  /** Insert or overwrite. `key` must be a positive safe integer, `value` a non-negative int32. */
  set(key: number, value: number): void {
    if ((this.count + 1) * 2 > this.mask + 1) this.grow();
    const keys = this.keys;
    const mask = this.mask;
    let i = hash(key) & mask;
    for (;;) {
      const k = keys[i]!;
      if (k === key) {
        this.vals[i] = value;
        return;
      }
      if (k === 0) {
        keys[i] = key;
        this.vals[i] = value;
        this.count++;
        return;
      }
      i = (i + 1) & mask;
    }
  }

  /** Remove `key`; returns the value it had, or -1. */
  delete(key: number): number {
    const keys = this.keys;
    const vals = this.vals;
    const mask = this.mask;
    let i = hash(key) & mask;
    for (;;) {
      const k = keys[i]!;
      if (k === 0) return -1;
      if (k === key) break;
      i = (i + 1) & mask;
    }
    const old = vals[i]!;
    this.count--;
    // Backward-shift deletion: walk the run after the hole and move back every entry whose
    // home bucket does not lie cyclically in (hole, j], so that no probe sequence is broken.
    let hole = i;
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      const k = keys[j]!;
      if (k === 0) break;
      const home = hash(k) & mask;
      const stays = hole <= j ? home > hole && home <= j : home > hole || home <= j;
      if (!stays) {
        keys[hole] = k;
        vals[hole] = vals[j]!;
        hole = j;
      }
    }
    keys[hole] = 0;
    return old;
  }

  /** Visit every entry (order unspecified). For invariant checks, not the hot path. */
  forEach(fn: (key: number, value: number) => void): void {
    const keys = this.keys;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      if (k !== 0) fn(k, this.vals[i]!);
    }
  }

  private grow(): void {
    const oldKeys = this.keys;
    const oldVals = this.vals;
    const cap = oldKeys.length * 2;
    this.keys = new Float64Array(cap);
    this.vals = new Int32Array(cap);
    this.mask = cap - 1;
    this.count = 0;
    for (let i = 0; i < oldKeys.length; i++) {
      const k = oldKeys[i]!;
      if (k !== 0) this.set(k, oldVals[i]!);
    }
  }
}

/**
 * Mix both 32-bit halves of a safe integer (refs and level keys exceed 2^32) with a
 * murmur-style finaliser, so that sequential refs spread over the table instead of forming
 * one long run.
 */
function hash(key: number): number {
  const lo = key >>> 0;
  const hi = (key / 4294967296) >>> 0;
  let h = Math.imul(lo ^ Math.imul(hi, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}
