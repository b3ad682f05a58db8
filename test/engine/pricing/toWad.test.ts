import t from 'tap';
import { greeksRowToWad, greeksToWad, pricingInputs, scenarioRowToWad, SECONDS_PER_YEAR } from '../../../engine/pricing/toWad.ts';
import { bsGreeks } from '../../../engine/pricing/blackScholes.ts';
import { WAD } from '../../../engine/domain/fixed.ts';

t.test('greeksToWad keeps the pricer units, rounded to nearest', async (t) => {
  const g = { price: 2.1334, delta: -0.3566, gamma: 0.0278, vega: 18.9358, theta: -31.1924, rho: 1e-19 };
  t.same(greeksToWad(g), {
    price: 2133400000000000000n, delta: -356600000000000000n, gamma: 27800000000000000n,
    vega: 18935800000000000000n, theta: -31192400000000000000n, rho: 0n,
  });
  const real = greeksToWad(bsGreeks(true, 55, 60, 0.75, 0.1, 0, 0.3));
  t.ok(real.vega > 189357n * 10n ** 14n && real.vega < 189359n * 10n ** 14n, 'vega per 1.00 of vol in WAD');
  t.throws(() => greeksToWad({ ...g, delta: NaN }), RangeError, 'NaN is a broken invariant');
});

t.test('rows of batch outputs', async (t) => {
  const out = Float64Array.from([9, 1.5, 0.25, 2, -3, 0.5, 7]);
  t.same(greeksRowToWad(out, 1), { price: 15n * WAD / 10n, delta: WAD / 4n, gamma: 2n * WAD, vega: -3n * WAD, theta: WAD / 2n, rho: 7n * WAD });
  const scen = new Float64Array(16).map((_, i) => i / 4);
  const row = scenarioRowToWad(scen, 1);
  t.equal(row.length, 15);
  t.equal(row[0], WAD / 4n);
  t.equal(row[14], (15n * WAD) / 4n);
});

t.test('pricingInputs converts WAD state to floats', async (t) => {
  const p = pricingInputs(95000n * WAD, 82000n * WAD, 55n * WAD / 100n, 5n * WAD / 100n, 1767254400, 1767254400 - 86400);
  t.same(p, { S: 95000, K: 82000, vol: 0.55, r: 0.05, T: 86400 / SECONDS_PER_YEAR });
  t.equal(SECONDS_PER_YEAR, 31536000);
});
