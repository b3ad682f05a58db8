/**
 * Sliding-window counters for the stream limits: "at most `limit` events in any
 * `windowMs`". A ring of the last `limit` accepted timestamps answers exactly (no burst
 * of 2x at a fixed window's edge) in O(1) per event and at most `limit` numbers of memory.
 */

export class RateWindow {
  /**
   * Accepted timestamps: appended until `limit` are held, then a ring whose `next` slot is
   * the oldest. Grown on use rather than allocated up front, so that a generous limit costs
   * memory only when a client really sends that much.
   */
  private readonly stamps: number[] = [];
  private next = 0;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  /** Records an event at `now` and returns true, or returns false (recording nothing) when over the limit. */
  take(now: number): boolean {
    if (this.stamps.length < this.limit) {
      this.stamps.push(now);
      return true;
    }
    // The oldest of the last `limit` accepted events is the one about to be overwritten.
    if (now - this.stamps[this.next]! < this.windowMs) return false;
    this.stamps[this.next] = now;
    this.next = (this.next + 1) % this.limit;
    return true;
  }

  /** When the next event will be accepted (Unix ms): `now` unless the window is full. */
  retryAt(now: number): number {
    if (this.stamps.length < this.limit) return now;
    return Math.max(now, this.stamps[this.next]! + this.windowMs);
  }

  /** True when nothing accepted is still inside the window (the counter can be forgotten). */
  idle(now: number): boolean {
    const n = this.stamps.length;
    if (n === 0) return true;
    const newest = n < this.limit ? this.stamps[n - 1]! : this.stamps[(this.next + this.limit - 1) % this.limit]!;
    return now - newest >= this.windowMs;
  }
}

/** One RateWindow per key (client IP), with stale keys swept so that the map stays bounded by active clients. */
export class KeyedRateWindows {
  private readonly windows = new Map<string, RateWindow>();
  private lastSweep = 0;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  take(key: string, now: number): boolean {
    if (now - this.lastSweep >= this.windowMs) {
      this.lastSweep = now;
      for (const [k, w] of this.windows) if (w.idle(now)) this.windows.delete(k);
    }
    let w = this.windows.get(key);
    if (!w) this.windows.set(key, (w = new RateWindow(this.limit, this.windowMs)));
    return w.take(now);
  }

  /** When `key` may take its next event (Unix ms); `now` for a key with no window. */
  retryAt(key: string, now: number): number {
    return this.windows.get(key)?.retryAt(now) ?? now;
  }

  get size(): number {
    return this.windows.size;
  }
}
