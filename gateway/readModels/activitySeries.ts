/**
 * Time series over hourly activity buckets (readModels/activity.ts), for `GET /api/platform/volume`
 * and `GET /api/user/me/analytics`: one point per interval from `from` to `to`, empty intervals
 * included, each the sum of the hours inside it.
 */
import { HOUR_MS, DAY_MS, lowerBound } from './activity.ts';

export const intervals = { '1h': HOUR_MS, '1d': DAY_MS } as const;
export type Interval = keyof typeof intervals;
/** At most this many points per reply. */
export const MAX_POINTS = 1000;

export type Range = { from: number; to: number; step: number };

/** The range a query names: `to` defaults to now, `from` to 24 points before `to` for 1h and 30 for 1d; a string error when it is not one. */
export function rangeOf(q: { from?: number; to?: number; interval?: Interval }, nowMs: number): Range | string {
  const interval = q.interval ?? '1h';
  const step = intervals[interval];
  const to = q.to ?? nowMs;
  const from = q.from ?? to - (interval === '1h' ? 23 : 29) * step;
  if (from > to) return 'from must be before to';
  const first = Math.floor(from / step) * step;
  const last = Math.floor(to / step) * step;
  if ((last - first) / step + 1 > MAX_POINTS) return `at most ${MAX_POINTS} points per reply: narrow from and to${interval === '1h' ? ', or use interval 1d' : ''}`;
  return { from: first, to: last, step };
}

/**
 * For each interval start `t` in the range, `point(t, inside)` with the buckets of the hours in
 * [t, t + step), and `before`: the last bucket before the interval (null when none).
 */
export function seriesOver<B extends { h: number }, P>(buckets: readonly B[], r: Range, point: (t: number, inside: readonly B[], before: B | null) => P): P[] {
  const out: P[] = [];
  let i = lowerBound(buckets, r.from / HOUR_MS);
  let before: B | null = buckets[i - 1] ?? null;
  for (let t = r.from; t <= r.to; t += r.step) {
    const end = (t + r.step) / HOUR_MS;
    const start = i;
    while (i < buckets.length && buckets[i]!.h < end) i++;
    const inside = buckets.slice(start, i);
    out.push(point(t, inside, before));
    if (inside.length > 0) before = inside[inside.length - 1]!;
  }
  return out;
}
