/**
 * Public-key recovery with native libsecp256k1 (the `secp256k1` npm package, prebuilt
 * for linux-x64, darwin-arm64 and win32-x64), and the signer's EIP-55 address.
 *
 * The package's main entry silently falls back to a pure-JS implementation (elliptic,
 * far slower: the venue's recovery budget would be missed by an order of magnitude
 * without any error) when its native binding does not load. We never go through that
 * entry: we require `secp256k1/bindings` directly, so a missing binding is visible.
 *
 * Policy (docs/signatures.md): importing this module never throws, so that health checks
 * and metrics can report `nativeSecp256k1Loaded()`. Recovering without the native binding
 * throws `NativeSecp256k1MissingError` unless the JS fallback was chosen explicitly with
 * `useJsSecp256k1Fallback()`; the verifier factories check this at construction, so a
 * venue without the binding fails at start, loudly, rather than running slow.
 */
import { createRequire } from 'node:module';
import type { Address } from 'viem';
import { keccak256Into } from '../engine/domain/keccak256.ts';

/** The part of the package's API we use (the same for its native and its elliptic build). */
type Secp256k1Api = {
  ecdsaRecover(signature: Uint8Array, recid: number, message: Uint8Array, compressed: boolean, output: Uint8Array): Uint8Array;
};

export type Secp256k1Backend = 'native' | 'js' | 'none';

const require = createRequire(import.meta.url);

let native: Secp256k1Api | null = null;
let nativeError: string | null = null;
try {
  native = require('secp256k1/bindings') as Secp256k1Api;
} catch (err) {
  nativeError = err instanceof Error ? err.message : String(err);
}

let api: Secp256k1Api | null = native;
let backend: Secp256k1Backend = native ? 'native' : 'none';

export class NativeSecp256k1MissingError extends Error {
  constructor() {
    super(
      `the native secp256k1 binding did not load (${nativeError ?? 'unknown reason'}); ` +
        'signature recovery would run on the pure-JS fallback, far below the venue budget. ' +
        'Install a platform with a prebuilt binding or build it (npm rebuild secp256k1, needs a C++ toolchain), ' +
        'or opt in to the slow path explicitly (allowJsFallback).',
    );
    this.name = 'NativeSecp256k1MissingError';
  }
}

/** True when libsecp256k1 is loaded natively in this thread. */
export function nativeSecp256k1Loaded(): boolean {
  return native !== null;
}

/** Why the native binding failed to load, or null when it loaded. */
export function nativeSecp256k1LoadError(): string | null {
  return nativeError;
}

/** Which implementation recovery uses in this thread. */
export function secp256k1Backend(): Secp256k1Backend {
  return backend;
}

/**
 * Explicitly accept the pure-JS implementation when the native binding is missing (no
 * effect when it is loaded). For platforms without a prebuild, at a known cost.
 */
export function useJsSecp256k1Fallback(): Secp256k1Backend {
  if (native === null && api === null) {
    api = require('secp256k1/elliptic') as Secp256k1Api;
    backend = 'js';
  }
  return backend;
}

/** Throws NativeSecp256k1MissingError unless recovery can run (natively, or by explicit fallback). */
export function assertSecp256k1Ready(allowJsFallback: boolean): Secp256k1Backend {
  if (native === null) {
    if (!allowJsFallback) throw new NativeSecp256k1MissingError();
    useJsSecp256k1Fallback();
  }
  return backend;
}

const publicKey = new Uint8Array(65);
const hashScratch = new Uint8Array(32);
const hashScratchBuf = Buffer.from(hashScratch.buffer, hashScratch.byteOffset, 32);
const lowerAscii = new Uint8Array(40);

// Market makers sign many messages with few keys: remember their checksummed addresses.
const checksumCache = new Map<string, Address>();
const CHECKSUM_CACHE_MAX = 10_000;

/** EIP-55 mixed-case checksum of a lowercase 40-hex-character address body (no 0x). */
export function checksumAddress(lower: string): Address {
  const hit = checksumCache.get(lower);
  if (hit !== undefined) return hit;
  for (let i = 0; i < 40; i++) lowerAscii[i] = lower.charCodeAt(i);
  keccak256Into(lowerAscii, 0, 40, hashScratch, 0);
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const c = lower[i]!;
    const nibble = i & 1 ? hashScratch[i >>> 1]! & 0x0f : hashScratch[i >>> 1]! >>> 4;
    out += nibble >= 8 && c >= 'a' ? c.toUpperCase() : c;
  }
  if (checksumCache.size >= CHECKSUM_CACHE_MAX) checksumCache.clear();
  checksumCache.set(lower, out as Address);
  return out as Address;
}

/**
 * The address whose key produced the 64-byte `r || s` signature with recovery id `recid`
 * over the 32-byte `digest`, or null when no public key recovers (a corrupt signature).
 * The signature must already be range-checked (`parseSignatureInto`).
 */
export function recoverAddress(digest: Uint8Array, rs: Uint8Array, recid: number): Address | null {
  if (api === null) throw new NativeSecp256k1MissingError();
  try {
    api.ecdsaRecover(rs, recid, digest, false, publicKey);
  } catch {
    // libsecp256k1 reports "no such point" for r values off the curve; an invalid signature, not a fault.
    return null;
  }
  keccak256Into(publicKey, 1, 64, hashScratch, 0);
  return checksumAddress(hashScratchBuf.toString('hex', 12, 32));
}
