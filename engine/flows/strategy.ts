/**
 * A strategy (extensions.md "Strategies"): several fill-or-kill orders of one wallet and
 * portfolio, each on its own series, that all fill in full at their limits or better, or
 * change nothing (no fill, no order, no nonce used).
 *
 * Order, all before any change:
 *   1. the legs' shape: at least one, FOK without other instructions, one owner and
 *      portfolio, distinct series (`strategy_bad_leg`, `strategy_duplicate_leg`);
 *   2. the order rules of every leg (flows/orderRules.ts, as for a place batch);
 *   3. every leg's book can fill its full size at its limit, walking the book without
 *      changing it (`strategy_not_fillable` naming the leg);
 *   4. open interest and risk once for the whole package (flows/orders.ts);
 *   then the legs are placed as FOK orders in sequence.
 *
 * Why a later leg cannot be killed once 3 passed: the legs are on distinct series, so a leg's
 * fills take no liquidity from another leg's book, and self-trade prevention only removes the
 * taker's own orders on the book it takes from. The one way a fill reaches another book is
 * market maker protection: a maker's fills on one series can freeze it on the pair and cancel
 * its mmp quotes on every series of the pair. So on a pair with protection armed that holds
 * more than one leg, step 3 does not count any mmp quote of a wallet with a config on that
 * pair (a superset of the quotes any trip could stop); the fill check at execution counts
 * at least as much (test/engine/strategy.test.ts).
 */
import type { Hex } from '../domain/hex.ts';
import type { PlaceOrder } from '../commands.ts';
import { reject, type Rejection } from '../codes.ts';
import type { VenueState } from '../state.ts';
import type { MatchGuard } from '../actors/series.ts';
import type { OrderRecord } from '../actors/orderRecord.ts';
import type { EventSink } from './eventSink.ts';
import { enterOrders, probeRecord, type EngineOrderOutcome } from './orders.ts';
import type { ValidPlace } from './orderDrafts.ts';
import { MmpGuard } from './mmp.ts';

export type StrategyValue = { readonly strategyId: Hex; readonly outcomes: readonly EngineOrderOutcome[] };

function shape(orders: readonly PlaceOrder[]): Rejection | null {
  if (orders.length === 0) return reject('batch_empty');
  const first = orders[0]!;
  const seen = new Set<Hex>();
  for (let i = 0; i < orders.length; i++) {
    const o = orders[i]!;
    const ins = o.instructions;
    if (ins === undefined || ins.timeInForce !== 'FOK' || ins.postOnly || ins.reduceOnly || ins.mmp || ins.clientOrderId !== null) return reject('strategy_bad_leg', { leg: i, reason: 'fok_only' });
    if (o.owner !== first.owner || o.portfolioId !== first.portfolioId) return reject('strategy_bad_leg', { leg: i, reason: 'one_portfolio' });
    if (seen.has(o.seriesId)) return reject('strategy_duplicate_leg', { leg: i, seriesId: o.seriesId });
    seen.add(o.seriesId);
  }
  return null;
}

/** A guard that stops every mmp quote of a wallet with a config on the pair: the quotes a trip could remove. */
function pessimisticGuard(state: VenueState, pairId: Hex): MatchGuard {
  return {
    filled: () => {},
    stops: (r: OrderRecord) => r.instructions.mmp && state.mmp.get(r.owner, pairId) !== undefined,
  };
}

/** The lots leg `v` could fill at once, as the execution's fill-or-kill check would count them, or fewer. */
function fillable(state: VenueState, v: ValidPlace, legsOnPair: number): number {
  const { pair, o } = v;
  const series = state.series.at(v.seriesHandle);
  if (!state.mmp.armed(pair.pairId)) return series.fillableLots(state.ownerIndexOf(o.owner), o.isBuy, o.tick, v.lots);
  const guard = legsOnPair > 1 ? pessimisticGuard(state, pair.pairId) : new MmpGuard(state, series, pair.sizeStep, true);
  return series.fillableLotsGuarded(probeRecord(state, v), v.lots, guard);
}

function checkFillable(state: VenueState, places: readonly ValidPlace[]): Rejection | null {
  const perPair = new Map<Hex, number>();
  for (const v of places) perPair.set(v.pair.pairId, (perPair.get(v.pair.pairId) ?? 0) + 1);
  for (let i = 0; i < places.length; i++) {
    const v = places[i]!;
    const lots = fillable(state, v, perPair.get(v.pair.pairId)!);
    if (lots < v.lots) {
      return reject('strategy_not_fillable', { leg: i, seriesId: v.o.seriesId, size: v.o.size.toString(), fillable: (BigInt(lots) * v.pair.sizeStep).toString() });
    }
  }
  return null;
}

export function executeStrategy(state: VenueState, sink: EventSink, strategyId: Hex, orders: readonly PlaceOrder[]): StrategyValue | Rejection {
  const refused = shape(orders);
  if (refused) return refused;
  const done = enterOrders(state, sink, [], orders, 'user', (places) => checkFillable(state, places));
  if ('code' in done) return done;
  for (let i = 0; i < done.outcomes.length; i++) {
    // Proven impossible by checkFillable; a broken invariant, not a refusal (the events would be half a package).
    if (done.outcomes[i]!.status !== 'filled') throw new Error(`strategy ${strategyId}: leg ${i} did not fill after its fill check passed`);
  }
  return { strategyId, outcomes: done.outcomes };
}
