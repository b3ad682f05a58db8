/**
 * The order-entry operations, independent of the transport: each takes a request body as
 * sent (unsigned or signed) and the authenticated wallet, and answers the reply body or an
 * expected refusal. The REST routes (gateway/routes/orders.ts) and the private WebSocket's
 * order methods (gateway/streams/orderMethods.ts) call these same functions, so both
 * transports run the same checks and the same pipeline and answer the same bodies.
 *
 * Authentication, the `trade` scope and the orders rate-limit bucket are the transport's.
 */
import type { ErrorReply } from '../http/errors.ts';
import { errorReply } from '../http/errors.ts';
import type { Services } from '../services.ts';
import { isClientOrderId } from '../../engine/index.ts';
import { orderContext, type OrderContext } from './orderContext.ts';
import { parseBatch, parseCancel, parsePlace, parseReplace, rawReplaceSigned, rawSigned, type CancelEntry, type EntryError } from './orderEntries.ts';
import { enterOrders, type EntryOutcome, type OrderRequest } from './orderEntry.ts';
import { orderValidation } from './orderErrors.ts';
import { cancelBatchCalldata, cancelTypedData, operations, placeBatchCalldata, placeCalldata, placeTypedData, relayData, replaceBatchCalldata, replaceCalldata, type OperationName } from './relay.ts';
import { isPresent, readObject } from './fields.ts';
import { instructionsJson } from './instructionFields.ts';
import { massCancelOperations } from './massCancelOperations.ts';

/** The operations: the five of the interface plus the one-order cancel, the mass cancel and the dead-man switch (extensions.md "Cancels"). */
export const orderOperationNames = ['place', 'replace', 'placeBatch', 'cancelBatch', 'replaceBatch', 'cancel', 'cancelAll', 'cancelAfter'] as const;
export type OrderOperationName = (typeof orderOperationNames)[number];

export type OrderReply = { readonly body: Record<string, unknown> } | ErrorReply;
/** One operation: the raw body and the caller's address (as authenticated). */
export type OrderOperation = (body: unknown, address: string) => Promise<OrderReply>;
export type OrderOperations = Readonly<Record<OrderOperationName, OrderOperation>>;

const invalid = (e: EntryError): ErrorReply => orderValidation(e.message, e.reason === undefined ? { field: e.field } : { field: e.field, reason: e.reason });

/** The relay reply of a signed request. */
export function relay(ctx: OrderContext, op: OperationName, outcome: Extract<EntryOutcome, { mode: 'relay' }>, count: boolean) {
  const signedPlaces = outcome.places.map((p) => ({ message: p.message, signature: p.signature!.canonical }));
  const signedCancels = outcome.cancels.map((c) => ({ message: c.message, signature: c.signature!.canonical }));
  const calldata =
    op === 'place'
      ? placeCalldata(signedPlaces[0]!)
      : op === 'placeBatch'
        ? placeBatchCalldata(signedPlaces)
        : op === 'cancelBatch'
          ? cancelBatchCalldata(signedCancels)
          : op === 'replace'
            ? replaceCalldata(signedCancels[0]!, signedPlaces[0]!)
            : replaceBatchCalldata(signedCancels.map((cancel, i) => ({ cancel, place: signedPlaces[i]! })));
  const address = ctx.orderBook.address;
  const body: Record<string, unknown> = {
    mode: 'relay',
    operation: operations[op].operation,
    contractAddress: address,
    relay: relayData(address, ctx.services.config.chainId, op, calldata),
  };
  if (count) body['count'] = op === 'cancelBatch' ? outcome.cancels.length : outcome.places.length;
  // cancel-batch reports the cancelled orders; replace and place report the new ones (replace adds `cancelled`).
  body['orders'] = op === 'cancelBatch' ? outcome.cancelled : outcome.orders;
  if (op === 'replace' || op === 'replaceBatch') body['cancelled'] = outcome.cancelled;
  return body;
}

/**
 * The one-order cancel's body: `{ orderId }` or `{ clientOrderId }` (exactly one) with the
 * optional `nonce`, `deadline`, `signature` of a cancel-batch entry. A client order id names
 * the caller's open order carrying it (the order history fold); none is 404 like an unknown
 * orderId. The result is the cancel entry, its field paths at the top level (`nonce`).
 */
function parseOneCancel(ctx: OrderContext, owner: string, body: unknown): { ok: true; value: CancelEntry } | { ok: false; error: ErrorReply } {
  const obj = readObject(body, 'body');
  if (!obj.ok) return { ok: false, error: invalid(obj.error) };
  const o = obj.value;
  const byId = isPresent(o['orderId']);
  const byClientId = isPresent(o['clientOrderId']);
  if (byId === byClientId) {
    const message = byId ? 'give orderId or clientOrderId, not both' : 'orderId or clientOrderId is required';
    return { ok: false, error: orderValidation(message, { field: byId ? 'clientOrderId' : 'orderId', reason: 'order_reference' }) };
  }
  let raw: Record<string, unknown> = o;
  if (byClientId) {
    const clientOrderId = o['clientOrderId'];
    if (typeof clientOrderId !== 'string' || !isClientOrderId(clientOrderId)) {
      return { ok: false, error: orderValidation('clientOrderId must be 1 to 36 characters of A-Z, a-z, 0-9, _ and -', { field: 'clientOrderId' }) };
    }
    const view = ctx.history.openByClientOrderId(owner, clientOrderId);
    if (view === null) return { ok: false, error: errorReply('not_found', `Order not found: clientOrderId ${clientOrderId}`, { reason: 'unknown_order', clientOrderId }) };
    raw = { ...o, orderId: view.orderId };
  }
  const entry = parseCancel(raw, '');
  return entry.ok ? entry : { ok: false, error: invalid(entry.error) };
}

export function orderOperations(s: Services): OrderOperations {
  // Built now, not on the first request: its read models must see every event from the start.
  orderContext(s);
  const run = async (address: string, req: OrderRequest) => {
    const ctx = orderContext(s);
    return { ctx, result: await enterOrders(ctx, ctx.wallet(address), req) };
  };

  /** Cancels (one or a batch): one reply shape, cancel-batch's. */
  const cancels = async (address: string, entries: { readonly signed: boolean; readonly entries: readonly CancelEntry[] }): Promise<OrderReply> => {
    const { ctx, result } = await run(address, { signed: entries.signed, cancels: entries.entries, places: [], paired: false });
    if (!result.ok) return result.error;
    const out = result.value;
    if (out.mode === 'relay') return { body: relay(ctx, 'cancelBatch', out, true) };
    const cancellations = out.cancels.map((c) => ({ orderId: c.orderId, typedData: cancelTypedData(ctx.orderBook.domain, c) }));
    return { body: { mode: 'typed_data', operation: 'cancel_orders_batch', contractAddress: ctx.orderBook.address, cancellations, count: cancellations.length } };
  };

  return {
    ...massCancelOperations(s),
    async place(body, address) {
      const entry = parsePlace(body, '');
      if (!entry.ok) return invalid(entry.error);
      const { ctx, result } = await run(address, { signed: entry.value.signed, cancels: [], places: [entry.value], paired: false });
      if (!result.ok) return result.error;
      const out = result.value;
      if (out.mode === 'relay') return { body: relay(ctx, 'place', out, false) };
      const p = out.places[0]!;
      return { body: { mode: 'typed_data', operation: 'place_order', contractAddress: ctx.orderBook.address, typedData: placeTypedData(ctx.orderBook.domain, p.message), orderId: p.orderId, ...instructionsJson(p.instructions) } };
    },

    async replace(body, address) {
      const entry = parseReplace(body, '');
      if (!entry.ok) return invalid(entry.error);
      const { ctx, result } = await run(address, { signed: entry.value.signed, cancels: [entry.value.cancel], places: [entry.value.place], paired: true });
      if (!result.ok) return result.error;
      const out = result.value;
      if (out.mode === 'relay') return { body: relay(ctx, 'replace', out, false) };
      const domain = ctx.orderBook.domain;
      const c = out.cancels[0]!;
      const p = out.places[0]!;
      return { body: { mode: 'typed_data', operation: 'replace_order', contractAddress: ctx.orderBook.address, replacement: { oldOrderId: c.orderId, cancelTypedData: cancelTypedData(domain, c), placeTypedData: placeTypedData(domain, p.message), orderId: p.orderId, ...instructionsJson(p.instructions) } } };
    },

    async placeBatch(body, address) {
      const obj = readObject(body, 'body');
      if (!obj.ok) return invalid(obj.error);
      const batch = parseBatch(obj.value['orders'], 'orders', rawSigned, parsePlace);
      if (!batch.ok) return invalid(batch.error);
      const { ctx, result } = await run(address, { signed: batch.value.signed, cancels: [], places: batch.value.entries, paired: false });
      if (!result.ok) return result.error;
      const out = result.value;
      if (out.mode === 'relay') return { body: relay(ctx, 'placeBatch', out, true) };
      const placements = out.places.map((p) => ({ typedData: placeTypedData(ctx.orderBook.domain, p.message), orderId: p.orderId, ...instructionsJson(p.instructions) }));
      return { body: { mode: 'typed_data', operation: 'place_orders_batch', contractAddress: ctx.orderBook.address, placements, count: placements.length } };
    },

    async cancelBatch(body, address) {
      const obj = readObject(body, 'body');
      if (!obj.ok) return invalid(obj.error);
      const batch = parseBatch(obj.value['cancellations'], 'cancellations', rawSigned, parseCancel);
      if (!batch.ok) return invalid(batch.error);
      return cancels(address, batch.value);
    },

    async replaceBatch(body, address) {
      const obj = readObject(body, 'body');
      if (!obj.ok) return invalid(obj.error);
      const batch = parseBatch(obj.value['replacements'], 'replacements', rawReplaceSigned, parseReplace);
      if (!batch.ok) return invalid(batch.error);
      const entries = batch.value.entries;
      const { ctx, result } = await run(address, { signed: batch.value.signed, cancels: entries.map((e) => e.cancel), places: entries.map((e) => e.place), paired: true });
      if (!result.ok) return result.error;
      const out = result.value;
      if (out.mode === 'relay') return { body: relay(ctx, 'replaceBatch', out, true) };
      const domain = ctx.orderBook.domain;
      const replacements = out.cancels.map((c, i) => ({ oldOrderId: c.orderId, cancelTypedData: cancelTypedData(domain, c), placeTypedData: placeTypedData(domain, out.places[i]!.message), orderId: out.places[i]!.orderId, ...instructionsJson(out.places[i]!.instructions) }));
      return { body: { mode: 'typed_data', operation: 'replace_orders_batch', contractAddress: ctx.orderBook.address, replacements, count: replacements.length } };
    },

    async cancel(body, address) {
      const ctx = orderContext(s);
      const entry = parseOneCancel(ctx, ctx.wallet(address), body);
      if (!entry.ok) return entry.error;
      return cancels(address, { signed: entry.value.signed, entries: [entry.value] });
    },
  };
}
