/**
 * The occupied price levels of one side of the fast book, sorted so that the best level is the
 * last element.
 *
 * A series' ticks range over millions and a venue has hundreds of series, so a dense array
 * over the tick range is out; the occupied levels, though, are few (tens to a few thousand)
 * and almost all activity is at or near the best price. Keeping them in a sorted typed array
 * with the best at the end makes the hot cases O(1): the best level is `keys[n-1]`, removing it
 * after it is filled is `n--`, and a new level near the touch moves only the few entries after
 * it. A level deep in the book costs a binary search plus a `copyWithin` of the entries behind
 * it, still a memmove of a few kilobytes at worst.
 *
 * Bids are kept by key = tick (ascending: highest bid last) and asks by key = -tick (ascending:
 * lowest ask last), so one code path serves both sides.
 */
export class PriceLadder {
  private keys: Float64Array;
  private levels: Int32Array;
  private n = 0;
  private readonly sign: number;

  constructor(readonly isBuy: boolean, capacityHint = 64) {
    this.sign = isBuy ? 1 : -1;
    const cap = Math.max(8, capacityHint);
    this.keys = new Float64Array(cap);
    this.levels = new Int32Array(cap);
  }

  get size(): number {
    return this.n;
  }

  /** Level index of the best price, or -1 when the side is empty. */
  bestLevel(): number {
    return this.n === 0 ? -1 : this.levels[this.n - 1]!;
  }

  /** Tick of the best price, or -1 when the side is empty. */
  bestTick(): number {
    return this.n === 0 ? -1 : this.keys[this.n - 1]! * this.sign;
  }

  /** The level `i` places behind the best (0 = best). */
  levelAt(i: number): number {
    return this.levels[this.n - 1 - i]!;
  }

  tickAt(i: number): number {
    return this.keys[this.n - 1 - i]! * this.sign;
  }

  /** Add a level at a tick not already present. */
  insert(tick: number, level: number): void {
    if (this.n === this.keys.length) this.grow();
    const key = tick * this.sign;
    const keys = this.keys;
    const n = this.n;
    // Most new levels are at or next to the touch: test the end first, search otherwise.
    let pos: number;
    if (n === 0 || keys[n - 1]! < key) pos = n;
    else pos = this.lowerBound(key);
    if (pos < n) {
      keys.copyWithin(pos + 1, pos, n);
      this.levels.copyWithin(pos + 1, pos, n);
    }
    keys[pos] = key;
    this.levels[pos] = level;
    this.n = n + 1;
  }

  /** Remove the level at `tick`; returns false if there is none. */
  remove(tick: number): boolean {
    const n = this.n;
    if (n === 0) return false;
    const key = tick * this.sign;
    const keys = this.keys;
    if (keys[n - 1] === key) {
      this.n = n - 1;
      return true;
    }
    const pos = this.lowerBound(key);
    if (pos >= n || keys[pos] !== key) return false;
    keys.copyWithin(pos, pos + 1, n);
    this.levels.copyWithin(pos, pos + 1, n);
    this.n = n - 1;
    return true;
  }

  /** A description of the first ordering problem, or null (for checkInvariants). */
  check(): string | null {
    for (let i = 1; i < this.n; i++) {
      if (!(this.keys[i - 1]! < this.keys[i]!)) return `${this.isBuy ? 'bid' : 'ask'} ladder not strictly sorted at ${i}`;
    }
    return null;
  }

  /** First index whose key is >= `key`. */
  private lowerBound(key: number): number {
    const keys = this.keys;
    let lo = 0;
    let hi = this.n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (keys[mid]! < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private grow(): void {
    const keys = new Float64Array(this.keys.length * 2);
    keys.set(this.keys);
    this.keys = keys;
    const levels = new Int32Array(this.levels.length * 2);
    levels.set(this.levels);
    this.levels = levels;
  }
}
