/**
 * The gateway's own checks of order entry and RFQ, on the read models (the catalog, the
 * accounts fold, the order history; architecture.md rule 6), never on engine state.
 *
 * Order entry's order rules are not here: they are the engine's pre-check
 * (engine/precheck.ts), run early by entryChecks.ts. What order entry takes from this file is
 * wire-specific: the portfolio id and its default (`portfolioIdOf`), whose order a cancel
 * names (`checkCancelTarget`, from the order history), the nonce floor (`checkNonce`, which
 * also knows the order-nonce store) and uint256 deadlines (`deadlineSeconds`).
 *
 * The RFQ routes still use `checkPortfolio`, `checkSeries`, `checkSize` and `checkDeadline`
 * before a quote is filled (rfqFill.ts, routes/rfq.ts); the engine checks an RFQ fill again
 * when it is applied (flows/rfq.ts).
 */
import { formatHuman, reject, type Hex } from '../../engine/index.ts';
import type { PairInfo, SeriesInfo } from '../readModels/catalog.ts';
import type { OrderView } from './orderHistory.ts';
import type { ErrorReply } from '../http/errors.ts';
import type { OrderContext } from './orderContext.ts';
import { fieldPath } from './fields.ts';
import { orderEngineError, orderNotFound, orderValidation, portfolioNotFound, seriesNotFound } from './orderErrors.ts';

export type Check<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: ErrorReply };

const pass = <T>(value: T): Check<T> => ({ ok: true, value });
const refuse = (error: ErrorReply): { ok: false; error: ErrorReply } => ({ ok: false, error });

/**
 * The portfolio id an entry names, as a number (wire only: whether the portfolio may trade is
 * the engine's rule). MMM wallets trade from portfolio 0 (their cash portfolio; positions are
 * routed to internal trading portfolios) and may omit it; other wallets must name one. An id
 * past 2^53 names no portfolio.
 */
export function portfolioIdOf(ctx: OrderContext, owner: string, portfolioId: bigint | null, path: string): Check<number> {
  if (portfolioId === null) {
    const field = fieldPath(path, 'portfolioId');
    const isMmm = ctx.services.reads.catalog.isMmm(owner);
    return isMmm ? pass(0) : refuse(orderValidation(`${field} is required (only MMM wallets may omit it; they trade from portfolio 0)`, { field }));
  }
  if (portfolioId > BigInt(Number.MAX_SAFE_INTEGER)) return refuse(portfolioNotFound(portfolioId.toString()));
  return pass(Number(portfolioId));
}

/** The portfolio an RFQ taker trades from: `portfolioIdOf`, then portfolio 0 only for an MMM and the portfolio must exist. */
export function checkPortfolio(ctx: OrderContext, owner: string, portfolioId: bigint | null, path: string): Check<number> {
  const id = portfolioIdOf(ctx, owner, portfolioId, path);
  if (!id.ok) return id;
  const reads = ctx.services.reads;
  if (id.value === 0) {
    if (reads.catalog.isMmm(owner)) return id;
    return refuse(orderEngineError(reject('portfolio_reserved', { field: fieldPath(path, 'portfolioId'), portfolioId: 0 }), 'portfolio 0 is the cash portfolio of a market maker; name one of your trading portfolios (POST /api/portfolio/create)'));
  }
  if (!reads.accounts.portfolio(owner, id.value)) return refuse(portfolioNotFound(id.value.toString()));
  return id;
}

export type LiveSeries = { readonly series: SeriesInfo; readonly pair: PairInfo };

/** 404 `Series not found: {seriesId}` for an unknown series; 400 failed_precondition once settled or expired. */
export function checkSeries(ctx: OrderContext, seriesId: Hex, nowSec: number): Check<LiveSeries> {
  const catalog = ctx.services.reads.catalog;
  const series = catalog.series.get(seriesId);
  if (!series) return refuse(seriesNotFound(seriesId));
  if (series.settled) return refuse(orderEngineError(reject('series_settled', { seriesId })));
  if (series.expiry <= nowSec) return refuse(orderEngineError(reject('series_expired', { seriesId })));
  return pass({ series, pair: catalog.pairs.get(series.pairId)! });
}

/** Size (WAD) on the pair's size step, at least its minimum, at most the venue's largest order (the engine's configured maximum). */
export function checkSize(ctx: OrderContext, pair: Pick<PairInfo, 'sizeStep' | 'minSize'>, size: bigint, path: string, name = 'size'): Check<bigint> {
  const field = fieldPath(path, name);
  if (size % pair.sizeStep !== 0n) {
    return refuse(orderValidation(`${field} must be a multiple of the size step ${formatHuman(pair.sizeStep, 18)}`, { field, reason: 'off_size_step', sizeStep: pair.sizeStep.toString() }));
  }
  if (size < pair.minSize) return refuse(orderValidation(`${field} is below the minimum size ${formatHuman(pair.minSize, 18)}`, { field, reason: 'below_min_size', minSize: pair.minSize.toString() }));
  if (size / pair.sizeStep > BigInt(ctx.services.venue.config.maxOrderLots)) return refuse(orderValidation(`${field} exceeds the maximum order size`, { field, reason: 'size_too_large' }));
  return pass(size);
}

export function checkDeadline(deadline: bigint, nowSec: number, path: string): Check<bigint> {
  if (deadline >= BigInt(nowSec)) return pass(deadline);
  return refuse(orderEngineError(reject('deadline_passed', { field: fieldPath(path, 'deadline'), deadline: deadline.toString(), now: nowSec })));
}

export function checkNonce(ctx: OrderContext, owner: string, nonce: bigint, path: string): Check<bigint> {
  if (!ctx.nonces.isUsed(owner, nonce)) return pass(nonce);
  return refuse(orderEngineError(reject('nonce_used', { field: fieldPath(path, 'nonce'), nonce: nonce.toString() })));
}

/**
 * The order a cancel names must be an open order of the caller. Someone else's order
 * answers exactly like an unknown one (404), so that order ids do not leak; the caller's
 * own finished order is a failed precondition naming its final status.
 */
export function checkCancelTarget(ctx: OrderContext, owner: string, orderId: Hex): Check<OrderView> {
  const open = ctx.history.openOrder(owner, orderId);
  if (open) return pass(open);
  const done = ctx.history.finishedOrder(owner, orderId);
  if (done) return refuse(orderEngineError(reject('order_not_open', { orderId, status: done.status })));
  return refuse(orderNotFound(orderId));
}

/** Engine command times are numbers; a uint256 deadline beyond them means "no deadline" to the engine. */
export function deadlineSeconds(deadline: bigint): number {
  return deadline > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(deadline);
}

/** A command's `signedDeadline`: the signed value when `deadlineSeconds` had to cap it (the settlement contract hashes the signed one), else nothing. */
export function signedDeadlineOf(deadline: bigint): { signedDeadline?: bigint } {
  return deadline > BigInt(Number.MAX_SAFE_INTEGER) ? { signedDeadline: deadline } : {};
}
