/**
 * An append-at-the-back, forget-at-the-front sequence in amortised O(1): the front is an index
 * that advances, and the array is compacted once the forgotten part is at least as long as the
 * live part (and at least COMPACT_MIN). `Array.splice(0, k)` instead moves every remaining
 * element on every removal, which made a full history (e.g. a market maker protection
 * window's fills) cost O(its length) per entry.
 *
 * Indexes are logical (0 = the oldest kept item). Only the live items are ever visible, so a
 * snapshot of `toArray()` is the same whatever the compaction state.
 */
const COMPACT_MIN = 1024;

export class Deque<T> implements Iterable<T> {
  private items: T[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** The item at logical index `i` (negative counts from the back, as Array.prototype.at). */
  at(i: number): T | undefined {
    const n = this.length;
    const k = i < 0 ? n + i : i;
    return k < 0 || k >= n ? undefined : this.items[this.head + k];
  }

  first(): T | undefined {
    return this.head < this.items.length ? this.items[this.head] : undefined;
  }

  last(): T | undefined {
    return this.head < this.items.length ? this.items[this.items.length - 1] : undefined;
  }

  /** Remove and return the newest item. */
  pop(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items.pop();
    if (this.head === this.items.length) this.clear();
    return item;
  }

  /** Remove and return the oldest item. */
  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head]!;
    this.items[this.head++] = undefined as T; // let it be collected
    this.compact();
    return item;
  }

  /** Forget the `n` oldest items. */
  dropFront(n: number): void {
    const end = Math.min(this.items.length, this.head + Math.max(0, n));
    for (let i = this.head; i < end; i++) this.items[i] = undefined as T;
    this.head = end;
    this.compact();
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }

  /** The live items, oldest first (a copy). */
  toArray(): T[] {
    return this.items.slice(this.head);
  }

  *[Symbol.iterator](): Iterator<T> {
    for (let i = this.head; i < this.items.length; i++) yield this.items[i]!;
  }

  private compact(): void {
    if (this.head === this.items.length) this.clear();
    else if (this.head >= COMPACT_MIN && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }
}
