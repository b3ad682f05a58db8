/**
 * The AUTH step of /ws/private and /ws/rfq/mm, as a small state machine on the socket:
 * unauthenticated -> (AUTH frame or connect headers) -> pending -> authenticated, or
 * AUTH_FAILED and closed. Until it is authenticated a socket gets nothing but the AUTH
 * answer; a socket that does not authenticate within `authTimeoutMs` is closed (4001).
 */
import type { Authenticator, UserAuth } from '../http/auth.ts';
import { closeCodes, type Hub, type Ws } from './hub.ts';
import { parseInbound, replies, type RequestId } from './control.ts';
import type { StreamDeps } from './socketSetup.ts';
import type { StreamName } from './streamMetrics.ts';
import { wsErrorCodes } from './channels.ts';
import { authenticateHeaders, authHeaders, authReplies, hasHeaderCredentials, type AuthFailure, type AuthOutcome, type AuthPolicy } from './wsAuth.ts';

export type AuthFlow = {
  /** From the open handler: arms the timeout; authenticates at once from connect headers if there are any. */
  open(ws: Ws): void;
  /** True when the message was part of authentication (the caller must not handle it further). */
  message(ws: Ws, msg: Record<string, unknown>, id: RequestId): boolean;
};

export type AuthFlowOptions = {
  readonly hub: Hub;
  readonly authenticate: Authenticator;
  readonly policy: AuthPolicy;
  readonly timeoutMs: number;
  onAuthenticated(ws: Ws, user: UserAuth): void;
  /** Replaces AUTH_FAILED for a refusal with permission_denied (valid credentials, not allowed): /ws/monitor's own frame. */
  forbidden?(ws: Ws, failure: AuthFailure): void;
};

export function createAuthFlow(o: AuthFlowOptions): AuthFlow {
  const { hub } = o;

  const refuse = (ws: Ws, f: AuthFailure): void => {
    if (f.code === 'permission_denied' && o.forbidden !== undefined) return o.forbidden(ws, f);
    hub.send(ws, authReplies.failed(f));
    hub.end(ws, f.code === 'permission_denied' ? closeCodes.forbidden : closeCodes.unauthenticated, f.message);
  };

  const finish = (ws: Ws, outcome: AuthOutcome): void => {
    const d = ws.getUserData();
    d.authPending = false;
    if (d.closed) return;
    if (!outcome.ok) return refuse(ws, outcome.failure);
    if (d.user !== null) {
      // A repeated AUTH may refresh the credentials, never switch wallets on an open socket.
      if (d.user.address.toLowerCase() !== outcome.user.address.toLowerCase()) return refuse(ws, { code: 'unauthenticated', message: 'Already authenticated as another wallet' });
      d.user = outcome.user;
      hub.send(ws, authReplies.success(outcome.user));
      return;
    }
    d.user = outcome.user;
    if (d.authTimer !== null) clearTimeout(d.authTimer);
    d.authTimer = null;
    hub.send(ws, authReplies.success(outcome.user));
    o.onAuthenticated(ws, outcome.user);
  };

  const run = (ws: Ws, headers: Record<string, string>): void => {
    const d = ws.getUserData();
    d.authPending = true;
    const out = authenticateHeaders(o.authenticate, headers, o.policy);
    if (out instanceof Promise) {
      void out.then((r) => {
        // Outside a uWS callback: cork so that the answer (and what follows it) is one write.
        if (!ws.getUserData().closed) ws.cork(() => finish(ws, r));
      });
    } else {
      finish(ws, out);
    }
  };

  return {
    open(ws) {
      const d = ws.getUserData();
      const timer = setTimeout(() => {
        if (d.closed || d.user !== null) return;
        ws.cork(() => refuse(ws, { code: 'unauthenticated', message: `AUTH not received within ${o.timeoutMs} ms` }));
      }, o.timeoutMs);
      timer.unref();
      d.authTimer = timer;
      if (hasHeaderCredentials(d.headers)) run(ws, { ...d.headers });
    },
    message(ws, msg, id) {
      const d = ws.getUserData();
      if (d.authPending) {
        hub.send(ws, replies.error(wsErrorCodes.unauthenticated, 'AUTH in progress: wait for AUTH_SUCCESS', id));
        return true;
      }
      if (d.user !== null && msg['type'] !== 'AUTH') return false;
      const headers = authHeaders(msg);
      if (typeof headers === 'string') {
        refuse(ws, { code: 'unauthenticated', message: headers });
        return true;
      }
      run(ws, headers);
      return true;
    },
  };
}

/**
 * The message handler of an authenticated stream: the connection's message rate limit,
 * (except the `exempt` messages of an authenticated socket), JSON parsing, AUTH before anything else (an unreadable frame before AUTH is refused like
 * any other non-AUTH frame), then `handle` for the stream's own messages.
 */
export function authenticatedMessages(
  stream: StreamName,
  deps: StreamDeps,
  auth: AuthFlow,
  handle: (ws: Ws, msg: Record<string, unknown>, id: RequestId) => void,
  /** Messages of an authenticated socket that another budget governs (order methods: the wallet's orders budget), not the control-message window. */
  exempt?: (msg: Record<string, unknown>) => boolean,
): (ws: Ws, message: ArrayBuffer, isBinary: boolean) => void {
  const { hub, metrics } = deps;
  return (ws, message, isBinary) => {
    metrics.received(stream);
    const d = ws.getUserData();
    const inbound = parseInbound(message, isBinary);
    const id = inbound.ok ? inbound.id : null;
    const counted = !(inbound.ok && d.user !== null && !d.authPending && inbound.msg['type'] !== 'AUTH' && exempt?.(inbound.msg) === true);
    if (counted && !d.inbound.take(deps.now())) return hub.send(ws, replies.error(wsErrorCodes.limit, 'message rate limit exceeded', id));
    if (!inbound.ok) {
      if (d.user === null) return void auth.message(ws, {}, null);
      return hub.send(ws, replies.error(wsErrorCodes.badRequest, inbound.error, null));
    }
    if (auth.message(ws, inbound.msg, id)) return;
    handle(ws, inbound.msg, id);
  };
}
