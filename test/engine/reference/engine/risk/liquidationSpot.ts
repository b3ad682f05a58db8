/**
 * The liquidation spot (extensions.md "Liquidation and the insurance fund"): the spot of the
 * pair at which a portfolio's equity would meet its maintenance margin, every other input
 * (volatility, rate, time, cash, positions) fixed, or null when there is none. A pure
 * function of plain data, used by the margin what-if (engine/flows/whatIf.ts) and by the
 * gateway's portfolio detail (a read of folded events, through engine/index.ts).
 *
 * Equity and margin at a spot S are the engine's (docs/engine.md "Margin"): equity = cash +
 * deferred premium + sum(balance x mark(S)); initial margin = max(short floor at S, worst loss
 * over the 15 scenarios around S); maintenance = its maintenance rate. In floating point, so
 * the answer is the spot to within the engine's rounding (1e-4 USDC per position) and the
 * search's resolution (1e-6 of the spot). Positions on more than one pair have no single
 * spot: null.
 */
import { bsPrice } from '../pricing/blackScholes.ts';
import { scenarioValues, SCENARIO_COUNT } from '../pricing/scenarios.ts';
import { floatToWad } from '../domain/fixed.ts';

export type SpotPosition = {
  readonly isCall: boolean;
  readonly strike: number; // quote currency
  readonly expiry: number; // Unix s
  readonly balance: number; // contracts, signed
};

export type LiquidationSpotInput = {
  /** Cash plus the deferred premium of the positions (quote currency). */
  readonly cash: number;
  readonly positions: readonly SpotPosition[];
  readonly spot: number;
  readonly volatility: number;
  readonly riskFreeRate: number;
  readonly nowMs: number;
  readonly shortFloorRate: number;
  readonly maintenanceRate: number;
};

const SECONDS_PER_YEAR = 365 * 24 * 3600;
/** The search: geometric steps from the current spot each way, then bisection. */
const STEP = 1.03;
const STEPS = 120;
const BISECTIONS = 40;
const values = new Float64Array(SCENARIO_COUNT);

/** Equity less maintenance margin at spot `S` (quote currency). */
function surplus(x: LiquidationSpotInput, S: number): number {
  let equity = x.cash;
  let floor = 0;
  const pnl = new Float64Array(SCENARIO_COUNT);
  for (const p of x.positions) {
    const T = Math.max(0, (p.expiry * 1000 - x.nowMs) / 1000 / SECONDS_PER_YEAR);
    const mark = bsPrice(p.isCall, S, p.strike, T, x.riskFreeRate, 0, x.volatility);
    equity += p.balance * mark;
    if (p.balance < 0) floor += x.shortFloorRate * S * -p.balance;
    scenarioValues(p.isCall, S, p.strike, T, x.riskFreeRate, x.volatility, values, 0);
    for (let s = 0; s < SCENARIO_COUNT; s++) pnl[s]! += p.balance * (values[s]! - mark);
  }
  let worst = 0;
  for (let s = 0; s < SCENARIO_COUNT; s++) if (pnl[s]! < worst) worst = pnl[s]!;
  return equity - x.maintenanceRate * Math.max(floor, -worst);
}

/** The spot where the surplus changes sign between `a` and `b` (surplus(a) and surplus(b) of opposite signs). */
function bisect(x: LiquidationSpotInput, a: number, b: number, fa: number): number {
  for (let i = 0; i < BISECTIONS; i++) {
    const m = (a + b) / 2;
    const fm = surplus(x, m);
    if (fm >= 0 === fa >= 0) {
      a = m;
      fa = fm;
    } else b = m;
  }
  return (a + b) / 2;
}

/**
 * The nearest spot (in ratio to the current one, searched up to a factor of 34 each way) at
 * which the surplus (equity less maintenance margin) changes sign, as WAD; null without
 * positions or when it does not change sign in that range.
 */
export function liquidationSpot(x: LiquidationSpotInput): bigint | null {
  if (x.positions.length === 0 || !(x.spot > 0)) return null;
  const f0 = surplus(x, x.spot);
  if (f0 === 0) return floatToWad(x.spot);
  let up = x.spot;
  let down = x.spot;
  let fUp = f0;
  let fDown = f0;
  for (let k = 0; k < STEPS; k++) {
    const nextUp = up * STEP;
    const gUp = surplus(x, nextUp);
    if (gUp >= 0 !== fUp >= 0) return floatToWad(bisect(x, up, nextUp, fUp));
    up = nextUp;
    fUp = gUp;
    const nextDown = down / STEP;
    const gDown = surplus(x, nextDown);
    if (gDown >= 0 !== fDown >= 0) return floatToWad(bisect(x, down, nextDown, fDown));
    down = nextDown;
    fDown = gDown;
  }
  return null;
}
