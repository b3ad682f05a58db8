/**
 * The clock command: everything that happens because time passed. Orders past their
 * good-till time leave the book, RFQ auctions close, series at expiry settle, and new
 * expiries are listed. The gateway sends it; the engine has no timers.
 */
import type { Rejection } from '../codes.ts';
import type { VenueState } from '../state.ts';
import type { EventSink } from './eventSink.ts';
import { removeOrder } from './orders.ts';
import { settleDue } from './settlement.ts';
import { listDueSeries } from './market.ts';
import { fireDeadMen } from './massCancel.ts';

export function tick(state: VenueState, sink: EventSink): Rejection | null {
  sink.push({ type: 'clock' });
  expireOrders(state, sink);
  fireDeadMen(state, sink);
  for (const r of state.rfq.due(state.nowSec)) {
    state.rfq.resolve(r, 'expired');
    sink.push({ type: 'rfq_resolved', requestId: r.requestId, status: 'expired', quoteId: null, fillSize: null });
  }
  settleDue(state, sink);
  if (state.config.autoListing) listDueSeries(state, sink);
  return null;
}

function expireOrders(state: VenueState, sink: EventSink): void {
  const heap = state.expiryHeap;
  while (heap.size > 0 && heap.peekKey()! <= state.nowSec) {
    const orderId = heap.pop()!;
    const open = state.orderIndex.get(orderId);
    // Entries stay until their time (an order that left the book leaves its entry behind). The
    // engine does not derive order ids, so one may have come back on a later order with its own
    // good-till time: only an order whose own expiry has passed leaves.
    if (open === undefined || state.accounts.orders.expiry[open]! > state.nowSec) continue;
    removeOrder(state, sink, open, 'expired', 'order_expiry', 'expiry');
  }
}
