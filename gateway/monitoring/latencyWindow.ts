/** The latencies observed since the last look (at most `capacity`, the latest kept), and their p99. */
export class LatencyWindow {
  private readonly values: Float64Array;
  private count = 0;
  private next = 0;

  constructor(capacity = 4096) {
    this.values = new Float64Array(capacity);
  }

  record(ms: number): void {
    this.values[this.next] = ms;
    this.next = (this.next + 1) % this.values.length;
    if (this.count < this.values.length) this.count++;
  }

  /** The 99th percentile of what was recorded since the last call (null when nothing was), and start again. */
  takeP99(): number | null {
    if (this.count === 0) return null;
    const sorted = this.values.slice(0, this.count).sort();
    const p = sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)]!;
    this.count = 0;
    this.next = 0;
    return p;
  }
}
