/**
 * The signature-recovery work itself, shared by the Piscina task (verify.task.ts) and
 * the in-process verifier: one batch of same-kind, same-domain signed messages in, one
 * result per item out, in order.
 *
 * Batches carry plain data (bigint fields included), which structured clone copies to a
 * worker unchanged. Each item stands alone: a malformed message or signature yields a
 * null signer with an `error` for that item only, because the micro-batcher mixes the
 * requests of many clients in one batch.
 */
import type { Address, Hex } from 'viem';
import {
  cancelOrderDigestInto,
  domainSeparator,
  fillQuoteDigestInto,
  personalMessageDigestInto,
  placeOrderDigestInto,
  rfqQuoteDigestInto,
} from './eip712/digest.ts';
import type { CancelOrderMessage, Eip712Domain, FillQuoteMessage, PlaceOrderMessage, RfqQuoteMessage } from './eip712/types.ts';
import { recoverAddress } from './secp256k1.ts';
import { parseSignatureInto, signatureErrorMessage, type SignatureErrorCode } from './signature.ts';

export type SignedItem<M> = {
  readonly message: M;
  /** `0x` + 130 hex characters (r, s, v) or 128 (EIP-2098 compact). */
  readonly signature: string;
};

export type Eip712Kind = 'place' | 'cancel' | 'quote' | 'fill';
export type VerifyKind = Eip712Kind | 'personal';

/** The message type of each kind. */
export type MessageOf = {
  readonly place: PlaceOrderMessage;
  readonly cancel: CancelOrderMessage;
  readonly quote: RfqQuoteMessage;
  readonly fill: FillQuoteMessage;
  /** EIP-191 personal_sign of a text (SIWE) */
  readonly personal: string;
};

export type VerifyBatch =
  | { readonly kind: 'place'; readonly domain: Eip712Domain; readonly items: readonly SignedItem<PlaceOrderMessage>[] }
  | { readonly kind: 'cancel'; readonly domain: Eip712Domain; readonly items: readonly SignedItem<CancelOrderMessage>[] }
  | { readonly kind: 'quote'; readonly domain: Eip712Domain; readonly items: readonly SignedItem<RfqQuoteMessage>[] }
  | { readonly kind: 'fill'; readonly domain: Eip712Domain; readonly items: readonly SignedItem<FillQuoteMessage>[] }
  | { readonly kind: 'personal'; readonly domain?: undefined; readonly items: readonly SignedItem<string>[] };

export type VerifyResult = {
  /**
   * The signed digest (EIP-712 `hashTypedData`, or EIP-191 `hashMessage` for personal):
   * for 'place' the orderId, for 'quote' the quoteId. Null only when the message itself
   * is malformed (a field outside its Solidity type), see `error`.
   */
  readonly digest: Hex | null;
  /** The EIP-55 address that signed `digest`; null = invalid signature or malformed message. */
  readonly signer: Address | null;
  /** Why `signer` is null (absent when it is not). */
  readonly error?: string;
};

const digest = new Uint8Array(32);
const digestBuf = Buffer.from(digest.buffer, digest.byteOffset, 32);
const rs = new Uint8Array(64);

/** Digest of one message into `digest`; null, or what is wrong with the message. */
function digestOf(kind: VerifyKind, separator: Uint8Array | null, message: unknown): string | null {
  if (kind === 'personal') {
    if (typeof message !== 'string') return 'message: expected a string';
    personalMessageDigestInto(message, digest, 0);
    return null;
  }
  if (message === null || typeof message !== 'object') return 'message: expected an object';
  switch (kind) {
    case 'place':
      return placeOrderDigestInto(separator!, message as PlaceOrderMessage, digest, 0);
    case 'cancel':
      return cancelOrderDigestInto(separator!, message as CancelOrderMessage, digest, 0);
    case 'quote':
      return rfqQuoteDigestInto(separator!, message as RfqQuoteMessage, digest, 0);
    case 'fill':
      return fillQuoteDigestInto(separator!, message as FillQuoteMessage, digest, 0);
  }
}

const KINDS: ReadonlySet<string> = new Set(['place', 'cancel', 'quote', 'fill', 'personal']);

/**
 * Verify one batch. Throws only on a malformed batch (unknown kind, missing domain, bad
 * domain): those are the caller's bugs, not a client's input.
 */
export function verifyBatch(batch: VerifyBatch): VerifyResult[] {
  const kind = batch.kind;
  if (!KINDS.has(kind)) throw new TypeError(`verifyBatch: unknown kind ${String(kind)}`);
  let separator: Uint8Array | null = null;
  if (kind !== 'personal') {
    if (!batch.domain) throw new TypeError(`verifyBatch: kind ${kind} needs a domain`);
    separator = domainSeparator(batch.domain);
  }
  const items = batch.items as readonly SignedItem<unknown>[];
  const results = new Array<VerifyResult>(items.length);
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (item === null || typeof item !== 'object') {
      results[i] = { digest: null, signer: null, error: 'item: expected { message, signature }' };
      continue;
    }
    const messageError = digestOf(kind, separator, item.message);
    if (messageError !== null) {
      results[i] = { digest: null, signer: null, error: messageError };
      continue;
    }
    const hex: Hex = `0x${digestBuf.toString('hex')}`;
    const recid = parseSignatureInto(item.signature, rs);
    if (recid < 0) {
      results[i] = { digest: hex, signer: null, error: signatureErrorMessage[recid as SignatureErrorCode] };
      continue;
    }
    const signer = recoverAddress(digest, rs, recid);
    results[i] = signer === null ? { digest: hex, signer: null, error: 'signature: no public key recovers from it' } : { digest: hex, signer };
  }
  return results;
}
