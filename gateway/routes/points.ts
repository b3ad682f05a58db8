/**
 * Points (extensions.md "Points, leaderboard, ..."): per 1,000 USDC of premium a fill earns the
 * maker 2 points and the taker 1; a referrer earns 10% of its referees' points. Weekly epochs
 * from Monday 00:00 UTC. Folded from committed events (readModels/activity.ts).
 */
import { Type } from '@sinclair/typebox';
import { getAddress } from 'viem';
import { defineRoute } from '../http/route.ts';
import type { Services } from '../services.ts';
import { epochOf, epochStart, WEEK_MS } from '../readModels/activity.ts';
import { AddressSchema, Nullable } from './schemas.ts';
import { limitQuery, pointsNumber, PointsSchema } from './activitySchemas.ts';

const both = ['current', 'earlier'] as const;
const points = { forms: both, group: 'account', auth: 'required', scope: 'read', tags: ['points'] } as const;

const EpochFields = {
  id: Type.Integer({ description: 'weeks since Monday 1970-01-05 00:00 UTC' }),
  start: Type.Integer({ description: 'Unix ms, a Monday 00:00 UTC' }),
  end: Type.Integer({ description: 'Unix ms, the next Monday 00:00 UTC (exclusive)' }),
  points: PointsSchema,
};
const RULES =
  'Each fill earns its maker 2 points and its taker 1 point per 1,000 USDC of premium (size x price); a wallet that applied a referral code gives its referrer 10% of the points it earns from then on (`breakdown.referral`). Points are kept to a millionth, rounded down per fill. Epochs are weeks from Monday 00:00 UTC.';

export function pointsRoutes(s: Services) {
  const activity = s.reads.activity;
  const epochJson = (id: number) => ({ id, start: epochStart(id), end: epochStart(id) + WEEK_MS });
  return [
    defineRoute({
      ...points,
      method: 'GET',
      path: '/api/points/me',
      summary: 'Your points: total, this epoch, rank and where they came from',
      description: `${RULES} \`rank\` is your place on the all-time points leaderboard (null with no points), as of the last clock command.`,
      responses: {
        200: Type.Object({
          address: AddressSchema,
          total: PointsSchema,
          epoch: Type.Object(EpochFields),
          rank: Nullable(Type.Integer({ minimum: 1 })),
          breakdown: Type.Object({ maker: PointsSchema, taker: PointsSchema, referral: PointsSchema }),
        }),
      },
      handler: ({ auth }) => {
        const address = getAddress(auth.address);
        const w = activity.get(address);
        const current = epochOf(s.reads.ts);
        const last = w?.epochs[w.epochs.length - 1];
        const maker = w?.maker ?? 0n;
        const taker = w?.taker ?? 0n;
        const referral = w?.referral ?? 0n;
        return {
          body: {
            address,
            total: pointsNumber(maker + taker + referral),
            epoch: { ...epochJson(current), points: pointsNumber(last !== undefined && last.id === current ? last.points : 0n) },
            rank: activity.ranking('points', 'all').rankOf(address),
            breakdown: { maker: pointsNumber(maker), taker: pointsNumber(taker), referral: pointsNumber(referral) },
          },
        };
      },
    }),
    defineRoute({
      ...points,
      method: 'GET',
      path: '/api/points/history',
      summary: 'Your points per epoch, newest first',
      description: `${RULES} Only epochs you earned points in. \`rank\` is your place in the epoch: fixed when it ended; for the current epoch, as of the last clock command. \`cursor\` is the previous page's \`nextCursor\` (an epoch id: older epochs follow).`,
      query: Type.Object({ limit: limitQuery, cursor: Type.Optional(Type.String({ pattern: '^[0-9]{1,9}$', errorMessage: 'cursor must be a nextCursor value' })) }),
      examples: { query: { limit: 20, cursor: '100000' } },
      responses: { 200: Type.Object({ epochs: Type.Array(Type.Object({ ...EpochFields, rank: Nullable(Type.Integer({ minimum: 1 })) })), nextCursor: Nullable(Type.String()) }) },
      handler: ({ auth, query }) => {
        const address = getAddress(auth.address);
        const epochs = activity.get(address)?.epochs ?? [];
        const before = query.cursor === undefined ? Infinity : Number(query.cursor);
        const limit = query.limit ?? 20;
        const current = activity.currentEpoch();
        const out = [];
        let i = epochs.length - 1;
        while (i >= 0 && epochs[i]!.id >= before) i--;
        for (; i >= 0 && out.length < limit; i--) {
          const e = epochs[i]!;
          out.push({ ...epochJson(e.id), points: pointsNumber(e.points), rank: e.id === current ? activity.epochRanking().rankOf(address) : e.rank });
        }
        return { body: { epochs: out, nextCursor: i >= 0 && out.length > 0 ? String(out[out.length - 1]!.id) : null } };
      },
    }),
  ];
}
