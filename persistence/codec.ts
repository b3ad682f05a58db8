/**
 * Binary codec for everything persistence stores: commands, snapshots, store records.
 *
 * Why our own and not msgpackr (lmdb-js's default): msgpackr throws on a bigint beyond 64
 * bits unless told to turn it into a float or a string, and its bigint extension stops at
 * about 1,000 bits; money here is bigint of any size and the journal must round-trip
 * exactly for replay to give the same state hash. The format is small and fixed:
 *
 *   value  := tag payload
 *   null 0x00 | false 0x01 | true 0x02 | undefined 0x03
 *   uint8 0x04 u8 | int32 0x05 i32be | float64 0x06 f64be        (numbers; -0, NaN, ±Infinity kept)
 *   string 0x07 varuint(byteLength) utf8
 *   bigint >= 0 outside int64: 0x08 varuint(n) magnitude-be | < 0: 0x09 varuint(n) magnitude-be
 *   int64 0x0a i64be                                              (bigints in [-2^63, 2^63))
 *   array 0x0b varuint(count) value*
 *   object 0x0c varuint(count) (varuint(byteLength) utf8-key value)*  (own enumerable keys, in order)
 *   bytes 0x0d varuint(length) raw                                 (Uint8Array)
 *
 * Encoding is canonical for a given value (same value, same bytes), which keeps snapshot
 * bytes comparable. Anything that is not plain data (functions, symbols, Map, Date, class
 * instances, cycles) is a programmer error and throws a TypeError.
 */
import { CodecError, MAX_DEPTH, Tag } from './codecFormat.ts';
import { decodeRange } from './codecReader.ts';

export { CodecError } from './codecFormat.ts';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** A growable write buffer. One module-level instance is reused: encoding is synchronous and never re-entered. */
class Writer {
  buf: Buffer = Buffer.allocUnsafe(64 * 1024);
  pos = 0;

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  byte(b: number): void {
    this.ensure(1);
    this.buf[this.pos++] = b;
  }

  varuint(n: number): void {
    this.ensure(10);
    while (n >= 0x80) {
      this.buf[this.pos++] = (n & 0x7f) | 0x80;
      n = Math.floor(n / 128);
    }
    this.buf[this.pos++] = n;
  }

  /** UTF-8 with a length prefix; short ASCII strings (most keys and enum-like values) skip the generic encoder. */
  utf8(s: string): void {
    const len = s.length;
    if (len < 64) {
      this.ensure(1 + len);
      const start = this.pos + 1;
      let i = 0;
      for (; i < len; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        this.buf[start + i] = c;
      }
      if (i === len) {
        this.buf[this.pos] = len;
        this.pos = start + len;
        return;
      }
    }
    const bytes = Buffer.byteLength(s, 'utf8');
    this.varuint(bytes);
    this.ensure(bytes);
    this.buf.write(s, this.pos, bytes, 'utf8');
    this.pos += bytes;
  }

  value(v: unknown, depth: number): void {
    switch (typeof v) {
      case 'string':
        this.byte(Tag.string);
        this.utf8(v);
        return;
      case 'number':
        this.number(v);
        return;
      case 'boolean':
        this.byte(v ? Tag.true : Tag.false);
        return;
      case 'bigint':
        this.bigint(v);
        return;
      case 'undefined':
        this.byte(Tag.undefined);
        return;
      case 'object':
        if (v === null) {
          this.byte(Tag.null);
          return;
        }
        if (depth >= MAX_DEPTH) throw new TypeError(`codec: nesting deeper than ${MAX_DEPTH} (a cycle?)`);
        if (Array.isArray(v)) {
          this.byte(Tag.array);
          this.varuint(v.length);
          for (let i = 0; i < v.length; i++) this.value(v[i], depth + 1);
          return;
        }
        if (v instanceof Uint8Array) {
          this.byte(Tag.bytes);
          this.varuint(v.length);
          this.ensure(v.length);
          this.buf.set(v, this.pos);
          this.pos += v.length;
          return;
        }
        {
          const proto: unknown = Object.getPrototypeOf(v);
          if (proto !== Object.prototype && proto !== null) {
            const name = (v as { constructor?: { name?: string } }).constructor?.name ?? 'unknown';
            throw new TypeError(`codec: cannot encode an instance of ${name}; commands and records are plain data`);
          }
        }
        {
          // for-in instead of Object.keys: no key array per object. The prototype is
          // Object.prototype or null (checked above), so for-in sees own enumerable keys only.
          // The count is written after the entries, in the byte reserved here, when it fits.
          this.ensure(2);
          this.buf[this.pos++] = Tag.object;
          const countAt = this.pos++;
          let count = 0;
          for (const k in v as Record<string, unknown>) {
            this.utf8(k);
            this.value((v as Record<string, unknown>)[k], depth + 1);
            count++;
          }
          if (count < 0x80) this.buf[countAt] = count;
          else this.widenCount(countAt, count);
        }
        return;
      default:
        throw new TypeError(`codec: cannot encode a ${typeof v}`);
    }
  }

  /** The count did not fit the one byte reserved at `at`: shift the entries to make room for its varuint. */
  widenCount(at: number, count: number): void {
    let bytes = 1;
    for (let c = count; c >= 0x80; c = Math.floor(c / 128)) bytes++;
    this.ensure(bytes - 1);
    this.buf.copy(this.buf, at + bytes, at + 1, this.pos);
    this.pos += bytes - 1;
    let c = count;
    for (let i = 0; i < bytes; i++) {
      this.buf[at + i] = i < bytes - 1 ? (c & 0x7f) | 0x80 : c;
      c = Math.floor(c / 128);
    }
  }

  number(n: number): void {
    if (Number.isInteger(n) && n >= -0x80000000 && n <= 0x7fffffff && !(n === 0 && 1 / n < 0)) {
      if (n >= 0 && n < 256) {
        this.ensure(2);
        this.buf[this.pos++] = Tag.uint8;
        this.buf[this.pos++] = n;
      } else {
        this.ensure(5);
        this.buf[this.pos++] = Tag.int32;
        this.buf.writeInt32BE(n, this.pos);
        this.pos += 4;
      }
      return;
    }
    this.ensure(9);
    this.buf[this.pos++] = Tag.float64;
    this.buf.writeDoubleBE(n, this.pos);
    this.pos += 8;
  }

  bigint(n: bigint): void {
    if (n >= INT64_MIN && n <= INT64_MAX) {
      this.ensure(9);
      this.buf[this.pos++] = Tag.int64;
      if (n >= -SAFE && n <= SAFE) {
        const x = Number(n);
        const hi = Math.floor(x / 0x100000000);
        this.buf.writeInt32BE(hi, this.pos);
        this.buf.writeUInt32BE(x - hi * 0x100000000, this.pos + 4);
      } else {
        this.buf.writeBigInt64BE(n, this.pos);
      }
      this.pos += 8;
      return;
    }
    const negative = n < 0n;
    let hex = (negative ? -n : n).toString(16);
    if (hex.length & 1) hex = '0' + hex;
    const len = hex.length >> 1;
    this.byte(negative ? Tag.bigNegative : Tag.bigPositive);
    this.varuint(len);
    this.ensure(len);
    this.buf.write(hex, this.pos, len, 'hex');
    this.pos += len;
  }
}

const writer = new Writer();

/**
 * Encode `value` after `headerBytes` reserved zero bytes (callers put a checksum there
 * without a second copy). Returns a fresh Buffer the caller owns.
 */
export function encodeWithHeader(value: unknown, headerBytes: number): Buffer {
  writer.pos = 0;
  writer.ensure(headerBytes);
  writer.buf.fill(0, 0, headerBytes);
  writer.pos = headerBytes;
  try {
    writer.value(value, 0);
  } catch (e) {
    writer.pos = 0;
    throw e;
  }
  const out = Buffer.allocUnsafe(writer.pos);
  writer.buf.copy(out, 0, 0, writer.pos);
  // Keep one huge snapshot from pinning a huge scratch buffer for the process lifetime.
  if (writer.buf.length > 16 * 1024 * 1024) writer.buf = Buffer.allocUnsafe(64 * 1024);
  writer.pos = 0;
  return out;
}

export function encodeValue(value: unknown): Buffer {
  return encodeWithHeader(value, 0);
}

/** Decode one value that fills `bytes` from `start` to the end. Throws CodecError on malformed input. */
export function decodeValue(bytes: Uint8Array, start = 0): unknown {
  return decodeRange(bytes, start, bytes.length);
}

/** Like decodeValue, but corrupt input is an expected outcome (recovery), so it is returned, not thrown. */
export function tryDecodeValue(bytes: Uint8Array, start = 0, end = bytes.length): { ok: true; value: unknown } | { ok: false; reason: string } {
  try {
    return { ok: true, value: decodeRange(bytes, start, end) };
  } catch (e) {
    if (e instanceof CodecError || e instanceof RangeError || e instanceof SyntaxError) return { ok: false, reason: e.message };
    throw e;
  }
}
