/**
 * A margin account as the margin book (marginBook.ts) keeps it: the sums over its exposures
 * (exposure.ts), named by its anchor portfolio. Data only; the book's rules live in
 * marginBook.ts.
 */
import type { Hex } from '../domain/hex.ts';
import type { Portfolio } from '../actors/portfolio.ts';
import { Sums, type Exposure } from './exposure.ts';

/** A margin account: the sums over its exposures. */
export class MarginAccount extends Sums {
  readonly exposures = new Map<Hex, Exposure>();
  /** Exposures with a position (balance not 0): the account's open positions (one portfolio of the group holds a series). */
  positions = 0;
  /** Exposures marked stale by new marks, revalued before the account is next used. */
  readonly stale: Exposure[] = [];
  /** An ordinary portfolio is its own margin account; a market maker's portfolio 0 shares its with the internal ones. */
  readonly single: boolean;
  constructor(readonly anchor: Portfolio) {
    super();
    this.single = anchor.id > 0;
  }
}
