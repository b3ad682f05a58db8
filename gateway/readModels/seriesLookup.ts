/**
 * Resolves what clients send as a series: a seriesId, a canonical symbol
 * (`BTC-82000-C-1767254400`) or a user-facing one (`BTC-01JAN26-82000-C`).
 */
import type { Venue } from '../../engine/venue.ts';
import type { SeriesActor } from '../../engine/actors/series.ts';
import { parseSymbol } from '../../engine/domain/symbols.ts';
import { seriesIdOf } from '../../engine/domain/ids.ts';
import type { Hex } from '../../engine/domain/hex.ts';

export function findSeries(venue: Venue, text: string): SeriesActor | null {
  const state = venue.state;
  if (/^0x[0-9a-fA-F]{64}$/.test(text)) return state.series.get(text.toLowerCase() as Hex) ?? null;
  const parsed = parseSymbol(text);
  if (!parsed.ok) return null;
  const k = parsed.value;
  for (const pair of state.pairs.values()) {
    if (pair.underlying !== k.underlying) continue;
    const s = state.series.get(seriesIdOf(pair.pairId, k.strike, k.expiry, k.isCall));
    if (s) return s;
  }
  return null;
}
