/**
 * Writers of single 32-byte ABI words into a reused buffer: the fixed-field encoding of
 * the fast EIP-712 path. Every writer validates its value against the Solidity type and
 * returns false instead of writing something viem would have refused to encode (viem's
 * `hashTypedData` throws on those): a digest must never exist for a message a client's
 * wallet could not have signed.
 */

const MAX_U64 = (1n << 64n) - 1n;

/** ASCII code -> nibble value, -1 for a non-hex character. */
const NIBBLE = new Int8Array(128).fill(-1);
for (let c = 0; c < 10; c++) NIBBLE[48 + c] = c;
for (let c = 0; c < 6; c++) {
  NIBBLE[97 + c] = 10 + c;
  NIBBLE[65 + c] = 10 + c;
}

/**
 * Decode `bytes` bytes of hex (no prefix) starting at `text[from]` into `buf[off..]`.
 * False on any non-hex character.
 */
export function decodeHexInto(text: string, from: number, buf: Uint8Array, off: number, bytes: number): boolean {
  for (let i = 0, p = from; i < bytes; i++, p += 2) {
    const hi = text.charCodeAt(p);
    const lo = text.charCodeAt(p + 1);
    // charCodeAt is NaN past the end and may exceed 127: both fail the lookup below.
    const h = hi < 128 ? NIBBLE[hi]! : -1;
    const l = lo < 128 ? NIBBLE[lo]! : -1;
    if (h < 0 || l < 0) return false;
    buf[off + i] = (h << 4) | l;
  }
  return true;
}

/** True when `text` starts with the lowercase `0x` prefix viem requires of Hex values. */
export function has0x(text: string): boolean {
  return text.charCodeAt(0) === 48 && text.charCodeAt(1) === 120;
}

/** A `bytes32` given as `0x` + 64 hex characters. */
export function writeBytes32(buf: Uint8Array, off: number, value: unknown): boolean {
  if (typeof value !== 'string' || value.length !== 66 || !has0x(value)) return false;
  return decodeHexInto(value, 2, buf, off, 32);
}

/**
 * An `address` as `0x` + 40 hex characters, left-padded to a word. Mixed case is not
 * checked against EIP-55 here: the checksum protects humans typing addresses, and the
 * gateway decides whether to insist on it at its edge.
 */
export function writeAddress(buf: Uint8Array, off: number, value: unknown): boolean {
  if (typeof value !== 'string' || value.length !== 42 || !has0x(value)) return false;
  buf.fill(0, off, off + 12);
  return decodeHexInto(value, 2, buf, off + 12, 20);
}

export function writeBool(buf: Uint8Array, off: number, value: unknown): boolean {
  if (typeof value !== 'boolean') return false;
  buf.fill(0, off, off + 31);
  buf[off + 31] = value ? 1 : 0;
  return true;
}

/**
 * An unsigned integer of at most 2^256 - 1 given as a bigint, checked against `max`
 * (2^bits - 1). Values that fit 64 bits (nearly all nonces, deadlines and portfolio ids)
 * take one `setBigUint64`; wider ones go through their hex text.
 */
export function writeUint(buf: Uint8Array, view: DataView, off: number, value: unknown, max: bigint): boolean {
  if (typeof value !== 'bigint' || value < 0n || value > max) return false;
  if (value <= MAX_U64) {
    buf.fill(0, off, off + 24);
    view.setBigUint64(off + 24, value);
    return true;
  }
  return decodeHexInto(value.toString(16).padStart(64, '0'), 0, buf, off, 32);
}

/**
 * A narrow unsigned integer (at most 48 bits; `uint32` here) given as a number, as viem
 * infers it; a bigint in range is accepted too since viem's encoder accepts both.
 */
export function writeSmallUint(buf: Uint8Array, view: DataView, off: number, value: unknown, max: number): boolean {
  let n: number;
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < 0 || value > max) return false;
    n = value;
  } else if (typeof value === 'bigint') {
    if (value < 0n || value > BigInt(max)) return false;
    n = Number(value);
  } else {
    return false;
  }
  buf.fill(0, off, off + 24);
  // Two 32-bit halves: exact for the <= 48-bit integers this writer is for.
  view.setUint32(off + 24, Math.floor(n / 0x1_0000_0000));
  view.setUint32(off + 28, n >>> 0);
  return true;
}
