/**
 * A series' marks as the risk code counts with them: built by the series actor (once per oracle
 * update, engine/actors/series.ts) and sent to the account side as a message
 * (`MarginBook.marksChanged(seriesId, quote)`, sent by the flows when marks change, a series is
 * listed or settles, and on restore). The account side keeps them on its own board, a plain
 * cell per series that its exposures hold: no pointer into the series actor. A RiskQuote is an
 * immutable value (a new one per change), so handing it over shares nothing that changes.
 */
import type { Hex } from '../domain/hex.ts';

/**
 * The mark (WAD, and as a float for the scenario kernel), the 15 scenario values (floats), and
 * the oracle spot they were priced at (float, and WAD).
 */
export type RiskQuote = { readonly markWad: bigint; readonly mark: number; readonly scenarios: Float64Array; readonly spot: number; readonly spotWad: bigint };
/** One series' current risk quote (null once settled, or not priced yet), held by the exposures on it: a field read, not a lookup by id. */
export type QuoteCell = { quote: RiskQuote | null };

/** The account side's risk quotes, a cell per series, written only by the quote messages. */
export class QuoteBoard {
  private readonly cells = new Map<Hex, QuoteCell>();

  /** The series' new quote (null: settled, no risk left). */
  publish(seriesId: Hex, quote: RiskQuote | null): void {
    const cell = this.cells.get(seriesId);
    if (cell === undefined) this.cells.set(seriesId, { quote });
    else cell.quote = quote;
  }

  /** The risk quote of a series by id (null for one not listed, not priced or settled). */
  quote(seriesId: Hex): RiskQuote | null {
    return this.cells.get(seriesId)?.quote ?? null;
  }

  /** The series' cell (an empty one until its first quote). */
  cell(seriesId: Hex): QuoteCell {
    let cell = this.cells.get(seriesId);
    if (cell === undefined) this.cells.set(seriesId, (cell = { quote: null }));
    return cell;
  }
}
