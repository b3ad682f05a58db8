/**
 * A margin account as the margin book (marginBook.ts) keeps it: the sums over its exposures
 * (exposure.ts), named by its anchor portfolio. Data only; the book's rules live in
 * marginBook.ts.
 */
import type { Hex } from '../domain/hex.ts';
import type { Portfolio } from '../actors/portfolio.ts';
import { Sums, type Exposure } from './exposure.ts';

/** What a margin account needs, in COLLATERAL6 (MarginBook.requirement). */
export type Requirement = {
  readonly deposit: bigint;
  readonly unrealizedPnl: bigint;
  readonly equity: bigint;
  readonly initialMargin: bigint;
  /** Counting every open (and prospective) order's worst case, plus the prospective orders' worst fees. */
  readonly initialMarginWithOrders: bigint;
  /** Owed premium of long positions plus the premium of every open buy (and prospective buys with their fee). */
  readonly cashNeeded: bigint;
  /** Open positions (series with a balance) of the margin account. */
  readonly positionCount: number;
};

/** A requirement as the account actor shows it (AccountActor.risk): with maintenance margin, health and what may be withdrawn, in COLLATERAL6 (health WAD). */
export type RiskView = {
  readonly deposit: bigint; // C6
  readonly unrealizedPnl: bigint; // C6
  readonly equity: bigint; // C6
  readonly initialMargin: bigint; // C6
  readonly initialMarginWithOrders: bigint; // C6
  readonly maintenanceMargin: bigint; // C6
  readonly healthRatio: bigint; // WAD
  readonly isHealthy: boolean;
  readonly maxWithdraw: bigint; // C6
  readonly positionCount: number;
};

/** A margin account: the sums over its exposures. */
export class MarginAccount extends Sums {
  /**
   * The requirement as it stands (no prospective orders, none taken away), as last computed:
   * cleared by every change to the sums (MarginBook's counts), and used only while the
   * deposit it was computed with is still the deposit. Derived: snapshots leave it out.
   */
  plain: Requirement | null = null;
  /** The account actor's view of a requirement (`plainViewOf`), made once for it (AccountActor.risk). Derived. */
  plainView: RiskView | null = null;
  plainViewOf: Requirement | null = null;
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
