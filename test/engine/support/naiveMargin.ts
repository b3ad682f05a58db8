/**
 * The reference margin: the whole margin account recomputed from its positions and open
 * orders with the float scenario kernel (engine/risk/margin.ts portfolioRisk), as the engine
 * did before it kept margin incrementally. The margin book must agree with it up to its
 * rounding (whole risk units per position and order, always against the account).
 */
import type { Hex } from '../../../engine/domain/hex.ts';
import type { VenueState } from '../../../engine/state.ts';
import type { Portfolio } from '../../../engine/actors/portfolio.ts';
import { balanceOf, collateralOf, premiumOf } from '../../../engine/actors/position.ts';
import { portfolioRisk, marginToCollateral } from '../../../engine/risk/margin.ts';

export type NaiveMargin = { equity: bigint; initialMargin: bigint; initialMarginWithOrders: bigint; cashNeeded: bigint; terms: number };

export function naiveMargin(state: VenueState, p: Portfolio): NaiveMargin {
  const group = state.accounts.marginGroup(p);
  let deposit = 0n;
  let unrealized = 0n;
  let cashNeeded = 0n;
  let terms = 0;
  const exposures = new Map<Hex, { balance: number; mark: number; scenarios: Float64Array; spot: number; orders: { qty: number; price: number }[] }>();
  const exposure = (seriesId: Hex) => {
    let e = exposures.get(seriesId);
    if (e === undefined) {
      const q = state.marks.quote(seriesId);
      if (q === null) return null;
      exposures.set(seriesId, (e = { balance: 0, mark: q.mark, scenarios: q.scenarios, spot: q.spot, orders: [] }));
    }
    return e;
  };
  for (const q of group) {
    deposit += state.accounts.depositOf(q);
    for (const pos of q.positions.values()) {
      const premium = premiumOf(pos);
      unrealized += premium;
      if (premium < 0n) cashNeeded -= premium;
      if (pos.lots === 0) continue;
      const quote = state.marks.quote(pos.seriesId);
      if (quote === null) continue;
      terms++;
      unrealized += collateralOf(balanceOf(pos), quote.markWad);
      exposure(pos.seriesId)!.balance += Number(balanceOf(pos)) / 1e18;
    }
    const slots = state.accounts.orders;
    for (const s of slots.values(q.openOrders)) {
      const o = { isBuy: slots.buy[s] === 1, seriesId: slots.seriesId[s]!, remaining: BigInt(slots.lots[s]!) * slots.lot[s]!, price: slots.price[s]! };
      if (o.isBuy) cashNeeded += collateralOf(o.remaining, o.price);
      const e = exposure(o.seriesId);
      if (!e) continue;
      terms++;
      e.orders.push({ qty: (o.isBuy ? 1 : -1) * (Number(o.remaining) / 1e18), price: Number(o.price) / 1e18 });
    }
  }
  const r = portfolioRisk([...exposures.values()], Number(state.config.shortFloorRate) / 1e18);
  return {
    equity: deposit + unrealized,
    initialMargin: marginToCollateral(r.initialMargin),
    initialMarginWithOrders: marginToCollateral(r.initialMarginWithOrders),
    cashNeeded,
    terms: terms + exposures.size,
  };
}
