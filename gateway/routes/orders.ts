/**
 * Managed MM order endpoints (interface.md; api.md "Signing", "Orders"; docs/order-entry.md):
 * two-phase meta-transactions. A body without signatures gets typed data to sign; the same
 * body with its signatures (the typed data's message plus `signature`) is checked, applied
 * by the engine and answered with relay calldata once the journal has committed it.
 */
import { Type } from '@sinclair/typebox';
import { defineRoute, type Form, type TypedRoute } from '../http/route.ts';
import type { ErrorReply } from '../http/errors.ts';
import type { Services } from '../services.ts';
import { Bytes32, bytes32, Nullable } from './schemas.ts';
import { TimeRangeFields, timeRange } from './timeRange.ts';
import { exampleBytes32, exampleSeries } from './examples.ts';
import { orderContext } from '../orders/orderContext.ts';
import { orderNotFound, orderValidation } from '../orders/orderErrors.ts';
import { instructionsJson } from '../orders/instructionFields.ts';
import { orderOperations, type OrderOperation } from '../orders/orderOperations.ts';
import { docsOnly, orderOperationSchemas, OrderViewSchema } from '../orders/orderSchemas.ts';
import type { OrderView } from '../orders/orderHistory.ts';

const twoPhase =
  'Two-phase: without signatures the reply is `mode: typed_data` with the server filling tick, size (WAD), expiry, nonce, deadline and portfolioId; ' +
  'with signatures (the typed data\'s message plus `signature`) it is `mode: relay`, sent after the engine applied the request and the journal committed it. ' +
  'A client that knows the typed data may post the signed body directly. Refusals of the body: 400 invalid_argument with details.error OrderValidationError; ' +
  'state refusals (margin, cash, OI cap, nonce used, deadline passed, settled series): 400 failed_precondition with details.reason.';

/**
 * An order as reads show it. Its relay: as committed (final, failed, or a provider's report),
 * else, with a chain, its latest fill's batch as the relayer reports it (included, or pending
 * until then); null for an order with nothing to settle.
 */
function orderJson(s: Services, v: OrderView) {
  const { instructions, relay, ...rest } = v;
  const live = relay === undefined && s.config.chain !== null ? s.reads.settlement.order(v.orderId) : null;
  const status = relay?.status ?? live?.relayStatus ?? (s.config.chain !== null && v.filled > 0n ? 'pending' : null);
  return { ...rest, relayTx: relay?.tx ?? live?.relayTx ?? null, relayStatus: status, price: v.price.toString(), size: v.size.toString(), filled: v.filled.toString(), remaining: v.remaining.toString(), ...instructionsJson(instructions) };
}

export function orderRoutes(s: Services) {
  // The same operations serve /ws/private's order methods (gateway/streams/orderMethods.ts).
  const ops = orderOperations(s);
  /** A two-phase POST route; its handler gets the raw body (validated by orderEntries.ts) and the caller's address. */
  const post = <Path extends string, K extends keyof typeof orderOperationSchemas>(path: Path, summary: string, description: string, op: K, handler: OrderOperation, examples: () => { body: unknown }, forms: readonly Form[] = ['current']) =>
    defineRoute({
      forms,
      examples,
      // Unknown portfolio, series or order.
      errors: [404],
      method: 'POST',
      path,
      group: 'orders',
      auth: 'required',
      scope: 'trade',
      summary,
      description: `${description}\n\n${twoPhase}`,
      tags: ['orders'],
      body: docsOnly(orderOperationSchemas[op].body),
      responses: { 200: orderOperationSchemas[op].reply },
      // The reply shapes are declared in `responses` (a union of both phases) for the documents.
      handler: async ({ body: b, auth }) => (await handler(b, auth.address)) as { body: never } | ErrorReply,
      // The body the route accepts is the operation's schema, checked by orderEntries.ts rather than the framework (docsOnly): typed clients see it.
    }) as TypedRoute<'POST', Path, undefined, undefined, (typeof orderOperationSchemas)[K]['body'], { 200: (typeof orderOperationSchemas)[K]['reply'] }, 'required'>;

  /** Unsigned bodies for the examples: portfolio 1 is a new wallet's first trading portfolio. */
  const placeExample = (price: string) => ({ seriesId: exampleSeries(s).seriesId, isBuy: true, size: '1', price, portfolioId: 1 });
  const cancelExample = { orderId: exampleBytes32 };

  return [
    post(
      '/api/mm/orders/place',
      'Place an order (two-phase)',
      'Unsigned: `{ seriesId, isBuy, size, price, portfolioId? }` in human units. Signed: the PlaceOrder message `{ seriesId, portfolioId, isBuy, tick, size, expiry, nonce, deadline }` plus `signature`. The orderId is the EIP-712 hash of the PlaceOrder (returned in phase one too). Either phase may add the order instructions `timeInForce` (GTC, IOC, FOK), `postOnly`, `reduceOnly`, `mmp`, `clientOrderId` (not signed; phase one echoes them, phase two applies them; docs/order-entry.md).',
      'place',
      ops.place,
      () => ({ body: { ...placeExample('1'), timeInForce: 'GTC', clientOrderId: 'my-order-1' } }),
    ),
    post(
      '/api/mm/orders/replace',
      'Replace an order atomically (two-phase)',
      '`{ cancel: { orderId, nonce?, deadline? }, place: <place body> }`. Both signatures (`cancel.signature`, `place.signature`) or neither; a partial one is an OrderValidationError. The cancel and the new order are one engine command: both happen or neither. The relay reply lists the new order in `orders` and the old one in `cancelled`.',
      'replace',
      ops.replace,
      () => ({ body: { cancel: cancelExample, place: placeExample('1.5') } }),
    ),
    post(
      '/api/mm/orders/place-batch',
      'Place up to 50 orders, all or nothing (two-phase)',
      '`{ orders: [<place body>, ...] }`, 1 to 50 entries, all signed or all unsigned (a mixed batch is an OrderValidationError). One invalid entry refuses the whole batch and nothing is applied.',
      'placeBatch',
      ops.placeBatch,
      () => ({ body: { orders: [placeExample('1'), placeExample('1.5')] } }),
    ),
    post(
      '/api/mm/orders/cancel-batch',
      'Cancel up to 50 orders, all or nothing (two-phase)',
      '`{ cancellations: [{ orderId, nonce?, deadline? }, ...] }`; signed entries carry `nonce`, `deadline` and `signature` (CancelOrder). The relay reply lists the cancelled orders in `orders`. An unknown order, or another wallet\'s, is 404 `Order not found`.',
      'cancelBatch',
      ops.cancelBatch,
      () => ({ body: { cancellations: [cancelExample] } }),
    ),
    post(
      '/api/mm/orders/cancel',
      'Cancel one order by orderId or clientOrderId (two-phase)',
      '`{ orderId }` or `{ clientOrderId }` (exactly one), with the optional `nonce`, `deadline` and, signed, `signature` of a cancel-batch entry: the one-order form of cancel-batch, with its phases and its reply (`operation: cancel_orders_batch`, `count: 1`, relay `batchCancelOrders`). A clientOrderId names the caller\'s open order carrying it. An unknown order, another wallet\'s, or a clientOrderId no open order of the caller carries is 404 `Order not found`. Both forms (`/mm/orders/cancel` with the session cookie, `{ error }` bodies).',
      'cancel',
      ops.cancel,
      () => ({ body: { clientOrderId: 'my-order-1' } }),
      ['current', 'earlier'],
    ),
    post(
      '/api/mm/orders/replace-batch',
      'Replace up to 50 orders atomically (two-phase)',
      '`{ replacements: [{ cancel, place }, ...] }`; every entry carries both its signatures or neither, uniformly across the batch. All replacements are one engine command.',
      'replaceBatch',
      ops.replaceBatch,
      () => ({ body: { replacements: [{ cancel: cancelExample, place: placeExample('1.5') }] } }),
    ),
    defineRoute({
      method: 'GET',
      path: '/api/mm/orders',
      group: 'orders',
      auth: 'required',
      scope: 'read',
      tags: ['orders'],
      summary: "The caller's orders",
      examples: () => ({ query: { seriesId: exampleSeries(s).seriesId, status: 'open', limit: 20, cursor: exampleBytes32 } }),
      description:
        'Open orders (`open` and `partial`), newest first, by default. `status` selects one status; `filled`, `cancelled` and `expired` list finished orders the server remembers (the last 1,000 per wallet, kept across restarts). `cursor` is the `nextCursor` of the previous page. `startTime`/`endTime` (Unix seconds, inclusive) keep orders created in that range; `startTime` after `endTime` is 400.',
      query: Type.Object({
        seriesId: Type.Optional(bytes32('seriesId')),
        status: Type.Optional(Type.Union(['open', 'partial', 'filled', 'cancelled', 'expired'].map((x) => Type.Literal(x)), { errorMessage: 'status must be one of: open, partial, filled, cancelled, expired' })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, errorMessage: 'limit must be greater than 0 and at most 100' })),
        cursor: Type.Optional(bytes32('cursor')),
        ...TimeRangeFields,
      }),
      responses: { 200: Type.Object({ orders: Type.Array(OrderViewSchema), nextCursor: Nullable(Bytes32) }) },
      handler: ({ query, auth }) => {
        const within = timeRange(query);
        if (typeof within !== 'function') return within;
        const ctx = orderContext(s);
        const owner = ctx.wallet(auth.address);
        const status = query.status;
        const finished = status === 'filled' || status === 'cancelled' || status === 'expired';
        const seriesId = query.seriesId?.toLowerCase();
        const all = (finished ? ctx.history.done(owner) : ctx.history.open(owner)).filter((o) => (status === undefined || o.status === status) && (seriesId === undefined || o.seriesId === seriesId) && within(o.createdAt));
        let start = 0;
        if (query.cursor !== undefined) {
          const i = all.findIndex((o) => o.orderId === query.cursor!.toLowerCase());
          if (i < 0) return orderValidation('cursor is not a cursor of this list', { field: 'cursor', location: 'query' });
          start = i + 1;
        }
        const limit = query.limit ?? 20;
        const page = all.slice(start, start + limit);
        const more = start + limit < all.length;
        return { body: { orders: page.map((v) => orderJson(s, v)), nextCursor: more ? page[page.length - 1]!.orderId : null } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/mm/orders/:orderId',
      group: 'orders',
      auth: 'required',
      scope: 'read',
      tags: ['orders'],
      summary: 'One of the caller\'s orders',
      examples: { params: { orderId: exampleBytes32 } },
      description: 'An open order, or a finished one the server still remembers. Unknown orders and other wallets\' orders are 404 `not_found`.',
      params: Type.Object({ orderId: bytes32('orderId') }),
      responses: { 200: OrderViewSchema },
      handler: ({ params, auth }) => {
        const ctx = orderContext(s);
        const orderId = params.orderId.toLowerCase() as `0x${string}`;
        const view = ctx.history.get(ctx.wallet(auth.address), orderId);
        return view ? { body: orderJson(s, view) } : orderNotFound(orderId);
      },
    }),
  ];
}
