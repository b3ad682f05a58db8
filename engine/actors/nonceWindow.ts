/**
 * Single-use order nonces per wallet without unbounded memory. Everything below `base`
 * counts as used, and only nonces above it are remembered individually. When more than
 * `limit` are remembered, the lowest quarter of them is folded into `base` (an unused
 * nonce below it can then no longer be used; see docs/engine.md).
 *
 * The remembered nonces are kept as maximal runs of consecutive values, in ascending order
 * (two parallel arrays of their ends). Nonces arrive nearly in order: a wallet's first
 * server-assigned nonce is far above 0 (gateway/orders/nonceAllocator.ts), and a nonce
 * handed out but never used leaves a gap that later nonces queue behind until the next
 * fold. So a use is usually a comparison with the last run and an append or an extension
 * of it, and a fold drops whole runs from the front: no hashing of bigints and no sort.
 * Snapshots list the remembered nonces in ascending order.
 *
 * A use makes no bigint: the window keeps nonces it was given (`top`, the highest of the used
 * prefix, and the runs' ends are nonces that arrived), never a sum, and tests a nonce's
 * adjacency by comparing it with a sum (`nonce === top + 1n`), which the optimising compiler
 * works out in 64-bit integers without making the sum while the nonces it has seen there fit
 * a signed 64-bit integer (the server's own do: gateway/orders/nonceAllocator.ts). At or above
 * 2^63 the comparisons make temporary bigints (measured: 32 bytes a use); the result is the same.
 * (Nonces that leave gaps add runs, and a fold shifts the arrays: ~10 bytes a use, measured with
 * one nonce in ten never used.)
 */
export class NonceWindow {
  /** The highest nonce of the used prefix: every nonce at or below it counts as used (-1: none). */
  private top = -1n;
  /** Runs `los[i]..his[i]`, ascending, separated by at least one unused nonce, all above `base`. */
  private readonly los: bigint[] = [];
  private readonly his: bigint[] = [];
  private count = 0;
  /**
   * The list a snapshot was restored from, when it was not ascending (snapshots written before
   * nonces were kept as runs list them in use order): returned by `remembered` as it was, so
   * that a restored state serialises to the bytes it was restored from, until the next use.
   */
  private restoredOrder: bigint[] | null = null;

  constructor(private readonly limit: number) {}

  /** How many nonces above the base are remembered. */
  get size(): number {
    return this.count;
  }

  /** The lowest nonce of the unused rest: everything below it counts as used (a snapshot's `nonceBase`). */
  get base(): bigint {
    return this.top + 1n;
  }

  isUsed(nonce: bigint): boolean {
    if (nonce <= this.top) return true;
    const last = this.his.length - 1;
    if (last < 0 || nonce > this.his[last]!) return false;
    const i = this.runAtOrBelow(nonce);
    return i >= 0 && nonce <= this.his[i]!;
  }

  /** Mark a nonce used; false when it already was. */
  use(nonce: bigint): boolean {
    if (this.isUsed(nonce)) return false;
    this.restoredOrder = null;
    if (nonce === this.top + 1n) {
      this.top = nonce;
      // A run the base reaches joins it.
      if (this.los.length !== 0 && this.los[0] === nonce + 1n) this.dropRuns(0);
      return true;
    }
    this.insert(nonce);
    if (this.count > this.limit) this.fold();
    return true;
  }

  /** Fold the lowest quarter into the base; the rest of the run holding the last folded nonce joins it. */
  private fold(): void {
    let k = Math.max(1, this.count >> 2);
    let j = 0;
    for (; ; j++) {
      const len = Number(this.his[j]! - this.los[j]!) + 1;
      if (k <= len) break;
      k -= len;
    }
    this.dropRuns(j);
  }

  /** Remove runs 0..j and move the base past them. */
  private dropRuns(j: number): void {
    this.top = this.his[j]!;
    for (let i = 0; i <= j; i++) this.count -= Number(this.his[i]! - this.los[i]!) + 1;
    this.los.splice(0, j + 1);
    this.his.splice(0, j + 1);
  }

  /** Add one nonce (not used, above the base), merging it with the runs either side. */
  private insert(nonce: bigint): void {
    this.count++;
    const los = this.los;
    const his = this.his;
    const n = his.length;
    if (n === 0 || nonce > his[n - 1]!) {
      // The usual case: above everything remembered.
      if (n !== 0 && nonce === his[n - 1]! + 1n) his[n - 1] = nonce;
      else {
        los.push(nonce);
        his.push(nonce);
      }
      return;
    }
    const i = this.runAtOrBelow(nonce); // the run before the nonce (-1: none); i + 1 is after it
    const joinsLeft = i >= 0 && his[i]! + 1n === nonce;
    const joinsRight = i + 1 < n && los[i + 1]! - 1n === nonce;
    if (joinsLeft && joinsRight) {
      his[i] = his[i + 1]!;
      los.splice(i + 1, 1);
      his.splice(i + 1, 1);
    } else if (joinsLeft) his[i] = nonce;
    else if (joinsRight) los[i + 1] = nonce;
    else {
      los.splice(i + 1, 0, nonce);
      his.splice(i + 1, 0, nonce);
    }
  }

  /** Index of the last run starting at or below `nonce`, -1 if none. */
  private runAtOrBelow(nonce: bigint): number {
    let lo = 0;
    let hi = this.los.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.los[mid]! <= nonce) lo = mid + 1;
      else hi = mid - 1;
    }
    return hi;
  }

  /** The remembered nonces, ascending (a snapshot's list). */
  remembered(): bigint[] {
    if (this.restoredOrder !== null) return this.restoredOrder.slice();
    const out = new Array<bigint>(this.count);
    let k = 0;
    for (let i = 0; i < this.los.length; i++) for (let n = this.los[i]!; n <= this.his[i]!; n++) out[k++] = n;
    return out;
  }

  /** Restore from a snapshot: the base and the remembered nonces (any order), taken as they are. */
  restore(base: bigint, remembered: readonly bigint[]): void {
    this.top = base - 1n;
    this.los.length = 0;
    this.his.length = 0;
    this.count = 0;
    let ascending = true;
    for (let i = 0; i < remembered.length; i++) {
      if (i > 0 && remembered[i]! <= remembered[i - 1]!) ascending = false;
      this.insert(remembered[i]!);
    }
    this.restoredOrder = ascending ? null : remembered.slice();
  }

  /**
   * Count every nonce below `floor` as used (a wallet's nonce floor: docs/chain.md "Leaving
   * without the venue"); remembered nonces below it are folded into the base.
   */
  raiseBase(floor: bigint): void {
    const top = floor - 1n;
    if (top <= this.top) return;
    this.restoredOrder = null;
    this.top = top;
    let j = 0;
    while (j < this.his.length && this.his[j]! <= top) {
      this.count -= Number(this.his[j]! - this.los[j]!) + 1;
      j++;
    }
    this.los.splice(0, j);
    this.his.splice(0, j);
    if (this.los.length !== 0 && this.los[0]! <= top) {
      this.count -= Number(top - this.los[0]!) + 1;
      this.los[0] = top + 1n;
    }
    // A run the base now reaches joins it.
    if (this.los.length !== 0 && this.los[0] === top + 1n) this.dropRuns(0);
  }

  /** The lowest nonce not yet used at or above every used one: what the server hands out next. */
  next(): bigint {
    const n = this.his.length;
    return n === 0 ? this.top + 1n : this.his[n - 1]! + 1n;
  }
}
