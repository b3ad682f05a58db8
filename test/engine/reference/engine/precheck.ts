/**
 * The engine's front door (architecture.md rule 5): the pure pre-check of an order command.
 * `Venue.apply` runs these very rules first when it applies a place, cancel or replace
 * (flows/orders.ts calls `checkOrders`), and the gateway runs them early, before a
 * signature is recovered, so one set of order rules answers both. Neither changes the
 * state. What follows the pre-check in the engine is risk (open-interest cap, cash,
 * margin) and matching.
 */
import type { Command } from './commands.ts';
import type { Rejection } from './codes.ts';
import type { VenueState } from './state.ts';
import { instructionRules } from './flows/instructionRules.ts';
import { cancelRules, checkBatch, checkOrders, checkUnique, placeRules } from './flows/orderRules.ts';
import type { CancelDraft, PlaceDraft } from './flows/orderDrafts.ts';

export type { CancelDraft, PlaceDraft } from './flows/orderDrafts.ts';

/** The venue time a command is judged at: the engine's clock never runs back (see Venue.apply). */
export function commandNowSec(state: VenueState, tsMs: number): number {
  return Math.floor(commandNowMs(state, tsMs) / 1000);
}

/** The same in ms (market maker protection's freezes end on a millisecond). */
export function commandNowMs(state: VenueState, tsMs: number): number {
  return tsMs > state.now ? tsMs : state.now;
}

/**
 * The refusal `Venue.apply(command)` would give for an order rule, or null when every order
 * rule passes (risk may still refuse). Commands other than place, cancel and replace carry
 * no order rules: null.
 */
export function precheck(state: VenueState, command: Command): Rejection | null {
  const nowSec = commandNowSec(state, command.ts);
  const nowMs = commandNowMs(state, command.ts);
  let checked;
  switch (command.type) {
    case 'place':
      checked = checkOrders(state, [], command.orders, nowSec, nowMs);
      break;
    case 'cancel':
      checked = checkOrders(state, command.cancels, [], nowSec, nowMs);
      break;
    case 'replace':
      checked = checkOrders(state, command.pairs.map((p) => p.cancel), command.pairs.map((p) => p.place), nowSec, nowMs);
      break;
    default:
      return null;
  }
  return 'code' in checked ? checked : null;
}

/** The rule of a whole command that `precheckEntries` runs first: no nonce, and no order id, twice. */
export const precheckDistinct = checkUnique;

/**
 * The same rules for entries not signed yet (the gateway's early refusal): an entry's
 * order id or nonce may be unknown (null), and the rules needing it wait for the engine.
 * Cancels are checked before places, as in the engine.
 */
export function precheckEntries(state: VenueState, tsMs: number, cancels: readonly CancelDraft[], places: readonly PlaceDraft[]): Rejection | null {
  const nowSec = commandNowSec(state, tsMs);
  const refused = checkBatch(state, cancels.length, places.length) ?? checkUnique(places, cancels);
  if (refused) return refused;
  for (const c of cancels) {
    const v = cancelRules(state, c, nowSec);
    if ('code' in v) return v;
  }
  for (let i = 0; i < places.length; i++) {
    const v = placeRules(state, places[i]!, nowSec);
    if ('code' in v) return v;
    const refused = instructionRules(state, v, places, i, cancels, commandNowMs(state, tsMs));
    if (refused) return refused;
  }
  return null;
}
