/** Portfolios and cash: create, deposit, withdraw, transfer (api.md). */
import { reject, type Rejection } from '../codes.ts';
import type { VenueState } from '../state.ts';
import type { Portfolio } from '../actors/portfolio.ts';
import type { EventSink } from './eventSink.ts';
import { UINT128_MAX } from '../domain/fixed.ts';

/** A portfolio's deposit stays within uint128, as the settlement contract stores it: null when `amount` fits. */
function overBound(p: Portfolio, amount: bigint): Rejection | null {
  const room = UINT128_MAX - p.deposit;
  return amount > room ? reject('deposit_limit', { portfolioId: p.id, maxDeposit: (room > 0n ? room : 0n).toString() }) : null;
}

/** Portfolio 0 always exists for its owner; others must have been created. */
function find(state: VenueState, owner: string, id: number): Portfolio | null {
  if (id === 0) return state.accounts.cashPortfolio(owner, state.now);
  const p = state.accounts.portfolio(owner, id);
  return p && p.id > 0 ? p : null;
}

export function deposit(state: VenueState, sink: EventSink, owner: string, portfolioId: number, amount: bigint): Rejection | null {
  if (amount <= 0n) return reject('bad_amount', { field: 'amount' });
  // Before `find`, which creates portfolio 0: a refused deposit changes nothing.
  if (amount > UINT128_MAX) return reject('deposit_limit', { portfolioId, maxDeposit: UINT128_MAX.toString() });
  const p = find(state, owner, portfolioId);
  if (!p) return reject('unknown_portfolio', { portfolioId });
  const over = overBound(p, amount);
  if (over) return over;
  p.deposit += amount;
  sink.portfolio(p);
  return null;
}

export function withdraw(state: VenueState, sink: EventSink, owner: string, portfolioId: number, amount: bigint): Rejection | null {
  if (amount <= 0n) return reject('bad_amount', { field: 'amount' });
  const p = find(state, owner, portfolioId);
  if (!p) return reject('unknown_portfolio', { portfolioId });
  const max = maxWithdraw(state, p);
  if (amount > max) return reject('insufficient_funds', { maxWithdraw: max.toString() });
  p.deposit -= amount;
  sink.portfolio(p);
  return null;
}

export function transfer(state: VenueState, sink: EventSink, owner: string, from: number, to: number, amount: bigint): Rejection | null {
  if (amount <= 0n) return reject('bad_amount', { field: 'amount' });
  if (from === to) return reject('same_portfolio');
  const src = find(state, owner, from);
  if (!src) return reject('unknown_portfolio', { portfolioId: from });
  const dst = find(state, owner, to);
  if (!dst) return reject('unknown_portfolio', { portfolioId: to });
  const max = maxWithdraw(state, src);
  if (amount > max) return reject('insufficient_funds', { maxWithdraw: max.toString() });
  const over = overBound(dst, amount);
  if (over) return over;
  src.deposit -= amount;
  dst.deposit += amount;
  sink.portfolio(src);
  sink.portfolio(dst);
  return null;
}

/** What may leave a portfolio: free equity over margin (counting open orders), capped at its own deposit. */
export function maxWithdraw(state: VenueState, p: Portfolio): bigint {
  const r = state.accounts.risk(p);
  return r.maxWithdraw < p.deposit ? r.maxWithdraw : p.deposit > 0n ? p.deposit : 0n;
}
