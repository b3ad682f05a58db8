/**
 * Stream metrics on the gateway's registry (`GET /metrics`): open connections per stream,
 * messages sent and received, refused connections and slow-consumer closes.
 */
import type { Metrics } from '../http/metrics.ts';

export const streamNames = ['public', 'private', 'rfq', 'monitor'] as const;
export type StreamName = (typeof streamNames)[number];

export type StreamMetrics = {
  opened(stream: StreamName): void;
  closed(stream: StreamName): void;
  /** `count` deliveries (a publish counts once per subscriber). */
  sent(stream: StreamName, count: number): void;
  received(stream: StreamName): void;
  refused(stream: StreamName, reason: 'connection_rate'): void;
  slowConsumer(stream: StreamName): void;
};

export function createStreamMetrics(metrics: Metrics): StreamMetrics {
  const connections = metrics.gauge({ name: 'ws_connections', help: 'Open WebSocket connections, by stream.', labelNames: ['stream'] as const });
  const sent = metrics.counter({ name: 'ws_messages_sent_total', help: 'WebSocket messages sent (a published message counts once per subscriber), by stream.', labelNames: ['stream'] as const });
  const received = metrics.counter({ name: 'ws_messages_received_total', help: 'WebSocket messages received, by stream.', labelNames: ['stream'] as const });
  const refused = metrics.counter({ name: 'ws_connections_refused_total', help: 'WebSocket connections closed at once by a limit, by stream and reason.', labelNames: ['stream', 'reason'] as const });
  const slow = metrics.counter({ name: 'ws_slow_consumer_closes_total', help: 'WebSocket connections closed with 4008 because their send buffer passed the bound, by stream.', labelNames: ['stream'] as const });
  // Bound children: the hot path increments without building a label lookup each time.
  const bound = <T>(f: (s: StreamName) => T) => Object.fromEntries(streamNames.map((s) => [s, f(s)])) as Record<StreamName, T>;
  const conn = bound((s) => connections.labels(s));
  const out = bound((s) => sent.labels(s));
  const inn = bound((s) => received.labels(s));
  for (const s of streamNames) conn[s].set(0);
  return {
    opened: (s) => conn[s].inc(),
    closed: (s) => conn[s].dec(),
    sent: (s, n) => {
      if (n > 0) out[s].inc(n);
    },
    received: (s) => inn[s].inc(),
    refused: (s, reason) => refused.inc({ stream: s, reason }),
    slowConsumer: (s) => slow.inc({ stream: s }),
  };
}
