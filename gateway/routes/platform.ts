/**
 * Platform statistics (extensions.md "Points, leaderboard, referrals, user analytics, platform"):
 * folded from committed events (readModels/activity.ts), recomputed on the clock; the stats reply
 * is serialised once per recompute.
 */
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../http/route.ts';
import type { Services } from '../services.ts';
import { seriesOver } from '../readModels/activitySeries.ts';
import { C6String, Bytes32, WadString } from './schemas.ts';
import { RangeQuery, RANGE_DESCRIPTION, range, isRange } from './activitySchemas.ts';

const both = ['current', 'earlier'] as const;
const platform = { forms: both, group: 'platform', auth: 'none', tags: ['platform'] } as const;

const StatsSchema = Type.Object({
  volume24h: C6String,
  trades24h: Type.Integer(),
  traders24h: Type.Integer({ description: 'wallets with a fill in the window' }),
  totalCollateral: C6String,
  pairs: Type.Array(Type.Object({ pairId: Bytes32, volume24h: C6String, openInterest: WadString })),
  updatedAt: Type.Integer({ description: 'Unix ms of the clock command it was computed at' }),
});

export function platformRoutes(s: Services) {
  const activity = s.reads.activity;
  let cache: { version: number; json: string } | null = null;
  const statsJson = () => {
    if (cache === null || cache.version !== activity.version) {
      const st = activity.stats;
      cache = { version: activity.version, json: JSON.stringify({ ...st, pairs: st.pairs.map((p) => ({ pairId: p.pairId, volume24h: p.volume24h, openInterest: p.openInterest })) }, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) };
    }
    return cache.json;
  };
  return [
    defineRoute({
      ...platform,
      method: 'GET',
      path: '/api/platform/stats',
      summary: 'Venue-wide volume, trades, traders, collateral and per-pair open interest',
      description:
        'Volume is traded notional (index price x size, COLLATERAL6) counted once per fill; the 24 h window is the current UTC hour and the 23 before it. `totalCollateral` is the cash of every portfolio (COLLATERAL6); a pair\'s `openInterest` is the long contracts of its live series (WAD). Recomputed at the venue\'s clock commands (every second), `updatedAt` says when.',
      responses: { 200: StatsSchema },
      handler: () => ({ raw: statsJson() }),
    }),
    defineRoute({
      ...platform,
      method: 'GET',
      path: '/api/platform/volume',
      summary: 'Venue-wide traded volume and fills per hour or day',
      description: `${RANGE_DESCRIPTION} \`volume\` is traded notional (COLLATERAL6).`,
      query: Type.Object(RangeQuery),
      examples: () => ({ query: { interval: '1h', to: s.reads.ts, from: s.reads.ts - 6 * 3_600_000 } }),
      responses: { 200: Type.Object({ points: Type.Array(Type.Object({ t: Type.Integer(), volume: C6String, trades: Type.Integer() })) }) },
      handler: ({ query }) => {
        const r = range(query, s.reads.ts);
        if (!isRange(r)) return r;
        const points = seriesOver(activity.platformBuckets(), r, (t, inside) => {
          let volume = 0n;
          let trades = 0;
          for (const b of inside) {
            volume += b.volume;
            trades += b.trades;
          }
          return { t, volume: volume.toString(), trades };
        });
        return { body: { points } };
      },
    }),
  ];
}
