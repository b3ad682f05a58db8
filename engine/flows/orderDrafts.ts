/**
 * An order entry as the order rules see it (a draft, before or after its signature is
 * recovered) and what the rules found for it: the types shared by the order rules
 * (orderRules.ts), the instruction rules they run (instructionRules.ts), the order flow
 * (orders.ts) and the gateway's pre-check (engine/precheck.ts). Types only.
 */
import type { Hex } from '../domain/hex.ts';
import type { CancelOrder, PlaceOrder } from '../commands.ts';
import type { Pair } from '../actors/registry.ts';
import type { Portfolio } from '../actors/portfolio.ts';

/**
 * A place entry as the rules see it. Before its signature is recovered an entry may not
 * have an order id (the id is the signature's digest) or a nonce (handed out after the
 * checks): `null` skips the rule that needs it; the engine always has both.
 */
export type PlaceDraft = Omit<PlaceOrder, 'orderId' | 'nonce'> & { readonly orderId: Hex | null; readonly nonce: bigint | null };
export type CancelDraft = Omit<CancelOrder, 'nonce'> & { readonly nonce: bigint | null };

/**
 * A place that passed the rules. `portfolio` is null for a market maker's internal portfolio not
 * created yet. Its series is named by handle (`state.series.at(seriesHandle)`): no series actor
 * travels with the entry.
 */
export type CheckedPlace = {
  readonly o: PlaceOrder;
  /** The owner's wallet handle (the account actor's: accounts.ts). */
  readonly wallet: number;
  readonly seriesHandle: number;
  readonly pair: Pair;
  readonly portfolio: Portfolio | null;
  readonly lots: number;
  readonly price: bigint;
};
/** A place ready to apply: its portfolio exists. */
export type ValidPlace = CheckedPlace & { readonly portfolio: Portfolio };
/** A cancel that passed its rules: `open` is the order's slot (actors/openOrders.ts). */
export type ValidCancel = { readonly c: CancelOrder; readonly wallet: number; readonly open: number };

/** What the rules found for an entry `o` (an order, or a draft of one). */
export type PlaceFacts<T extends PlaceDraft> = Omit<CheckedPlace, 'o'> & { readonly o: T };
