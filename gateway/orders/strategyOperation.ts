/**
 * `POST /api/strategies/execute` (extensions.md "Strategies"): a multi-leg package whose legs
 * become fill-or-kill orders of one portfolio, two-phase like place-batch. Phase one answers
 * the legs' typed data (and the strategy's id); phase two verifies the signatures and submits
 * ONE `strategy` command (engine/flows/strategy.ts): every leg fills in full at its limit or
 * better, or nothing changes (`strategy_not_fillable` naming the leg).
 *
 * Body: `{ portfolioId, legs: [{ seriesId, isBuy, size, price }] }` unsigned, or
 * `{ portfolioId, legs: [typed data message + signature] }` signed. A leg carries no order
 * instructions: it is FOK.
 */
import type { Hex } from '../../engine/index.ts';
import type { Services } from '../services.ts';
import { orderContext } from './orderContext.ts';
import { parseBatch, parsePlace, rawSigned, type PlaceEntry } from './orderEntries.ts';
import { enterOrders, strategyIdOf } from './orderEntry.ts';
import { orderValidation } from './orderErrors.ts';
import { placeTypedData } from './relay.ts';
import { readObject, readUint, type Fields } from './fields.ts';
import { instructionsJson } from './instructionFields.ts';
import { relay, type OrderOperation } from './orderOperations.ts';

const UNSIGNED = ['seriesId', 'isBuy', 'size', 'price', 'deadline'] as const;
const SIGNED = ['seriesId', 'portfolioId', 'isBuy', 'tick', 'size', 'expiry', 'nonce', 'deadline', 'signature'] as const;

/** A leg as a place entry: its own fields only, the body's portfolio, fill-or-kill. */
function parseLeg(portfolioId: bigint) {
  return (raw: unknown, path: string) => {
    const obj = readObject(raw, path);
    if (!obj.ok) return obj;
    const o = obj.value;
    const signed = rawSigned(o);
    const extra = Object.keys(o).find((k) => !(signed ? (SIGNED as readonly string[]) : (UNSIGNED as readonly string[])).includes(k));
    if (extra !== undefined) return { ok: false as const, error: { field: `${path}.${extra}`, message: `${path}.${extra} is not a field of a strategy leg (legs are fill-or-kill orders: ${UNSIGNED.slice(0, 4).join(', ')})` } };
    const entry: Fields = signed ? { ...o, timeInForce: 'FOK' } : { ...o, portfolioId: portfolioId.toString(), timeInForce: 'FOK' };
    const parsed = parsePlace(entry, path);
    if (parsed.ok && parsed.value.signed && parsed.value.message.portfolioId !== portfolioId) {
      return { ok: false as const, error: { field: `${path}.portfolioId`, message: `${path}.portfolioId must be the body's portfolioId (${portfolioId})` } };
    }
    return parsed;
  };
}

const seriesOf = (e: PlaceEntry): Hex => (e.signed ? e.message.seriesId : e.seriesId).toLowerCase() as Hex;

export function strategyExecute(s: Services): OrderOperation {
  orderContext(s);
  return async (body, address) => {
    const obj = readObject(body, 'body');
    if (!obj.ok) return orderValidation(obj.error.message, { field: obj.error.field });
    const portfolioId = readUint(obj.value, 'portfolioId', '', 256);
    if (!portfolioId.ok) return orderValidation(portfolioId.error.message, { field: portfolioId.error.field });
    const batch = parseBatch(obj.value['legs'], 'legs', rawSigned, parseLeg(portfolioId.value));
    if (!batch.ok) return orderValidation(batch.error.message, batch.error.reason === undefined ? { field: batch.error.field } : { field: batch.error.field, reason: batch.error.reason });
    const legs = batch.value.entries;
    const seen = new Map<Hex, number>();
    for (let i = 0; i < legs.length; i++) {
      const id = seriesOf(legs[i]!);
      const first = seen.get(id);
      if (first !== undefined) return orderValidation(`legs[${i}].seriesId is the series of legs[${first}]: each series may appear in one leg only`, { field: `legs[${i}].seriesId`, reason: 'strategy_duplicate_leg' });
      seen.set(id, i);
    }
    const ctx = orderContext(s);
    const result = await enterOrders(ctx, ctx.wallet(address), { signed: batch.value.signed, cancels: [], places: legs, paired: false, strategy: true });
    if (!result.ok) return result.error;
    const out = result.value;
    if (out.mode === 'relay') {
      const strategyId = strategyIdOf(out.orders.map((o) => o.orderId));
      return { body: { strategyId, ...relay(ctx, 'placeBatch', out, true) } };
    }
    const placements = out.places.map((p) => ({ typedData: placeTypedData(ctx.orderBook.domain, p.message), orderId: p.orderId, ...instructionsJson(p.instructions) }));
    return { body: { mode: 'typed_data', operation: 'place_orders_batch', contractAddress: ctx.orderBook.address, strategyId: strategyIdOf(placements.map((p) => p.orderId)), placements, count: placements.length } };
  };
}
