/**
 * A premium (COLLATERAL6) from lots and ticks, in doubles while that is provably exact, with
 * a checked fallback to bigint (docs/book.md, issue 3/8 step 3).
 *
 * An order's size is `lots x sizeStep` (WAD) and its price `tick x 10^(18 - tickDecimals)`
 * (WAD), so its premium, size x price truncated to COLLATERAL6 (position.ts `collateralOf`),
 * is `lots x tick x k` with the pair's factor `k = sizeStep x 10^(18 - tickDecimals) / 10^30`
 * whenever k is a whole number (the usual pair: lots of 0.01 and ticks of 0.01 give k = 100),
 * and no division is left. Lots, ticks and k are integers; a product of two integers below
 * 2^53 computed in doubles is exact when the result is at most 2^53 - 1, and a result that is
 * not exact rounds to at least 2^53 (rounding is monotone), so the check `<= MAX_SAFE_INTEGER`
 * after each of the two multiplications tells an exact result from one that is not. Anything
 * else (k not whole or above 2^53, a product at or above 2^53, a lot or tick that is not a
 * non-negative integer) takes the bigint computation, which is `collateralOf`'s to the unit.
 */
import { tickToPrice } from './ticks.ts';
import { REG, R_PREMIUM } from './registers.ts';

const SAFE = Number.MAX_SAFE_INTEGER;
const SAFE_BIG = BigInt(SAFE);
const E15 = 10n ** 15n;
const E30 = 10n ** 30n;

// The last pair's factor: a fill and a check name the same pair over and over.
let lastStep = -1n;
let lastTickDecimals = -1;
let lastK = 0;

/** COLLATERAL6 of one lot at one tick when that is a whole number below 2^53; 0 when it is not (the bigint path is then always taken). */
export function premiumPerLotTick(sizeStep: bigint, tickDecimals: number): number {
  if (sizeStep === lastStep && tickDecimals === lastTickDecimals) return lastK;
  const f = sizeStep * tickToPrice(1, tickDecimals);
  const k = f > 0n && f % E30 === 0n && f / E30 <= SAFE_BIG ? Number(f / E30) : 0;
  lastStep = sizeStep;
  lastTickDecimals = tickDecimals;
  lastK = k;
  return k;
}

/** `lots x tick x k` when every step is exact in doubles (see above), else -1. (premiumAt's value.) */
export function premiumInDoubles(lots: number, tick: number, k: number): number {
  premiumAt(lots, tick, k);
  return REG[R_PREMIUM]!;
}

/** The same into register R_PREMIUM (domain/registers.ts). */
export function premiumAt(lots: number, tick: number, k: number): void {
  if (k === 0 || !(lots >= 0 && tick >= 0) || !Number.isInteger(lots) || !Number.isInteger(tick)) {
    REG[R_PREMIUM] = -1;
    return;
  }
  const lt = lots * tick;
  const v = lt * k;
  REG[R_PREMIUM] = lt <= SAFE && v <= SAFE ? v : -1;
}

/** The premium in bigint: (lots x sizeStep) x (tick x 10^(18 - tickDecimals)) / 10^30, truncated (collateralOf's arithmetic). */
export function premiumInBigint(lots: number, tick: number, sizeStep: bigint, tickDecimals: number): bigint {
  return (BigInt(lots) * sizeStep * tickToPrice(tick, tickDecimals)) / E15 / E15;
}

/** The premium (COLLATERAL6) of `lots` lots at `tick` on a pair: exact, in doubles when it can be, else in bigint. */
export function premiumOf(lots: number, tick: number, sizeStep: bigint, tickDecimals: number): bigint {
  const v = premiumInDoubles(lots, tick, premiumPerLotTick(sizeStep, tickDecimals));
  return v >= 0 ? BigInt(v) : premiumInBigint(lots, tick, sizeStep, tickDecimals);
}
