/**
 * Parsing of client signatures for recovery, with the venue's acceptance rules
 * (docs/signatures.md):
 *
 * - 65-byte `r || s || v` hex, v = 27/28 (what wallets produce) or 0/1 (raw yParity);
 *   any other v (EIP-155 style 35+, 2, 3, ...) is invalid.
 * - 64-byte EIP-2098 compact `r || yParityAndS` hex is accepted too (viem accepts it);
 *   `canonicalSignature` expands it to the 65-byte form relay calldata carries, since
 *   OpenZeppelin's ECDSA (v5) on chain takes 65 bytes only.
 * - r and s must be in [1, n-1], and s must be in the lower half (s <= n/2): a high-s
 *   signature is the malleable twin of a valid one (same signer, different bytes), which
 *   OpenZeppelin's ECDSA rejects and so do we, so that one order has one signature.
 *
 * Bad input is a returned code, never an exception: signatures come from clients.
 */
import type { Hex } from 'viem';
import { decodeHexInto, has0x } from './eip712/abiWords.ts';

/** secp256k1 group order n, and floor(n / 2), big-endian. */
const N = Uint8Array.from(Buffer.from('fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141', 'hex'));
const HALF_N = Uint8Array.from(Buffer.from('7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0', 'hex'));

/** Why a signature was refused; the non-negative results of `parseSignatureInto` are recovery ids. */
export const SignatureError = {
  format: -1,
  v: -2,
  r: -3,
  s: -4,
  highS: -5,
} as const;
export type SignatureErrorCode = (typeof SignatureError)[keyof typeof SignatureError];

export const signatureErrorMessage: Readonly<Record<SignatureErrorCode, string>> = {
  [SignatureError.format]: 'signature: expected 0x-prefixed hex of 65 bytes (r, s, v) or 64 bytes (EIP-2098)',
  [SignatureError.v]: 'signature: v must be 27, 28, 0 or 1',
  [SignatureError.r]: 'signature: r out of range',
  [SignatureError.s]: 'signature: s out of range',
  [SignatureError.highS]: 'signature: high s (malleable) is rejected; use the lower-s form',
};

/** Compare the 32 bytes at `buf[off..]` with `ref` as big-endian integers. */
function compare32(buf: Uint8Array, off: number, ref: Uint8Array): number {
  for (let i = 0; i < 32; i++) {
    const d = buf[off + i]! - ref[i]!;
    if (d !== 0) return d;
  }
  return 0;
}

function isZero32(buf: Uint8Array, off: number): boolean {
  for (let i = 0; i < 32; i++) if (buf[off + i] !== 0) return false;
  return true;
}

/**
 * Decode `signature` into `out64` as r || s (64 bytes, low s) and return its recovery id
 * (0 or 1), or a negative `SignatureError` code.
 */
export function parseSignatureInto(signature: unknown, out64: Uint8Array): number {
  if (typeof signature !== 'string' || !has0x(signature)) return SignatureError.format;
  let recid: number;
  if (signature.length === 132) {
    if (!decodeHexInto(signature, 2, out64, 0, 64)) return SignatureError.format;
    const vHi = signature.charCodeAt(130);
    const vLo = signature.charCodeAt(131);
    // v as two hex characters; only 00, 01, 1b, 1c (any case) are accepted.
    if (vHi === 48 && (vLo === 48 || vLo === 49)) recid = vLo - 48;
    else if (vHi === 49 && (vLo === 98 || vLo === 66)) recid = 0;
    else if (vHi === 49 && (vLo === 99 || vLo === 67)) recid = 1;
    else return /^[0-9a-fA-F]{2}$/.test(signature.slice(130)) ? SignatureError.v : SignatureError.format;
  } else if (signature.length === 130) {
    if (!decodeHexInto(signature, 2, out64, 0, 64)) return SignatureError.format;
    recid = out64[32]! >>> 7;
    out64[32] = out64[32]! & 0x7f;
  } else {
    return SignatureError.format;
  }
  if (isZero32(out64, 0) || compare32(out64, 0, N) >= 0) return SignatureError.r;
  if (isZero32(out64, 32) || compare32(out64, 32, N) >= 0) return SignatureError.s;
  if (compare32(out64, 32, HALF_N) > 0) return SignatureError.highS;
  return recid;
}

/**
 * The 65-byte `r || s || v` form (v = 27 or 28, lowercase hex) of any signature this
 * module accepts, or null when it is not acceptable. What relay calldata should carry.
 */
export function canonicalSignature(signature: unknown): Hex | null {
  const rs = new Uint8Array(64);
  const recid = parseSignatureInto(signature, rs);
  if (recid < 0) return null;
  return `0x${Buffer.from(rs).toString('hex')}${recid === 0 ? '1b' : '1c'}`;
}
