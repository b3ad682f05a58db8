/**
 * The two reply shapes of the meta-transaction flow (interface.md "Meta-transaction
 * responses"): typed data to sign, and relay data for the call a relayer would send. The
 * calldata is real ABI encoding (viem `encodeFunctionData`, ABIs of gateway/abi.ts; the
 * single-order calls word by word, relayWords.ts) of the
 * signed messages with their signatures in the 65-byte form, so that the same orders
 * could be submitted to a chain.
 */
import { encodeFunctionData, prepareEncodeFunctionData, type Address, type Hex } from 'viem';
import { orderBookAbi, rfqAbi } from '../abi.ts';
import { placeOrderSignedWords, replaceOrderSignedWords } from './relayWords.ts';
import {
  cancelOrderTypedData,
  fillQuoteTypedData,
  placeOrderTypedData,
  type CancelOrderMessage,
  type Eip712Domain,
  type FillQuoteMessage,
  type PlaceOrderMessage,
  type RfqQuoteMessage,
} from '../../workers/eip712/types.ts';

export const operations = {
  place: { operation: 'place_order', functionName: 'placeOrderSigned' },
  replace: { operation: 'replace_order', functionName: 'replaceOrderSigned' },
  placeBatch: { operation: 'place_orders_batch', functionName: 'batchPlaceOrders' },
  cancelBatch: { operation: 'cancel_orders_batch', functionName: 'batchCancelOrders' },
  replaceBatch: { operation: 'replace_orders_batch', functionName: 'batchReplaceOrders' },
  fill: { operation: 'fill_quote', functionName: 'fillQuote' },
} as const;

export type OperationName = keyof typeof operations;

export type RelayData = { readonly to: Address; readonly calldata: Hex; readonly value: '0'; readonly chainId: number; readonly functionName: string };

/** A message as the wire carries it: integers wider than uint32 as decimal strings. */
export type WireMessage<M> = { readonly [K in keyof M]: M[K] extends bigint ? string : M[K] };

/**
 * Bigints are written as strings here rather than by the JSON serialiser: its fallback for
 * bigint costs an exception per reply, a measurable share of an order's time.
 */
export function wireMessage<M extends object>(m: M): WireMessage<M> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(m)) out[k] = typeof v === 'bigint' ? v.toString() : v;
  return out as WireMessage<M>;
}

export const placeTypedData = (domain: Eip712Domain, m: PlaceOrderMessage) => ({ ...placeOrderTypedData(domain, m), message: wireMessage(m) });
export const cancelTypedData = (domain: Eip712Domain, m: CancelOrderMessage) => ({ ...cancelOrderTypedData(domain, m), message: wireMessage(m) });
export const fillTypedData = (domain: Eip712Domain, m: FillQuoteMessage) => ({ ...fillQuoteTypedData(domain, m), message: wireMessage(m) });

export type Signed<M> = { readonly message: M; readonly signature: Hex };

// Selectors computed once: viem's encodeFunctionData otherwise re-derives and hashes the
// function signature on every call, most of its cost for a single order.
const prepared = {
  place: prepareEncodeFunctionData({ abi: orderBookAbi, functionName: 'placeOrderSigned' }),
  replace: prepareEncodeFunctionData({ abi: orderBookAbi, functionName: 'replaceOrderSigned' }),
  placeBatch: prepareEncodeFunctionData({ abi: orderBookAbi, functionName: 'batchPlaceOrders' }),
  cancelBatch: prepareEncodeFunctionData({ abi: orderBookAbi, functionName: 'batchCancelOrders' }),
  replaceBatch: prepareEncodeFunctionData({ abi: orderBookAbi, functionName: 'batchReplaceOrders' }),
  fill: prepareEncodeFunctionData({ abi: rfqAbi, functionName: 'fillQuote' }),
};

/** `encodeFunctionData` with a prepared selector (arguments are checked by the tests, which decode every function). */
function encode(p: { readonly abi: readonly unknown[]; readonly functionName: Hex }, args: readonly unknown[]): Hex {
  return encodeFunctionData({ abi: p.abi, functionName: p.functionName, args } as never);
}

/** The single-order calls are written word by word (relayWords.ts); what that does not take goes through viem. */
export function placeCalldata(p: Signed<PlaceOrderMessage>): Hex {
  return placeOrderSignedWords(prepared.place.functionName, p.message, p.signature) ?? encode(prepared.place, [p.message, p.signature]);
}

export function replaceCalldata(c: Signed<CancelOrderMessage>, p: Signed<PlaceOrderMessage>): Hex {
  return replaceOrderSignedWords(prepared.replace.functionName, c.message, c.signature, p.message, p.signature) ?? encode(prepared.replace, [c.message, c.signature, p.message, p.signature]);
}

export function placeBatchCalldata(places: readonly Signed<PlaceOrderMessage>[]): Hex {
  return encode(prepared.placeBatch, [places.map((p) => p.message), places.map((p) => p.signature)]);
}

export function cancelBatchCalldata(cancels: readonly Signed<CancelOrderMessage>[]): Hex {
  return encode(prepared.cancelBatch, [cancels.map((c) => c.message), cancels.map((c) => c.signature)]);
}

export function replaceBatchCalldata(pairs: readonly { readonly cancel: Signed<CancelOrderMessage>; readonly place: Signed<PlaceOrderMessage> }[]): Hex {
  return encode(prepared.replaceBatch, [pairs.map((r) => r.cancel.message), pairs.map((r) => r.cancel.signature), pairs.map((r) => r.place.message), pairs.map((r) => r.place.signature)]);
}

export function fillCalldata(quote: Signed<RfqQuoteMessage>, fill: Signed<FillQuoteMessage>): Hex {
  return encode(prepared.fill, [quote.message, quote.signature, fill.message, fill.signature]);
}

export function relayData(to: Address, chainId: number, op: OperationName, calldata: Hex): RelayData {
  return { to, calldata, value: '0', chainId, functionName: operations[op].functionName };
}
