/**
 * `/ws/private`: a wallet's own fills, positions, portfolios and orders, after AUTH
 * (interface.md "Private stream"). Each channel is a topic per wallet
 * (`acct:<address>:<kind>`), so a socket can only ever hear its own wallet's events.
 */
import type { TemplatedApp } from 'uWebSockets.js';
import type { Authenticator } from '../http/auth.ts';
import type { Publisher } from './publisher.ts';
import type { SocketData, Ws } from './hub.ts';
import { handleControl, type ControlContext } from './control.ts';
import { resolveAccountChannel } from './channels.ts';
import { authenticatedMessages, createAuthFlow } from './authFlow.ts';
import { baseBehavior, upgradeHandler, type StreamDeps } from './socketSetup.ts';

/**
 * `_publisher` is no longer needed (account@portfolios follows the engine's portfolio events,
 * oracle moves included, so no watch list is kept); the parameter stays for the call site.
 */
export function attachPrivateStream(app: TemplatedApp, deps: StreamDeps, authenticate: Authenticator, _publisher: Publisher): void {
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
  };

  app.ws<SocketData>('/ws/private', {
    ...baseBehavior(limits),
    upgrade: upgradeHandler(deps, 'private', limits.messagesPerMinute, false),
    open: (ws) => {
      hub.opened(ws);
      auth.open(ws);
    },
    message: authenticatedMessages('private', deps, auth, (ws, msg, id) => handleControl(control, ws, msg, id)),
    close: (ws) => hub.closed(ws),
  });
}
