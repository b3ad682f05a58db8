/**
 * Mass cancel and the dead-man switch over REST (extensions.md "Cancels", "Cancel on
 * disconnect and the dead-man switch"): the operations of orders/massCancelOperations.ts,
 * which the private WebSocket's CANCEL_ALL and CANCEL_AFTER call too.
 */
import { defineRoute, type Route } from '../http/route.ts';
import type { Services } from '../services.ts';
import { exampleSeries } from './examples.ts';
import { orderOperationSchemas } from '../orders/orderSchemas.ts';
import { massCancelOperations } from '../orders/massCancelOperations.ts';

export function massCancelRoutes(s: Services) {
  const ops = massCancelOperations(s);
  const common = { forms: ['current', 'earlier'], method: 'POST', group: 'orders', auth: 'required', scope: 'trade', tags: ['orders'] } as const;
  return [
    defineRoute({
      ...common,
      path: '/api/mm/orders/cancel-all',
      errors: [404],
      summary: 'Cancel all open orders in a scope at once',
      examples: () => {
        const e = exampleSeries(s);
        return { body: { pairId: e.pairId, side: 'buy' } };
      },
      description:
        "One engine command, effective at once (matching stops for those orders before the reply), authenticated by the request's credentials: no per-order signature. Every field is optional and all given must match: `pairId`, `seriesId`, `side`, `portfolioId` (the portfolio the orders name), `mmpOnly`; `{}` cancels every open order of the wallet. The order events carry `cancelReason: mass_cancel`. Nothing open answers `{ cancelled: 0, orderIds: [], cancellations: [] }`. An unknown pair, series or portfolio is 404. Also the private WebSocket's `CANCEL_ALL`.",
      body: orderOperationSchemas.cancelAll.body,
      responses: { 200: orderOperationSchemas.cancelAll.reply },
      handler: async ({ body, auth }) => (await ops.cancelAll(body, auth.address)) as never,
    }),
    defineRoute({
      ...common,
      path: '/api/mm/orders/cancel-after',
      summary: 'Arm, move or disarm the dead-man switch',
      examples: () => ({ body: { timeoutMs: 30_000 } }),
      description:
        "The dead-man switch: at the first clock after `cancelAt` (venue time, Unix ms), every open order of the wallet is cancelled (`cancelReason: dead_man`) and the switch disarms. Each call moves the deadline to now + `timeoutMs`; 0 disarms (`cancelAt: null`). The deadline is engine state: it survives a restart, and one passed while the venue was down fires at the first clock after the start. A client re-arms it well within `timeoutMs` (e.g. every third of it) while it is healthy. Also the private WebSocket's `CANCEL_AFTER`.",
      body: orderOperationSchemas.cancelAfter.body,
      responses: { 200: orderOperationSchemas.cancelAfter.reply },
      handler: async ({ body, auth }) => (await ops.cancelAfter(body, auth.address)) as never,
    }),
  ];
}
