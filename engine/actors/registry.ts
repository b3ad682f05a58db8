/**
 * The registry: pairs and the series listed on them, and the oracle state of each pair.
 * Listing policy (docs/engine.md "Listing and settlement", docs/domain.md "Expiries"): expiries at 08:00 UTC for the next 2 days,
 * the next 4 Fridays and the next 3 month-end Fridays; strikes on a grid around spot
 * (+-30% by default) chosen when an expiry is first listed.
 */
import type { Hex } from '../domain/hex.ts';
import { WAD } from '../domain/fixed.ts';
import type { PairListing } from '../commands.ts';
import { listingExpiries } from '../domain/expiries.ts';

export type Pair = PairListing & { readonly pairId: Hex; maxCallOI: bigint; maxPutOI: bigint; readonly listedAt: number };

export type OracleState = {
  spot: bigint; // WAD
  volatility: bigint; // WAD
  riskFreeRate: bigint; // WAD
  lastUpdate: number; // Unix seconds
  /** Spot observations [ts ms, spot] covering at least the settlement window, oldest first. */
  readonly history: [number, bigint][];
};

/** A "nice" strike step near 2.5% of spot: 1, 2, 2.5 or 5 times a power of ten (WAD). */
export function strikeStep(spot: bigint): bigint {
  const target = spot / 40n;
  if (target <= 1n) return 1n;
  let pow = 1n;
  while (pow * 10n <= target) pow *= 10n;
  for (const step of [pow, pow * 2n, (pow * 5n) / 2n, pow * 5n]) if (step >= target) return step;
  return pow * 10n;
}

/** Strikes on the step grid within +-range (WAD fraction) of spot, ascending. */
export function strikeGrid(spot: bigint, range: bigint): bigint[] {
  const step = strikeStep(spot);
  const lo = (spot * (WAD - range)) / WAD;
  const hi = (spot * (WAD + range)) / WAD;
  const strikes: bigint[] = [];
  for (let k = ((lo + step - 1n) / step) * step; k <= hi; k += step) if (k > 0n) strikes.push(k);
  return strikes;
}

/** Expiries that should be listed at `nowSec` and are not yet. */
export function missingExpiries(nowSec: number, listed: ReadonlySet<number>): number[] {
  return listingExpiries(nowSec).filter((e) => !listed.has(e));
}

/** Time-weighted average spot over [from, to) ms; each observation holds until the next one. */
export function twap(history: readonly [number, bigint][], fromMs: number, toMs: number, fallback: bigint): bigint {
  let sum = 0n;
  let total = 0n;
  for (let i = 0; i < history.length; i++) {
    const [t, spot] = history[i]!;
    const next = i + 1 < history.length ? history[i + 1]![0] : toMs;
    const a = Math.max(t, fromMs);
    const b = Math.min(next, toMs);
    if (b > a) {
      sum += spot * BigInt(b - a);
      total += BigInt(b - a);
    }
  }
  return total === 0n ? fallback : sum / total;
}
