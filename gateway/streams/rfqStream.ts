/**
 * `/ws/rfq/mm`: the RFQ market-maker stream (interface.md "RFQ market-maker stream").
 * AUTH as on /ws/private, or the `Authorization` (or X-API-*) headers at connect; only
 * MMMs are admitted. An authenticated MMM receives `rfq_request` for every new auction
 * (and, at AUTH, for every auction still open) and `rfq_resolved` when one ends; it
 * answers with `rfq_response`, which goes through the same checks and path as
 * `POST /api/mm/quotes/submit` (gateway/orders/quotes.ts).
 */
import type { WsApp } from './readBarrier.ts';
import type { Authenticator, UserAuth } from '../http/auth.ts';
import type { Services } from '../services.ts';
import { submitQuote } from '../orders/quotes.ts';
import { closeCodes, type SocketData, type Ws } from './hub.ts';
import { replies, type RequestId } from './control.ts';
import { RFQ_MM_TOPIC, wsErrorCodes } from './channels.ts';
import { authenticatedMessages, createAuthFlow } from './authFlow.ts';
import { rfqRequestMessage } from './payloads.ts';
import { baseBehavior, upgradeHandler, type StreamDeps } from './socketSetup.ts';

export type RfqStream = {
  /** Close the sockets of a wallet that is no longer an MMM. */
  revoke(address: string): void;
};

const mmmRequired = 'MMM membership required';

export function attachRfqStream(app: WsApp, deps: StreamDeps, authenticate: Authenticator, services: Services): RfqStream {
  const { hub, limits } = deps;
  const reads = services.reads;
  /** Authenticated sockets by lowercased wallet, for revocation. */
  const byWallet = new Map<string, Set<Ws>>();

  const isMmm = (address: string): boolean => reads.catalog.isMmm(address);

  const onAuthenticated = (ws: Ws, user: UserAuth): void => {
    const key = user.address.toLowerCase();
    let set = byWallet.get(key);
    if (!set) byWallet.set(key, (set = new Set()));
    set.add(ws);
    hub.subscribe(ws, RFQ_MM_TOPIC);
    // Auctions already open when the MMM connects: it can still quote them.
    const nowSec = Math.floor(deps.now() / 1000);
    for (const r of reads.rfq.open()) {
      if (r.expiresAt <= nowSec) continue;
      hub.send(ws, JSON.stringify(rfqRequestMessage(reads.catalog, r)));
    }
  };

  const auth = createAuthFlow({
    hub,
    authenticate,
    policy: {
      route: { method: 'POST', path: '/ws/rfq/mm', form: 'current', group: 'orders', auth: 'required', scope: 'trade' },
      scope: 'trade',
      require: (user) => (isMmm(user.address) ? null : mmmRequired),
    },
    timeoutMs: limits.authTimeoutMs,
    onAuthenticated,
  });

  const rfqError = (code: string, message: string, requestId: unknown, details: unknown = null): string =>
    JSON.stringify({ type: 'error', code, message, requestId: typeof requestId === 'string' ? requestId.slice(0, 80) : null, details });

  const respond = (ws: Ws, msg: Record<string, unknown>): void => {
    const user = ws.getUserData().user!;
    const requestId = msg['requestId'];
    if (typeof requestId !== 'string') return hub.send(ws, rfqError('invalid_argument', 'requestId is required (bytes32 hex)', null, { field: 'requestId' }));
    submitQuote(services, user.address, msg['quote'], msg['signature'], { requestId, path: 'quote' }).then(
      (r) => {
        if (ws.getUserData().closed) return;
        ws.cork(() => {
          if (r.ok) hub.send(ws, JSON.stringify({ type: 'rfq_response_ack', requestId: r.value.requestId, quoteId: r.value.quoteId, status: r.value.status, expiresAt: r.value.expiresAt }));
          else hub.send(ws, rfqError(r.error.error.code, r.error.error.message, requestId, r.error.error.details));
        });
      },
      (err: unknown) => {
        services.log.error('rfq_response failed', { error: err instanceof Error ? err.message : String(err) });
        if (!ws.getUserData().closed) ws.cork(() => hub.send(ws, rfqError('internal', 'An unexpected error occurred', requestId)));
      },
    );
  };

  const handle = (ws: Ws, msg: Record<string, unknown>, id: RequestId): void => {
    if (msg['type'] === 'rfq_response') return respond(ws, msg);
    const method = typeof msg['method'] === 'string' ? msg['method'].toUpperCase() : undefined;
    if (method === 'PING') return hub.send(ws, replies.pong(id));
    hub.send(ws, replies.error(wsErrorCodes.badRequest, 'Unknown message: expected { "type": "rfq_response", ... } or { "method": "PING" }', id));
  };

  app.ws<SocketData>('/ws/rfq/mm', {
    ...baseBehavior(limits),
    upgrade: upgradeHandler(deps, 'rfq', limits.rfqMessagesPerMinute, true),
    open: (ws) => {
      hub.opened(ws);
      auth.open(ws);
    },
    message: authenticatedMessages('rfq', deps, auth, handle),
    close: (ws) => {
      const d = ws.getUserData();
      if (d.user !== null) {
        const key = d.user.address.toLowerCase();
        const set = byWallet.get(key);
        set?.delete(ws);
        if (set?.size === 0) byWallet.delete(key);
      }
      hub.closed(ws);
    },
  });

  return {
    revoke(address) {
      const set = byWallet.get(address.toLowerCase());
      if (!set) return;
      for (const ws of [...set]) {
        hub.send(ws, rfqError('permission_denied', mmmRequired, null));
        hub.end(ws, closeCodes.forbidden, 'MMM membership revoked');
      }
    },
  };
}
