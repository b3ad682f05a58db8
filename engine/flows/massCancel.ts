/**
 * Cancels a market maker triggers without signing each order (docs/order-entry.md "Mass cancel
 * and the dead-man switch"): a mass cancel of the wallet's open orders by scope, the same on a
 * socket's close, and the dead-man switch, whose deadline is engine state (it survives a
 * restart) and fires at the first clock command past it; and a wallet's nonce floor taken in
 * from the chain (docs/chain.md "Leaving without the venue").
 */
import type { Hex } from '../domain/hex.ts';
import type { CancelScope } from '../commands.ts';
import type { CancelReason } from '../domain/instructions.ts';
import { reject, type Rejection } from '../codes.ts';
import type { VenueState } from '../state.ts';
import type { EventSink } from './eventSink.ts';
import { removeOrder } from './orders.ts';

/** The dead-man switch's bounds (ms): 0 disarms. */
export const CANCEL_AFTER_MIN_MS = 1000;
export const CANCEL_AFTER_MAX_MS = 600_000;

/** The detail an order event gives for each reason (its `reason`). */
const DETAIL: Readonly<Record<'mass_cancel' | 'disconnect' | 'dead_man', string>> = {
  mass_cancel: 'cancelled_by_mass_cancel',
  disconnect: 'cancelled_on_disconnect',
  dead_man: 'cancelled_by_dead_man',
};

/** Whether open order `o` (a slot) is in `scope`. */
function matches(state: VenueState, o: number, scope: CancelScope, listed: ReadonlySet<Hex> | null): boolean {
  const slots = state.accounts.orders;
  const orderId = slots.orderId[o]!;
  if (listed !== null && !listed.has(orderId)) return false;
  if (scope.seriesId !== undefined && slots.seriesId[o] !== scope.seriesId) return false;
  if (scope.pairId !== undefined && slots.pairId[o] !== scope.pairId) return false;
  if (scope.side !== undefined && (slots.buy[o] === 1) !== (scope.side === 'buy')) return false;
  if (scope.portfolioId !== undefined && slots.portfolioId[o] !== scope.portfolioId) return false;
  if (scope.mmpOnly === true && !slots.instructions[o]!.mmp) return false;
  return state.orderIndex.get(orderId) === o;
}

/** Cancel the wallet's open orders in `scope`, oldest first per portfolio; returns their ids. */
export function cancelAll(state: VenueState, sink: EventSink, owner: string, scope: CancelScope, reason: 'mass_cancel' | 'disconnect' | 'dead_man'): { orderIds: Hex[] } {
  const wallet = state.accounts.walletOf(owner);
  if (wallet < 0) return { orderIds: [] };
  const listed = scope.orderIds === undefined ? null : new Set(scope.orderIds);
  const slots = state.accounts.orders;
  const taken: number[] = [];
  for (const p of state.accounts.walletPortfolios(wallet)) for (let o = p.openOrders.head; o !== -1; o = slots.pNext[o]!) if (matches(state, o, scope, listed)) taken.push(o);
  // Their ids before they go: a removed order's slot is freed.
  const orderIds = taken.map((o) => slots.orderId[o]!);
  const cancelReason: CancelReason = reason;
  for (const o of taken) removeOrder(state, sink, o, 'cancelled', DETAIL[reason], cancelReason);
  return { orderIds };
}

/**
 * A wallet's nonce floor (docs/chain.md "Leaving without the venue"): every nonce below `floor`
 * counts as used from here on, and its open orders signed below it are cancelled
 * (`nonce_floor`), oldest first per portfolio; returns their ids.
 */
export function raiseNonceFloor(state: VenueState, sink: EventSink, owner: string, floor: bigint): { orderIds: Hex[] } {
  const wallet = state.accounts.wallet(owner);
  state.accounts.nonces[wallet]!.raiseBase(floor);
  const slots = state.accounts.orders;
  const taken: number[] = [];
  for (const p of state.accounts.walletPortfolios(wallet)) {
    for (let o = p.openOrders.head; o !== -1; o = slots.pNext[o]!) {
      const nonce = state.series.get(slots.seriesId[o]!)!.openOrder(slots.ref[o]!)?.nonce;
      if (nonce !== undefined && nonce < floor) taken.push(o);
    }
  }
  const orderIds = taken.map((o) => slots.orderId[o]!);
  for (const o of taken) removeOrder(state, sink, o, 'cancelled', 'cancelled_by_nonce_floor', 'nonce_floor');
  return { orderIds };
}

/** Arm (or move, or with 0 disarm) the wallet's dead-man switch: `cancelAt` in venue ms, or null. */
export function setCancelAfter(state: VenueState, sink: EventSink, owner: string, timeoutMs: number): { cancelAt: number | null } | Rejection {
  if (!Number.isSafeInteger(timeoutMs) || (timeoutMs !== 0 && (timeoutMs < CANCEL_AFTER_MIN_MS || timeoutMs > CANCEL_AFTER_MAX_MS))) return reject('bad_cancel_after', { timeoutMs: String(timeoutMs) });
  const cancelAt = timeoutMs === 0 ? null : state.now + timeoutMs;
  if (cancelAt === null) state.cancelAfter.delete(owner);
  else state.cancelAfter.set(owner, cancelAt);
  sink.push({ type: 'dead_man', owner, cancelAt });
  return { cancelAt };
}

/** The clock: every switch whose deadline has passed fires (all the wallet's open orders) and disarms. */
export function fireDeadMen(state: VenueState, sink: EventSink): void {
  if (state.cancelAfter.size === 0) return;
  const due: string[] = [];
  for (const [owner, at] of state.cancelAfter) if (at <= state.now) due.push(owner);
  for (const owner of due) {
    state.cancelAfter.delete(owner);
    cancelAll(state, sink, owner, {}, 'dead_man');
    sink.push({ type: 'dead_man', owner, cancelAt: null });
  }
}
