/**
 * The venue's rules that an operator may tune. Part of the engine state (and so of its
 * hash): a replay under different rules is a different venue.
 */
import { WAD } from './domain/fixed.ts';

export type VenueConfig = {
  /** Taker fee as a WAD fraction of the underlying notional (index price x size). 0.03% by default. */
  readonly takerFeeRate: bigint;
  /** Cap of the taker fee as a WAD fraction of the premium. 12.5% by default. */
  readonly takerFeeCapRate: bigint;
  /** Maker fee as a WAD fraction of the notional; negative = rebate. 0 by default. */
  readonly makerFeeRate: bigint;
  /** Short-option margin floor as a WAD fraction of spot x |short balance|. 10% by default. */
  readonly shortFloorRate: bigint;
  /** Maintenance margin as a WAD fraction of initial margin. 80% (interface.md). */
  readonly maintenanceRate: bigint;
  readonly maxBatch: number;
  /** Largest order size, in lots of the pair's size step (keeps book quantities exact in a double). */
  readonly maxOrderLots: number;
  /** Settlement price: time-weighted average of spot over this many seconds before expiry. */
  readonly settlementWindowSec: number;
  /** Strike grid at listing: +-this fraction around spot (WAD). */
  readonly strikeRange: bigint;
  /** RFQ: default and maximum request lifetime, maximum quote lifetime (seconds). */
  readonly rfqDefaultTtlSec: number;
  readonly rfqMaxTtlSec: number;
  readonly quoteMaxLifetimeSec: number;
  /** Out-of-order order nonces remembered per wallet before the oldest are forgotten (see docs/engine.md). */
  readonly nonceWindow: number;
  /** Whether clock commands list new series on the schedule of api.md. */
  readonly autoListing: boolean;
  /** Share of a referee's taker fee paid to its referrer's portfolio 0, in basis points (REFERRAL_REBATE_BPS). 1000 = 10% by default. */
  readonly referralRebateBps: number;
  /** Liquidation: the band around the mark (basis points) inside which the venue closes positions; the fund takes the rest at its edge. */
  readonly liquidationBandBps: number;
  /** Liquidation fee to the insurance fund, basis points of index price x size closed (capped at the remaining equity). */
  readonly liquidationFeeBps: number;
};

export const defaultVenueConfig: VenueConfig = {
  takerFeeRate: (3n * WAD) / 10_000n,
  takerFeeCapRate: (125n * WAD) / 1000n,
  makerFeeRate: 0n,
  shortFloorRate: WAD / 10n,
  maintenanceRate: (8n * WAD) / 10n,
  maxBatch: 50,
  maxOrderLots: 1_000_000_000_000,
  settlementWindowSec: 30 * 60,
  strikeRange: (3n * WAD) / 10n,
  rfqDefaultTtlSec: 10,
  rfqMaxTtlSec: 30,
  quoteMaxLifetimeSec: 30,
  nonceWindow: 4096,
  autoListing: true,
  referralRebateBps: 1000,
  liquidationBandBps: 1000,
  liquidationFeeBps: 50,
};
