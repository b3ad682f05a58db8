/**
 * EIP-712 signing for the venue with a viem account (docs/signatures.md):
 * the typed data the venue serves in phase one, or messages built here for a one round trip
 * entry. The EIP-712 types come from the venue's shared module (workers/eip712/types.ts, pure
 * data), so a local signature and the server's typed data always agree.
 */
import type { Address, Hex, LocalAccount } from 'viem';
import { cancelOrderTypes, fillQuoteTypes, placeOrderTypes, rfqQuoteTypes, type Eip712Domain } from '../workers/eip712/types.ts';

export type { Eip712Domain };

/** Typed data as the venue serves it: integers as decimal strings (uint32 as numbers). */
export type ServedTypedData = {
  readonly domain: { readonly name: string; readonly version: string; readonly chainId: number; readonly verifyingContract: string };
  readonly types: Readonly<Record<string, readonly { readonly name: string; readonly type: string }[]>>;
  readonly primaryType: string;
  readonly message: Readonly<Record<string, unknown>>;
};

/** A served message -> viem's value types (uint32 numbers, wider integers bigint). */
export function toViemMessage(types: ServedTypedData['types'], primaryType: string, message: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const fields = types[primaryType];
  if (fields === undefined) throw new Error(`typed data has no type ${primaryType}`);
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = message[f.name];
    out[f.name] = f.type === 'uint32' ? Number(v) : f.type.startsWith('uint') ? BigInt(v as string | number) : v;
  }
  return out;
}

/** Sign served typed data; returns the hex signature. */
export function signServed(account: LocalAccount, typed: ServedTypedData): Promise<Hex> {
  return account.signTypedData({
    domain: { ...typed.domain, verifyingContract: typed.domain.verifyingContract as Address },
    types: typed.types as Record<string, { name: string; type: string }[]>,
    primaryType: typed.primaryType,
    message: toViemMessage(typed.types, typed.primaryType, typed.message),
  });
}

/** A served message with its signature: the body of phase two (integers stay as served). */
export async function signedMessage(account: LocalAccount, typed: ServedTypedData): Promise<Record<string, unknown> & { signature: Hex }> {
  return { ...typed.message, signature: await signServed(account, typed) };
}

/** A wire value for a message field: bigint as a decimal string. */
const wire = (m: Record<string, unknown>): Record<string, unknown> => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, typeof v === 'bigint' ? v.toString() : v]));

export type PlaceOrderFields = { seriesId: Hex; portfolioId: bigint; isBuy: boolean; tick: number; size: bigint; expiry: number; nonce: bigint; deadline: bigint };
export type CancelOrderFields = { orderId: Hex; nonce: bigint; deadline: bigint };
export type RfqQuoteFields = { mmm: Address; taker: Address; seriesId: Hex; takerIsBuying: boolean; price: bigint; size: bigint; nonce: bigint; quoteExpiry: bigint; pairId: Hex; strike: bigint; optionExpiry: bigint; isCall: boolean };
export type FillQuoteFields = { quoteId: Hex; portfolioId: bigint; fillSize: bigint; nonce: bigint; deadline: bigint };

/** The signed place body (phase two, REST or `PLACE`) of a PlaceOrder and its signature, however it was signed. */
export function placeOrderBody(m: PlaceOrderFields, signature: string) {
  return { ...(wire(m) as { seriesId: Hex; portfolioId: string; isBuy: boolean; tick: number; size: string; expiry: number; nonce: string; deadline: string }), signature };
}

/** The signed place body of a PlaceOrder built locally, signed with the wallet. */
export async function signPlaceOrder(account: LocalAccount, domain: Eip712Domain, m: PlaceOrderFields) {
  return placeOrderBody(m, await account.signTypedData({ domain, types: placeOrderTypes, primaryType: 'PlaceOrder', message: m }));
}

export async function signCancelOrder(account: LocalAccount, domain: Eip712Domain, m: CancelOrderFields) {
  const signature = await account.signTypedData({ domain, types: cancelOrderTypes, primaryType: 'CancelOrder', message: m });
  return { orderId: m.orderId, nonce: m.nonce.toString(), deadline: m.deadline.toString(), signature };
}

/** An MMM's RfqQuote with its signature, as `POST /api/mm/quotes/submit` and `rfq_response` take it (expiries as numbers). */
export async function signRfqQuote(account: LocalAccount, domain: Eip712Domain, m: RfqQuoteFields) {
  const signature = await account.signTypedData({ domain, types: rfqQuoteTypes, primaryType: 'RfqQuote', message: m });
  const quote = { ...(wire(m) as Record<string, string | boolean>), quoteExpiry: Number(m.quoteExpiry), optionExpiry: Number(m.optionExpiry) };
  return { quote, signature };
}

export async function signFillQuote(account: LocalAccount, domain: Eip712Domain, m: FillQuoteFields) {
  const signature = await account.signTypedData({ domain, types: fillQuoteTypes, primaryType: 'FillQuote', message: m });
  return { ...wire(m), signature };
}

/** A decimal string in human units to an integer with `decimals` decimals (exact; throws when it does not fit). */
export function toUnits(text: string, decimals: number): bigint {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (m === null) throw new Error(`not a decimal: ${text}`);
  const frac = m[2] ?? '';
  if (frac.length > decimals) throw new Error(`${text} has more than ${decimals} decimals`);
  return BigInt(m[1]!) * 10n ** BigInt(decimals) + BigInt(frac.padEnd(decimals, '0') || '0');
}

/** An integer with `decimals` decimals as a human decimal string ("1.5"). */
export function fromUnits(value: bigint | string, decimals: number): string {
  const v = BigInt(value);
  const neg = v < 0n;
  const a = neg ? -v : v;
  const base = 10n ** BigInt(decimals);
  const frac = (a % base).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${neg ? '-' : ''}${a / base}${frac ? `.${frac}` : ''}`;
}
