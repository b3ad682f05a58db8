/**
 * The rules of order instructions (extensions.md "Order instructions", docs/engine.md) that
 * depend only on the state: an mmp order of a wallet frozen by market maker protection, a
 * client order id unique among the wallet's open orders, a post-only order that would take, a
 * reduce-only order that could increase the position.
 * Run by the order rules (orderRules.ts), so the gateway's pre-check gives them early.
 *
 * Within one command an entry counts the entries before it (their client order ids, their
 * reduce-only sizes, their prices for post-only) and not the orders the command cancels.
 */
import type { Hex } from '../domain/hex.ts';
import { DEFAULT_INSTRUCTIONS } from '../domain/instructions.ts';
import { reject, type Rejection } from '../codes.ts';
import type { VenueState } from '../state.ts';
import type { PlaceDraft, PlaceFacts } from './orderDrafts.ts';
import { mmpFrozen } from './mmp.ts';
import { balanceOf } from '../actors/position.ts';
import { wadOfLots } from '../domain/lots.ts';

type Cancelled = readonly { readonly orderId: Hex }[];

function isCancelled(cancels: Cancelled, orderId: Hex): boolean {
  for (const c of cancels) if (c.orderId === orderId) return true;
  return false;
}

/**
 * The instruction rules of entry `i` of `places` (`facts`: what the order rules found for
 * it), with the command's cancels. Null when they pass (or the entry names no instructions).
 * `nowMs`, market maker protection's time, is the state's clock unless given; read only where
 * the mmp rule needs it (a default parameter would load it on every call, and the compiler
 * boxes that double: a heap number per order).
 */
export function instructionRules(state: VenueState, facts: PlaceFacts<PlaceDraft>, places: readonly PlaceDraft[], i: number, cancels: Cancelled, nowMs?: number): Rejection | null {
  const o = facts.o;
  const ins = o.instructions;
  if (ins === undefined || ins === DEFAULT_INSTRUCTIONS) return null;
  if (ins.mmp) {
    // Market maker protection: no new mmp order while the wallet is frozen on the pair (flows/mmp.ts).
    const refused = mmpFrozen(state, o.owner, facts.pair.pairId, nowMs ?? state.now);
    if (refused) return refused;
  }
  if (ins.clientOrderId !== null) {
    const refused = uniqueClientOrderId(state, o.owner, ins.clientOrderId, places, i, cancels);
    if (refused) return refused;
  }
  if (ins.postOnly) {
    const refused = postOnlyRule(state, facts, places, i);
    if (refused) return refused;
  }
  if (ins.reduceOnly) return reduceOnlyRule(state, facts, places, i, cancels);
  return null;
}

function uniqueClientOrderId(state: VenueState, owner: string, id: string, places: readonly PlaceDraft[], i: number, cancels: Cancelled): Rejection | null {
  const refused = () => reject('duplicate_client_order_id', { field: 'clientOrderId', clientOrderId: id });
  for (let j = 0; j < i; j++) {
    const p = places[j]!;
    if (p.owner === owner && p.instructions?.clientOrderId === id) return refused();
  }
  // A walk of the wallet's open orders: only orders that name a client order id pay it
  // (an index by id is the account actor's dense-data work, issue 3/8).
  const slots = state.accounts.orders;
  for (const portfolio of state.accounts.walletPortfolios(state.accounts.walletOf(owner))) {
    for (let r = portfolio.openOrders.head; r !== -1; r = slots.pNext[r]!) {
      if (slots.instructions[r]!.clientOrderId === id && !isCancelled(cancels, slots.orderId[r]!)) return refused();
    }
  }
  return null;
}

/** Would take: the book's best opposite price, or an earlier entry of the command on the other side, is at or through its price. */
function postOnlyRule(state: VenueState, facts: PlaceFacts<PlaceDraft>, places: readonly PlaceDraft[], i: number): Rejection | null {
  const o = facts.o;
  let takes = state.series.at(facts.seriesHandle).wouldTake(o.isBuy, o.tick);
  for (let j = 0; j < i && !takes; j++) {
    const p = places[j]!;
    if (p.seriesId === o.seriesId && p.isBuy !== o.isBuy && (o.isBuy ? p.tick <= o.tick : p.tick >= o.tick)) takes = true;
  }
  return takes ? reject('post_only_would_take', { field: 'postOnly', tick: o.tick }) : null;
}

/**
 * Reduce-only: its size plus the wallet's other open reduce-only orders on that side in that
 * series and portfolio (and the command's earlier ones) may not exceed the position it
 * reduces; a buy reduces a short, a sell a long.
 */
function reduceOnlyRule(state: VenueState, facts: PlaceFacts<PlaceDraft>, places: readonly PlaceDraft[], i: number, cancels: Cancelled): Rejection | null {
  const o = facts.o;
  const held = facts.portfolio?.positions.get(o.seriesId);
  const balance = held === undefined ? 0n : balanceOf(held);
  const reducible = o.isBuy ? (balance < 0n ? -balance : 0n) : balance > 0n ? balance : 0n;
  let pending = 0n;
  const slots = state.accounts.orders;
  if (facts.portfolio !== null) {
    for (let r = facts.portfolio.openOrders.head; r !== -1; r = slots.pNext[r]!) {
      if (slots.seriesId[r] === o.seriesId && slots.buy[r] === (o.isBuy ? 1 : 0) && slots.instructions[r]!.reduceOnly && !isCancelled(cancels, slots.orderId[r]!)) pending += wadOfLots(slots.lots[r]!, slots.lot[r]!);
    }
  }
  for (let j = 0; j < i; j++) {
    const p = places[j]!;
    if (p.owner === o.owner && p.portfolioId === o.portfolioId && p.seriesId === o.seriesId && p.isBuy === o.isBuy && p.instructions?.reduceOnly) pending += p.size;
  }
  if (pending + o.size > reducible) {
    return reject('reduce_only_would_increase', { field: 'reduceOnly', position: balance.toString(), openReduceOnly: pending.toString() });
  }
  return null;
}
