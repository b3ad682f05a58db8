/**
 * Time filters of the trade and order histories (extensions.md "Time filters and the admin
 * scope"): `startTime` and `endTime` in the list's own time unit (every history here lists
 * Unix seconds), both inclusive and optional; `startTime > endTime` is 400 `startTime must
 * be before endTime`.
 */
import { Type } from '@sinclair/typebox';
import { errorReply, type ErrorReply } from '../http/errors.ts';

const bound = (name: string, what: string, example: number) =>
  Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, examples: [example], description: `Unix seconds (the list's own unit): only entries ${what}, inclusive`, errorMessage: `${name} must be a non-negative integer (Unix seconds)` }));

/** The two query fields, to spread into a route's query schema. */
export const TimeRangeFields = { startTime: bound('startTime', 'at or after it', 0), endTime: bound('endTime', 'at or before it', 4_102_444_800) };

/** What a query gave: a predicate on an entry's time (Unix seconds), or the 400 reply. */
export function timeRange(query: { readonly startTime?: number | undefined; readonly endTime?: number | undefined }): ((sec: number) => boolean) | ErrorReply {
  const start = query.startTime ?? 0;
  const end = query.endTime ?? Number.MAX_SAFE_INTEGER;
  if (start > end) return errorReply('invalid_argument', 'startTime must be before endTime', { field: 'startTime', location: 'query' });
  return (sec) => sec >= start && sec <= end;
}
