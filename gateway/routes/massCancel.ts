/**
 * Mass cancel and the dead-man switch over REST (extensions.md "Cancels", "Cancel on
 * disconnect and the dead-man switch"): each one engine command, effective at once,
 * authenticated by the request's own credentials (no per-order signature).
 */
import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '../http/route.ts';
import { errorReply } from '../http/errors.ts';
import type { Services } from '../services.ts';
import type { CancelScope, Hex } from '../../engine/index.ts';
import { Bytes32, bytes32 } from './schemas.ts';
import { exampleSeries } from './examples.ts';
import { orderContext } from '../orders/orderContext.ts';
import { cancelTypedData } from '../orders/relay.ts';
import { TypedDataSchema } from '../orders/orderSchemas.ts';
import { DEFAULT_DEADLINE_SEC } from '../orders/entryChecks.ts';
import { resultOrError } from './engineErrors.ts';

const CancelAllBody = Type.Object({
  pairId: Type.Optional(bytes32('pairId')),
  seriesId: Type.Optional(bytes32('seriesId')),
  side: Type.Optional(Type.Union([Type.Literal('buy'), Type.Literal('sell')], { errorMessage: 'side must be buy or sell' })),
  portfolioId: Type.Optional(Type.Integer({ minimum: 0, maximum: 2 ** 31 - 1, description: 'the portfolio the orders name (0: a market maker\'s)' })),
  mmpOnly: Type.Optional(Type.Boolean({ description: 'only orders placed with the `mmp` instruction' })),
});

const CancelAllReply = Type.Object({
  cancelled: Type.Integer(),
  orderIds: Type.Array(Bytes32),
  cancellations: Type.Array(Type.Object({ orderId: Bytes32, typedData: TypedDataSchema }), {
    description: 'CancelOrder typed data for each cancelled order (a fresh nonce, a deadline 300 s out), to sign and post to cancel-batch later for the on-chain cancel: cancel-batch answers a signed cancel of an order the venue already cancelled with its relay and changes nothing else.',
  }),
});

export function massCancelRoutes(s: Services): Route[] {
  const catalog = s.reads.catalog;
  return [
    defineRoute({
      forms: ['current', 'earlier'],
      method: 'POST',
      path: '/api/mm/orders/cancel-all',
      group: 'orders',
      auth: 'required',
      scope: 'trade',
      tags: ['orders'],
      errors: [404],
      summary: 'Cancel all open orders in a scope at once',
      examples: () => {
        const e = exampleSeries(s);
        return { body: { pairId: e.pairId, side: 'buy' } };
      },
      description:
        "One engine command, effective at once (matching stops for those orders before the reply), authenticated by the request's credentials: no per-order signature. Every field is optional and all given must match: `pairId`, `seriesId`, `side`, `portfolioId` (the portfolio the orders name), `mmpOnly`; `{}` cancels every open order of the wallet. The order events carry `cancelReason: mass_cancel`. Nothing open answers `{ cancelled: 0, orderIds: [], cancellations: [] }`. An unknown pair, series or portfolio is 404.",
      body: CancelAllBody,
      responses: { 200: CancelAllReply },
      handler: async ({ body, auth, now }) => {
        const ctx = orderContext(s);
        const owner = ctx.wallet(auth.address);
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
        const deadline = BigInt(Math.floor(now / 1000) + DEFAULT_DEADLINE_SEC);
        const cancellations = done.value.map((orderId) => ({ orderId, typedData: cancelTypedData(ctx.orderBook.domain, { orderId, nonce: ctx.nonces.take(owner), deadline }) }));
        // The typed data's readonly tuple types are the wire's plain arrays (as the order routes' replies).
        return { body: { cancelled: done.value.length, orderIds: [...done.value], cancellations } as never };
      },
    }),
    defineRoute({
      forms: ['current', 'earlier'],
      method: 'POST',
      path: '/api/mm/orders/cancel-after',
      group: 'orders',
      auth: 'required',
      scope: 'trade',
      tags: ['orders'],
      summary: 'Arm, move or disarm the dead-man switch',
      examples: () => ({ body: { timeoutMs: 30_000 } }),
      description:
        "The dead-man switch: at the first clock after `cancelAt` (venue time, Unix ms), every open order of the wallet is cancelled (`cancelReason: dead_man`) and the switch disarms. Each call moves the deadline to now + `timeoutMs`; 0 disarms (`cancelAt: null`). The deadline is engine state: it survives a restart, and one passed while the venue was down fires at the first clock after the start. A client re-arms it well within `timeoutMs` (e.g. every third of it) while it is healthy. Also the private WebSocket's `CANCEL_AFTER`.",
      body: Type.Object({ timeoutMs: Type.Integer({ minimum: 0, maximum: 600_000, description: '0 (disarm) or 1000..600000', errorMessage: 'timeoutMs must be 0 (disarm) or from 1000 to 600000' }) }),
      responses: { 200: Type.Object({ cancelAt: Type.Union([Type.Integer({ description: 'Unix ms' }), Type.Null()]) }) },
      handler: async ({ body, auth }) => {
        const owner = orderContext(s).wallet(auth.address);
        const result = await s.pipeline.submit({ type: 'cancel_after', owner, timeoutMs: body.timeoutMs });
        const done = resultOrError(result, (v) => (v as { cancelAt: number | null }).cancelAt);
        if (!done.ok) return done.error;
        return { body: { cancelAt: done.value } };
      },
    }),
  ];
}
