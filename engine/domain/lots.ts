/**
 * Sizes held in lots of a pair's size step (`sizeStep` WAD per lot): a position's balance, a
 * series' and a pair's open interest, a fill's size (docs/engine.md "Positions").
 *
 * Every such figure is a signed integer. It is kept in a double while |v| <= 2^53 - 1, where a
 * double holds it exactly; the sum of two such integers computed in doubles is exact when the
 * true sum is within that bound, and rounds to a magnitude of at least 2^53 when it is not, so
 * checking the computed sum against the bound tells the two apart (as in risk/exactCash.ts).
 * Beyond the bound (a pair with a tiny size step can reach it: 2^53 lots of 10^-18 contract is
 * 0.009 contract) the figure is a bigint: the checked fallback. A `Lots` is a bigint only
 * beyond the bound, so `typeof x === 'number'` is the fast path and 0 is always the number 0.
 * At the edges (snapshots, events, OI caps in WAD) `wadOfLots` gives the WAD bigint.
 */

import { REG } from './registers.ts';

const SAFE = Number.MAX_SAFE_INTEGER;
const SAFE_BIG = BigInt(SAFE);

/** A signed integer count of lots: a number while |v| <= 2^53 - 1, a bigint only beyond. */
export type Lots = number | bigint;

/** `x` lots as a Lots: a number when within the bound. */
export function lotsOfBig(x: bigint): Lots {
  return x <= SAFE_BIG && x >= -SAFE_BIG ? Number(x) : x;
}

/** A Lots as a bigint. */
export function bigLots(x: Lots): bigint {
  return typeof x === 'number' ? BigInt(x) : x;
}

/** `a + b`, checked: in doubles when the sum is within the bound, else in bigint. */
export function addLots(a: Lots, b: Lots): Lots {
  if (typeof a === 'number' && typeof b === 'number') {
    const s = a + b;
    if (s <= SAFE && s >= -SAFE) return s;
  }
  return lotsOfBig(bigLots(a) + bigLots(b));
}

/** `-x`. */
export function negLots(x: Lots): Lots {
  return typeof x === 'number' ? 0 - x : lotsOfBig(-x);
}

/** The long part of a balance: `x` when positive, else 0. */
export function longLots(x: Lots): Lots {
  return x > 0 ? x : 0;
}

/** A balance's change in long open interest, from `before` to `after` (both exact; the difference of two non-negative numbers within the bound is too). */
export function longDelta(before: Lots, after: Lots): Lots {
  if (typeof before === 'number' && typeof after === 'number') return (after > 0 ? after : 0) - (before > 0 ? before : 0);
  return lotsOfBig(bigLots(longLots(after)) - bigLots(longLots(before)));
}

/** `x` lots in WAD (lot = the pair's size step, WAD per lot). */
export function wadOfLots(x: Lots, lot: bigint): bigint {
  return x === 0 ? 0n : bigLots(x) * lot;
}

/** A WAD size on the pair's grid in lots; throws when it is off the grid (a caller checked it: RFQ, a snapshot). */
export function lotsOfWad(wad: bigint, lot: bigint): Lots {
  if (wad % lot !== 0n) throw new Error(`size ${wad} is not a multiple of the size step ${lot}`);
  return lotsOfBig(wad / lot);
}

/** A size step as a double when it is one exactly (then `lots x it` rounds as the WAD bigint would: `contractsOf`), else NaN. */
export function lotNumberOf(lot: bigint): number {
  const n = Number(lot);
  return BigInt(n) === lot ? n : NaN;
}

/**
 * `x` lots in contracts as a double: `Number(x x lot) / 1e18`, bit for bit. With `x` and the
 * step (`lotNumber`) both exact doubles, `x x lotNumber` is the exact product rounded to the
 * nearest double, ties to even (IEEE 754 multiplication), which is what `Number()` of the
 * exact bigint product gives (ECMAScript's Number value for an integer); otherwise in bigint.
 */
export function contractsOf(x: Lots, lot: bigint, lotNumber: number): number {
  if (typeof x === 'number' && lotNumber === lotNumber) return (x * lotNumber) / 1e18;
  return Number(bigLots(x) * lot) / 1e18;
}

/**
 * `contractsOf(x, lot, lotNumberOf(lot))` into register `out` (domain/registers.ts), the step's
 * double found beside its size memo (no double passed or returned: the hot path's form).
 */
export function contractsAt(x: Lots, lot: bigint, out: number): void {
  const n = gridOf(lot).lotNumber[0]!;
  REG[out] = typeof x === 'number' && n === n ? (x * n) / 1e18 : Number(bigLots(x) * lot) / 1e18;
}

/**
 * A size (WAD) in lots of `lot`: `size / lot` when the size is a whole number of lots, NaN when
 * it is not (off the size step). Exact for every bigint: a result beyond 2^53 - 1 lots is the
 * nearest double, which only a check against a far smaller bound (maxOrderLots) reads.
 *
 * The order rules run it on every place, so its common case allocates nothing: a size of
 * 1 to LOT_MEMO - 1 lots is found by a binary search among the exact sizes of those counts, kept
 * per step (made on the step's first use), with bigint comparisons, which make no bigint. A size
 * beyond them, or not above zero, takes the bigint division. (A guess in doubles confirmed
 * against the memo was ~40 ns faster a call, but `Number()` of the size makes a heap number
 * every time: 16 bytes a place.)
 */
export function lotsOfSize(size: bigint, lot: bigint): number {
  const grid = gridOf(lot);
  const sizes = grid.sizes;
  if (size > 0n && size <= sizes[LOT_MEMO - 1]!) {
    let lo = 1;
    let hi = LOT_MEMO - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sizes[mid]! < size) lo = mid + 1;
      else hi = mid;
    }
    // Every whole number of lots in this range is in the memo: a size between two is off the step.
    return sizes[lo] === size ? lo : NaN;
  }
  return size % lot === 0n ? Number(size / lot) : NaN;
}

/** Lot counts below this have their exact size kept (a bigint per count, per step: ~100 kB a step). */
const LOT_MEMO = 4096;
/** Steps with a memo, the latest last; a few pairs' worth (each venue lists a handful of steps). */
const MAX_GRIDS = 16;
/** A step's memo: the exact sizes of 0 to LOT_MEMO - 1 lots, and the step as a double (lotNumberOf; in an array, where a double is not boxed). */
type LotGrid = { readonly lot: bigint; readonly sizes: readonly bigint[]; readonly lotNumber: Float64Array };
const grids: LotGrid[] = [];
let lastGrid: LotGrid | null = null;

function gridOf(lot: bigint): LotGrid {
  if (lastGrid !== null && lastGrid.lot === lot) return lastGrid;
  for (let i = 0; i < grids.length; i++) if (grids[i]!.lot === lot) return (lastGrid = grids[i]!);
  if (grids.length === MAX_GRIDS) grids.shift();
  const sizes = new Array<bigint>(LOT_MEMO);
  for (let i = 0; i < LOT_MEMO; i++) sizes[i] = BigInt(i) * lot;
  const grid: LotGrid = { lot, sizes, lotNumber: Float64Array.of(lotNumberOf(lot)) };
  grids.push(grid);
  return (lastGrid = grid);
}
