/** Portfolios and cash: create, deposit, withdraw, transfer (api.md). */
import { reject, type Rejection } from '../codes.ts';
import type { VenueState } from '../state.ts';
import type { Portfolio } from '../actors/portfolio.ts';
import type { EventSink } from './eventSink.ts';

/** Portfolio 0 always exists for its owner; others must have been created. */
function find(state: VenueState, owner: string, id: number): Portfolio | null {
  if (id === 0) return state.accounts.cashPortfolio(owner, state.now);
  const p = state.accounts.portfolio(owner, id);
  return p && p.id > 0 ? p : null;
}

export function deposit(state: VenueState, sink: EventSink, owner: string, portfolioId: number, amount: bigint): Rejection | null {
  if (amount <= 0n) return reject('bad_amount', { field: 'amount' });
  const p = find(state, owner, portfolioId);
  if (!p) return reject('unknown_portfolio', { portfolioId });
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
