/**
 * User analytics (extensions.md "Points, leaderboard, ..."): a wallet's public 30-day figures and
 * its own hourly or daily history, folded from committed events (readModels/activity.ts).
 */
import { Type } from '@sinclair/typebox';
import { getAddress, isAddress } from 'viem';
import { defineRoute } from '../http/route.ts';
import { errorReply } from '../http/errors.ts';
import type { Services } from '../services.ts';
import { seriesOver } from '../readModels/activitySeries.ts';
import { AddressSchema, C6String, Nullable } from './schemas.ts';
import { RangeQuery, RANGE_DESCRIPTION, range, isRange } from './activitySchemas.ts';

const both = ['current', 'earlier'] as const;

export function userRoutes(s: Services) {
  const activity = s.reads.activity;
  return [
    defineRoute({
      method: 'GET',
      path: '/api/user/:address/stats',
      forms: both,
      group: 'platform',
      auth: 'none',
      tags: ['user'],
      summary: "A wallet's 30-day volume, fills and realized PnL",
      description:
        'Over the current UTC hour and the 719 before it: `volume30d` traded notional (index price x size, COLLATERAL6), `trades30d` fills (either side), `realizedPnl30d` (COLLATERAL6). `firstTradeAt`: Unix ms of its first fill, null if none. A wallet the venue has never seen (no portfolio, no fill): 404.',
      params: Type.Object({ address: AddressSchema }),
      examples: () => ({ params: { address: activity.anyAddress() ?? '0x0000000000000000000000000000000000000001' } }),
      errors: [404],
      responses: { 200: Type.Object({ address: AddressSchema, volume30d: C6String, trades30d: Type.Integer(), realizedPnl30d: C6String, firstTradeAt: Nullable(Type.Integer()) }) },
      handler: ({ params }) => {
        if (!isAddress(params.address, { strict: false })) return errorReply('invalid_argument', 'Invalid wallet address', { field: 'address' });
        const address = getAddress(params.address);
        const w = activity.get(address);
        if (w === undefined) return errorReply('not_found', `Wallet not found: ${address}`);
        const win = w.windows['30d'];
        return { body: { address, volume30d: (win?.volume ?? 0n).toString(), trades30d: win?.trades ?? 0, realizedPnl30d: (win?.pnl ?? 0n).toString(), firstTradeAt: w.firstTradeAt } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/user/me/analytics',
      forms: both,
      group: 'account',
      auth: 'required',
      scope: 'read',
      tags: ['user'],
      summary: 'Your volume, fills, fees, realized PnL and equity per hour or day',
      description: `${RANGE_DESCRIPTION} \`volume\`: traded notional (COLLATERAL6); \`fees\`: fees paid (negative: rebates); \`realizedPnl\` (COLLATERAL6); \`equity\`: the equity of all your portfolios (COLLATERAL6) at its last change before the interval's end.`,
      query: Type.Object(RangeQuery),
      examples: () => ({ query: { interval: '1d', to: s.reads.ts, from: s.reads.ts - 7 * 86_400_000 } }),
      responses: {
        200: Type.Object({ points: Type.Array(Type.Object({ t: Type.Integer(), volume: C6String, trades: Type.Integer(), fees: C6String, realizedPnl: C6String, equity: C6String })) }),
      },
      handler: ({ auth, query }) => {
        const r = range(query, s.reads.ts);
        if (!isRange(r)) return r;
        const points = seriesOver(activity.walletBuckets(getAddress(auth.address)), r, (t, inside, before) => {
          let volume = 0n;
          let trades = 0;
          let fees = 0n;
          let pnl = 0n;
          for (const b of inside) {
            volume += b.volume;
            trades += b.trades;
            fees += b.fees;
            pnl += b.pnl;
          }
          const equity = inside.length > 0 ? inside[inside.length - 1]!.equity : (before?.equity ?? 0n);
          return { t, volume: volume.toString(), trades, fees: fees.toString(), realizedPnl: pnl.toString(), equity: equity.toString() };
        });
        return { body: { points } };
      },
    }),
  ];
}
