/**
 * RFQ quote submission, shared by `POST /api/mm/quotes/submit` and `rfq_response` on
 * `/ws/rfq/mm` so that both apply the same checks (api.md "RFQ"), in this order:
 * MMM membership (403) -> fields -> the quote's mmm is the caller -> the request exists
 * and is open -> nonce = the MMM's current nonce (InvalidNonce) -> now < quoteExpiry <=
 * now + 30 -> the quote matches the request (series, direction, size, taker) -> signature
 * by the MMM (worker pool) -> engine. The signature is kept for the taker (quoteBook.ts).
 */
import type { Hex, Parsed } from '../../engine/index.ts';
import { ok, reject, ZERO_ADDRESS } from '../../engine/index.ts';
import type { RfqRequestView } from '../readModels/rfqBook.ts';
import { rfqQuoteDigestHex } from '../../workers/eip712/digest.ts';
import type { RfqQuoteMessage } from '../../workers/eip712/types.ts';
import { errorReply, type ErrorReply } from '../http/errors.ts';
import type { Services } from '../services.ts';
import { isPresent, readAddress, readBool, readBytes32, readObject, readSignature, readUint } from './fields.ts';
import { orderContext, type OrderContext } from './orderContext.ts';
import type { Check } from './orderChecks.ts';
import { mmmRequired, orderEngineError, signedWith } from './orderErrors.ts';

export type QuoteAccepted = { readonly quoteId: Hex; readonly requestId: Hex; readonly status: 'active'; readonly expiresAt: string };

export type SubmitQuoteOptions = {
  /** The auction the quote answers; when absent, the one open request the quote matches. */
  readonly requestId?: unknown;
  /** Field-name prefix of the quote in error messages: '' for REST (top-level fields), 'quote' for WebSocket. */
  readonly path?: string;
};

const badField = (field: string, message: string): ErrorReply => errorReply('invalid_argument', message, { field, location: 'body' });

/** The twelve RfqQuote fields; integers as decimal strings or (safe) JSON numbers. */
export function parseRfqQuote(value: unknown, path: string): Parsed<RfqQuoteMessage> {
  const obj = readObject(value, path === '' ? 'body' : path);
  if (!obj.ok) return obj;
  const o = obj.value;
  const mmm = readAddress(o, 'mmm', path);
  if (!mmm.ok) return mmm;
  const taker = readAddress(o, 'taker', path);
  if (!taker.ok) return taker;
  const seriesId = readBytes32(o, 'seriesId', path);
  if (!seriesId.ok) return seriesId;
  const takerIsBuying = readBool(o, 'takerIsBuying', path);
  if (!takerIsBuying.ok) return takerIsBuying;
  const price = readUint(o, 'price', path, 256, true);
  if (!price.ok) return price;
  const size = readUint(o, 'size', path, 256, true);
  if (!size.ok) return size;
  const nonce = readUint(o, 'nonce', path, 256);
  if (!nonce.ok) return nonce;
  const quoteExpiry = readUint(o, 'quoteExpiry', path, 256);
  if (!quoteExpiry.ok) return quoteExpiry;
  const pairId = readBytes32(o, 'pairId', path);
  if (!pairId.ok) return pairId;
  const strike = readUint(o, 'strike', path, 256);
  if (!strike.ok) return strike;
  const optionExpiry = readUint(o, 'optionExpiry', path, 256);
  if (!optionExpiry.ok) return optionExpiry;
  const isCall = readBool(o, 'isCall', path);
  if (!isCall.ok) return isCall;
  return ok({
    mmm: mmm.value,
    taker: taker.value,
    seriesId: seriesId.value,
    takerIsBuying: takerIsBuying.value,
    price: price.value,
    size: size.value,
    nonce: nonce.value,
    quoteExpiry: quoteExpiry.value,
    pairId: pairId.value,
    strike: strike.value,
    optionExpiry: optionExpiry.value,
    isCall: isCall.value,
  });
}

/** The RfqQuote fields as REST sends them (integers as decimal strings). */
export function quoteJson(q: RfqQuoteMessage) {
  return {
    mmm: q.mmm,
    taker: q.taker,
    seriesId: q.seriesId,
    takerIsBuying: q.takerIsBuying,
    price: q.price.toString(),
    size: q.size.toString(),
    nonce: q.nonce.toString(),
    quoteExpiry: q.quoteExpiry.toString(),
    pairId: q.pairId,
    strike: q.strike.toString(),
    optionExpiry: q.optionExpiry.toString(),
    isCall: q.isCall,
  };
}

/** Whether a quote can answer a request: same series and direction, size within, taker zero or the requester. */
function matches(q: RfqQuoteMessage, r: RfqRequestView): boolean {
  return q.seriesId === r.seriesId && q.takerIsBuying === r.takerIsBuying && q.size <= r.size && (q.taker === ZERO_ADDRESS || q.taker === r.taker);
}

function findRequest(ctx: OrderContext, q: RfqQuoteMessage, requestId: unknown, nowSec: number): Check<RfqRequestView> {
  const rfq = ctx.services.reads.rfq;
  if (isPresent(requestId)) {
    const id = readBytes32({ requestId }, 'requestId', '');
    if (!id.ok) return { ok: false, error: badField('requestId', id.error.message) };
    const r = rfq.requests.get(id.value);
    return r ? { ok: true, value: r } : { ok: false, error: errorReply('not_found', `RFQ request not found: ${id.value}`, { reason: 'unknown_rfq', requestId: id.value }) };
  }
  const open = rfq.open().filter((r) => r.expiresAt > nowSec && matches(q, r));
  if (open.length === 1) return { ok: true, value: open[0]! };
  if (open.length === 0) return { ok: false, error: errorReply('not_found', 'No open RFQ request matches this quote (series, direction, size, taker)', { reason: 'unknown_rfq' }) };
  return { ok: false, error: badField('requestId', `requestId is required: ${open.length} open requests match this quote`) };
}

/**
 * Submit one signed quote for `mmm` (the authenticated wallet). Expected refusals are
 * returned as HTTP error replies (the WebSocket path turns them into error frames).
 */
export async function submitQuote(services: Services, mmm: string, quote: unknown, signature: unknown, options: SubmitQuoteOptions = {}): Promise<Check<QuoteAccepted>> {
  const ctx = orderContext(services);
  const catalog = services.reads.catalog;
  const caller = ctx.wallet(mmm);
  if (!catalog.isMmm(caller)) return { ok: false, error: mmmRequired() };
  const path = options.path ?? '';
  const parsed = parseRfqQuote(quote, path);
  if (!parsed.ok) return { ok: false, error: badField(parsed.error.field, parsed.error.message) };
  const q = parsed.value;
  const sig = readSignature({ signature }, 'signature', '');
  if (!sig.ok) return { ok: false, error: badField('signature', sig.error.message) };
  const field = (name: string) => (path === '' ? name : `${path}.${name}`);
  if (q.mmm !== caller) return { ok: false, error: badField(field('mmm'), `${field('mmm')} must be the authenticated wallet ${caller}`) };

  const nowSec = Math.floor(services.pipeline.now() / 1000);
  const found = findRequest(ctx, q, options.requestId, nowSec);
  if (!found.ok) return found;
  const request = found.value;
  if (request.status !== 'open' || request.expiresAt <= nowSec) return { ok: false, error: orderEngineError(reject('rfq_closed', { requestId: request.requestId, status: request.status === 'open' ? 'expired' : request.status })) };
  const mmmNonce = catalog.mmmNonce(caller);
  if (q.nonce !== mmmNonce) return { ok: false, error: orderEngineError(reject('quote_invalid_nonce', { field: field('nonce'), expected: mmmNonce.toString() })) };
  const maxLife = services.venue.config.quoteMaxLifetimeSec;
  if (q.quoteExpiry <= BigInt(nowSec) || q.quoteExpiry > BigInt(nowSec + maxLife)) {
    return { ok: false, error: orderEngineError(reject('quote_expired', { field: field('quoteExpiry'), now: nowSec, max: nowSec + maxLife }), `quoteExpiry must be after now and at most ${maxLife} s from now`) };
  }
  const spec = catalog.series.get(request.seriesId)!;
  const mismatch = !matches(q, request)
    ? 'seriesId, takerIsBuying, size (at most the requested size) and taker (zero or the requester) must match the request'
    : q.pairId !== spec.pairId || q.strike !== spec.strike || q.optionExpiry !== BigInt(spec.expiry) || q.isCall !== spec.isCall
      ? 'pairId, strike, optionExpiry and isCall must be those of the series'
      : null;
  if (mismatch !== null) return { ok: false, error: orderEngineError(reject('quote_mismatch', { requestId: request.requestId }), `quote does not match the request: ${mismatch}`) };

  const verified = await ctx.verify({ kind: 'quote', domain: ctx.rfq.domain, message: q, signature: sig.value.raw });
  if (verified.signer === null) return { ok: false, error: badField('signature', `signature is not a valid signature of this quote: ${verified.error ?? 'invalid'}`) };
  if (verified.signer !== caller) {
    const details = { field: 'signature', location: 'body', reason: 'wrong_signer', signer: verified.signer, expected: caller, ...signedWith(ctx.rfq.domain, verified.digest) };
    return { ok: false, error: errorReply('invalid_argument', `signature was made by ${verified.signer}, not by the quote's mmm ${caller}`, details) };
  }
  const quoteId = verified.digest!;

  const result = await services.pipeline.submit({
    type: 'rfq_quote',
    requestId: request.requestId,
    quote: { quoteId, mmm: caller, taker: q.taker, seriesId: q.seriesId, takerIsBuying: q.takerIsBuying, price: q.price, size: q.size, nonce: q.nonce, quoteExpiry: Number(q.quoteExpiry), signature: sig.value.canonical },
  });
  if (!result.ok) return { ok: false, error: orderEngineError(result.rejection) };
  ctx.quotes.add(quoteId, { requestId: request.requestId, message: q, signature: sig.value.canonical });
  return { ok: true, value: { quoteId, requestId: request.requestId, status: 'active', expiresAt: new Date(Number(q.quoteExpiry) * 1000).toISOString() } };
}

/** The quoteId of a parsed quote (its EIP-712 digest), computed here without a worker. */
export function quoteIdOf(ctx: OrderContext, q: RfqQuoteMessage): Hex {
  return rfqQuoteDigestHex(ctx.rfq.separator, q);
}
