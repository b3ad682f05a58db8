/**
 * Open order id -> its slot (actors/openOrders.ts), without a JS Map: orders rest and leave all
 * the time, and a Map's deleted entries count against its capacity until it rebuilds its table,
 * a new table every few thousand inserts under churn. Here nothing is allocated per entry or per
 * operation; storage grows (by doubling) only when more ids are held at once than ever before.
 *
 * Layout. An id is an entry: a dense number with its key (a plain array of strings), value,
 * hash and insertion-order links in typed arrays; a removed entry goes on a free list (chained
 * through `next`) and is reused. The table is open addressing with linear probing over entry
 * numbers (+1, 0 = empty) at most half full; deletion shifts the following run back (no
 * tombstones), so probes stay short after any number of insert/delete cycles and the table is
 * never rebuilt for churn. A probe compares the stored 32-bit hash before the string, and
 * growing the table re-places entries by their stored hashes (no string is hashed again).
 *
 * Order. Iteration (`entries`, `keys`, `values`, for-of) follows a doubly linked list through
 * the entries in insertion order, as a Map's does; a `set` of a held id keeps its place. It never
 * reads the table, so the hash (and its seed) cannot change any output: a snapshot lists
 * `[...orderIndex]` (snapshot.ts), and it is byte-identical whatever the seed.
 *
 * The hash. Order ids are client-influenced (an order's id is the EIP-712 hash of what its owner
 * signed, and anyone can sign many variants), so with a fixed, public hash a client could grind
 * ids that land in one bucket and make every probe walk a long run (a few hundred thousand
 * keccaks per id for a table of 2^17). So every character of the key goes through a
 * murmur3-style mix (two UTF-16 units per 32-bit word, then the murmur3 finaliser) started from
 * a 32-bit seed the client cannot know. The engine draws no random numbers (architecture.md rule
 * 1): the seed comes from outside, `VenueOptions.idHashSeed` (venue.ts), which the gateway draws
 * per process, as V8 seeds its own string hashes; it is in no snapshot and in no event. Without
 * one (tests, tools) the seed is 0: the same behaviour, only predictable.
 *
 * The last key hashed and its hash are kept: a place asks `has` then `set` and a cancel or fill
 * `get` then `delete` of the same id string, so the second call compares one reference instead of
 * hashing 66 characters again.
 */
import type { Hex } from '../domain/hex.ts';

const INITIAL_ENTRIES = 16;

export class OrderIdIndex<K extends string = Hex> {
  /** Buckets: entry number + 1, 0 for empty; twice the entry capacity. */
  private table: Int32Array;
  private mask: number;
  /** Per entry: its key ('' when free), value, hash, and neighbours in insertion order (-1: none). */
  private readonly keyOf: K[];
  private valueOf: Int32Array;
  private hashOf: Int32Array;
  private prev: Int32Array;
  private next: Int32Array;
  private head = -1;
  private tail = -1;
  /** Removed entries, chained through `next`; entries never used start at `used`. */
  private freeHead = -1;
  private used = 0;
  private count = 0;
  private grown = 0;
  private lastKey: K | null = null;
  private lastHash = 0;

  /** `seed`: any 32-bit integer, secret from clients (see the header); it changes no output. */
  constructor(private readonly seed = 0) {
    this.table = new Int32Array(2 * INITIAL_ENTRIES);
    this.mask = 2 * INITIAL_ENTRIES - 1;
    this.keyOf = [];
    padKeys(this.keyOf, INITIAL_ENTRIES);
    this.valueOf = new Int32Array(INITIAL_ENTRIES);
    this.hashOf = new Int32Array(INITIAL_ENTRIES);
    this.prev = new Int32Array(INITIAL_ENTRIES);
    this.next = new Int32Array(INITIAL_ENTRIES);
  }

  get size(): number {
    return this.count;
  }

  /** How many times the storage was made larger (for the test that churn allocates none). */
  storageMade(): number {
    return this.grown;
  }

  get(key: K): number | undefined {
    const e = this.find(key, this.hash(key));
    return e < 0 ? undefined : this.valueOf[e]!;
  }

  has(key: K): boolean {
    return this.find(key, this.hash(key)) >= 0;
  }

  /** Hold `value` (an int32) under `key`; a key already held keeps its place in the order (a Map's `set`). */
  set(key: K, value: number): this {
    const h = this.hash(key);
    const held = this.find(key, h);
    if (held >= 0) {
      this.valueOf[held] = value;
      return this;
    }
    if (this.count === this.valueOf.length) this.grow();
    let e = this.freeHead;
    if (e >= 0) this.freeHead = this.next[e]!;
    else e = this.used++;
    this.keyOf[e] = key;
    this.valueOf[e] = value;
    this.hashOf[e] = h;
    this.prev[e] = this.tail;
    this.next[e] = -1;
    if (this.tail >= 0) this.next[this.tail] = e;
    else this.head = e;
    this.tail = e;
    this.place(e, h);
    this.count++;
    return this;
  }

  /** Remove `key`; whether it was held. */
  delete(key: K): boolean {
    const h = this.hash(key);
    const table = this.table;
    const mask = this.mask;
    let i = h & mask;
    let e: number;
    for (;;) {
      e = table[i]! - 1;
      if (e < 0) return false;
      if (this.hashOf[e] === h && this.keyOf[e] === key) break;
      i = (i + 1) & mask;
    }
    // Backward-shift deletion: move back every entry of the run after the hole whose home
    // bucket does not lie cyclically in (hole, j], so that no probe sequence is broken.
    let hole = i;
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      const f = table[j]! - 1;
      if (f < 0) break;
      const home = this.hashOf[f]! & mask;
      const stays = hole <= j ? home > hole && home <= j : home > hole || home <= j;
      if (!stays) {
        table[hole] = f + 1;
        hole = j;
      }
    }
    table[hole] = 0;
    const p = this.prev[e]!;
    const n = this.next[e]!;
    if (p >= 0) this.next[p] = n;
    else this.head = n;
    if (n >= 0) this.prev[n] = p;
    else this.tail = p;
    this.keyOf[e] = '' as K;
    this.next[e] = this.freeHead;
    this.freeHead = e;
    this.count--;
    return true;
  }

  /** `[id, slot]` in insertion order. Allocates (a generator and a pair per entry): snapshots and checks, not the hot path. */
  *entries(): IterableIterator<[K, number]> {
    for (let e = this.head; e >= 0; e = this.next[e]!) yield [this.keyOf[e]!, this.valueOf[e]!];
  }

  *keys(): IterableIterator<K> {
    for (let e = this.head; e >= 0; e = this.next[e]!) yield this.keyOf[e]!;
  }

  *values(): IterableIterator<number> {
    for (let e = this.head; e >= 0; e = this.next[e]!) yield this.valueOf[e]!;
  }

  [Symbol.iterator](): IterableIterator<[K, number]> {
    return this.entries();
  }

  /** Check the table against the entries: the first problem, or null. For tests. */
  verify(): string | null {
    let listed = 0;
    for (let e = this.head, before = -1; e >= 0; before = e, e = this.next[e]!) {
      if (this.prev[e] !== before) return `entry ${e}: its prev link is not the entry before it`;
      if (this.find(this.keyOf[e]!, this.hashOf[e]!) !== e) return `entry ${e} (${this.keyOf[e]}): not found from its hash`;
      if (this.hashOf[e] !== this.hash(this.keyOf[e]!)) return `entry ${e}: stored hash differs`;
      if (++listed > this.count) return 'the order list is longer than the size';
    }
    if (listed !== this.count) return `${listed} entries listed, size ${this.count}`;
    let inTable = 0;
    for (let i = 0; i <= this.mask; i++) if (this.table[i] !== 0) inTable++;
    return inTable === this.count ? null : `${inTable} buckets used, size ${this.count}`;
  }

  /** The entry holding `key` (whose hash is `h`), or -1. */
  private find(key: K, h: number): number {
    const table = this.table;
    const mask = this.mask;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const e = table[i]! - 1;
      if (e < 0 || (this.hashOf[e] === h && this.keyOf[e] === key)) return e;
    }
  }

  /** Put entry `e` (hash `h`, not in the table) into the first empty bucket from its home. */
  private place(e: number, h: number): void {
    const table = this.table;
    const mask = this.mask;
    let i = h & mask;
    while (table[i] !== 0) i = (i + 1) & mask;
    table[i] = e + 1;
  }

  /** Double the entries and the table; the entries keep their numbers (and so the order list), the table is refilled from the stored hashes. */
  private grow(): void {
    const cap = this.valueOf.length * 2;
    padKeys(this.keyOf, cap);
    this.valueOf = widened(this.valueOf, cap);
    this.hashOf = widened(this.hashOf, cap);
    this.prev = widened(this.prev, cap);
    this.next = widened(this.next, cap);
    this.table = new Int32Array(2 * cap);
    this.mask = 2 * cap - 1;
    for (let e = this.head; e >= 0; e = this.next[e]!) this.place(e, this.hashOf[e]!);
    this.grown++;
  }

  /** The key's hash: murmur3 over its UTF-16 units two at a time, from the seed; the last key's is kept. */
  private hash(key: K): number {
    if (key === this.lastKey) return this.lastHash;
    let h = this.seed | 0;
    const n = key.length;
    let i = 0;
    for (; i + 1 < n; i += 2) h = mixWord(h, key.charCodeAt(i) | (key.charCodeAt(i + 1) << 16));
    if (i < n) h = mixWord(h, key.charCodeAt(i));
    h ^= n;
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
    this.lastKey = key;
    this.lastHash = h;
    return h;
  }
}

/** murmur3's step for one 32-bit word `k` into the running hash `h`. */
function mixWord(h: number, k: number): number {
  k = Math.imul(k, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** Pad the keys with '' to `cap` by pushes, so the array stays a packed array of strings. */
function padKeys(keys: string[], cap: number): void {
  while (keys.length < cap) keys.push('');
}

function widened(a: Int32Array, cap: number): Int32Array {
  const b = new Int32Array(cap);
  b.set(a);
  return b;
}
