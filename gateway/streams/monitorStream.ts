/**
 * `/ws/monitor`: the admin monitoring stream (extensions.md "Admin monitoring stream").
 * AUTH as on /ws/private; only an admin wallet (`ADMIN_ADDRESSES`), with a login session or
 * an API key of scope `admin`, is admitted. Anyone else who authenticates gets
 * `{ error: { code: 4003, msg: 'Admin access required for monitoring stream' } }` and the
 * socket is closed (4003); bad credentials get AUTH_FAILED and 4001 as on /ws/private.
 *
 * Channels (SUBSCRIBE as on the other streams):
 * - `venue@health`: every `tick()` (each second, driven by app.ts's timer; tests call it):
 *   commands per second, journal commit p99, event-loop lag, connections per stream, open
 *   orders, heap. Everything but the event-loop lag and the heap is read from counters the
 *   pipeline, hub and read models keep; no request-time scan of the engine.
 * - `venue@alerts`: every alert raised on the AlertBus (services.alerts); a new subscriber
 *   first receives the last ones kept. A tick also raises `rate_limit_storm` when more than
 *   `MONITOR_RATE_LIMIT_STORM` requests were refused 429 since the previous tick.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { WsApp } from './readBarrier.ts';
import { getAddress } from 'viem';
import type { Authenticator } from '../http/auth.ts';
import type { Services } from '../services.ts';
import type { Alert } from '../monitoring/alertBus.ts';
import { closeCodes, type SocketData, type Ws } from './hub.ts';
import { handleControl, replies, type ControlContext, type RequestId } from './control.ts';
import { wsErrorCodes, type ChannelError } from './channels.ts';
import { authenticatedMessages, createAuthFlow } from './authFlow.ts';
import { baseBehavior, upgradeHandler, type StreamDeps } from './socketSetup.ts';
import { streamNames } from './streamMetrics.ts';

export const ADMIN_REQUIRED = 'Admin access required for monitoring stream';
export const HEALTH_CHANNEL = 'venue@health';
export const ALERTS_CHANNEL = 'venue@alerts';
const topics = { [HEALTH_CHANNEL]: 'monitor:health', [ALERTS_CHANNEL]: 'monitor:alerts' } as const;
type MonitorChannel = keyof typeof topics;

export type VenueHealth = {
  /** Unix ms of the tick. */
  readonly timestamp: number;
  /** Commands committed since the previous tick, per second of venue wall time between them. */
  readonly commandsPerSecond: number;
  readonly commands: number;
  /** The 99th percentile of journal commit times since the previous tick (ms), null when nothing was committed. */
  readonly journalCommitP99Ms: number | null;
  /** Event-loop delay since the previous tick (ms): its 99th percentile and maximum. */
  readonly eventLoopLagMs: { readonly p99: number; readonly max: number };
  /** Open WebSocket connections per stream. */
  readonly connections: Readonly<Record<(typeof streamNames)[number], number>>;
  readonly openOrders: number;
  readonly heap: { readonly usedBytes: number; readonly totalBytes: number };
};

export type Monitor = {
  /** Send venue@health once (and check for a rate-limit storm); returns what was sent. */
  tick(): VenueHealth;
  close(): void;
};

export function attachMonitorStream(app: WsApp, deps: StreamDeps, authenticate: Authenticator, services: Services): Monitor {
  const { hub, limits } = deps;
  const { config, alerts, pipeline, reads } = services;

  const auth = createAuthFlow({
    hub,
    authenticate,
    policy: {
      route: { method: 'GET', path: '/ws/monitor', form: 'current', group: 'admin', auth: 'admin', scope: 'admin' },
      scope: 'admin',
      require: (user) => (config.adminAddresses.has(getAddress(user.address)) ? null : ADMIN_REQUIRED),
    },
    timeoutMs: limits.authTimeoutMs,
    onAuthenticated: () => {},
    // A valid login of anyone but an admin (or an admin's key without scope admin): the extension's error frame, then 4003.
    forbidden: (ws) => {
      hub.send(ws, replies.error(wsErrorCodes.forbidden, ADMIN_REQUIRED, null));
      hub.end(ws, closeCodes.forbidden, ADMIN_REQUIRED);
    },
  });

  const resolve = (_ws: Ws, raw: unknown): { kind: string; name: string; topic: string } | ChannelError => {
    if (typeof raw !== 'string' || raw.length === 0) return { code: wsErrorCodes.badRequest, error: 'Channel names must be non-empty strings' };
    const name = raw.trim().toLowerCase();
    if (name in topics) return { kind: name, name, topic: topics[name as MonitorChannel] };
    return { code: wsErrorCodes.unknownChannel, error: `Unknown channel "${raw.slice(0, 64)}": expected ${HEALTH_CHANNEL} or ${ALERTS_CHANNEL}` };
  };
  const alertFrame = (a: Alert) => JSON.stringify({ channel: ALERTS_CHANNEL, data: a });
  const control: ControlContext = {
    hub,
    limits,
    resolve,
    // The alerts kept so far, oldest first, right after the ack (each carries its id).
    afterSubscribe: (ws, c) => {
      if (c.name !== ALERTS_CHANNEL) return;
      for (const a of alerts.recent()) hub.send(ws, alertFrame(a));
    },
  };
  const handle = (ws: Ws, msg: Record<string, unknown>, id: RequestId) => handleControl(control, ws, msg, id);

  app.ws<SocketData>('/ws/monitor', {
    ...baseBehavior(limits),
    upgrade: upgradeHandler(deps, 'monitor', limits.messagesPerMinute, false),
    open: (ws) => {
      hub.opened(ws);
      auth.open(ws);
    },
    message: authenticatedMessages('monitor', deps, auth, handle),
    close: (ws) => hub.closed(ws),
  });

  alerts.onAlert((a) => {
    hub.publish(topics[ALERTS_CHANNEL], alertFrame(a), 'monitor');
  });

  // What the ticks difference.
  let commands = 0;
  pipeline.onEvents(() => void commands++);
  let lastTick = pipeline.wallNow();
  let lastRateLimited = services.rateLimited.count;
  const loop: IntervalHistogram = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();

  return {
    tick() {
      const now = pipeline.wallNow();
      const elapsedMs = now - lastTick;
      const connections = Object.fromEntries(streamNames.map((s) => [s, 0])) as Record<(typeof streamNames)[number], number>;
      for (const ws of hub.sockets) connections[ws.getUserData().stream]++;
      const heap = process.memoryUsage();
      const health: VenueHealth = {
        timestamp: now,
        commandsPerSecond: elapsedMs > 0 ? Math.round((commands * 1000 * 100) / elapsedMs) / 100 : commands,
        commands,
        journalCommitP99Ms: pipeline.commitLatency.takeP99(),
        eventLoopLagMs: { p99: loop.count > 0 ? loop.percentile(99) / 1e6 : 0, max: loop.count > 0 ? loop.max / 1e6 : 0 },
        connections,
        openOrders: reads.orders.openCount(),
        heap: { usedBytes: heap.heapUsed, totalBytes: heap.heapTotal },
      };
      loop.reset();
      commands = 0;
      lastTick = now;
      const refused = services.rateLimited.count - lastRateLimited;
      lastRateLimited = services.rateLimited.count;
      if (refused >= limits.rateLimitStormPerSecond) {
        alerts.raise({ kind: 'rate_limit_storm', message: `${refused} requests refused by rate limits since the last health tick`, details: { refused, sinceMs: elapsedMs, threshold: limits.rateLimitStormPerSecond } });
      }
      hub.publish(topics[HEALTH_CHANNEL], JSON.stringify({ channel: HEALTH_CHANNEL, data: health }), 'monitor');
      return health;
    },
    close() {
      loop.disable();
    },
  };
}
