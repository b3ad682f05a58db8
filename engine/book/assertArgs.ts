/**
 * Argument checks shared by both books, so that they break on exactly the same inputs and the
 * tests can hold them to it. Each costs a few comparisons; they stay on the hot path because a
 * fractional or negative qty slipping into typed arrays would corrupt the book silently.
 */
import { BookInvariantError } from './bookInvariantError.ts';

/** Largest tick: ticks are uint32 in the signed PlaceOrder (docs/signatures.md). */
export const MAX_TICK = 0xffffffff;
/** Largest owner index: owners live in an Int32Array in the fast book. */
export const MAX_OWNER = 0x7fffffff;

export function assertPlaceArgs(ref: number, owner: number, tick: number, qty: number): void {
  if (!(Number.isSafeInteger(ref) && ref > 0)) throw new BookInvariantError(`ref must be a positive safe integer, got ${ref}`);
  if (!(Number.isInteger(owner) && owner >= 0 && owner <= MAX_OWNER)) throw new BookInvariantError(`owner must be an integer in 0..${MAX_OWNER}, got ${owner}`);
  if (!(Number.isInteger(tick) && tick >= 0 && tick <= MAX_TICK)) throw new BookInvariantError(`tick must be an integer in 0..${MAX_TICK}, got ${tick}`);
  if (!(Number.isSafeInteger(qty) && qty > 0)) throw new BookInvariantError(`qty must be a positive safe integer, got ${qty}`);
}

export function assertReduceBy(by: number): void {
  if (!(Number.isSafeInteger(by) && by > 0)) throw new BookInvariantError(`reduce amount must be a positive safe integer, got ${by}`);
}
