/**
 * Order entry over `/ws/private` (extensions.md "Order entry over the private WebSocket"):
 *
 *   {"method":"PLACE","params":<the REST body, unsigned or signed>,"id":7}
 *     -> {"result":<the REST reply body>,"id":7}
 *     or {"error":{"code":"<REST code>","status":<HTTP status>,"message":"...","details":...},"id":7}
 *
 * Each method is its REST route's operation (gateway/orders/orderOperations.ts): the same
 * parsing, checks, pipeline and reply, sent after the journal commit. What the HTTP
 * framework does in front of a REST route is done here in the same order: the wallet's
 * `orders` rate-limit bucket (the REST limiter itself, so both transports share one budget),
 * then the route's scope (`trade`). These messages do not count against the socket's
 * control-message window (`WS_MESSAGES_PER_MINUTE`); over the orders budget the answer is
 * `resource_exhausted` (429) with `details.retryAfterMs`, and the socket stays open.
 */
import type { RateLimiter } from '../http/rateLimit.ts';
import { errorCodes, errorReply, type ErrorReply } from '../http/errors.ts';
import { serialiseJson } from '../http/reply.ts';
import type { Logger } from '../http/log.ts';
import type { OrderOperationName, OrderOperations, OrderReply } from '../orders/orderOperations.ts';
import type { RequestId } from './control.ts';
import type { Hub, Ws } from './hub.ts';
import type { Hex } from '../../engine/index.ts';

/** Method -> operation (and REST route). */
export const orderMethods: Readonly<Record<string, OrderOperationName>> = {
  PLACE: 'place',
  REPLACE: 'replace',
  CANCEL: 'cancel',
  PLACE_BATCH: 'placeBatch',
  CANCEL_BATCH: 'cancelBatch',
  REPLACE_BATCH: 'replaceBatch',
  CANCEL_ALL: 'cancelAll',
  CANCEL_AFTER: 'cancelAfter',
};

/** The REST route of each method, for docs and messages. */
export const orderMethodRoutes: Readonly<Record<OrderOperationName, string>> = {
  place: 'POST /api/mm/orders/place',
  replace: 'POST /api/mm/orders/replace',
  cancel: 'POST /api/mm/orders/cancel',
  placeBatch: 'POST /api/mm/orders/place-batch',
  cancelBatch: 'POST /api/mm/orders/cancel-batch',
  replaceBatch: 'POST /api/mm/orders/replace-batch',
  cancelAll: 'POST /api/mm/orders/cancel-all',
  cancelAfter: 'POST /api/mm/orders/cancel-after',
};

/** The operation a message asks for, or null when it is not an order method (methods are case-insensitive). */
export function orderMethodOf(msg: Record<string, unknown>): OrderOperationName | null {
  const m = msg['method'];
  if (typeof m !== 'string') return null;
  return Object.hasOwn(orderMethods, m.toUpperCase()) ? orderMethods[m.toUpperCase()]! : null;
}

export type OrderMethodContext = {
  readonly hub: Hub;
  readonly ops: OrderOperations;
  /** The REST limiter (null: rate limits off, as for REST). */
  readonly rateLimiter: RateLimiter | null;
  /** Wall clock, Unix ms (the limiter's). */
  wallNow(): number;
  readonly log: Logger;
  /** Counts each order message by its method and outcome (`ok` or the error code): `ws_order_messages_total`. */
  readonly count?: (method: OrderOperationName, outcome: string) => void;
  /** Orders a socket's order method placed (its relay reply's open orders): cancel on disconnect's `connection` scope. */
  readonly onPlaced?: (ws: Ws, orderIds: readonly Hex[]) => void;
};

/** The operations whose relay reply lists new orders. */
const PLACING: ReadonlySet<OrderOperationName> = new Set(['place', 'replace', 'placeBatch', 'replaceBatch']);

/** The still-open orders a placing operation's relay reply lists. */
function placedOrders(op: OrderOperationName, body: Record<string, unknown>): Hex[] {
  if (!PLACING.has(op) || body['mode'] !== 'relay' || !Array.isArray(body['orders'])) return [];
  const out: Hex[] = [];
  for (const o of body['orders'] as { orderId?: unknown; status?: unknown }[]) if ((o.status === 'open' || o.status === 'partial') && typeof o.orderId === 'string') out.push(o.orderId as Hex);
  return out;
}

/** The error frame: the REST error with its HTTP status. */
export function orderErrorFrame(reply: ErrorReply, id: RequestId): string {
  const e = reply.error;
  return serialiseJson({ error: { code: e.code, status: errorCodes[e.code].status, message: e.message, details: e.details }, id });
}

export function orderResultFrame(body: unknown, id: RequestId): string {
  return serialiseJson({ result: body, id });
}

/** The checks the HTTP framework runs before a REST order route's handler: the budget, then the scope. */
function admit(ctx: OrderMethodContext, ws: Ws): ErrorReply | null {
  const user = ws.getUserData().user!;
  if (ctx.rateLimiter !== null) {
    const decision = ctx.rateLimiter.take('orders', { kind: 'wallet', address: user.address });
    if (decision !== null && !decision.allowed) {
      const now = ctx.wallNow();
      return errorReply('resource_exhausted', 'rate limit exceeded', { limit: decision.limit, resetAt: decision.retryAt, retryAfterMs: Math.max(0, decision.retryAt - now) });
    }
  }
  if (!user.scopes.includes('trade')) return errorReply('permission_denied', 'Missing required scope: trade');
  return null;
}

/** Runs one order method for an authenticated socket and answers it when the operation is done. */
export function handleOrderMethod(ctx: OrderMethodContext, ws: Ws, op: OrderOperationName, params: unknown, id: RequestId): void {
  const refused = admit(ctx, ws);
  if (refused !== null) {
    ctx.count?.(op, refused.error.code);
    return ctx.hub.send(ws, orderErrorFrame(refused, id));
  }
  const address = ws.getUserData().user!.address;
  const answer = (frame: string) => {
    // Outside a uWS callback now: the socket may have closed, and a send must be corked.
    if (ws.getUserData().closed) return;
    ws.cork(() => ctx.hub.send(ws, frame));
  };
  let pending: Promise<OrderReply>;
  try {
    pending = ctx.ops[op](params, address);
  } catch (err) {
    pending = Promise.reject(err);
  }
  pending.then(
    (reply) => {
      ctx.count?.(op, 'error' in reply ? reply.error.code : 'ok');
      if (!('error' in reply) && ctx.onPlaced !== undefined) {
        const placed = placedOrders(op, reply.body);
        if (placed.length > 0) ctx.onPlaced(ws, placed);
      }
      answer('error' in reply ? orderErrorFrame(reply, id) : orderResultFrame(reply.body, id));
    },
    (err: unknown) => {
      ctx.count?.(op, 'internal');
      ctx.log.error('unhandled error in a WebSocket order method', { method: op, error: err instanceof Error ? err.message : String(err), stack: err instanceof Error ? err.stack : undefined });
      answer(orderErrorFrame(errorReply('internal'), id));
    },
  );
}
