/**
 * A portfolio, as data: the account actor's record (engine/actors/accounts.ts owns it). Its
 * open orders are slots of the actor's order store (openOrders.ts), listed through the slots
 * in the portfolio's `openOrders`, oldest first; a slot names the portfolio by its handle.
 */
import type { Hex } from '../domain/hex.ts';
import type { Position } from './position.ts';
import { OpenOrders } from './openOrders.ts';

/**
 * The key of a portfolio's margin handle: the row of the margin account it anchors in the venue's
 * margin book (engine/risk/marginBook.ts), kept on the portfolio so that finding the account is a
 * field read, not a hash lookup. A symbol key, so that JSON (the snapshot's encoding) leaves it
 * out; the book checks it against its own rows before trusting it.
 */
export const MARGIN_ROW: unique symbol = Symbol('marginRow');

export type Portfolio = {
  readonly owner: string;
  /** Its wallet's handle in the account actor (accounts.ts: the wallet rows). */
  readonly wallet: number;
  /** Its own handle: its row in the account actor's portfolio rows (its deposit: cashRows.ts). */
  readonly handle: number;
  /** 0 = cash portfolio; 1, 2, ... trading portfolios; negative = a market maker's internal trading portfolio. */
  readonly id: number;
  readonly positions: Map<Hex, Position>;
  /** Its open orders (slots of the account actor's OrderSlots: openOrders.ts), oldest first. */
  readonly openOrders: OpenOrders;
  readonly createdAt: number; // Unix seconds
  /** For internal market-maker portfolios: the pair it trades. */
  readonly internalPair: Hex | null;
  /** Its margin account's row when it anchors one (see MARGIN_ROW; derived, never stored). */
  [MARGIN_ROW]?: number;
};

/**
 * A portfolio record with handle `handle` of wallet `wallet` (the account actor makes them:
 * accounts.ts; its deposit is the row `handle` of the actor's cash rows).
 */
export function newPortfolio(owner: string, wallet: number, handle: number, id: number, createdAt: number, internalPair: Hex | null = null, positions: Map<Hex, Position> = new Map()): Portfolio {
  return { owner, wallet, handle, id, positions, openOrders: new OpenOrders(handle), createdAt, internalPair, [MARGIN_ROW]: -1 };
}
