/**
 * `POST /api/rfq/fill`: the taker fills a quote, two-phase like orders (api.md "RFQ").
 * Body `{ quote, mmSignature, fillSize, portfolioId }`; phase one answers the FillQuote
 * typed data (nonce and deadline filled in), phase two adds `signature`, `nonce` and
 * `deadline` and answers relay data for `fillQuote(quote, mmSignature, fill, takerSignature)`.
 *
 * Checks, cheapest first: fields -> the quote exists and belongs to the caller's request
 * -> portfolio -> request open -> quote still good (InvalidNonce after the MMM's nonce
 * increment, expiry, remaining size) -> fill size on the size step -> deadline -> nonce
 * -> both signatures (MMM's quote, taker's fill) -> engine (margin, cash, OI cap).
 */
import type { Hex } from '../../engine/index.ts';
import { reject } from '../../engine/index.ts';
import type { FillQuoteMessage, RfqQuoteMessage } from '../../workers/eip712/types.ts';
import { errorReply, type ErrorReply } from '../http/errors.ts';
import { isPresent, readObject, readOptionalUint, readSignature, readUint, type SignatureField } from './fields.ts';
import type { OrderContext } from './orderContext.ts';
import { checkDeadline, checkNonce, checkPortfolio, checkSize, deadlineSeconds, signedDeadlineOf, type Check } from './orderChecks.ts';
import { orderEngineError, signedWith } from './orderErrors.ts';
import { DEFAULT_DEADLINE_SEC } from './orderEntry.ts';
import { parseRfqQuote, quoteIdOf } from './quotes.ts';

export type FillOutcome =
  | { readonly mode: 'typed_data'; readonly quoteId: Hex; readonly requestId: Hex; readonly message: FillQuoteMessage }
  | {
      readonly mode: 'relay';
      readonly quoteId: Hex;
      readonly requestId: Hex;
      readonly quote: RfqQuoteMessage;
      readonly mmSignature: SignatureField;
      readonly message: FillQuoteMessage;
      readonly signature: SignatureField;
      readonly tradeId: string;
    };

const badField = (field: string, message: string): ErrorReply => errorReply('invalid_argument', message, { field, location: 'body' });
const quoteNotFound = (quoteId: Hex) => errorReply('not_found', `Quote not found: ${quoteId}`, { reason: 'unknown_rfq', quoteId });

export async function fillQuote(ctx: OrderContext, owner: string, body: unknown): Promise<Check<FillOutcome>> {
  const obj = readObject(body, 'body');
  if (!obj.ok) return { ok: false, error: badField('body', obj.error.message) };
  const o = obj.value;
  const quote = parseRfqQuote(o['quote'], 'quote');
  if (!quote.ok) return { ok: false, error: badField(quote.error.field, quote.error.message) };
  const mmSignature = readSignature(o, 'mmSignature', '');
  if (!mmSignature.ok) return { ok: false, error: badField('mmSignature', mmSignature.error.message.replace(/^mmSignature:/, 'mmSignature must be a valid hex string:')) };
  const fillSize = readUint(o, 'fillSize', '', 256, true);
  if (!fillSize.ok) return { ok: false, error: badField('fillSize', fillSize.error.message) };
  const portfolioId = readOptionalUint(o, 'portfolioId', '', 256);
  if (!portfolioId.ok) return { ok: false, error: badField('portfolioId', portfolioId.error.message) };
  const signed = isPresent(o['signature']);
  const signature = signed ? readSignature(o, 'signature', '') : null;
  if (signature && !signature.ok) return { ok: false, error: badField('signature', signature.error.message) };
  const nonce = signed ? readUint(o, 'nonce', '', 256) : readOptionalUint(o, 'nonce', '', 256);
  if (!nonce.ok) return { ok: false, error: badField('nonce', nonce.error.message) };
  const deadline = signed ? readUint(o, 'deadline', '', 256) : readOptionalUint(o, 'deadline', '', 256);
  if (!deadline.ok) return { ok: false, error: badField('deadline', deadline.error.message) };

  const reads = ctx.services.reads;
  const nowSec = Math.floor(ctx.services.pipeline.now() / 1000);
  const q = quote.value;
  const quoteId = quoteIdOf(ctx, q);
  const found = reads.rfq.findQuote(quoteId);
  // A quote of someone else's request answers like an unknown one.
  if (!found || found.request.taker !== owner) return { ok: false, error: quoteNotFound(quoteId) };
  const { request, quote: record } = found;
  const portfolio = checkPortfolio(ctx, owner, portfolioId.value, '');
  if (!portfolio.ok) return portfolio;
  if (request.status !== 'open') return { ok: false, error: orderEngineError(reject('rfq_closed', { requestId: request.requestId, status: request.status })) };
  const status = reads.rfq.quoteStatus(record, nowSec);
  if (status === 'cancelled') return { ok: false, error: orderEngineError(reject('quote_invalid_nonce', { quoteId, quoteNonce: record.nonce.toString(), currentNonce: reads.catalog.mmmNonce(record.mmm).toString() })) };
  if (status === 'expired') return { ok: false, error: orderEngineError(reject('quote_expired', { quoteId, quoteExpiry: record.quoteExpiry })) };
  const remaining = record.size - record.filled;
  if (status === 'filled' || fillSize.value > remaining) return { ok: false, error: orderEngineError(reject('quote_exhausted', { field: 'fillSize', remaining: remaining.toString() })) };
  const pair = reads.catalog.pairs.get(request.pairId)!;
  const size = checkSize(ctx, pair, fillSize.value, '', 'fillSize');
  if (!size.ok) return size;
  const fillDeadline = checkDeadline(deadline.value ?? BigInt(nowSec + DEFAULT_DEADLINE_SEC), nowSec, '');
  if (!fillDeadline.ok) return fillDeadline;
  if (nonce.value !== null) {
    const unused = checkNonce(ctx, owner, nonce.value, '');
    if (!unused.ok) return unused;
  }

  const message: FillQuoteMessage = {
    quoteId,
    portfolioId: BigInt(portfolio.value),
    fillSize: fillSize.value,
    nonce: nonce.value ?? ctx.nonces.take(owner),
    deadline: fillDeadline.value,
  };
  if (!signature) return { ok: true, value: { mode: 'typed_data', quoteId, requestId: request.requestId, message } };

  const [mmResult, takerResult] = await Promise.all([
    ctx.verify({ kind: 'quote', domain: ctx.rfq.domain, message: q, signature: mmSignature.value.raw }),
    ctx.verify({ kind: 'fill', domain: ctx.rfq.domain, message, signature: signature.value.raw }),
  ]);
  if (mmResult.signer === null) return { ok: false, error: badField('mmSignature', `mmSignature was not made by the quote's mmm ${record.mmm}`) };
  if (mmResult.signer !== record.mmm) {
    const details = { field: 'mmSignature', location: 'body', reason: 'wrong_signer', signer: mmResult.signer, expected: record.mmm, ...signedWith(ctx.rfq.domain, mmResult.digest) };
    return { ok: false, error: errorReply('invalid_argument', `mmSignature was not made by the quote's mmm ${record.mmm}`, details) };
  }
  if (takerResult.signer === null) return { ok: false, error: badField('signature', `signature is not a valid signature of this fill: ${takerResult.error ?? 'invalid'}`) };
  if (takerResult.signer !== owner) {
    const details = { field: 'signature', location: 'body', reason: 'wrong_signer', signer: takerResult.signer, expected: owner, ...signedWith(ctx.rfq.domain, takerResult.digest) };
    return { ok: false, error: errorReply('invalid_argument', `signature was made by ${takerResult.signer}, not by the authenticated wallet ${owner}`, details) };
  }

  const result = await ctx.services.pipeline.submit({
    type: 'rfq_fill',
    requestId: request.requestId,
    quoteId,
    taker: owner,
    portfolioId: portfolio.value,
    fillSize: fillSize.value,
    nonce: message.nonce,
    deadline: deadlineSeconds(message.deadline),
    ...signedDeadlineOf(message.deadline),
    signature: signature.value.canonical,
  });
  if (!result.ok) return { ok: false, error: orderEngineError(result.rejection) };
  const tradeId = result.value !== null && 'tradeId' in result.value ? result.value.tradeId : '';
  return { ok: true, value: { mode: 'relay', quoteId, requestId: request.requestId, quote: q, mmSignature: mmSignature.value, message, signature: signature.value, tradeId } };
}
