/**
 * What every stream's uWS route shares: the behaviour options (frame size, idle pings,
 * backpressure bound) and the upgrade handler that applies the per-IP connection limit.
 */
import type { HttpRequest, HttpResponse, us_socket_context_t, WebSocketBehavior } from 'uWebSockets.js';
import { errorReply } from '../http/errors.ts';
import { errorWire, jsonContentType, statusLine } from '../http/reply.ts';
import type { StreamLimits } from './config.ts';
import type { KeyedRateWindows } from './rateWindow.ts';
import { RateWindow } from './rateWindow.ts';
import type { StreamMetrics, StreamName } from './streamMetrics.ts';
import type { Hub, SocketData } from './hub.ts';

export type StreamDeps = {
  readonly hub: Hub;
  readonly limits: StreamLimits;
  readonly metrics: StreamMetrics;
  /** New connections per IP, shared by the three streams. */
  readonly connections: KeyedRateWindows;
  /** Venue clock, Unix ms: the windows of the limits follow it. */
  now(): number;
};

const credentialHeaders = ['authorization', 'x-api-key', 'x-api-timestamp', 'x-api-signature'] as const;

/** uWS options common to the three routes. */
export function baseBehavior(limits: StreamLimits): Pick<WebSocketBehavior<SocketData>, 'maxPayloadLength' | 'idleTimeout' | 'sendPingsAutomatically' | 'maxBackpressure' | 'closeOnBackpressureLimit'> {
  return {
    maxPayloadLength: limits.maxPayloadBytes,
    // uWS pings a socket that has been quiet for a while and drops one that stays silent for idleTimeout.
    idleTimeout: limits.idleTimeoutSeconds,
    sendPingsAutomatically: true,
    // The hard bound (see hub.ts): our 4008 check closes at maxBufferedBytes, well before this.
    maxBackpressure: limits.maxBufferedBytes * 2,
    // Typed as a number in the binding's typings; the binding reads it as a boolean.
    closeOnBackpressureLimit: 1,
  };
}

/**
 * Over the connection limit the upgrade is answered like an HTTP rate limit: 429 with
 * `Retry-After` (seconds) and the current-form error body `resource_exhausted` with
 * `details: { limit, resetAt }`, then the connection is closed. (interface.md only says the
 * connection is closed; a reply lets a client tell a refusal from a network fault and back off.)
 */
function refuseUpgrade(res: HttpResponse, limit: number, now: number, retryAt: number): void {
  const reply = errorWire('current', errorReply('resource_exhausted', 'connection rate limit exceeded', { limit, resetAt: retryAt }), [
    ['Retry-After', String(Math.max(1, Math.ceil((retryAt - now) / 1000)))],
  ]);
  // Inside uWS's upgrade callback the response is already corked.
  res.writeStatus(statusLine(reply.status));
  res.writeHeader('Content-Type', reply.contentType ?? jsonContentType);
  for (const [name, value] of reply.headers) res.writeHeader(name, value);
  res.end(reply.body, true);
}

/**
 * The upgrade handler: over the per-IP connection limit the upgrade is refused with 429
 * (see refuseUpgrade); otherwise it is upgraded with fresh per-socket state. Only the RFQ
 * stream reads credential headers.
 */
export function upgradeHandler(deps: StreamDeps, stream: StreamName, inboundPerMinute: number, readCredentials: boolean) {
  return (res: HttpResponse, req: HttpRequest, context: us_socket_context_t): void => {
    // Everything from req now: uWS invalidates it when this callback returns.
    const key = req.getHeader('sec-websocket-key');
    const protocol = req.getHeader('sec-websocket-protocol');
    const extensions = req.getHeader('sec-websocket-extensions');
    const headers: Record<string, string> = {};
    if (readCredentials) {
      for (const name of credentialHeaders) {
        const value = req.getHeader(name);
        if (value !== '') headers[name] = value;
      }
    }
    const ip = Buffer.from(res.getRemoteAddressAsText()).toString();
    const now = deps.now();
    if (!deps.connections.take(ip, now)) {
      deps.metrics.refused(stream, 'connection_rate');
      refuseUpgrade(res, deps.connections.limit, now, deps.connections.retryAt(ip, now));
      return;
    }
    const data: SocketData = {
      id: deps.hub.newSocketId(),
      stream,
      ip,
      headers,
      closed: false,
      channels: new Map(),
      topics: new Set(),
      inbound: new RateWindow(inboundPerMinute, 60_000),
      user: null,
      authPending: false,
      authTimer: null,
    };
    res.upgrade(data, key, protocol, extensions, context);
  };
}
