/**
 * The checks an order passes before its signature is recovered, cheapest first
 * (issue 7): portfolio ownership -> series exists and is live -> price on the tick grid,
 * size on the size step -> deadline not passed -> nonce unused. They read the engine's
 * state and never change it; the engine checks the state-dependent ones again when the
 * command is applied (state may move while a signature is being recovered).
 */
import type { Hex } from '../../engine/domain/hex.ts';
import { reject } from '../../engine/codes.ts';
import { formatHuman } from '../../engine/domain/fixed.ts';
import { exactTick } from '../../engine/domain/ticks.ts';
import type { Pair } from '../../engine/actors/registry.ts';
import type { OrderRecord, SeriesActor } from '../../engine/actors/series.ts';
import type { ErrorReply } from '../http/errors.ts';
import type { OrderContext } from './orderContext.ts';
import { fieldPath } from './fields.ts';
import { orderEngineError, orderNotFound, orderValidation, portfolioNotFound, seriesNotFound } from './orderErrors.ts';

export type Check<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: ErrorReply };

const pass = <T>(value: T): Check<T> => ({ ok: true, value });
const refuse = (error: ErrorReply): { ok: false; error: ErrorReply } => ({ ok: false, error });

/**
 * The portfolio an order trades from. MMM wallets trade from portfolio 0 (their cash
 * portfolio; positions are routed to internal trading portfolios) and may omit it; other
 * wallets must name one of their trading portfolios (ids are per wallet).
 */
export function checkPortfolio(ctx: OrderContext, owner: string, portfolioId: bigint | null, path: string): Check<number> {
  const field = fieldPath(path, 'portfolioId');
  const accounts = ctx.services.venue.state.accounts;
  const isMmm = accounts.accounts.get(owner)?.isMmm === true;
  if (portfolioId === null) {
    return isMmm ? pass(0) : refuse(orderValidation(`${field} is required (only MMM wallets may omit it; they trade from portfolio 0)`, { field }));
  }
  if (portfolioId === 0n) {
    if (isMmm) return pass(0);
    return refuse(orderEngineError(reject('portfolio_reserved', { field, portfolioId: 0 }), 'portfolio 0 is the cash portfolio of a market maker; name one of your trading portfolios (POST /api/portfolio/create)'));
  }
  if (portfolioId > BigInt(Number.MAX_SAFE_INTEGER) || !accounts.portfolio(owner, Number(portfolioId))) return refuse(portfolioNotFound(portfolioId.toString()));
  return pass(Number(portfolioId));
}

export type LiveSeries = { readonly series: SeriesActor; readonly pair: Pair };

/** 404 `Series not found: {seriesId}` for an unknown series; 400 failed_precondition once settled or expired. */
export function checkSeries(ctx: OrderContext, seriesId: Hex, nowSec: number): Check<LiveSeries> {
  const state = ctx.services.venue.state;
  const series = state.series.get(seriesId);
  if (!series) return refuse(seriesNotFound(seriesId));
  if (series.settled) return refuse(orderEngineError(reject('series_settled', { seriesId })));
  if (series.spec.expiry <= nowSec) return refuse(orderEngineError(reject('series_expired', { seriesId })));
  return pass({ series, pair: state.pairs.get(series.spec.pairId)! });
}

/** A human price must be a whole number of ticks (rejected, never rounded); its tick. */
export function checkPrice(pair: Pair, price: bigint, path: string): Check<number> {
  const field = fieldPath(path, 'price');
  const tick = exactTick(price, pair.tickDecimals, field);
  if (!tick.ok) return refuse(orderValidation(tick.error.message, { field, reason: 'off_tick_grid', tickDecimals: pair.tickDecimals }));
  if (tick.value <= 0) return refuse(orderValidation(`${field} must be greater than 0`, { field, reason: 'zero_price' }));
  return pass(tick.value);
}

export function checkTick(tick: number, path: string): Check<number> {
  const field = fieldPath(path, 'tick');
  return tick > 0 ? pass(tick) : refuse(orderValidation(`${field} must be greater than 0`, { field, reason: 'zero_price' }));
}

/** Size (WAD) on the pair's size step, at least its minimum, at most the venue's largest order. */
export function checkSize(ctx: OrderContext, pair: Pair, size: bigint, path: string, name = 'size'): Check<bigint> {
  const field = fieldPath(path, name);
  if (size % pair.sizeStep !== 0n) {
    return refuse(orderValidation(`${field} must be a multiple of the size step ${formatHuman(pair.sizeStep, 18)}`, { field, reason: 'off_size_step', sizeStep: pair.sizeStep.toString() }));
  }
  if (size < pair.minSize) return refuse(orderValidation(`${field} is below the minimum size ${formatHuman(pair.minSize, 18)}`, { field, reason: 'below_min_size', minSize: pair.minSize.toString() }));
  if (size / pair.sizeStep > BigInt(ctx.services.venue.state.config.maxOrderLots)) return refuse(orderValidation(`${field} exceeds the maximum order size`, { field, reason: 'size_too_large' }));
  return pass(size);
}

export function checkDeadline(deadline: bigint, nowSec: number, path: string): Check<bigint> {
  if (deadline >= BigInt(nowSec)) return pass(deadline);
  return refuse(orderEngineError(reject('deadline_passed', { field: fieldPath(path, 'deadline'), deadline: deadline.toString(), now: nowSec })));
}

export function checkExpiry(expiry: number, nowSec: number, path: string): Check<number> {
  if (expiry > nowSec) return pass(expiry);
  return refuse(orderEngineError(reject('order_expiry_passed', { field: fieldPath(path, 'expiry'), expiry, now: nowSec })));
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
export function checkCancelTarget(ctx: OrderContext, owner: string, orderId: Hex): Check<OrderRecord> {
  const open = ctx.history.openRecord(owner, orderId);
  if (open) return pass(open);
  const done = ctx.history.finishedOrder(owner, orderId);
  if (done) return refuse(orderEngineError(reject('order_not_open', { orderId, status: done.status })));
  return refuse(orderNotFound(orderId));
}

/** Engine command times are numbers; a uint256 deadline beyond them means "no deadline" to the engine. */
export function deadlineSeconds(deadline: bigint): number {
  return deadline > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(deadline);
}

/** No two entries of one request may share a nonce (each signature is single-use). */
export function checkDistinctNonces(nonces: readonly { readonly nonce: bigint; readonly field: string }[]): Check<null> {
  const seen = new Set<bigint>();
  for (const n of nonces) {
    if (seen.has(n.nonce)) return refuse(orderValidation(`${n.field}: nonce ${n.nonce} appears twice in this request`, { field: n.field, reason: 'duplicate_in_batch' }));
    seen.add(n.nonce);
  }
  return pass(null);
}
