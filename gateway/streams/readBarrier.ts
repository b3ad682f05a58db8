/**
 * The WebSocket side of the command pipeline's read barrier (gateway/commandPipeline.ts
 * `replyFirst`): an order's reply may go out before its events are folded, at the end of the
 * commit's turn. Every socket callback here (upgrade, open, message, close) first publishes
 * what is committed, so a message that reads a fold (a subscription's snapshot, cancel on
 * disconnect's open orders) sees at least every command already answered.
 */
import type { TemplatedApp, WebSocketBehavior } from 'uWebSockets.js';

/** What the stream modules use of the uWS app: their WebSocket routes. */
export type WsApp = Pick<TemplatedApp, 'ws'>;

export function withReadBarrier(app: TemplatedApp, publishPending: () => void): WsApp {
  const barrier: WsApp = {
    ws<D>(pattern: string, behavior: WebSocketBehavior<D>) {
      const b = { ...behavior };
      const { upgrade, open, message, close } = behavior;
      if (upgrade) b.upgrade = (res, req, context) => (publishPending(), upgrade(res, req, context));
      if (open) b.open = (ws) => (publishPending(), open(ws));
      if (message) b.message = (ws, data, isBinary) => (publishPending(), message(ws, data, isBinary));
      if (close) b.close = (ws, code, data) => (publishPending(), close(ws, code, data));
      app.ws<D>(pattern, b);
      return app;
    },
  };
  return barrier;
}
