/**
 * Mass cancel and the dead-man switch as order operations (extensions.md "Cancels", "Cancel
 * on disconnect and the dead-man switch"), for both transports: the REST routes
 * (routes/massCancel.ts) and the private WebSocket's CANCEL_ALL and CANCEL_AFTER. Each is
 * one engine command, effective at once, authenticated by the caller's credentials (no
 * per-order signature).
 */
import type { CancelScope, Hex } from '../../engine/index.ts';
import { errorReply } from '../http/errors.ts';
import { compileInput } from '../http/validation.ts';
import type { Services } from '../services.ts';
import { resultOrError } from '../routes/engineErrors.ts';
import { orderContext } from './orderContext.ts';
import { cancelTypedData } from './relay.ts';
import { orderOperationSchemas } from './orderSchemas.ts';
import { DEFAULT_DEADLINE_SEC } from './entryChecks.ts';
import type { OrderOperation, OrderReply } from './orderOperations.ts';

type CancelAllBody = { pairId?: string; seriesId?: string; side?: 'buy' | 'sell'; portfolioId?: number; mmpOnly?: boolean };

const cancelAllInput = compileInput(orderOperationSchemas.cancelAll.body, 'body', false);
const cancelAfterInput = compileInput(orderOperationSchemas.cancelAfter.body, 'body', false);

/** A body as the schema wants it, or the REST framework's 400 (the WebSocket gets no framework in front). */
function parsed<T>(input: ReturnType<typeof compileInput>, body: unknown): { ok: true; value: T } | { ok: false; reply: OrderReply } {
  const r = input.parse(body);
  return r.ok ? { ok: true, value: r.value as T } : { ok: false, reply: errorReply('invalid_argument', r.error.message, { field: r.error.field, location: 'body' }) };
}

export function massCancelOperations(s: Services): { cancelAll: OrderOperation; cancelAfter: OrderOperation } {
  const catalog = s.reads.catalog;
  return {
    async cancelAll(raw, address) {
      const p = parsed<CancelAllBody>(cancelAllInput, raw);
      if (!p.ok) return p.reply;
      const body = p.value;
      const ctx = orderContext(s);
      const owner = ctx.wallet(address);
      const scope: { -readonly [K in keyof CancelScope]: CancelScope[K] } = {};
      if (body.pairId !== undefined) {
        const pairId = catalog.pairId(body.pairId);
        if (pairId === null) return errorReply('not_found', `Pair not found: ${body.pairId}`, { pairId: body.pairId });
        scope.pairId = pairId;
      }
      if (body.seriesId !== undefined) {
        const series = catalog.series.get(body.seriesId.toLowerCase() as Hex);
        if (series === undefined) return errorReply('not_found', `Series not found: ${body.seriesId}`, { seriesId: body.seriesId });
        scope.seriesId = series.seriesId;
      }
      if (body.side !== undefined) scope.side = body.side;
      if (body.portfolioId !== undefined) {
        if (s.reads.accounts.portfolio(owner, body.portfolioId) === null) return errorReply('not_found', `Portfolio not found: ${body.portfolioId}`, { portfolioId: body.portfolioId });
        scope.portfolioId = body.portfolioId;
      }
      if (body.mmpOnly === true) scope.mmpOnly = true;
      const result = await s.pipeline.submit({ type: 'cancel_all', owner, scope, reason: 'mass_cancel' });
      const done = resultOrError(result, (v) => (v as { orderIds: readonly Hex[] }).orderIds);
      if (!done.ok) return done.error;
      const deadline = BigInt(Math.floor(s.pipeline.now() / 1000) + DEFAULT_DEADLINE_SEC);
      const cancellations = done.value.map((orderId) => ({ orderId, typedData: cancelTypedData(ctx.orderBook.domain, { orderId, nonce: ctx.nonces.take(owner), deadline }) }));
      return { body: { cancelled: done.value.length, orderIds: [...done.value], cancellations } };
    },

    async cancelAfter(raw, address) {
      const p = parsed<{ timeoutMs: number }>(cancelAfterInput, raw);
      if (!p.ok) return p.reply;
      const owner = orderContext(s).wallet(address);
      const result = await s.pipeline.submit({ type: 'cancel_after', owner, timeoutMs: p.value.timeoutMs });
      const done = resultOrError(result, (v) => (v as { cancelAt: number | null }).cancelAt);
      if (!done.ok) return done.error;
      return { body: { cancelAt: done.value } };
    },
  };
}
