/** push's key, handed to pushKeyOf. */
const KEY = new Float64Array(1);

/**
 * A binary min-heap of (key, value) pairs; ties pop in insertion order. Each entry may carry a
 * number for its owner's use (`hint`, -1 when none), handed to `retain`'s test.
 *
 * Allocates nothing in steady state: its entries are the first `size` of three parallel arrays
 * that only grow (to the most entries held at once); a pop or a `retain` leaves their capacity
 * in place for the next pushes (a value past `size` is cleared, so the heap keeps no reference).
 */
export class MinHeap<V> {
  private readonly keys: number[] = [];
  private readonly order: number[] = [];
  private readonly values: V[] = [];
  private readonly hints: number[] = [];
  private n = 0;
  private counter = 0;

  get size(): number {
    return this.n;
  }

  /** The entries the arrays have room for without growing (the most held at once). For tests. */
  get capacity(): number {
    return this.keys.length;
  }

  push(key: number, value: V, hint = -1): void {
    KEY[0] = key;
    this.pushKeyOf(KEY, 0, value, hint);
  }

  /**
   * `push` with the key read from `keys[at]`: a key beyond V8's small integers (a time in seconds
   * from 2038, or from 2004 where V8 compresses pointers) passed to a call the compiler did not
   * inline would be boxed, a new heap number.
   */
  pushKeyOf(keys: Float64Array, at: number, value: V, hint = -1): void {
    const key = keys[at]!;
    const i = this.n++;
    if (i === this.keys.length) {
      this.keys.push(key);
      this.order.push(this.counter++);
      this.values.push(value);
      this.hints.push(hint);
    } else {
      this.keys[i] = key;
      this.order[i] = this.counter++;
      this.values[i] = value;
      this.hints[i] = hint;
    }
    this.up(i);
  }

  peekKey(): number | undefined {
    return this.n === 0 ? undefined : this.keys[0];
  }

  pop(): V | undefined {
    if (this.n === 0) return undefined;
    const top = this.values[0];
    const last = --this.n;
    if (last > 0) this.move(last, 0);
    this.values[last] = undefined as V;
    if (last > 0) this.down(0);
    return top;
  }

  /**
   * Keep only the entries `keep` accepts, in place: O(n). The survivors are packed to the front
   * and made a heap again; each keeps its insertion rank, so they pop (and list: `entries`) in
   * the order they would have.
   */
  retain(keep: (key: number, value: V, hint: number) => boolean): void {
    const n = this.n;
    let m = 0;
    for (let i = 0; i < n; i++) {
      if (!keep(this.keys[i]!, this.values[i]!, this.hints[i]!)) continue;
      if (m !== i) this.move(i, m);
      m++;
    }
    for (let i = m; i < n; i++) this.values[i] = undefined as V;
    this.n = m;
    for (let i = (m >> 1) - 1; i >= 0; i--) this.down(i);
  }

  /** Entries by key, ties in insertion order (for snapshots; rebuilt by pushing them back). */
  entries(): [number, V][] {
    const out: [number, V][] = [];
    const idx = Array.from({ length: this.n }, (_, i) => i).sort((a, b) => this.keys[a]! - this.keys[b]! || this.order[a]! - this.order[b]!);
    for (const i of idx) out.push([this.keys[i]!, this.values[i]!]);
    return out;
  }

  private less(a: number, b: number): boolean {
    return this.keys[a]! < this.keys[b]! || (this.keys[a] === this.keys[b] && this.order[a]! < this.order[b]!);
  }

  /** Entry `from` copied over entry `to`. */
  private move(from: number, to: number): void {
    this.keys[to] = this.keys[from]!;
    this.order[to] = this.order[from]!;
    this.values[to] = this.values[from]!;
    this.hints[to] = this.hints[from]!;
  }

  private swap(a: number, b: number): void {
    const k = this.keys[a]!;
    const o = this.order[a]!;
    const v = this.values[a]!;
    const h = this.hints[a]!;
    this.move(b, a);
    this.keys[b] = k;
    this.order[b] = o;
    this.values[b] = v;
    this.hints[b] = h;
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
    const n = this.n;
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
