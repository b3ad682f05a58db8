/**
 * Seeded random messages, keys and signatures for the worker tests. Everything derives
 * from fixed seeds, so a failure reproduces exactly. Signatures are made with
 * libsecp256k1's signer over viem's `hashTypedData` / `hashMessage` (never over our own
 * digest code), so a digest bug cannot hide behind a matching signature.
 */
import { createRequire } from 'node:module';
import { bytesToHex, getAddress, hashMessage, hashTypedData, hexToBytes, keccak256, toBytes, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type secp256k1Types from 'secp256k1';
import {
  cancelOrderTypes,
  fillQuoteTypes,
  orderBookDomain,
  placeOrderTypes,
  rfqDomain,
  rfqQuoteTypes,
  type CancelOrderMessage,
  type Eip712Domain,
  type FillQuoteMessage,
  type PlaceOrderMessage,
  type RfqQuoteMessage,
} from '../../../workers/eip712/types.ts';

const require = createRequire(import.meta.url);
const secp256k1 = require('secp256k1/bindings') as typeof secp256k1Types;

/** sfc32: a small, fast, seedable generator (test data only). */
export function rng(seed: number): () => number {
  let a = 0x9e3779b9 ^ seed;
  let b = 0x243f6a88 + seed;
  let c = 0xb7e15162 ^ (seed * 31);
  let d = 1;
  const next = (): number => {
    a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0;
    const t = (a + b + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) >>> 0;
    return t;
  };
  for (let i = 0; i < 16; i++) next();
  return next;
}

export type Random = {
  u32(): number;
  int(n: number): number;
  bool(): boolean;
  /** An integer in [0, 2^bits - 1], biased toward the edges the encoder treats specially. */
  uint(bits: number): bigint;
  bytes32(): Hex;
  address(): Address;
  text(): string;
};

export function random(seed: number): Random {
  const next = rng(seed);
  const rawBits = (bits: number): bigint => {
    let v = 0n;
    for (let got = 0; got < bits; got += 32) v = (v << 32n) | BigInt(next());
    return v & ((1n << BigInt(bits)) - 1n);
  };
  const hexBytes = (n: number): Hex => {
    let s = '0x';
    for (let i = 0; i < n; i++) s += (next() & 0xff).toString(16).padStart(2, '0');
    return s as Hex;
  };
  const self: Random = {
    u32: () => next(),
    int: (n) => next() % n,
    bool: () => (next() & 1) === 1,
    uint(bits) {
      const max = (1n << BigInt(bits)) - 1n;
      switch (next() % 8) {
        case 0: return 0n;
        case 1: return max;
        case 2: return BigInt(next()) & max; // small
        case 3: return bits > 64 ? (1n << 64n) - 1n + BigInt(next() % 3) : max - 1n; // around the 64-bit fast path edge
        default: return rawBits(1 + (next() % bits)); // every magnitude
      }
    },
    bytes32: () => hexBytes(32),
    // Lowercase or EIP-55, both accepted by viem; mixed case must be a valid checksum for viem.
    address: () => {
      const a = hexBytes(20) as Address;
      return next() & 1 ? getAddress(a) : a;
    },
    text: () => {
      const parts = ['Sign in to Diffusal', 'URI: https://venue.example', 'Nonce: ', 'é€😀', '\n', 'Version: 1'];
      let s = '';
      const n = next() % 12;
      for (let i = 0; i < n; i++) s += parts[next() % parts.length]! + String(next());
      return s;
    },
  };
  return self;
}

export type Signer = { readonly privateKey: Hex; readonly address: Address };

/** Deterministic private keys (keccak of a label), in place of viem's generatePrivateKey. */
export function signers(count: number, label = 'diffusal-sigverify-test'): Signer[] {
  const out: Signer[] = [];
  for (let i = 0; i < count; i++) {
    const privateKey = keccak256(toBytes(`${label}-${i}`));
    out.push({ privateKey, address: privateKeyToAccount(privateKey).address });
  }
  return out;
}

/** 65-byte r || s || v (v = 27/28) signature of a 32-byte hash, low s (libsecp256k1 always normalises). */
export function signHash(hash: Hex, privateKey: Hex): Hex {
  const { signature, recid } = secp256k1.ecdsaSign(hexToBytes(hash), hexToBytes(privateKey));
  return `${bytesToHex(signature)}${(27 + recid).toString(16)}` as Hex;
}

export const DOMAINS = {
  orderBook: orderBookDomain('Diffusal', 10143, '0x5FbDB2315678afecb367f032d93F642f64180aa3'),
  rfq: rfqDomain('Diffusal', 10143, '0xe7f1725e7734ce288f8367e1bb143e90bb3f0512'),
} as const;

export function placeOrder(r: Random): PlaceOrderMessage {
  return {
    seriesId: r.bytes32(),
    portfolioId: r.uint(256),
    isBuy: r.bool(),
    tick: Number(r.uint(32)),
    size: r.uint(128),
    expiry: Number(r.uint(32)),
    nonce: r.uint(256),
    deadline: r.uint(256),
  };
}

export function cancelOrder(r: Random): CancelOrderMessage {
  return { orderId: r.bytes32(), nonce: r.uint(256), deadline: r.uint(256) };
}

export function rfqQuote(r: Random): RfqQuoteMessage {
  return {
    mmm: r.address(),
    taker: r.int(4) === 0 ? '0x0000000000000000000000000000000000000000' : r.address(),
    seriesId: r.bytes32(),
    takerIsBuying: r.bool(),
    price: r.uint(256),
    size: r.uint(256),
    nonce: r.uint(256),
    quoteExpiry: r.uint(256),
    pairId: r.bytes32(),
    strike: r.uint(256),
    optionExpiry: r.uint(256),
    isCall: r.bool(),
  };
}

export function fillQuote(r: Random): FillQuoteMessage {
  return { quoteId: r.bytes32(), portfolioId: r.uint(256), fillSize: r.uint(256), nonce: r.uint(256), deadline: r.uint(256) };
}

/** viem's digest of a message of each kind: the reference the fast path must equal. */
export const viemDigest = {
  place: (domain: Eip712Domain, message: PlaceOrderMessage): Hex => hashTypedData({ domain, types: placeOrderTypes, primaryType: 'PlaceOrder', message }),
  cancel: (domain: Eip712Domain, message: CancelOrderMessage): Hex => hashTypedData({ domain, types: cancelOrderTypes, primaryType: 'CancelOrder', message }),
  quote: (domain: Eip712Domain, message: RfqQuoteMessage): Hex => hashTypedData({ domain, types: rfqQuoteTypes, primaryType: 'RfqQuote', message }),
  fill: (domain: Eip712Domain, message: FillQuoteMessage): Hex => hashTypedData({ domain, types: fillQuoteTypes, primaryType: 'FillQuote', message }),
  personal: (text: string): Hex => hashMessage(text),
};

/** secp256k1 group order. */
export const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** The malleable twin of a 65-byte signature: s -> n - s and v flipped. Same signer for a lax verifier. */
export function highSTwin(signature: Hex): Hex {
  const r = signature.slice(2, 66);
  const s = BigInt(`0x${signature.slice(66, 130)}`);
  const v = Number.parseInt(signature.slice(130), 16);
  return `0x${r}${(SECP256K1_N - s).toString(16).padStart(64, '0')}${(v === 27 ? 28 : 27).toString(16)}` as Hex;
}
