import t from 'tap';
import { portfolioRisk, marginToCollateral, SCENARIOS } from '../../../engine/risk/margin.ts';

const flat = (v: number) => new Float64Array(SCENARIOS).fill(v);
/** Scenario values rising with spot: index = spot*3 + vol. */
const ramp = () => Float64Array.from({ length: SCENARIOS }, (_, i) => 10 + 5 * Math.floor(i / 3) + (i % 3));

t.test('initial margin is the worst scenario loss of the positions', async (t) => {
  const long = portfolioRisk([{ balance: 2, mark: 20, scenarios: ramp(), spot: 100, orders: [] }], 0.1);
  t.equal(long.initialMargin, 2 * (20 - 10), 'a long loses most in the lowest scenario');
  const short = portfolioRisk([{ balance: -2, mark: 20, scenarios: ramp(), spot: 100, orders: [] }], 0);
  t.equal(short.initialMargin, 2 * (32 - 20), 'a short loses most in the highest scenario');
  const hedged = portfolioRisk(
    [
      { balance: 1, mark: 20, scenarios: ramp(), spot: 100, orders: [] },
      { balance: -1, mark: 20, scenarios: ramp(), spot: 100, orders: [] },
    ],
    0,
  );
  t.equal(hedged.initialMargin, 0, 'offsetting positions net per scenario');
});

t.test('the short-option floor: 10% of spot x |short balance|', async (t) => {
  const r = portfolioRisk([{ balance: -3, mark: 1, scenarios: flat(1), spot: 100, orders: [] }], 0.1);
  t.equal(r.initialMargin, 30, 'a far out-of-the-money short still needs margin');
  t.equal(portfolioRisk([{ balance: 3, mark: 1, scenarios: flat(1), spot: 100, orders: [] }], 0.1).initialMargin, 0, 'no floor for longs');
});

t.test('open orders count with their worst case only', async (t) => {
  const buyHigh = portfolioRisk([{ balance: 0, mark: 20, scenarios: ramp(), spot: 100, orders: [{ qty: 1, price: 25 }] }], 0);
  t.equal(buyHigh.initialMargin, 0, 'orders do not change the positions-only margin');
  t.equal(buyHigh.initialMarginWithOrders, 25 - 10, 'a buy above value loses (price - value) in the worst scenario');
  const buyLow = portfolioRisk([{ balance: 0, mark: 20, scenarios: ramp(), spot: 100, orders: [{ qty: 1, price: 5 }] }], 0);
  t.equal(buyLow.initialMarginWithOrders, 0, 'a fill that gains in every scenario adds nothing');
  const sell = portfolioRisk([{ balance: 1, mark: 20, scenarios: ramp(), spot: 100, orders: [{ qty: -3, price: 20 }] }], 0.1);
  t.equal(sell.initialMarginWithOrders >= 0.1 * 100 * 2, true, 'the floor counts the short balance if every sell filled');
});

t.test('conversion to COLLATERAL6 rounds up', async (t) => {
  t.equal(marginToCollateral(0), 0n);
  t.equal(marginToCollateral(-5), 0n);
  t.equal(marginToCollateral(1.5), 1_500_000n);
  t.equal(marginToCollateral(1.0000001), 1_000_001n, 'never understated');
});
