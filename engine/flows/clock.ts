/**
 * The clock command: everything that happens because time passed. Orders past their
 * good-till time leave the book, RFQ auctions close, series at expiry settle, and new
 * expiries are listed. The gateway sends it; the engine has no timers.
 */
import type { Rejection } from '../codes.ts';
import type { VenueState } from '../state.ts';
import type { EventSink } from './eventSink.ts';
import { expireDue } from './orders.ts';
import { settleDue } from './settlement.ts';
import { listDueSeries } from './market.ts';
import { fireDeadMen } from './massCancel.ts';

export function tick(state: VenueState, sink: EventSink): Rejection | null {
  sink.push({ type: 'clock' });
  expireDue(state, sink);
  fireDeadMen(state, sink);
  for (const r of state.rfq.due(state.nowSec)) {
    state.rfq.resolve(r, 'expired');
    sink.push({ type: 'rfq_resolved', requestId: r.requestId, status: 'expired', quoteId: null, fillSize: null, takerFill: null });
  }
  settleDue(state, sink);
  if (state.config.autoListing) listDueSeries(state, sink);
  return null;
}
