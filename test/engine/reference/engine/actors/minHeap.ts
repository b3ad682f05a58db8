/** A binary min-heap of (key, value) pairs; ties pop in insertion order. */
export class MinHeap<V> {
  private keys: number[] = [];
  private order: number[] = [];
  private values: V[] = [];
  private counter = 0;

  get size(): number {
    return this.keys.length;
  }

  push(key: number, value: V): void {
    this.keys.push(key);
    this.order.push(this.counter++);
    this.values.push(value);
    this.up(this.keys.length - 1);
  }

  peekKey(): number | undefined {
    return this.keys[0];
  }

  pop(): V | undefined {
    if (this.keys.length === 0) return undefined;
    const top = this.values[0];
    const lastKey = this.keys.pop()!;
    const lastOrder = this.order.pop()!;
    const lastValue = this.values.pop()!;
    if (this.keys.length > 0) {
      this.keys[0] = lastKey;
      this.order[0] = lastOrder;
      this.values[0] = lastValue;
      this.down(0);
    }
    return top;
  }

  /**
   * Keep only the entries `keep` accepts: O(n log n), ties keep their insertion order (a
   * sorted array is a heap, so the survivors are stored sorted).
   */
  retain(keep: (key: number, value: V) => boolean): void {
    const idx: number[] = [];
    for (let i = 0; i < this.keys.length; i++) if (keep(this.keys[i]!, this.values[i]!)) idx.push(i);
    idx.sort((a, b) => this.keys[a]! - this.keys[b]! || this.order[a]! - this.order[b]!);
    const keys = idx.map((i) => this.keys[i]!);
    const order = idx.map((i) => this.order[i]!);
    const values = idx.map((i) => this.values[i]!);
    this.keys = keys;
    this.order = order;
    this.values = values;
  }

  /** Entries in heap-array order (for snapshots; rebuilt by pushing them back). */
  entries(): [number, V][] {
    const out: [number, V][] = [];
    const idx = this.keys.map((_, i) => i).sort((a, b) => this.keys[a]! - this.keys[b]! || this.order[a]! - this.order[b]!);
    for (const i of idx) out.push([this.keys[i]!, this.values[i]!]);
    return out;
  }

  private less(a: number, b: number): boolean {
    return this.keys[a]! < this.keys[b]! || (this.keys[a] === this.keys[b] && this.order[a]! < this.order[b]!);
  }

  private swap(a: number, b: number): void {
    [this.keys[a], this.keys[b]] = [this.keys[b]!, this.keys[a]!];
    [this.order[a], this.order[b]] = [this.order[b]!, this.order[a]!];
    [this.values[a], this.values[b]] = [this.values[b]!, this.values[a]!];
  }

  private up(i: number): void {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(i, p)) return;
      this.swap(i, p);
      i = p;
    }
  }

  private down(i: number): void {
    const n = this.keys.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && this.less(l, m)) m = l;
      if (r < n && this.less(r, m)) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }
}
