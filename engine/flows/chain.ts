/**
 * Chain events (engine/domain/chain.ts): each provider id is taken once, for good (the ids are
 * engine state, in snapshots), so a repeat is refused `chain_event_duplicate` and changes
 * nothing, also after a restart. A deposit credits collateral as the `deposit` command does; a
 * refused deposit records nothing (the provider may send it again), unless it is one the
 * collateral vault holds (it carries its `depositId`): that one is taken, with the refusal in its
 * event, and the settlement stream returns its tokens (docs/chain.md). A wallet's request made
 * on chain is always taken: a nonce floor cancels the wallet's older orders; a nonce increment
 * raises a market maker's quote nonce, or is refused `not_mmm` in its event for another wallet;
 * a forced-withdrawal request is paid up to free collateral (its event's `paid`) or refused; a
 * forced withdrawal executed on chain is taken as the chain paid it (engine/flows/cash.ts);
 * orders and cancels sent to the chain directly are entered as their REST command would be, or
 * refused as it would be (an order the venue already has: `duplicate_order` or `nonce_used`).
 */
import { reject, type Rejection } from '../codes.ts';
import type { VenueState } from '../state.ts';
import type { EventSink } from './eventSink.ts';
import type { ChainEventData } from '../domain/chain.ts';
import { deposit, forcedWithdrawal, forcedWithdrawalExecuted } from './cash.ts';
import { raiseNonceFloor } from './massCancel.ts';
import { enterOrders } from './orders.ts';
import { fillQuote } from './rfq.ts';

export function chainEvent(state: VenueState, sink: EventSink, id: string, event: ChainEventData): Rejection | null {
  if ((event.kind === 'relay_confirmed' || event.kind === 'relay_failed') && event.batch !== undefined) return relayerReport(state, sink, id, event, event.batch);
  if (state.chainEvents.has(id)) return reject('chain_event_duplicate', { id });
  if (event.kind === 'deposit') {
    const refused = deposit(state, sink, event.owner, event.portfolioId, event.amount);
    if (refused !== null) {
      // A provider's report is refused and may come again; a deposit the vault holds (it has a
      // depositId) is refused for good: taken once, and its tokens go back to the depositor.
      if (event.depositId === undefined) return refused;
      state.chainEvents.add(id);
      sink.push({ type: 'chain_event', id, event, refused: refused.code });
      return null;
    }
  }
  let refused: string | null = null;
  if (event.kind === 'nonce_floor') raiseNonceFloor(state, sink, event.owner, event.floor);
  else if (event.kind === 'mmm_nonce_request') refused = incrementMmmNonce(state, sink, event.mmm)?.code ?? null;
  else if (event.kind === 'forced_withdrawal_executed') refused = forcedWithdrawalExecuted(state, sink, event.owner, event.portfolioId, event.requestId, event.paid);
  else if (event.kind === 'direct_orders') {
    const entered = event.replace ? enterOrders(state, sink, event.cancels, event.places, 'replace') : enterOrders(state, sink, event.cancels, event.places);
    refused = 'code' in entered ? entered.code : null;
  } else if (event.kind === 'direct_rfq_fill') {
    // The route names the quote's request; on chain the quote alone names it.
    const requestId = state.rfq.findQuote(event.quoteId)?.request.requestId;
    const filled = requestId === undefined ? reject('unknown_rfq', { quoteId: event.quoteId }) : fillQuote(state, sink, { requestId, quoteId: event.quoteId, taker: event.taker, portfolioId: event.portfolioId, fillSize: event.fillSize, nonce: event.nonce, deadline: event.deadline, signedDeadline: event.signedDeadline, signature: event.signature });
    refused = 'code' in filled ? filled.code : null;
  } else if (event.kind === 'withdrawal_request') {
    state.chainEvents.add(id);
    // Taken once by its request id too: an execution taken in first leaves nothing to pay.
    const key = event.requestId.toString();
    const r = state.forcedWithdrawals.has(key) ? { paid: 0n, refused: 'forced_withdrawal_executed' } : forcedWithdrawal(state, sink, event.owner, event.portfolioId, event.amount);
    if (!state.forcedWithdrawals.has(key)) state.forcedWithdrawals.set(key, r.paid);
    sink.push({ type: 'chain_event', id, event, refused: r.refused, paid: r.paid });
    return null;
  }
  state.chainEvents.add(id);
  sink.push({ type: 'chain_event', id, event, refused });
  return null;
}

/** A market maker's quote nonce up by one (its quotes at the old one can no longer fill), or `not_mmm`. */
export function incrementMmmNonce(state: VenueState, sink: EventSink, mmm: string): Rejection | null {
  const w = state.accounts.walletOf(mmm);
  if (w < 0 || state.accounts.isMmm[w] !== 1) return reject('not_mmm', { address: mmm });
  const nonce = ++state.accounts.mmmNonce[w]!;
  sink.push({ type: 'mmm_nonce', address: mmm, nonce });
  return null;
}

/**
 * The relayer's report on a settlement batch: confirmed final (the next batch, exactly once: its
 * number is the state, not its id) or refused by the chain (the next batch, as often as it is
 * retried). Its event tells readers which trades, orders and withdrawals it carried.
 */
function relayerReport(state: VenueState, sink: EventSink, id: string, event: ChainEventData, batch: number): Rejection | null {
  if (batch !== state.settledBatch + 1) return reject('relay_out_of_order', { batch, expected: state.settledBatch + 1 });
  if (event.kind === 'relay_confirmed') state.settledBatch = batch;
  sink.push({ type: 'chain_event', id, event, refused: null });
  return null;
}
