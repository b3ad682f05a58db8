/**
 * Single-use order nonces per wallet without unbounded memory. The server hands out
 * increasing values, so used nonces are nearly contiguous: everything below `base` counts
 * as used, and only nonces at or above it are remembered individually. When more than
 * `limit` out-of-order nonces are remembered, the lowest is folded into `base` (an unused
 * nonce below it can then no longer be used; see docs/engine.md).
 */
export class NonceWindow {
  base = 0n;
  readonly used = new Set<bigint>();

  constructor(private readonly limit: number) {}

  isUsed(nonce: bigint): boolean {
    return nonce < this.base || this.used.has(nonce);
  }

  /** Mark a nonce used; false when it already was. */
  use(nonce: bigint): boolean {
    if (this.isUsed(nonce)) return false;
    this.used.add(nonce);
    while (this.used.has(this.base)) {
      this.used.delete(this.base);
      this.base++;
    }
    if (this.used.size > this.limit) {
      let min = nonce;
      for (const n of this.used) if (n < min) min = n;
      this.used.delete(min);
      this.base = min + 1n;
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
