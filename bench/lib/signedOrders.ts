/**
 * Pre-signed, pre-serialised `POST /api/mm/orders/place` requests (phase two, the relay) for
 * the HTTP order benchmarks (bench/orders.ts, bench/cluster.ts): native secp256k1 over our
 * digest, which the tests prove equal to viem's hashTypedData, so that signing costs the
 * generator little and happens before anything is measured.
 */
import { createRequire } from 'node:module';
import { bytesToHex, hexToBytes, keccak256, toBytes } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type secp256k1Types from 'secp256k1';
import { placeOrderBody } from '../../client/signing.ts';
import { domainSeparator, placeOrderDigest } from '../../workers/eip712/digest.ts';
import type { PlaceOrderMessage } from '../../workers/eip712/types.ts';
import type { BenchVenueSetup } from './benchServer.ts';

/** Market-maker wallets the orders are spread over. */
export const WALLETS = 64;
/** The private key of wallet `i` of a benchmark (`prefix` keeps benchmarks' wallets apart). */
export const walletKey = (prefix: string, i: number) => keccak256(toBytes(`${prefix}-${i}`));
/** The addresses of a benchmark's WALLETS wallets (the venue funds them: startBenchVenue). */
export const walletAddresses = (prefix: string): string[] => Array.from({ length: WALLETS }, (_, i) => privateKeyToAccount(walletKey(prefix, i)).address);

/** Per-wallet nonces, disjoint: a PlaceOrder does not name its signer, and identical orders would share an orderId. */
export const freshNonces = (): bigint[] => Array.from({ length: WALLETS }, (_, w) => BigInt(w + 1) << 40n);

const secp256k1 = createRequire(import.meta.url)('secp256k1/bindings') as typeof secp256k1Types;

/** The signature (r, s, v as 27 or 28: 65 bytes, hex) of an EIP-712 digest, signed natively. */
export function signDigest(digest: Uint8Array, key: Uint8Array): `0x${string}` {
  const sig = secp256k1.ecdsaSign(digest, key);
  return `${bytesToHex(sig.signature)}${(27 + sig.recid).toString(16)}`;
}

/** One order of a benchmark: wallet `wallet` (an index), at `tick`, `size` (WAD), on `seriesId`. */
export type BenchOrder = { readonly wallet: number; readonly seriesId: `0x${string}`; readonly expiry: number; readonly isBuy: boolean; readonly tick: number; readonly size: bigint };

/** The signed request of each order, advancing `nonces`. */
export function presignOrders(prefix: string, setup: BenchVenueSetup, orders: readonly BenchOrder[], nonces: bigint[]): Buffer[] {
  const separator = domainSeparator(setup.domain);
  const keys = new Map<number, Uint8Array>();
  const deadline = BigInt(Math.floor(setup.now / 1000) + 3600);
  return orders.map((o) => {
    let key = keys.get(o.wallet);
    if (key === undefined) keys.set(o.wallet, (key = hexToBytes(walletKey(prefix, o.wallet))));
    const m: PlaceOrderMessage = { seriesId: o.seriesId, portfolioId: 0n, isBuy: o.isBuy, tick: o.tick, size: o.size, expiry: o.expiry, nonce: nonces[o.wallet]!++, deadline };
    const signature = signDigest(placeOrderDigest(separator, m), key);
    // The wire body as the client builds it (client/signing.ts); signed natively here for speed.
    const body = JSON.stringify(placeOrderBody(m, signature));
    return Buffer.from(`POST /api/mm/orders/place HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${setup.tokens[o.wallet]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  });
}

/**
 * `count` requests, wallets in turn, advancing `nonces`. Orders come in pairs at the mark, a
 * sell then a buy from the next wallet: one rests, the other takes it. The book stays small
 * (a steady state) and half the orders trade.
 */
export function presign(prefix: string, setup: BenchVenueSetup, count: number, nonces: bigint[]): Buffer[] {
  const orders: BenchOrder[] = [];
  for (let i = 0; i < count; i++) {
    const s = setup.series[Math.floor(i / 2) % setup.series.length]!;
    orders.push({ wallet: i % WALLETS, seriesId: s.seriesId, expiry: s.expiry, isBuy: i % 2 === 1, tick: s.markTick, size: 10n ** 16n });
  }
  return presignOrders(prefix, setup, orders, nonces);
}
