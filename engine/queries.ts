/**
 * Read-only queries: questions a caller may ask the engine that are checks rather than
 * reads of a view (architecture.md rule 5). Views (books, portfolios, orders, trades) are
 * folds over the committed events, never answered here; these functions only look and
 * never change the state.
 */
import type { VenueState } from './state.ts';

/** A wallet's next order nonce above every one it has used (order, cancel and RFQ-fill nonces share one space); 0 for a new wallet. */
export function nextOrderNonce(state: VenueState, owner: string): bigint {
  const w = state.accounts.walletOf(owner);
  return w < 0 ? 0n : state.accounts.nonces[w]!.next();
}

/** Whether a wallet has used `nonce` (or it lies below the window the engine still remembers). */
export function orderNonceUsed(state: VenueState, owner: string, nonce: bigint): boolean {
  const w = state.accounts.walletOf(owner);
  return w >= 0 && state.accounts.nonces[w]!.isUsed(nonce);
}
