/**
 * Metrics of the market makers' controls (extensions.md): orders the venue cancelled for
 * their owners, by reason (mass cancel, cancel on disconnect, dead-man switch, MMP), and MMP
 * trips, by the limit that tripped. Counted from the committed events (a pipeline listener),
 * like every reader. The WebSocket order messages are counted where they are answered
 * (streams/orderMethods.ts).
 */
import type { MmpEvent, VenueEvent } from '../../engine/index.ts';
import type { Metrics } from './metrics.ts';

const VENUE_CANCELS = new Set(['mass_cancel', 'disconnect', 'dead_man', 'mmp']);

/** Counts one committed command's events; called before the read models fold them. */
export type ControlMetrics = { onEvents(events: readonly VenueEvent[]): void };

/** `wasFrozen`: whether a wallet's protection on a pair stood frozen before the events (the MMP fold, not yet folded). */
export function createControlMetrics(metrics: Metrics, wasFrozen: (owner: string, pairId: string) => boolean, onTrip: (e: MmpEvent) => void = () => {}): ControlMetrics {
  const cancels = metrics.counter({ name: 'order_venue_cancels_total', help: 'Orders the venue cancelled for their owners without a signed cancel, by reason (mass_cancel, disconnect, dead_man, mmp).', labelNames: ['reason'] as const });
  const trips = metrics.counter({ name: 'mmp_trips_total', help: 'Market maker protection trips, by the limit that tripped (qty, delta, vega, trades).', labelNames: ['reason'] as const });
  for (const r of VENUE_CANCELS) cancels.labels(r).inc(0);
  return {
    onEvents(events) {
      for (const e of events) {
        if (e.type === 'order') {
          if (e.cancelReason !== null && VENUE_CANCELS.has(e.cancelReason)) cancels.inc({ reason: e.cancelReason });
        } else if (e.type === 'mmp' && e.frozen && e.reason !== null && !wasFrozen(e.owner, e.pairId)) {
          // A trip: the protection moves from unfrozen to frozen (one event per window a command changed).
          trips.inc({ reason: e.reason });
          onTrip(e);
        }
      }
    },
  };
}
