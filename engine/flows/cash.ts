/**
 * Portfolios and cash: create, deposit, withdraw, transfer (api.md), and the market maker flag.
 * A cash command's `cash` event says what moved (the settlement stream mints, pays out and moves
 * the same amounts on chain: docs/chain.md).
 */
import { reject, type Rejection } from '../codes.ts';
import type { VenueState } from '../state.ts';
import { newPortfolio, type Portfolio } from '../actors/portfolio.ts';
import type { EventSink } from './eventSink.ts';
import { UINT128_MAX } from '../domain/fixed.ts';
import { removeOrder } from './orders.ts';

/** A portfolio's deposit stays within uint128, as the settlement contract stores it: null when `amount` fits. */
function overBound(state: VenueState, p: Portfolio, amount: bigint): Rejection | null {
  const room = UINT128_MAX - state.accounts.depositOf(p);
  return amount > room ? reject('deposit_limit', { portfolioId: p.id, maxDeposit: (room > 0n ? room : 0n).toString() }) : null;
}

/**
 * Portfolio 0 always exists for its owner (created by its first deposit); others must have
 * been created. `create` is false where a refusal may follow: a refused command changes nothing.
 */
function find(state: VenueState, owner: string, id: number, create = true): Portfolio | null {
  if (id === 0) return create ? state.accounts.cashPortfolio(owner, state.now) : (state.accounts.portfolio(owner, 0) ?? EMPTY_CASH);
  const p = state.accounts.portfolio(owner, id);
  return p && p.id > 0 ? p : null;
}

/** A wallet's portfolio 0 before it exists: nothing in it, nothing to take out. */
const EMPTY_CASH = newPortfolio('', -1, -1, 0, 0);

export function deposit(state: VenueState, sink: EventSink, owner: string, portfolioId: number, amount: bigint): Rejection | null {
  if (amount <= 0n) return reject('bad_amount', { field: 'amount' });
  // Before `find`, which creates portfolio 0: a refused deposit changes nothing.
  if (amount > UINT128_MAX) return reject('deposit_limit', { portfolioId, maxDeposit: UINT128_MAX.toString() });
  const p = find(state, owner, portfolioId);
  if (!p) return reject('unknown_portfolio', { portfolioId });
  const over = overBound(state, p, amount);
  if (over) return over;
  state.accounts.addDeposit(p, amount);
  sink.portfolio(p);
  return null;
}

/** The `deposit` command: test collateral minted into a portfolio (the gateway takes it only on local and testnet). */
export function faucetDeposit(state: VenueState, sink: EventSink, owner: string, portfolioId: number, amount: bigint): Rejection | null {
  const refused = deposit(state, sink, owner, portfolioId, amount);
  if (refused === null) sink.push({ type: 'cash', kind: 'faucet', owner, portfolioId, toPortfolioId: null, amount, withdrawalId: null });
  return refused;
}

export function withdraw(state: VenueState, sink: EventSink, owner: string, portfolioId: number, amount: bigint): Rejection | null {
  if (amount <= 0n) return reject('bad_amount', { field: 'amount' });
  const p = find(state, owner, portfolioId, false);
  if (!p) return reject('unknown_portfolio', { portfolioId });
  if (p === EMPTY_CASH) return reject('insufficient_funds', { maxWithdraw: '0' });
  const max = maxWithdraw(state, p);
  if (amount > max) return reject('insufficient_funds', { maxWithdraw: max.toString() });
  state.accounts.addDeposit(p, amount, -1);
  sink.portfolio(p);
  sink.push({ type: 'cash', kind: 'withdrawal', owner, portfolioId, toPortfolioId: null, amount, withdrawalId: String(state.seq) });
  return null;
}

/**
 * A forced-withdrawal request made on chain (docs/chain.md "Leaving without the venue"): paid up
 * to the portfolio's free collateral, as a withdrawal would be, or refused with the reason.
 * What is paid leaves the portfolio's cash; the settlement stream's FORCED_WITHDRAW pays it.
 */
export function forcedWithdrawal(state: VenueState, sink: EventSink, owner: string, portfolioId: number, amount: bigint): { paid: bigint; refused: string | null } {
  if (amount <= 0n) return { paid: 0n, refused: 'bad_amount' };
  const p = find(state, owner, portfolioId, false);
  if (!p) return { paid: 0n, refused: 'unknown_portfolio' };
  const max = p === EMPTY_CASH ? 0n : maxWithdraw(state, p);
  if (max <= 0n || p === EMPTY_CASH) return { paid: 0n, refused: 'insufficient_funds' };
  const paid = amount < max ? amount : max;
  state.accounts.addDeposit(p, paid, -1);
  sink.portfolio(p);
  return { paid, refused: null };
}

/**
 * A forced withdrawal the vault executed without the venue: the chain paid `paid` of the
 * portfolio's cash, which leaves the engine's too, whatever the margin says. When the venue had
 * taken the same request in, its FORCED_WITHDRAW was skipped on chain (the request was executed
 * first), so what the venue took is credited back. Returns a reason when the portfolio is unknown.
 */
export function forcedWithdrawalExecuted(state: VenueState, sink: EventSink, owner: string, portfolioId: number, requestId: bigint, paid: bigint): string | null {
  state.forcedExecutions++;
  const key = requestId.toString();
  const taken = state.forcedWithdrawals.get(key) ?? 0n;
  state.forcedWithdrawals.set(key, paid);
  if (taken === paid) return null;
  const p = find(state, owner, portfolioId, false);
  if (!p || p === EMPTY_CASH) return 'unknown_portfolio';
  if (taken > 0n) state.accounts.addDeposit(p, taken);
  if (paid > 0n) state.accounts.addDeposit(p, paid, -1);
  sink.portfolio(p);
  return null;
}

export function transfer(state: VenueState, sink: EventSink, owner: string, from: number, to: number, amount: bigint): Rejection | null {
  if (amount <= 0n) return reject('bad_amount', { field: 'amount' });
  if (from === to) return reject('same_portfolio');
  const src = find(state, owner, from, false);
  if (!src) return reject('unknown_portfolio', { portfolioId: from });
  const found = find(state, owner, to, false);
  if (!found) return reject('unknown_portfolio', { portfolioId: to });
  const max = src === EMPTY_CASH ? 0n : maxWithdraw(state, src);
  if (amount > max) return reject('insufficient_funds', { maxWithdraw: max.toString() });
  const over = overBound(state, found, amount);
  if (over) return over;
  const dst = found === EMPTY_CASH ? state.accounts.cashPortfolio(owner, state.now) : found;
  state.accounts.addDeposit(src, amount, -1);
  state.accounts.addDeposit(dst, amount);
  sink.portfolio(src);
  sink.portfolio(dst);
  sink.push({ type: 'cash', kind: 'transfer', owner, portfolioId: from, toPortfolioId: to, amount, withdrawalId: null });
  return null;
}

/**
 * Set or clear a wallet's market maker flag. A wallet that stops being a market maker may no
 * longer trade in portfolio 0: its open orders there (in its internal trading portfolios) are
 * cancelled (`cancelReason: admin`); its positions stay where they are.
 */
export function setMmm(state: VenueState, sink: EventSink, address: string, isMmm: boolean): null {
  const accounts = state.accounts;
  const w = accounts.wallet(address);
  accounts.setMmm(w, isMmm);
  sink.push({ type: 'mmm', address, isMmm });
  if (!isMmm) {
    const doomed: number[] = [];
    const slots = accounts.orders;
    for (const p of accounts.walletPortfolios(w)) {
      if (p.internalPair === null) continue;
      for (let o = p.openOrders.head; o !== -1; o = slots.pNext[o]!) doomed.push(o);
    }
    for (const o of doomed) removeOrder(state, sink, o, 'cancelled', 'mmm_revoked', 'admin');
  }
  return null;
}

/** What may leave a portfolio: free equity over margin (counting open orders), capped at its own deposit. */
export function maxWithdraw(state: VenueState, p: Portfolio): bigint {
  const r = state.accounts.risk(p);
  const deposit = state.accounts.depositOf(p);
  return r.maxWithdraw < deposit ? r.maxWithdraw : deposit > 0n ? deposit : 0n;
}
