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

/**
 * `count` requests, wallets in turn, advancing `nonces`. Orders come in pairs at the mark, a
 * sell then a buy from the next wallet: one rests, the other takes it. The book stays small
 * (a steady state) and half the orders trade.
 */
export function presign(prefix: string, setup: BenchVenueSetup, count: number, nonces: bigint[]): Buffer[] {
  const separator = domainSeparator(setup.domain);
  const keys = Array.from({ length: WALLETS }, (_, i) => hexToBytes(walletKey(prefix, i)));
  const deadline = BigInt(Math.floor(setup.now / 1000) + 3600);
  const out: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const w = i % WALLETS;
    const s = setup.series[Math.floor(i / 2) % setup.series.length]!;
    const isBuy = i % 2 === 1;
    const m: PlaceOrderMessage = { seriesId: s.seriesId, portfolioId: 0n, isBuy, tick: s.markTick, size: 10n ** 16n, expiry: s.expiry, nonce: nonces[w]!++, deadline };
    const sig = secp256k1.ecdsaSign(placeOrderDigest(separator, m), keys[w]!);
    const signature = `${bytesToHex(sig.signature)}${(27 + sig.recid).toString(16)}`;
    // The wire body as the client builds it (client/signing.ts); signed natively here for speed.
    const body = JSON.stringify(placeOrderBody(m, signature));
    out.push(Buffer.from(`POST /api/mm/orders/place HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${setup.tokens[w]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`));
  }
  return out;
}
