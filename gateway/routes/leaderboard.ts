/**
 * Leaderboards (extensions.md "Points, leaderboard, ..."): rankings of wallets by traded volume,
 * realized PnL or points over 24 h, 7 d, 30 d or all time, sorted on the clock by the activity
 * fold (readModels/activity.ts, readModels/ranking.ts). A read pages a sorted array and reuses
 * the page's JSON until the next recompute: no sorting at request time.
 */
import { Type } from '@sinclair/typebox';
import { getAddress } from 'viem';
import { defineRoute } from '../http/route.ts';
import type { Services } from '../services.ts';
import { metrics, periods, type Metric, type Period } from '../readModels/activity.ts';
import { Nullable, AddressSchema } from './schemas.ts';
import { limitQuery, pointsNumber } from './activitySchemas.ts';

const both = ['current', 'earlier'] as const;
const MAX_CACHED_PAGES = 1000;

const MetricQuery = Type.Optional(Type.Union(metrics.map((m) => Type.Literal(m)), { description: 'default volume', errorMessage: `metric must be one of ${metrics.join(', ')}` }));
const PeriodQuery = Type.Optional(Type.Union(periods.map((p) => Type.Literal(p)), { description: 'default 24h', errorMessage: `period must be one of ${periods.join(', ')}` }));
const ValueSchema = Type.Union([Type.String({ pattern: '^-?[0-9]+$', description: 'volume and pnl: COLLATERAL6 integer string' }), Type.Number({ description: 'points' })]);
const VALUE_DESCRIPTION =
  '`volume`: traded notional (index price x size, COLLATERAL6), both sides of each fill; `pnl`: realized PnL (COLLATERAL6, fills that reduce a position and settlement); `points`: as `GET /api/points/me`, a number. Windows are the current UTC hour and the hours before it (24, 168 or 720); `all` since the venue started. A wallet is ranked when it traded in the period (`pnl` also when it realized PnL; `points` when it earned any). Ranks: value descending, ties by address ascending; recomputed at the venue\'s clock commands (every second), `updatedAt` says when.';

export const valueJson = (metric: Metric, v: bigint): string | number => (metric === 'points' ? pointsNumber(v) : v.toString());

export function leaderboardRoutes(s: Services) {
  const activity = s.reads.activity;
  let cacheVersion = -1;
  const pages = new Map<string, string>();
  const page = (metric: Metric, period: Period, offset: number, limit: number): string => {
    if (cacheVersion !== activity.version || pages.size > MAX_CACHED_PAGES) {
      pages.clear();
      cacheVersion = activity.version;
    }
    const key = `${metric}:${period}:${offset}:${limit}`;
    let json = pages.get(key);
    if (json === undefined) {
      const ranking = activity.ranking(metric, period);
      const entries = ranking.page(offset, limit).map(([address, v], i) => ({ rank: offset + i + 1, address, value: valueJson(metric, v) }));
      const nextCursor = offset + limit < ranking.size ? String(offset + limit) : null;
      json = JSON.stringify({ metric, period, updatedAt: activity.updatedAt, entries, nextCursor });
      pages.set(key, json);
    }
    return json;
  };
  return [
    defineRoute({
      method: 'GET',
      path: '/api/leaderboard',
      forms: both,
      group: 'platform',
      auth: 'none',
      tags: ['leaderboard'],
      summary: 'Wallets ranked by volume, realized PnL or points',
      description: `${VALUE_DESCRIPTION} \`cursor\` is the previous page's \`nextCursor\` (null on the last page).`,
      query: Type.Object({
        metric: MetricQuery,
        period: PeriodQuery,
        limit: limitQuery,
        cursor: Type.Optional(Type.String({ pattern: '^[0-9]{1,9}$', errorMessage: 'cursor must be a nextCursor value' })),
      }),
      examples: { query: { metric: 'points', period: '7d', limit: 20, cursor: '0' } },
      responses: {
        200: Type.Object({
          metric: Type.String(),
          period: Type.String(),
          updatedAt: Type.Integer({ description: 'Unix ms' }),
          entries: Type.Array(Type.Object({ rank: Type.Integer({ minimum: 1 }), address: AddressSchema, value: ValueSchema })),
          nextCursor: Nullable(Type.String()),
        }),
      },
      handler: ({ query }) => ({ raw: page(query.metric ?? 'volume', query.period ?? '24h', Number(query.cursor ?? 0), query.limit ?? 20) }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/leaderboard/me',
      forms: both,
      group: 'account',
      auth: 'required',
      scope: 'read',
      tags: ['leaderboard'],
      summary: 'Your rank on a leaderboard',
      description: `\`rank\` is null when you are not ranked in the period (\`value\` is then 0). \`participants\`: wallets ranked. ${VALUE_DESCRIPTION}`,
      query: Type.Object({ metric: MetricQuery, period: PeriodQuery }),
      examples: { query: { metric: 'volume', period: '30d' } },
      responses: { 200: Type.Object({ rank: Nullable(Type.Integer({ minimum: 1 })), value: ValueSchema, participants: Type.Integer() }) },
      handler: ({ auth, query }) => {
        const metric = query.metric ?? 'volume';
        const ranking = activity.ranking(metric, query.period ?? '24h');
        const address = getAddress(auth.address);
        return { body: { rank: ranking.rankOf(address), value: valueJson(metric, ranking.valueOf(address) ?? 0n), participants: ranking.size } };
      },
    }),
  ];
}
