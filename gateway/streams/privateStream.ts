/**
 * `/ws/private`: a wallet's own fills, positions, portfolios and orders, after AUTH
 * (interface.md "Private stream"). Each channel is a topic per wallet
 * (`acct:<address>:<kind>`), so a socket can only ever hear its own wallet's events.
 * With scope `trade` it also takes the order methods (orderMethods.ts): REST order entry
 * over the socket.
 */
import type { WsApp } from './readBarrier.ts';
import type { Authenticator } from '../http/auth.ts';
import type { Publisher } from './publisher.ts';
import type { SocketData, Ws } from './hub.ts';
import { handleControl, type ControlContext, type RequestId } from './control.ts';
import { resolveAccountChannel } from './channels.ts';
import { authenticatedMessages, createAuthFlow } from './authFlow.ts';
import { baseBehavior, upgradeHandler, type StreamDeps } from './socketSetup.ts';
import { handleOrderMethod, orderErrorFrame, orderMethodOf, orderMethods, orderResultFrame, type OrderMethodContext } from './orderMethods.ts';
import type { CancelOnDisconnect, DisconnectScope } from './cancelOnDisconnect.ts';
import { errorReply } from '../http/errors.ts';

const SET_CANCEL_ON_DISCONNECT = 'SET_CANCEL_ON_DISCONNECT';

/**
 * `_publisher` is no longer needed (account@portfolios follows the engine's portfolio events,
 * oracle moves included, so no watch list is kept); the parameter stays for the call site.
 */
export function attachPrivateStream(app: WsApp, deps: StreamDeps, authenticate: Authenticator, _publisher: Publisher, orders: Omit<OrderMethodContext, 'hub' | 'onPlaced'>, disconnect: CancelOnDisconnect): void {
  const { hub, limits } = deps;

  const auth = createAuthFlow({
    hub,
    authenticate,
    policy: { route: { method: 'GET', path: '/ws/private', form: 'current', group: 'account', auth: 'required', scope: 'read' }, scope: 'read' },
    timeoutMs: limits.authTimeoutMs,
    onAuthenticated: () => {},
  });

  const address = (ws: Ws): string => ws.getUserData().user!.address;
  const control: ControlContext = {
    hub,
    limits,
    resolve: (ws, raw) => resolveAccountChannel(address(ws), raw),
    otherMethods: [...Object.keys(orderMethods), SET_CANCEL_ON_DISCONNECT],
  };
  const orderContext: OrderMethodContext = { ...orders, hub, onPlaced: (ws, ids) => disconnect.placed(ws, ids) };
  /** SET_CANCEL_ON_DISCONNECT {enabled, scope?: connection | wallet}: needs scope trade, as cancelling does. */
  const setCancelOnDisconnect = (ws: Ws, params: unknown, id: RequestId) => {
    if (!ws.getUserData().user!.scopes.includes('trade')) return hub.send(ws, orderErrorFrame(errorReply('permission_denied', 'Missing required scope: trade'), id));
    const p = (params ?? {}) as { enabled?: unknown; scope?: unknown };
    if (typeof p.enabled !== 'boolean') return hub.send(ws, orderErrorFrame(errorReply('invalid_argument', 'params.enabled must be true or false', { field: 'params.enabled' }), id));
    const scope = p.scope ?? 'connection';
    if (scope !== 'connection' && scope !== 'wallet') return hub.send(ws, orderErrorFrame(errorReply('invalid_argument', 'params.scope must be connection or wallet', { field: 'params.scope' }), id));
    disconnect.set(ws, p.enabled, scope as DisconnectScope);
    hub.send(ws, orderResultFrame({ enabled: p.enabled, scope }, id));
  };
  // Order methods (orderMethods.ts) draw on the wallet's orders budget, not the control-message window.
  const handle = (ws: Ws, msg: Record<string, unknown>, id: RequestId) => {
    const op = orderMethodOf(msg);
    if (op !== null) return handleOrderMethod(orderContext, ws, op, msg['params'], id);
    if (typeof msg['method'] === 'string' && msg['method'].toUpperCase() === SET_CANCEL_ON_DISCONNECT) return setCancelOnDisconnect(ws, msg['params'], id);
    handleControl(control, ws, msg, id);
  };

  app.ws<SocketData>('/ws/private', {
    ...baseBehavior(limits),
    // A whole order batch must fit in one frame: at least the REST body limit.
    maxPayloadLength: Math.max(limits.maxPayloadBytes, limits.privateMaxPayloadBytes),
    upgrade: upgradeHandler(deps, 'private', limits.messagesPerMinute, false),
    open: (ws) => {
      hub.opened(ws);
      auth.open(ws);
    },
    message: authenticatedMessages('private', deps, auth, handle, (msg) => orderMethodOf(msg) !== null),
    close: (ws) => {
      if (ws.getUserData().user !== null) disconnect.closed(ws, hub.shuttingDown);
      hub.closed(ws);
    },
  });
}
