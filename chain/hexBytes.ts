/**
 * Hex and fixed-width integers written into and read from byte buffers by hand, for the
 * settlement stream's encoder (chain/items.ts): no intermediate strings or arrays per field.
 * Every writer checks its range and throws a RangeError naming the field.
 */
import type { Hex } from 'viem';

const NIBBLE = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) NIBBLE[48 + i] = i;
for (let i = 0; i < 6; i++) {
  NIBBLE[65 + i] = 10 + i;
  NIBBLE[97 + i] = 10 + i;
}

const HEX_BYTE: string[] = [];
for (let i = 0; i < 256; i++) HEX_BYTE.push(i.toString(16).padStart(2, '0'));

/** `value` as hex of exactly `bytes` bytes (0x-prefixed) into `out` at `at`. */
export function writeHex(out: Uint8Array, at: number, value: string, bytes: number, field: string): void {
  if (typeof value !== 'string' || value.length !== 2 + 2 * bytes || value[0] !== '0' || (value[1] !== 'x' && value[1] !== 'X')) {
    throw new RangeError(`${field}: expected 0x and ${2 * bytes} hex digits (${bytes} bytes)`);
  }
  for (let i = 0; i < bytes; i++) {
    const hi = value.charCodeAt(2 + 2 * i);
    const lo = value.charCodeAt(3 + 2 * i);
    const h = hi < 128 ? NIBBLE[hi]! : -1;
    const l = lo < 128 ? NIBBLE[lo]! : -1;
    if (h < 0 || l < 0) throw new RangeError(`${field}: not hex`);
    out[at + i] = (h << 4) | l;
  }
}

const TWO_64 = 1n << 64n;
const MASK_64 = TWO_64 - 1n;

/** An unsigned integer below 2^(8 x bytes), big-endian, `bytes` a multiple of 8 or at most 8. */
export function writeUint(view: DataView, at: number, value: bigint, bytes: number, field: string): void {
  if (typeof value !== 'bigint') throw new RangeError(`${field}: expected a bigint`);
  if (value < 0n) throw new RangeError(`${field}: negative (${value})`);
  if (value >> BigInt(8 * bytes) !== 0n) throw new RangeError(`${field}: beyond ${8 * bytes} bits (${value})`);
  writeBits(view, at, value, bytes);
}

/** A signed integer in [-2^(8 x bytes - 1), 2^(8 x bytes - 1)), two's complement, big-endian. */
export function writeInt(view: DataView, at: number, value: bigint, bytes: number, field: string): void {
  if (typeof value !== 'bigint') throw new RangeError(`${field}: expected a bigint`);
  const half = 1n << BigInt(8 * bytes - 1);
  if (value < -half || value >= half) throw new RangeError(`${field}: beyond int${8 * bytes} (${value})`);
  writeBits(view, at, value < 0n ? value + 2n * half : value, bytes);
}

function writeBits(view: DataView, at: number, value: bigint, bytes: number): void {
  if (bytes <= 8) {
    if (value <= 0xffffffffn) {
      for (let i = bytes - 1; i >= 0; i--) {
        // A value below 2^32 as a number: bytes beyond the fourth are zero.
        view.setUint8(at + i, i >= bytes - 4 ? (Number(value) >>> (8 * (bytes - 1 - i))) & 0xff : 0);
      }
      return;
    }
    let v = value;
    for (let i = bytes - 1; i >= 0; i--) {
      view.setUint8(at + i, Number(v & 0xffn));
      v >>= 8n;
    }
    return;
  }
  let v = value;
  for (let off = bytes - 8; off >= 0; off -= 8) {
    view.setBigUint64(at + off, off === 0 ? v : v & MASK_64);
    v >>= 64n;
    if (v === 0n) {
      for (let z = off - 8; z >= 0; z -= 8) view.setBigUint64(at + z, 0n);
      return;
    }
  }
}

/** An unsigned integer that is a JavaScript number (`tick`, `expiry`, indices) below 2^(8 x bytes). */
export function writeSmall(view: DataView, at: number, value: number, bytes: number, field: string): void {
  if (!Number.isSafeInteger(value) || value < 0 || value >= 2 ** (8 * bytes)) throw new RangeError(`${field}: not an integer in [0, 2^${8 * bytes}) (${value})`);
  let v = value;
  for (let i = bytes - 1; i >= 0; i--) {
    view.setUint8(at + i, v % 256);
    v = Math.floor(v / 256);
  }
}

/** Bytes as 0x-prefixed lowercase hex. */
export function hexOf(bytes: Uint8Array, from = 0, to = bytes.length): Hex {
  let s = '0x';
  for (let i = from; i < to; i++) s += HEX_BYTE[bytes[i]!]!;
  return s as Hex;
}

/** An unsigned big-endian integer of `bytes` bytes at `at`. */
export function readUint(bytes: Uint8Array, at: number, len: number): bigint {
  let v = 0n;
  for (let i = 0; i < len; i++) v = (v << 8n) | BigInt(bytes[at + i]!);
  return v;
}

/** A two's complement big-endian integer of `len` bytes at `at`. */
export function readInt(bytes: Uint8Array, at: number, len: number): bigint {
  const v = readUint(bytes, at, len);
  const half = 1n << BigInt(8 * len - 1);
  return v >= half ? v - 2n * half : v;
}
