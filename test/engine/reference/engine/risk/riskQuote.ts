/**
 * A series' marks as the risk code counts with them: published by the series actor (built once
 * per oracle update, engine/actors/series.ts) and read by the account side's margin book
 * (engine/risk/marginBook.ts), which holds each series' quote cell and never the series itself.
 */
import type { Hex } from '../domain/hex.ts';

/**
 * The mark (WAD, and as a float for the scenario kernel), the 15 scenario values (floats), and
 * the oracle spot they were priced at (float, and WAD).
 */
export type RiskQuote = { readonly markWad: bigint; readonly mark: number; readonly scenarios: Float64Array; readonly spot: number; readonly spotWad: bigint };
/** One series' current risk quote (null once settled), held by the exposures on it: a field read, not a lookup by id. */
export type QuoteCell = { quoteNow(): RiskQuote | null };
/** The risk quote of a series by id, and its quote cell (null quote for a series not listed or settled). */
export type QuoteSource = { quote(seriesId: Hex): RiskQuote | null; cell(seriesId: Hex): QuoteCell };
