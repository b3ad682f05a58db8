import t from 'tap';
import {
  BASE_SCENARIO, SCENARIO_COUNT, SCENARIO_IN_STRIDE, SPOT_SHOCKS, VOL_SHOCKS, scenarioBatch, scenarioIndex, scenarioValues,
} from '../../../engine/pricing/scenarios.ts';
import { bsPrice } from '../../../engine/pricing/blackScholes.ts';
import { prng } from '../domain/prng.ts';

t.test('grid as api.md states it', async (t) => {
  t.same([...SPOT_SHOCKS], [-0.3, -0.15, 0, 0.15, 0.3]);
  t.same([...VOL_SHOCKS], [-0.3, 0, 0.5]);
  t.equal(SCENARIO_COUNT, 15);
  t.equal(scenarioIndex(0, 0), 0);
  t.equal(scenarioIndex(1, 0), 3, 'spot-major');
  t.equal(scenarioIndex(4, 2), 14);
  t.equal(BASE_SCENARIO, scenarioIndex(2, 1));
});

t.test('each value is bsPrice at the shocked inputs (q = 0)', async (t) => {
  const rnd = prng(61);
  let bad = 0;
  const out = new Float64Array(SCENARIO_COUNT + 3).fill(-1);
  for (let n = 0; n < 500; n++) {
    const isCall = rnd() < 0.5, S = 100 + rnd() * 90000, K = S * (0.6 + rnd() * 0.8), T = rnd() < 0.05 ? 0 : rnd() * 0.5, r = rnd() * 0.08, vol = 0.1 + rnd();
    scenarioValues(isCall, S, K, T, r, vol, out, 3);
    for (let i = 0; i < 5; i++) {
      for (let j = 0; j < 3; j++) {
        const want = bsPrice(isCall, S * (1 + SPOT_SHOCKS[i]!), K, T, r, 0, vol * (1 + VOL_SHOCKS[j]!));
        if (out[3 + i * 3 + j] !== want) bad++;
      }
    }
    if (out[3 + BASE_SCENARIO] !== bsPrice(isCall, S, K, T, r, 0, vol)) bad++;
  }
  t.same([...out.slice(0, 3)], [-1, -1, -1], 'writes only at the offset');
  t.equal(bad, 0);
  // Sanity of direction: a call gains with spot, a put loses; both gain with vol.
  scenarioValues(true, 100, 100, 0.25, 0, 0.5, out, 0);
  t.ok(out[scenarioIndex(4, 1)]! > out[scenarioIndex(2, 1)]! && out[scenarioIndex(2, 2)]! > out[scenarioIndex(2, 0)]!);
  scenarioValues(false, 100, 100, 0.25, 0, 0.5, out, 0);
  t.ok(out[scenarioIndex(0, 1)]! > out[scenarioIndex(2, 1)]!);
});

t.test('scenarioBatch equals scenarioValues per row', async (t) => {
  const rows = [[1, 95000, 82000, 0.01, 0.05, 0.6], [0, 3550, 3600, 0.1, 0.03, 0.8], [1, 100, 100, 0, 0, 0.5]];
  const input = Float64Array.from(rows.flat());
  t.equal(SCENARIO_IN_STRIDE, 6);
  const out = new Float64Array(rows.length * SCENARIO_COUNT);
  scenarioBatch(input, out, rows.length);
  const one = new Float64Array(SCENARIO_COUNT);
  rows.forEach((row, i) => {
    scenarioValues(row[0] === 1, row[1]!, row[2]!, row[3]!, row[4]!, row[5]!, one, 0);
    t.same([...out.slice(i * SCENARIO_COUNT, (i + 1) * SCENARIO_COUNT)], [...one], `row ${i}`);
  });
  t.throws(() => scenarioBatch(input, new Float64Array(10), 3), RangeError);
});
