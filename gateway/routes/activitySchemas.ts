/** Schemas and JSON shapes shared by the platform, leaderboard, points and user routes (readModels/activity.ts). */
import { Type } from '@sinclair/typebox';
import { intervals, rangeOf, type Interval, type Range } from '../readModels/activitySeries.ts';
import { errorReply, type ErrorReply } from '../http/errors.ts';

const oneOf = <T extends string>(name: string, values: readonly T[], description: string) =>
  Type.Optional(Type.Union(values.map((v) => Type.Literal(v)), { description, errorMessage: `${name} must be one of ${values.join(', ')}` }));

export const IntervalQuery = oneOf('interval', Object.keys(intervals) as Interval[], 'bucket size (default 1h)');
const Ms = (name: string, description: string) => Type.Optional(Type.Integer({ minimum: 0, maximum: 8_640_000_000_000_000, description, errorMessage: `${name} must be a Unix time in milliseconds` }));
export const RangeQuery = {
  interval: IntervalQuery,
  from: Ms('from', 'Unix ms, first interval (rounded down to the interval); default: 23 hours (1h) or 29 days (1d) before `to`'),
  to: Ms('to', 'Unix ms, last interval (rounded down); default: now'),
};
export const RANGE_DESCRIPTION = 'One point per interval (`1h` or `1d`, UTC) from `from` to `to`, empty intervals included; `t` is the interval\'s start (Unix ms). At most 1,000 points; `from` after `to`: 400.';

/** Points are kept in millionths; the wire shows them as a number. */
export const pointsNumber = (micro: bigint): number => Number(micro) / 1e6;
export const PointsSchema = Type.Number({ description: 'points (up to 6 decimals)' });

export const limitQuery = Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, errorMessage: 'limit must be greater than 0 and at most 100' }));

export function range(q: { from?: number; to?: number; interval?: Interval }, nowMs: number): Range | ErrorReply {
  const r = rangeOf(q, nowMs);
  return typeof r === 'string' ? errorReply('invalid_argument', r, { field: r.startsWith('from') ? 'from' : 'to' }) : r;
}

export const isRange = (r: Range | ErrorReply): r is Range => 'step' in r;
