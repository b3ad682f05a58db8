/**
 * Settlement at 08:00 UTC on expiry (api.md): the settlement price is the time-weighted
 * average spot over the 30 minutes before expiry; every position is paid
 * balance x intrinsic together with its deferred premium; open orders expire; the series is
 * marked settled and stays readable with its settlement price.
 */
import type { SeriesActor } from '../actors/series.ts';
import { balanceOf, collateralOf, premiumOf, realizedOf, setCash } from '../actors/position.ts';
import { twap } from '../actors/registry.ts';
import type { VenueState } from '../state.ts';
import type { EventSink } from './eventSink.ts';
import { removeOrder } from './orders.ts';

export function settleDue(state: VenueState, sink: EventSink): void {
  for (const s of state.series.values()) {
    if (!s.settled && s.spec.expiry <= state.nowSec) settle(state, sink, s);
  }
}

export function intrinsic(isCall: boolean, strike: bigint, price: bigint): bigint {
  const v = isCall ? price - strike : strike - price;
  return v > 0n ? v : 0n;
}

function settle(state: VenueState, sink: EventSink, s: SeriesActor): void {
  const oracle = state.oracles.get(s.spec.pairId);
  if (!oracle) return; // nothing to settle against yet; retried at the next clock
  const endMs = s.spec.expiry * 1000;
  const price = twap(oracle.history, endMs - state.config.settlementWindowSec * 1000, endMs, oracle.spot);
  for (const order of [...s.openOrders()]) removeOrder(state, sink, state.orderIndex.get(order.orderId)!, 'expired', 'series_expired', 'settlement');
  const value = intrinsic(s.spec.isCall, s.spec.strike, price);
  for (const p of state.accounts.allPortfolios()) {
    const pos = p.positions.get(s.spec.seriesId);
    if (!pos) continue;
    const payout = collateralOf(balanceOf(pos), value) + premiumOf(pos);
    state.accounts.credit(p, payout);
    setCash(pos, 0n, realizedOf(pos) + payout);
    pos.lots = 0;
    p.positions.delete(s.spec.seriesId);
    state.accounts.margin.positionChanged(p, s.spec.seriesId);
    sink.position(p, s.spec.seriesId, pos);
  }
  s.settled = true;
  s.settlementPrice = price;
  state.accounts.margin.marksChanged(s.spec.seriesId, null);
  state.addOpenInterest(s, -s.openInterest); // to zero, and out of the pair's sum
  sink.push({ type: 'series_settled', seriesId: s.spec.seriesId, settlementPrice: price, openInterest: state.openInterestWad(s) });
}
