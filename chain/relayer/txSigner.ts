/**
 * The relayer's EIP-1559 transactions, signed without viem's generic path: a settle() batch is
 * 30-60 KB of calldata, and viem's `signTransaction` RLP-encodes it through hex strings and
 * hashes it with a JavaScript Keccak, about 5 ms a batch on the relayer thread (bench/settlement
 * profile). Here the envelope `0x02 || rlp([chainId, nonce, maxPriorityFeePerGas, maxFeePerGas,
 * gas, to, value, data, accessList])` is written straight into bytes, hashed with the engine's
 * Keccak, signed with native libsecp256k1 (RFC 6979 nonces, as viem's noble signer uses, so the
 * signature is the same), and the signed envelope adds `yParity, r, s` (EIP-2718/1559).
 * test/chain/txSigner.test.ts checks it byte for byte against viem's `signTransaction`.
 * Without the native binding the caller keeps viem's path (`fastSigner` returns null).
 */
import { createRequire } from 'node:module';
import type { Address, Hex } from 'viem';
import { keccak256 } from '../../engine/domain/keccak256.ts';

type NativeSign = { ecdsaSign(message: Uint8Array, privateKey: Uint8Array, options: Record<string, never>, output: Uint8Array): { signature: Uint8Array; recid: number } };

export type UnsignedTx = { readonly nonce: number; readonly gas: bigint; readonly maxFeePerGas: bigint; readonly maxPriorityFeePerGas: bigint; readonly data: Hex | Uint8Array };

const hexToBytes = (h: string): Uint8Array => Buffer.from(h.startsWith('0x') ? h.slice(2) : h, 'hex');

/** Big-endian minimal bytes of a non-negative integer (0: none). */
function uintBytes(x: bigint): Uint8Array {
  if (x < 0n) throw new RangeError('negative integer in a transaction');
  if (x === 0n) return new Uint8Array(0);
  let hex = x.toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  return Buffer.from(hex, 'hex');
}

/** The RLP header of a string or list of `length` bytes (`base` 0x80 for strings, 0xc0 for lists). */
function header(length: number, base: number): Uint8Array {
  if (length < 56) return Uint8Array.of(base + length);
  const len = uintBytes(BigInt(length));
  const out = new Uint8Array(1 + len.length);
  out[0] = base + 55 + len.length;
  out.set(len, 1);
  return out;
}

/** RLP of a byte string. */
function rlpString(b: Uint8Array): Uint8Array[] {
  if (b.length === 1 && b[0]! < 0x80) return [b];
  return [header(b.length, 0x80), b];
}

/** `prefix || rlp(list of items)` as one buffer, each item already RLP-encoded as parts. */
function envelope(prefix: number, items: Uint8Array[][]): Uint8Array {
  let payload = 0;
  for (const parts of items) for (const p of parts) payload += p.length;
  const h = header(payload, 0xc0);
  const out = new Uint8Array(1 + h.length + payload);
  out[0] = prefix;
  out.set(h, 1);
  let at = 1 + h.length;
  for (const parts of items) {
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
  }
  return out;
}

export type FastSigner = (tx: UnsignedTx) => Hex;

/** A signer for `privateKey` on `chainId` to `to`, or null without native libsecp256k1. */
export function fastSigner(privateKey: Hex, chainId: number, to: Address): FastSigner | null {
  let native: NativeSign;
  try {
    native = createRequire(import.meta.url)('secp256k1/bindings') as NativeSign;
  } catch {
    return null;
  }
  const key = hexToBytes(privateKey);
  const toBytes = hexToBytes(to);
  const fixed = { chainId: rlpString(uintBytes(BigInt(chainId))), to: rlpString(toBytes), value: rlpString(new Uint8Array(0)), accessList: [Uint8Array.of(0xc0)] };
  const sig = new Uint8Array(64);
  return (tx) => {
    const data = typeof tx.data === 'string' ? hexToBytes(tx.data) : tx.data;
    const fields = [fixed.chainId, rlpString(uintBytes(BigInt(tx.nonce))), rlpString(uintBytes(tx.maxPriorityFeePerGas)), rlpString(uintBytes(tx.maxFeePerGas)), rlpString(uintBytes(tx.gas)), fixed.to, fixed.value, rlpString(data), fixed.accessList];
    const digest = keccak256(envelope(0x02, fields));
    const { recid } = native.ecdsaSign(digest, key, {}, sig);
    // r and s as integers: leading zero bytes dropped, as RLP wants.
    const r = uintBytes(BigInt(`0x${Buffer.from(sig.subarray(0, 32)).toString('hex')}`));
    const s = uintBytes(BigInt(`0x${Buffer.from(sig.subarray(32, 64)).toString('hex')}`));
    const signed = envelope(0x02, [...fields, rlpString(uintBytes(BigInt(recid))), rlpString(r), rlpString(s)]);
    return `0x${Buffer.from(signed.buffer, signed.byteOffset, signed.byteLength).toString('hex')}`;
  };
}
