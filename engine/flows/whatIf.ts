/**
 * Margin what-if (extensions.md "Margin what-if"): a portfolio's risk now and as it would be
 * if some orders filled at their prices, and whether the venue would accept them as orders.
 * A read-only query: it counts on the margin book's kept sums (the account's scenario PnL,
 * floors and exposures) and changes nothing of the state.
 */
import type { Hex } from '../domain/hex.ts';
import { WAD, UINT256_MAX } from '../domain/fixed.ts';
import { SPOT_SHOCKS, VOL_SHOCKS } from '../pricing/scenarios.ts';
import { SCENARIOS } from '../risk/margin.ts';
import { RISK_UNITS, floorUnits, toC6, type ProspectiveOrder } from '../risk/marginBook.ts';
import { collateralOf } from '../actors/position.ts';
import type { Portfolio } from '../actors/portfolio.ts';
import type { VenueState } from '../state.ts';
import { worstFeeOf } from './fill.ts';
import { liquidationSpotOf } from './liquidation.ts';

export type WhatIfOrder = { readonly seriesId: Hex; readonly isBuy: boolean; readonly size: bigint; readonly price: bigint }; // WAD

/** A portfolio's risk: cash figures C6, margins C6, health WAD; the worst scenario of its positions. */
export type RiskFigures = {
  readonly equity: bigint;
  readonly initialMargin: bigint;
  readonly maintenanceMargin: bigint;
  readonly healthRatio: bigint;
  readonly maxWithdraw: bigint;
  readonly worstScenario: { readonly spotShock: number; readonly volShock: number; readonly pnl: bigint };
  /** The spot (WAD) at which equity would meet maintenance margin, other inputs fixed; null if none (flows/liquidation.ts). */
  readonly liquidationSpot: bigint | null;
};

export type WhatIf = { readonly before: RiskFigures; readonly after: RiskFigures; readonly allowed: boolean; readonly reason: 'insufficient_cash' | 'insufficient_margin' | null };

const pnlScratch = new Float64Array(SCENARIOS);

function worstOf(pnl: ArrayLike<number>): { index: number; units: number } {
  let index = 0;
  for (let s = 1; s < SCENARIOS; s++) if (pnl[s]! < pnl[index]!) index = s;
  return { index, units: pnl[index]! };
}

function figures(state: VenueState, equity: bigint, deposit: bigint, im: bigint, imWithOrders: bigint, worst: { index: number; units: number }): RiskFigures {
  const mm = (im * state.config.maintenanceRate + WAD - 1n) / WAD;
  const healthRatio = mm === 0n ? (equity >= 0n ? UINT256_MAX : 0n) : (equity * WAD) / mm;
  const free = equity - imWithOrders;
  const own = deposit > 0n ? deposit : 0n;
  const maxWithdraw = free <= 0n ? 0n : free < own ? free : own;
  const units = worst.units;
  return {
    equity,
    initialMargin: im,
    maintenanceMargin: mm,
    healthRatio,
    maxWithdraw,
    worstScenario: { spotShock: SPOT_SHOCKS[Math.floor(worst.index / VOL_SHOCKS.length)]!, volShock: VOL_SHOCKS[worst.index % VOL_SHOCKS.length]!, pnl: units < 0 ? -toC6(-units) : toC6(units) },
    liquidationSpot: null,
  };
}

/**
 * `p` (a public portfolio: a market maker's 0 stands for its whole margin account) now, and
 * with `orders` filled at their prices (positions moved, premium paid or received, the worst
 * fee of each taken from its cash); `allowed` is the venue's pre-trade check of them as orders.
 */
export function whatIf(state: VenueState, p: Portfolio, orders: readonly WhatIfOrder[]): WhatIf {
  const margin = state.accounts.margin;
  const a = margin.sums(p);
  const now = state.accounts.risk(p);
  const before = { ...figures(state, now.equity, now.deposit, now.initialMargin, now.initialMarginWithOrders, worstOf(a.pos)), liquidationSpot: liquidationSpotOf(state, p) };

  // After: each series' position moved by the fills, its scenario PnL and floors recounted as the margin book counts them.
  const pos = pnlScratch;
  for (let s = 0; s < SCENARIOS; s++) pos[s] = a.pos[s]!;
  let floorPos = a.floorPos;
  let floorOrd = a.floorOrd;
  let equity = now.equity;
  let deposit = now.deposit;
  const moved = new Map<Hex, bigint>();
  const prospective: ProspectiveOrder[] = [];
  for (const o of orders) {
    const series = state.series.get(o.seriesId);
    if (series === undefined) continue; // the caller names listed series (the gateway answers 404 otherwise)
    const q = state.marks.quote(o.seriesId);
    const premium = collateralOf(o.size, o.price);
    const spot = state.oracles.get(series.spec.pairId)?.spot ?? 0n;
    const fee = worstFeeOf(state, collateralOf(spot, o.size), premium);
    prospective.push({ seriesId: o.seriesId, isBuy: o.isBuy, size: o.size, price: o.price, premium, worstFee: fee });
    deposit -= fee;
    equity -= fee;
    if (q === null) continue; // a settled series carries no risk and no mark
    const value = collateralOf(o.size, q.markWad);
    equity += o.isBuy ? value - premium : premium - value;
    moved.set(o.seriesId, (moved.get(o.seriesId) ?? 0n) + (o.isBuy ? o.size : -o.size));
  }
  for (const [seriesId, delta] of moved) {
    const q = state.marks.quote(seriesId)!;
    const e = margin.exposureSums(p, seriesId);
    const balance = (e?.balance ?? 0n) + delta;
    const b = Number(balance) / 1e18;
    for (let s = 0; s < SCENARIOS; s++) {
      const units = b === 0 ? 0 : Math.floor(b * (q.scenarios[s]! - q.mark) * RISK_UNITS);
      pos[s]! += units - (e?.pos[s] ?? 0);
    }
    const rate = Number(state.config.shortFloorRate) / 1e18;
    floorPos += floorUnits(rate, q.spot, -b) - (e?.floorPos ?? 0);
    floorOrd += floorUnits(rate, q.spot, Number((e?.sellWad ?? 0n) - balance) / 1e18) - (e?.floorOrd ?? 0);
  }
  const worst = worstOf(pos);
  let worstWithOrders = 0;
  for (let s = 0; s < SCENARIOS; s++) worstWithOrders = Math.min(worstWithOrders, pos[s]! + a.ord[s]!);
  const im = toC6(Math.max(floorPos, -Math.min(0, worst.units)));
  const imWithOrders = toC6(Math.max(floorOrd, -worstWithOrders));
  const after = { ...figures(state, equity, deposit, im, imWithOrders, worst), liquidationSpot: liquidationSpotOf(state, p, orders, deposit - now.deposit) };

  // The venue's pre-trade check of the orders as orders (flows/orders.ts checkAccount).
  const req = margin.requirement(p, prospective);
  let reason: WhatIf['reason'] = null;
  if (orders.some((o) => o.isBuy) && req.deposit < req.cashNeeded) reason = 'insufficient_cash';
  else if (req.equity < req.initialMarginWithOrders && req.initialMarginWithOrders > now.initialMarginWithOrders) reason = 'insufficient_margin';
  return { before, after, allowed: reason === null, reason };
}
