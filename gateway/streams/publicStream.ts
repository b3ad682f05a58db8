/**
 * `/ws/public`: market data without authentication (interface.md "Public stream").
 * Channels resolve through channels.ts against the catalog; a depth subscription is answered
 * with a snapshot of the market-data fold's book (the published book: its seq is the last
 * delta's) right after its ack.
 */
import type { WsApp } from './readBarrier.ts';
import type { ReadModels } from '../readModels/readModels.ts';
import type { SocketData, Ws } from './hub.ts';
import { handleControl, parseInbound, replies, type ControlContext, type ResolvedChannel } from './control.ts';
import { resolvePublicChannel, wsErrorCodes } from './channels.ts';
import { depthSnapshot } from './payloads.ts';
import { frame } from './publisher.ts';
import { baseBehavior, upgradeHandler, type StreamDeps } from './socketSetup.ts';

export function attachPublicStream(app: WsApp, deps: StreamDeps, reads: ReadModels, journalPublic = false): void {
  const { hub, limits, metrics } = deps;

  const sendSnapshot = (ws: Ws, c: ResolvedChannel): void => {
    if (c.kind !== 'depth' || c.seriesId === undefined) return;
    const series = reads.catalog.series.get(c.seriesId);
    if (!series) return;
    const data = depthSnapshot(series.symbol, c.seriesId, reads.market.levels(c.seriesId), deps.now());
    hub.send(ws, frame(c.name, JSON.stringify(data)));
  };

  const control: ControlContext = {
    hub,
    limits,
    resolve: (_ws, raw) => resolvePublicChannel(reads.catalog, raw, journalPublic),
    afterSubscribe: sendSnapshot,
  };

  app.ws<SocketData>('/ws/public', {
    ...baseBehavior(limits),
    upgrade: upgradeHandler(deps, 'public', limits.messagesPerMinute, false),
    open: (ws) => hub.opened(ws),
    message: (ws, message, isBinary) => {
      metrics.received('public');
      const inbound = parseInbound(message, isBinary);
      const id = inbound.ok ? inbound.id : null;
      // The limit counts every frame, well-formed or not; the connection stays open.
      if (!ws.getUserData().inbound.take(deps.now())) return hub.send(ws, replies.error(wsErrorCodes.limit, 'message rate limit exceeded', id));
      if (!inbound.ok) return hub.send(ws, replies.error(wsErrorCodes.badRequest, inbound.error, null));
      handleControl(control, ws, inbound.msg, id);
    },
    close: (ws) => hub.closed(ws),
  });
}
