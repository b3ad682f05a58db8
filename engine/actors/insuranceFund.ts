/**
 * The insurance fund (docs/engine.md "Liquidation and the insurance fund"): a venue-owned
 * portfolio, portfolio 1 of the wallet INSURANCE_FUND_OWNER, which the account actor holds like
 * any other (its cash is the fund's balance; positions it takes over from liquidations are
 * ordinary positions), plus what is not a portfolio's: the bad debt recorded so far and the
 * next liquidation id. Data only; the rules live in engine/flows/liquidation.ts.
 */

/** The fund's wallet: no key exists for it, so only the venue moves its cash. */
export const INSURANCE_FUND_OWNER = '0x1111111111111111111111111111111111111111';
/** The fund's portfolio id in that wallet. */
export const INSURANCE_FUND_PORTFOLIO = 1;

export class InsuranceFund {
  /** Deficits of bankrupt portfolios the fund could not pay (COLLATERAL6), in total. */
  badDebt = 0n;
  /** The id of the next liquidation (1, 2, ...). */
  nextLiquidationId = 1;

  /** The stored fields (snapshots); absent in snapshots written before liquidations: the defaults. */
  dump(): { badDebt: bigint; nextLiquidationId: number } {
    return { badDebt: this.badDebt, nextLiquidationId: this.nextLiquidationId };
  }

  restore(d: { badDebt: bigint; nextLiquidationId: number } | undefined): void {
    if (d === undefined) return;
    this.badDebt = d.badDebt;
    this.nextLiquidationId = d.nextLiquidationId;
  }
}
