/**
 * RFQ auctions (api.md "RFQ"): a taker asks, authorised market makers quote with signed
 * quotes at their current nonce, the taker fills the best quote. A fill trades through the
 * same path as the book (positions, premium, fees, open interest).
 */
import { encodeAbiParameters, keccak256 } from 'viem';
import type { Hex } from '../domain/hex.ts';
import { ZERO_ADDRESS } from '../domain/hex.ts';
import type { RfqQuoteData } from '../commands.ts';
import type { RfqTakerFill } from '../events.ts';
import { reject, type Rejection } from '../codes.ts';
import type { VenueState } from '../state.ts';
import { quoteStatus } from '../actors/rfq.ts';
import type { EventSink } from './eventSink.ts';
import { applyFill, feesOf } from './fill.ts';
import { lotsOfWad, wadOfLots } from '../domain/lots.ts';

/** Request ids derive from the command's sequence number: unique and replayable. */
export function requestIdOf(seq: number): Hex {
  return keccak256(encodeAbiParameters([{ type: 'string' }, { type: 'uint256' }], ['rfq', BigInt(seq)]));
}

export type RfqRequestInput = { taker: string; portfolioId: number; seriesId: Hex; size: bigint; takerIsBuying: boolean; expiresAt: number };

export function createRequest(state: VenueState, sink: EventSink, r: RfqRequestInput): { requestId: Hex } | Rejection {
  const series = state.series.get(r.seriesId);
  if (!series) return reject('unknown_series', { seriesId: r.seriesId });
  if (series.settled) return reject('series_settled', { seriesId: r.seriesId });
  if (series.spec.expiry <= state.nowSec) return reject('series_expired', { seriesId: r.seriesId });
  const pair = state.pairs.get(series.spec.pairId)!;
  if (r.size <= 0n || r.size % pair.sizeStep !== 0n) return reject('off_size_step', { field: 'size', sizeStep: pair.sizeStep.toString() });
  if (r.size < pair.minSize) return reject('below_min_size', { field: 'size', minSize: pair.minSize.toString() });
  if (r.portfolioId !== 0 && !state.accounts.portfolio(r.taker, r.portfolioId)) return reject('unknown_portfolio', { portfolioId: r.portfolioId });
  const requestId = requestIdOf(state.seq);
  state.rfq.add({
    requestId,
    taker: r.taker,
    portfolioId: r.portfolioId,
    seriesId: r.seriesId,
    pairId: pair.pairId,
    size: r.size,
    takerIsBuying: r.takerIsBuying,
    createdAt: state.now,
    expiresAt: r.expiresAt,
    status: 'open',
    filledQuoteId: null,
    quotes: new Map(),
  });
  sink.push({ type: 'rfq_created', requestId, taker: r.taker, portfolioId: r.portfolioId, pairId: pair.pairId, seriesId: r.seriesId, size: r.size, takerIsBuying: r.takerIsBuying, expiresAt: r.expiresAt });
  return { requestId };
}

export function submitQuote(state: VenueState, sink: EventSink, requestId: Hex, q: RfqQuoteData): Rejection | null {
  const request = state.rfq.requests.get(requestId);
  if (!request) return reject('unknown_rfq', { requestId });
  if (request.status !== 'open' || request.expiresAt <= state.nowSec) return reject('rfq_closed', { requestId });
  const mmm = state.accounts.walletOf(q.mmm);
  if (mmm < 0 || state.accounts.isMmm[mmm] !== 1) return reject('not_mmm');
  const mmmNonce = state.accounts.mmmNonce[mmm]!;
  if (q.nonce !== mmmNonce) return reject('quote_invalid_nonce', { expected: mmmNonce.toString() });
  if (q.quoteExpiry <= state.nowSec || q.quoteExpiry > state.nowSec + state.config.quoteMaxLifetimeSec) return reject('quote_expired', { quoteExpiry: q.quoteExpiry });
  const takerOk = q.taker === ZERO_ADDRESS || q.taker === request.taker;
  if (q.seriesId !== request.seriesId || q.takerIsBuying !== request.takerIsBuying || q.size > request.size || q.size <= 0n || !takerOk) {
    return reject('quote_mismatch', { requestId });
  }
  if (q.price <= 0n) return reject('zero_price', { field: 'price' });
  if (request.quotes.has(q.quoteId)) return reject('duplicate_order', { quoteId: q.quoteId });
  state.rfq.addQuote(request, {
    quoteId: q.quoteId,
    mmm: q.mmm,
    taker: q.taker,
    seriesId: q.seriesId,
    takerIsBuying: q.takerIsBuying,
    price: q.price,
    size: q.size,
    nonce: q.nonce,
    quoteExpiry: q.quoteExpiry,
    filled: 0n,
    submittedAt: state.now,
    ...(q.signature !== undefined ? { signature: q.signature } : {}),
  });
  sink.push({
    type: 'rfq_quote',
    requestId,
    quote: { quoteId: q.quoteId, mmm: q.mmm, taker: q.taker, seriesId: q.seriesId, takerIsBuying: q.takerIsBuying, price: q.price, size: q.size, nonce: q.nonce, quoteExpiry: q.quoteExpiry, signature: q.signature ?? null },
  });
  return null;
}

export type RfqFillInput = { requestId: Hex; quoteId: Hex; taker: string; portfolioId: number; fillSize: bigint; nonce: bigint; deadline: number; signedDeadline?: bigint | undefined; signature?: Hex | undefined };

export function fillQuote(state: VenueState, sink: EventSink, f: RfqFillInput): { tradeId: string } | Rejection {
  const found = state.rfq.findQuote(f.quoteId);
  if (!found || found.request.requestId !== f.requestId) return reject('unknown_rfq', { quoteId: f.quoteId });
  const { request, quote } = found;
  if (request.taker !== f.taker) return reject('not_owner', { requestId: f.requestId });
  if (request.status !== 'open') return reject('rfq_closed', { requestId: f.requestId });
  const accounts = state.accounts;
  const mmm = accounts.wallet(quote.mmm);
  const status = quoteStatus(quote, accounts.mmmNonce[mmm]!, state.nowSec);
  if (status === 'cancelled') return reject('quote_invalid_nonce');
  if (status === 'expired') return reject('quote_expired', { quoteExpiry: quote.quoteExpiry });
  if (status === 'filled' || f.fillSize > quote.size - quote.filled) return reject('quote_exhausted');
  if (accounts.isMmm[mmm] !== 1) return reject('not_mmm');
  if (f.deadline < state.nowSec) return reject('deadline_passed', { deadline: f.deadline });
  const taker = accounts.wallet(f.taker);
  if (accounts.nonces[taker]!.isUsed(f.nonce)) return reject('nonce_used', { nonce: f.nonce.toString() });
  const series = state.series.get(request.seriesId)!;
  const pair = state.pairs.get(series.spec.pairId)!;
  if (f.fillSize <= 0n || f.fillSize % pair.sizeStep !== 0n) return reject('off_size_step', { field: 'fillSize', sizeStep: pair.sizeStep.toString() });
  // The order route's size rules (flows/orderRules.ts), so that a fill entered from the chain (direct_rfq_fill) is refused as the route refuses it.
  if (f.fillSize < pair.minSize) return reject('below_min_size', { field: 'fillSize', minSize: pair.minSize.toString() });
  if (f.fillSize / pair.sizeStep > BigInt(state.config.maxOrderLots)) return reject('size_too_large', { field: 'fillSize' });
  if (series.settled || series.spec.expiry <= state.nowSec) return reject('series_settled', { seriesId: request.seriesId });

  const takerIsMmm = accounts.isMmm[taker] === 1;
  const takerPortfolio = f.portfolioId === 0 && takerIsMmm ? accounts.internalPortfolioOf(taker, pair.pairId, state.now) : accounts.portfolioOf(taker, f.portfolioId);
  if (!takerPortfolio || (f.portfolioId === 0 && !takerIsMmm)) return reject(f.portfolioId === 0 ? 'portfolio_reserved' : 'unknown_portfolio', { portfolioId: f.portfolioId });
  const makerPortfolio = accounts.internalPortfolioOf(mmm, pair.pairId, state.now);

  const cap = series.spec.isCall ? pair.maxCallOI : pair.maxPutOI;
  if (cap > 0n && wadOfLots(state.pairOpenInterest(pair.pairId, series.spec.isCall), pair.sizeStep) + f.fillSize > cap) return reject('oi_cap', { pairId: pair.pairId, cap: cap.toString() });
  const spot = state.oracles.get(pair.pairId)!.spot;
  const fees = feesOf(state, spot, f.fillSize, quote.price);
  for (const [portfolio, isBuy, fee] of [
    [takerPortfolio, request.takerIsBuying, fees.taker],
    [makerPortfolio, !request.takerIsBuying, fees.maker],
  ] as const) {
    const prospective = [{ seriesId: request.seriesId, isBuy, size: f.fillSize, price: quote.price, worstFee: fee > 0n ? fee : 0n }];
    const after = state.accounts.margin.requirement(portfolio, prospective);
    if (isBuy && after.deposit < after.cashNeeded) return reject('insufficient_cash', { account: portfolio.owner, required: after.cashNeeded.toString() });
    if (after.equity < after.initialMarginWithOrders) return reject('insufficient_margin', { account: portfolio.owner, required: after.initialMarginWithOrders.toString() });
  }
  accounts.nonces[taker]!.use(f.nonce);
  quote.filled += f.fillSize;
  const tradeId = applyFill(state, sink, {
    seriesId: request.seriesId,
    price: quote.price,
    size: f.fillSize,
    lots: lotsOfWad(f.fillSize, pair.sizeStep), // on the grid: checked above
    sizeStep: pair.sizeStep,
    maker: { portfolio: makerPortfolio, orderId: null },
    taker: { portfolio: takerPortfolio, orderId: null },
    takerIsBuy: request.takerIsBuying,
    source: 'rfq',
  });
  request.filledQuoteId = f.quoteId;
  state.rfq.resolve(request, 'filled');
  const takerFill: RfqTakerFill | null = f.signature === undefined ? null : { portfolioId: f.portfolioId, nonce: f.nonce, deadline: f.deadline, ...(f.signedDeadline !== undefined ? { signedDeadline: f.signedDeadline } : {}), signature: f.signature };
  sink.push({ type: 'rfq_resolved', requestId: request.requestId, status: 'filled', quoteId: f.quoteId, fillSize: f.fillSize, takerFill });
  return { tradeId: String(tradeId) };
}
