/**
 * Risk-based initial margin over 15 scenarios (api.md "Portfolios, collateral, positions,
 * margin"): spot shocked by -30%..+30% and implied volatility by -30%, 0, +50% relative.
 *
 * The scenario kernel over a whole portfolio, in float64. The engine keeps margin
 * incrementally (risk/marginBook.ts, the same formulas per position and order, rounded to
 * whole risk units); this whole-portfolio form is the reference it is tested against
 * (test/engine/support/naiveMargin.ts) and the peer of bench/margin.
 */
export const SCENARIOS = 15;

/** One series' exposure in a portfolio: the position and the worst case of its open orders. */
export type SeriesExposure = {
  /** Signed balance in contracts (WAD / 1e18, as a double). */
  readonly balance: number;
  /** Mark per contract and the 15 scenario values per contract (quote currency). */
  readonly mark: number;
  readonly scenarios: Float64Array;
  readonly spot: number;
  /** Open orders: signed quantity (contracts) and limit price each. */
  readonly orders: readonly { readonly qty: number; readonly price: number }[];
};

export type RiskResult = {
  /** Initial margin of the positions alone (quote currency). */
  readonly initialMargin: number;
  /** Initial margin counting every open order's worst case. */
  readonly initialMarginWithOrders: number;
};

/**
 * IM = max(short floor, worst scenario loss). Orders add, per scenario, the loss they
 * would cause if filled at their limit price (and nothing when filling would gain), and the
 * floor counts the short balance that would result if every open sell filled.
 */
// Scratch vectors reused by every call: the engine is single-threaded and portfolioRisk
// never re-enters, so no allocation is needed on this hot path.
const pnl = new Float64Array(SCENARIOS);
const pnlWithOrders = new Float64Array(SCENARIOS);

export function portfolioRisk(exposures: readonly SeriesExposure[], shortFloorRate: number): RiskResult {
  pnl.fill(0);
  pnlWithOrders.fill(0);
  let floor = 0;
  let floorWithOrders = 0;
  for (const e of exposures) {
    const b = e.balance;
    let sellQty = 0;
    for (const o of e.orders) if (o.qty < 0) sellQty -= o.qty;
    if (b < 0) floor += shortFloorRate * e.spot * -b;
    const worstShort = Math.max(0, sellQty - b);
    floorWithOrders += shortFloorRate * e.spot * worstShort;
    for (let s = 0; s < SCENARIOS; s++) {
      const v = e.scenarios[s]!;
      const p = b * (v - e.mark);
      pnl[s]! += p;
      let withOrders = p;
      for (const o of e.orders) {
        const effect = o.qty * (v - o.price);
        if (effect < 0) withOrders += effect;
      }
      pnlWithOrders[s]! += withOrders;
    }
  }
  let worst = 0;
  let worstWithOrders = 0;
  for (let s = 0; s < SCENARIOS; s++) {
    worst = Math.min(worst, pnl[s]!);
    worstWithOrders = Math.min(worstWithOrders, pnlWithOrders[s]!);
  }
  return {
    initialMargin: Math.max(floor, -worst),
    initialMarginWithOrders: Math.max(floorWithOrders, -worstWithOrders),
  };
}

/** Quote-currency amount to COLLATERAL6, rounded up to the next unit (margin is never understated). */
export function marginToCollateral(x: number): bigint {
  if (!(x > 0)) return 0n;
  return BigInt(Math.ceil(x * 1e6 - 1e-6));
}
