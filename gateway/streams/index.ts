/**
 * The WebSocket streams, attached to the gateway's uWS app (docs/streams.md):
 *
 *   /ws/public    market data, no auth          publicStream.ts
 *   /ws/private   own account events, AUTH      privateStream.ts (order entry: orderMethods.ts)
 *   /ws/rfq/mm    RFQ requests for MMMs, AUTH   rfqStream.ts
 *   /ws/monitor   venue health and alerts, admin AUTH   monitorStream.ts
 *
 * Events come from the command pipeline after each durable command (publisher.ts) and are
 * fanned out with uWS pub/sub (hub.ts). Call before the server listens; `close()` before
 * the server closes.
 */
import { CancelOnDisconnect } from './cancelOnDisconnect.ts';
import type { TemplatedApp } from 'uWebSockets.js';
import type { Authenticator } from '../http/auth.ts';
import type { AsyncApiRegistry } from '../http/asyncapi.ts';
import type { Services } from '../services.ts';
import { streamLimitsFromEnv, type StreamLimits } from './config.ts';
import { KeyedRateWindows } from './rateWindow.ts';
import { createStreamMetrics, type StreamName } from './streamMetrics.ts';
import { Hub } from './hub.ts';
import { Publisher, frame } from './publisher.ts';
import { JOURNAL_CHANNEL } from './channels.ts';
import { journalEntryJson } from '../publicJournal.ts';
import { attachPublicStream } from './publicStream.ts';
import { attachPrivateStream } from './privateStream.ts';
import { attachRfqStream } from './rfqStream.ts';
import { attachMonitorStream, type Monitor } from './monitorStream.ts';
import { registerStreamsAsyncApi } from './streamsAsyncApi.ts';
import type { StreamDeps } from './socketSetup.ts';
import type { RateLimiter } from '../http/rateLimit.ts';
import { orderOperations } from '../orders/orderOperations.ts';
import { withReadBarrier } from './readBarrier.ts';

/** JSON of a command: bigints as decimal strings (as REST replies write them). */
const bigintsAsStrings = (_key: string, v: unknown) => (typeof v === 'bigint' ? v.toString() : v);

export type Streams = {
  readonly limits: StreamLimits;
  readonly hub: Hub;
  /** The admin monitoring stream (its health tick). */
  readonly monitor: Monitor;
  /** Close every stream socket (code 1001). */
  close(): void;
  /**
   * An edge gateway's stop: close every stream socket (code 1001) as a drop, not as the
   * venue's shutdown (the venue runs on without this edge), so cancel on disconnect applies;
   * resolves once those cancels are answered (call it while writes are still forwarded).
   */
  closeAsDrops(): Promise<void>;
};

export function attachStreams(
  app: TemplatedApp,
  services: Services,
  authenticate: Authenticator,
  asyncapi: AsyncApiRegistry,
  /** The REST limiter: /ws/private's order methods draw on the same orders bucket per wallet. */
  rateLimiter: RateLimiter | null,
  limits: StreamLimits = streamLimitsFromEnv(process.env),
): Streams {
  const counted = createStreamMetrics(services.metrics);
  // A slow-consumer close is also an alert on venue@alerts.
  const metrics = {
    ...counted,
    slowConsumer: (stream: StreamName) => {
      counted.slowConsumer(stream);
      services.alerts.raise({ kind: 'slow_consumer', message: `a ${stream} stream socket was closed (4008): its send buffer passed ${limits.maxBufferedBytes} bytes`, details: { stream, maxBufferedBytes: limits.maxBufferedBytes } });
    },
  };
  const hub = new Hub(app, limits, metrics, services.log);
  const deps: StreamDeps = {
    hub,
    limits,
    metrics,
    connections: new KeyedRateWindows(limits.connectionsPerMinute, 60_000),
    now: () => services.pipeline.now(),
  };
  // Socket callbacks see every command already answered folded (readBarrier.ts).
  const wsApp = withReadBarrier(app, () => services.pipeline.publishPending());
  const rfq = attachRfqStream(wsApp, deps, authenticate, services);
  const publisher = new Publisher(services.reads, hub, { onMmmRevoked: (address) => rfq.revoke(address) }, services.config.chain !== null);
  services.chain.statusListeners.push((m) => {
    if (m.status === 'included') publisher.onBatchStatus({ batch: m.batch, relayStatus: 'included', relayTx: m.txHash, tradeIds: m.tradeIds, reason: null });
  });
  attachPublicStream(wsApp, deps, services.reads, services.publicJournal !== null);
  const disconnect = new CancelOnDisconnect((body) => services.pipeline.submit(body), (owner, orderId) => services.reads.orders.openOrder(owner, orderId) !== null, services.log);
  const orderMessages = services.metrics.counter({ name: 'ws_order_messages_total', help: 'Order messages on /ws/private (PLACE, CANCEL_ALL, ...), by operation and outcome (ok or the error code).', labelNames: ['method', 'outcome'] as const });
  const count = (method: string, outcome: string) => orderMessages.inc({ method, outcome });
  attachPrivateStream(wsApp, deps, authenticate, publisher, { ops: orderOperations(services), rateLimiter, wallNow: () => services.pipeline.wallNow(), log: services.log, count }, disconnect);
  const journalPublic = services.publicJournal !== null;
  services.pipeline.onEvents((events, command) => {
    // A listener's exception would reach the submitter of the command: log it, never throw.
    try {
      publisher.onEvents(events);
      if (journalPublic && hub.hasSubscribers(JOURNAL_CHANNEL)) hub.publish(JOURNAL_CHANNEL, frame(JOURNAL_CHANNEL, JSON.stringify(journalEntryJson(command), bigintsAsStrings)), 'public');
    } catch (err) {
      services.log.error('stream publish failed', { error: err instanceof Error ? err.message : String(err), stack: err instanceof Error ? err.stack : undefined });
    }
  });
  const monitor = attachMonitorStream(wsApp, deps, authenticate, services);
  registerStreamsAsyncApi(asyncapi, services.config);
  return {
    limits,
    hub,
    monitor,
    close: () => {
      monitor.close();
      hub.closeAll();
    },
    closeAsDrops: async () => {
      hub.closeAll(false);
      await disconnect.settled();
    },
  };
}
