/**
 * The codec's reader (format in codec.ts). Two things make it fast enough for recovery
 * (1,000,000 commands in under 5 s, bench/journal.ts):
 *
 * - Short ASCII strings (keys, enum-like values) are interned through a small direct-mapped
 *   cache, so a repeated key costs a hash and a compare instead of a new string.
 * - Objects are built by a per-shape factory: the sequence of keys seen so far is a path in
 *   a trie of interned keys, and each path ends in a generated `(s, b) => ({ k0: s[b], ... })`.
 *   An object literal gets its hidden class at once; assigning keys one by one to `{}` goes
 *   through megamorphic keyed stores, which profiling showed to be the largest cost.
 *   The trie is bounded; past the bound, and for very wide objects, keys are assigned one by one.
 *
 * Every read is bounds-checked against `end`, which may be smaller than the buffer (lmdb-js
 * hands out its shared read buffer with the value's length).
 */
import { CodecError, MAX_DEPTH } from './codecFormat.ts';

const SHORT_STRING = 24;
const CACHE_SIZE = 4096;
const cacheBytes: (Uint8Array | undefined)[] = new Array(CACHE_SIZE);
const cacheStrings: string[] = new Array(CACHE_SIZE);

/** Buffer's native slice, without toString's argument handling (present on Buffer.prototype since Node 0.x). */
type Utf8Sliceable = Buffer & { utf8Slice(start: number, end: number): string; latin1Slice(start: number, end: number): string };

function shortString(buf: Buffer, start: number, end: number): string {
  let h = end - start;
  for (let i = start; i < end; i++) {
    const c = buf[i]!;
    if (c >= 0x80) return (buf as Utf8Sliceable).utf8Slice(start, end);
    h = Math.imul(h ^ c, 0x01000193);
  }
  const slot = (h ^ (h >>> 15)) & (CACHE_SIZE - 1);
  const cached = cacheBytes[slot];
  if (cached !== undefined && cached.length === end - start) {
    let same = true;
    for (let i = 0, j = start; j < end; i++, j++) {
      if (cached[i] !== buf[j]) {
        same = false;
        break;
      }
    }
    if (same) return cacheStrings[slot]!;
  }
  const str = (buf as Utf8Sliceable).latin1Slice(start, end);
  cacheBytes[slot] = Uint8Array.prototype.slice.call(buf, start, end);
  cacheStrings[slot] = str;
  return str;
}

type Factory = (stack: unknown[], base: number) => Record<string, unknown>;
type ShapeNode = {
  /** The first key seen after this node, its UTF-8 bytes, and the node it leads to (the common case). */
  key: string | null;
  keyBytes: Uint8Array | null;
  child: ShapeNode | null;
  /** Other keys seen after this node. */
  more: Map<string, ShapeNode> | null;
  keys: string[];
  factory: Factory | null;
};

const MAX_SHAPE_KEYS = 32;
const MAX_SHAPE_NODES = 8192;
let shapeNodes = 0;
const shapeRoot: ShapeNode = { key: null, keyBytes: null, child: null, more: null, keys: [], factory: null };

/** The trie node after `key`, or null when the trie is full. */
function nextShape(node: ShapeNode, key: string): ShapeNode | null {
  if (node.key === key) return node.child;
  const found = node.more?.get(key);
  if (found !== undefined) return found;
  if (shapeNodes >= MAX_SHAPE_NODES || key === '__proto__') return null;
  shapeNodes++;
  const created: ShapeNode = { key: null, keyBytes: null, child: null, more: null, keys: [...node.keys, key], factory: null };
  const bytes = Buffer.from(key, 'utf8');
  // The fast path reads the length as one varuint byte, so it only covers keys under 128 bytes.
  if (node.child === null && bytes.length < 0x80) {
    node.key = key;
    node.keyBytes = bytes;
    node.child = created;
  } else {
    (node.more ??= new Map()).set(key, created);
  }
  return created;
}

function factoryFor(node: ShapeNode): Factory {
  if (node.factory === null) {
    const body = node.keys.map((k, i) => `${JSON.stringify(k)}: s[b + ${i}]`).join(', ');
    node.factory = new Function('s', 'b', `return { ${body} };`) as Factory;
  }
  return node.factory;
}

class Reader {
  buf: Buffer = Buffer.alloc(0);
  pos = 0;
  end = 0;
  /** Values of objects being built, nested objects above their parents. */
  stack: unknown[] = [];
  sp = 0;

  need(n: number): void {
    if (this.pos + n > this.end) throw new CodecError(`truncated input at byte ${this.pos}`);
  }

  varuint(): number {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 8; i++) {
      this.need(1);
      const b = this.buf[this.pos++]!;
      result += (b & 0x7f) * scale;
      if (b < 0x80) return result;
      scale *= 128;
    }
    throw new CodecError(`varuint too long at byte ${this.pos}`);
  }

  utf8(): string {
    const len = this.varuint();
    const start = this.pos;
    const end = start + len;
    if (end > this.end) throw new CodecError(`truncated input at byte ${start}`);
    this.pos = end;
    if (len <= SHORT_STRING) return shortString(this.buf, start, end);
    return (this.buf as Utf8Sliceable).utf8Slice(start, end);
  }

  object(depth: number): Record<string, unknown> {
    const n = this.varuint();
    if (n > this.end - this.pos) throw new CodecError(`object size ${n} exceeds input`);
    if (n > MAX_SHAPE_KEYS) return this.objectByKeys({}, n, depth, null);
    const base = this.sp;
    let node: ShapeNode = shapeRoot;
    const buf = this.buf;
    for (let i = 0; i < n; i++) {
      // Fast path: the key expected after this node, recognised by its bytes (no string work).
      const expected = node.keyBytes;
      if (expected !== null && buf[this.pos] === expected.length && this.pos + 1 + expected.length <= this.end) {
        let same = true;
        for (let j = 0, k = this.pos + 1; j < expected.length; j++, k++) {
          if (buf[k] !== expected[j]) {
            same = false;
            break;
          }
        }
        if (same) {
          this.pos += 1 + expected.length;
          node = node.child!;
          this.stack[this.sp++] = this.value(depth + 1);
          continue;
        }
      }
      const key = this.utf8();
      const next = nextShape(node, key);
      if (next === null) {
        // Trie full or an odd key: finish this object the slow way, starting from what was read.
        const partial: Record<string, unknown> = {};
        for (let j = 0; j < i; j++) partial[node.keys[j]!] = this.stack[base + j];
        this.release(base);
        return this.objectByKeys(partial, n - i, depth, key);
      }
      node = next;
      this.stack[this.sp++] = this.value(depth + 1);
    }
    const out = factoryFor(node)(this.stack, base);
    this.release(base);
    return out;
  }

  /** Pops the stack back to `base`, dropping references so decoded values can be collected. */
  release(base: number): void {
    for (let i = base; i < this.sp; i++) this.stack[i] = undefined;
    this.sp = base;
  }

  objectByKeys(out: Record<string, unknown>, count: number, depth: number, firstKey: string | null): Record<string, unknown> {
    for (let i = 0; i < count; i++) {
      const key = i === 0 && firstKey !== null ? firstKey : this.utf8();
      const v = this.value(depth + 1);
      // A stored "__proto__" key must come back as data, never as a prototype.
      if (key === '__proto__') Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
      else out[key] = v;
    }
    return out;
  }

  /** Case labels are literals (Tag values), not `Tag.x`: a switch over property loads compiles to a chain of compares, over literals to a jump table. */
  value(depth: number): unknown {
    if (this.pos >= this.end) throw new CodecError(`truncated input at byte ${this.pos}`);
    const tag = this.buf[this.pos++]!;
    switch (tag) {
      case 0x00: // Tag.null
        return null;
      case 0x01: // Tag.false
        return false;
      case 0x02: // Tag.true
        return true;
      case 0x03: // Tag.undefined
        return undefined;
      case 0x04: // Tag.uint8
        this.need(1);
        return this.buf[this.pos++]!;
      case 0x05: { // Tag.int32
        this.need(4);
        const n = this.buf.readInt32BE(this.pos);
        this.pos += 4;
        return n;
      }
      case 0x06: { // Tag.float64
        this.need(8);
        const n = this.buf.readDoubleBE(this.pos);
        this.pos += 8;
        return n;
      }
      case 0x07: // Tag.string
        return this.utf8();
      case 0x0a: { // Tag.int64
        this.need(8);
        const hi = this.buf.readInt32BE(this.pos);
        const lo = this.buf.readUInt32BE(this.pos + 4);
        this.pos += 8;
        // Within ±2^53 the number is exact, and one BigInt() is much cheaper than shifts.
        if (hi >= -0x200000 && hi < 0x200000) return BigInt(hi * 0x100000000 + lo);
        return (BigInt(hi) << 32n) | BigInt(lo);
      }
      case 0x08: // Tag.bigPositive
      case 0x09: { // Tag.bigNegative
        const len = this.varuint();
        if (len === 0) throw new CodecError('empty bigint magnitude');
        this.need(len);
        const magnitude = BigInt('0x' + this.buf.toString('hex', this.pos, this.pos + len));
        this.pos += len;
        return tag === 0x09 ? -magnitude : magnitude;
      }
      case 0x0b: { // Tag.array
        if (depth >= MAX_DEPTH) throw new CodecError('nesting too deep');
        const n = this.varuint();
        // Every element takes at least one byte: a larger count is corruption, not a reason to allocate.
        if (n > this.end - this.pos) throw new CodecError(`array length ${n} exceeds input`);
        const out = new Array<unknown>(n);
        for (let i = 0; i < n; i++) out[i] = this.value(depth + 1);
        return out;
      }
      case 0x0c: // Tag.object
        if (depth >= MAX_DEPTH) throw new CodecError('nesting too deep');
        return this.object(depth);
      case 0x0d: { // Tag.bytes
        const len = this.varuint();
        this.need(len);
        const out = new Uint8Array(len);
        out.set(this.buf.subarray(this.pos, this.pos + len));
        this.pos += len;
        return out;
      }
      default:
        throw new CodecError(`unknown tag 0x${tag.toString(16)} at byte ${this.pos - 1}`);
    }
  }
}

const reader = new Reader();
const EMPTY = Buffer.alloc(0);

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Decode the one value that fills bytes[start, end). Throws CodecError (or RangeError) on malformed input. */
export function decodeRange(bytes: Uint8Array, start: number, end: number): unknown {
  // Re-entrancy cannot happen (decoding calls no user code), so one reader is reused.
  reader.buf = asBuffer(bytes);
  reader.pos = start;
  reader.end = end;
  reader.sp = 0;
  try {
    const v = reader.value(0);
    if (reader.pos !== end) throw new CodecError(`${end - reader.pos} trailing bytes`);
    return v;
  } catch (e) {
    reader.stack.length = 0;
    throw e;
  } finally {
    reader.buf = EMPTY;
  }
}
