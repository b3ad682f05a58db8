/**
 * Price grid of a pair: price (WAD) = tick x 10^(18 - tickDecimals) (interface.md). Order
 * prices must sit exactly on the grid (api.md: rejected, not rounded); the helper routes
 * convert with an explicit rounding direction.
 */
import { fail, ok, type Parsed } from './result.ts';
import { formatHuman, pow10, UINT32_MAX, type Wad } from './fixed.ts';
import { REG, R_PX } from './registers.ts';

export const MAX_TICK_DECIMALS = 18;

/** True for an integer in 0..18. */
export function isTickDecimals(n: unknown): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= MAX_TICK_DECIMALS;
}

/** WAD size of one tick. Throws for tickDecimals outside 0..18 (a caller bug). */
export function tickSize(tickDecimals: number): Wad {
  if (!isTickDecimals(tickDecimals)) throw new RangeError(`tickDecimals must be an integer in 0..18, got ${tickDecimals}`);
  return pow10(MAX_TICK_DECIMALS - tickDecimals);
}

// The prices of recently converted number ticks, per tick size: the ticks near the touch repeat
// on every order, fill and depth event. Direct-mapped by the tick's low bits; a bigint is
// immutable, so handing the same one out again is safe.
// Beside each price its double (`pxs`), for the risk code's scenario figures.
const CACHE_SLOTS = 1024;
type PriceCache = { ticks: Float64Array; prices: Wad[]; pxs: Float64Array };
const priceCache: PriceCache[] = [];

/** price = tick x 10^(18 - tickDecimals). A non-integer number tick throws. */
export function tickToPrice(tick: bigint | number, tickDecimals: number): Wad {
  if (typeof tick === 'bigint') return tick * tickSize(tickDecimals);
  const cache = priceCache[tickDecimals];
  const slot = tick & (CACHE_SLOTS - 1);
  // Only safe integer ticks are kept, so a hit is one (a small function: inlined where it is hot).
  if (cache !== undefined && cache.ticks[slot] === tick) return cache.prices[slot]!;
  return cached(tick, tickDecimals).prices[slot]!;
}

/**
 * The price of a number tick as a double in contracts' units: `Number(tickToPrice(tick)) / 1e18`,
 * bit for bit (made from that bigint once, kept beside it). `Number()` of a bigint beyond the
 * small integers makes a heap number each time it is called from optimised code; this does not.
 */
export function tickToPx(tick: number, tickDecimals: number): number {
  tickPxAt(tick, tickDecimals);
  return REG[R_PX]!;
}

/** The same into register R_PX (domain/registers.ts: the hot path's form). */
export function tickPxAt(tick: number, tickDecimals: number): void {
  const cache = priceCache[tickDecimals];
  const slot = tick & (CACHE_SLOTS - 1);
  REG[R_PX] = (cache !== undefined && cache.ticks[slot] === tick ? cache : cached(tick, tickDecimals)).pxs[slot]!;
}

/** The cache of `tickDecimals` with `tick` in its slot (converted now if another tick held it). */
function cached(tick: number, tickDecimals: number): PriceCache {
  if (!Number.isSafeInteger(tick)) throw new RangeError(`tick must be a safe integer, got ${tick}`);
  const size = tickSize(tickDecimals);
  const cache = (priceCache[tickDecimals] ??= { ticks: new Float64Array(CACHE_SLOTS).fill(NaN), prices: new Array<Wad>(CACHE_SLOTS).fill(0n), pxs: new Float64Array(CACHE_SLOTS) });
  const slot = tick & (CACHE_SLOTS - 1);
  if (cache.ticks[slot] !== tick) {
    const price = BigInt(tick) * size;
    cache.ticks[slot] = tick;
    cache.prices[slot] = price;
    cache.pxs[slot] = Number(price) / 1e18;
  }
  return cache;
}

/** The tick of a price, rounded up (toward +infinity) or down (toward -infinity) off the grid. */
export function priceToTick(price: Wad, tickDecimals: number, roundUp: boolean): bigint {
  const size = tickSize(tickDecimals);
  const q = price / size;
  const r = price % size;
  if (r === 0n) return q;
  // bigint division truncates toward zero; adjust to floor / ceil.
  if (roundUp) return r > 0n ? q + 1n : q;
  return r < 0n ? q - 1n : q;
}

/**
 * The tick of a price that must be exactly on the grid and fit the order's uint32 tick.
 * Off-grid: "`field` must be a multiple of the tick size 0.01" (tick size in human units).
 */
export function exactTick(price: Wad, tickDecimals: number, field: string): Parsed<number> {
  const size = tickSize(tickDecimals);
  if (price < 0n) return fail(field, `${field} must not be negative`);
  if (price % size !== 0n) return fail(field, `${field} must be a multiple of the tick size ${formatHuman(size, 18)}`);
  const tick = price / size;
  if (tick > UINT32_MAX) return fail(field, `${field} is too large: its tick exceeds uint32 (tick size ${formatHuman(size, 18)})`);
  return ok(Number(tick));
}
