/**
 * A margin account as the margin book (marginBook.ts) keeps it: a dense integer row (its
 * handle, kept on its anchor portfolio), the sums over its exposures in a row of a
 * `Float64Array` slab (the same layout as an exposure's, exposure.ts), its list heads and
 * counts in typed arrays, and one small object per account for what is not a number (the
 * anchor, the requirement memo and the account actor's view of it). Data only; the book's
 * rules live in marginBook.ts.
 */
import type { Portfolio } from '../actors/portfolio.ts';
import { STRIDE, grown } from './exposure.ts';

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

/** A requirement as the margin book writes it (the account's memo is rewritten in place). */
export type MutableRequirement = { -readonly [K in keyof Requirement]: Requirement[K] };

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

/** A view as the account actor writes it (in place). */
export type MutableRiskView = { -readonly [K in keyof RiskView]: RiskView[K] };

/** A margin account's fields that are not numbers; its numbers are in its row of `AccountRows`. */
export class MarginAccount {
  /**
   * The requirement as it stands (no prospective orders, none taken away), as last computed:
   * one object per account, rewritten in place when the account's figures changed (any count
   * of the margin book) or its deposit is no longer the one it was computed with. Derived:
   * snapshots leave it out.
   */
  plain: MutableRequirement | null = null;
  /** The figures in doubles as MarginBook.plainInDoubles last computed them (valid while AccountRows.current says so and the deposit is the same). Derived. */
  nDeposit = NaN;
  nUnrealizedPnl = 0;
  nInitialMargin = 0;
  nInitialMarginWithOrders = 0;
  /** The last deposit counted in doubles and its bigint: a check with unchanged cash makes no new bigint. */
  depositN = NaN;
  depositBig = 0n;
  /**
   * The account actor's view of the memo (AccountActor.risk): one object per account, rewritten
   * in place from the memo when `viewCurrent` is false (the margin book clears it whenever it
   * rewrites the memo). Derived.
   */
  plainView: MutableRiskView | null = null;
  viewCurrent = false;
  /** An ordinary portfolio is its own margin account; a market maker's portfolio 0 shares its with the internal ones. */
  readonly single: boolean;
  constructor(
    readonly row: number,
    readonly anchor: Portfolio,
  ) {
    this.single = anchor.id > 0;
  }
}

/** The margin accounts of a margin book, by row (rows are never freed, as accounts are never dropped; a rebuild starts over). */
export class AccountRows {
  /** STRIDE numbers a row: the sums over the account's exposures (exposure.ts's layout). */
  num = new Float64Array(16 * STRIDE);
  /** The first of its exposures (-1: none), chained through ExposureRows.aNext, and how many. */
  expHead = new Int32Array(16);
  expCount = new Int32Array(16);
  /** The first of its stale exposures (-1: none), chained through ExposureRows.staleNext. */
  staleHead = new Int32Array(16);
  /** Exposures with a position (balance not 0): the account's open positions. */
  positions = new Int32Array(16);
  /** Bit 1 while the requirement memo matches the sums, bit 2 while the figures in doubles kept on the account do (marginBook.ts). */
  current = new Uint8Array(16);
  /** 1 once a cash figure left the exact range of doubles: its cash is then recounted in bigint (exactCash.ts). */
  wide = new Uint8Array(16);
  readonly objects: MarginAccount[] = [];

  get count(): number {
    return this.objects.length;
  }

  alloc(anchor: Portfolio): number {
    const a = this.objects.length;
    if (a === this.expHead.length) {
      this.num = grown(this.num, (a + 1) * STRIDE);
      this.expHead = grown(this.expHead, a + 1);
      this.expCount = grown(this.expCount, a + 1);
      this.staleHead = grown(this.staleHead, a + 1);
      this.positions = grown(this.positions, a + 1);
      this.current = grown(this.current, a + 1);
      this.wide = grown(this.wide, a + 1);
    }
    this.num.fill(0, a * STRIDE, (a + 1) * STRIDE);
    this.expHead[a] = -1;
    this.expCount[a] = 0;
    this.staleHead[a] = -1;
    this.positions[a] = 0;
    this.current[a] = 0;
    this.wide[a] = 0;
    this.objects.push(new MarginAccount(a, anchor));
    return a;
  }

  clear(): void {
    this.objects.length = 0;
  }
}
