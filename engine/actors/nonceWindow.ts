/**
 * Single-use order nonces per wallet without unbounded memory. The server hands out
 * increasing values, so used nonces are nearly contiguous: everything below `base` counts
 * as used, and only nonces at or above it are remembered individually. When more than
 * `limit` out-of-order nonces are remembered, the lowest quarter of them is folded into
 * `base` (an unused nonce below it can then no longer be used; see docs/engine.md).
 */
export class NonceWindow {
  base = 0n;
  readonly used = new Set<bigint>();

  constructor(private readonly limit: number) {}

  isUsed(nonce: bigint): boolean {
    return nonce < this.base || (this.used.size !== 0 && this.used.has(nonce));
  }

  /** Mark a nonce used; false when it already was. */
  use(nonce: bigint): boolean {
    if (this.isUsed(nonce)) return false;
    if (nonce === this.base && this.used.size === 0) {
      // The common case: nonces handed out in order.
      this.base++;
      return true;
    }
    this.used.add(nonce);
    while (this.used.has(this.base)) {
      this.used.delete(this.base);
      this.base++;
    }
    if (this.used.size > this.limit) {
      // Fold the lowest quarter at once: one sort per limit/4 uses, not a scan per use.
      const sorted = [...this.used].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const fold = sorted.slice(0, Math.max(1, sorted.length >> 2));
      for (const n of fold) this.used.delete(n);
      this.base = fold[fold.length - 1]! + 1n;
      while (this.used.has(this.base)) {
        this.used.delete(this.base);
        this.base++;
      }
    }
    return true;
  }

  /** The lowest nonce not yet used at or above every used one: what the server hands out next. */
  next(): bigint {
    let max = this.base;
    for (const n of this.used) if (n >= max) max = n + 1n;
    return max;
  }
}
