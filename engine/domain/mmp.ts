/**
 * Market maker protection's config and trip reasons as values (extensions.md "Market maker
 * protection (MMP)"): shared by the command, the event and the actor (engine/actors/mmp.ts).
 */
import type { Hex } from './hex.ts';

export type MmpConfig = {
  readonly pairId: Hex;
  /** The window's length (ms), 100..60000. */
  readonly windowMs: number;
  /** How long a trip freezes (ms), 0..3600000; 0 = until reset. */
  readonly frozenMs: number;
  /** WAD limits on the window's sums; 0 = off. */
  readonly qtyLimit: bigint;
  readonly deltaLimit: bigint;
  readonly vegaLimit: bigint;
  /** Limit on the window's number of fills; 0 = off. */
  readonly tradeCountLimit: number;
};

export const MMP_WINDOW_MS = { min: 100, max: 60_000 } as const;
export const MMP_FROZEN_MS = { min: 0, max: 3_600_000 } as const;

/** The limit that tripped protection: the wire's schemas are built from this list. */
export const MMP_REASONS = ['qty', 'delta', 'vega', 'trades'] as const;
export type MmpReason = (typeof MMP_REASONS)[number];

