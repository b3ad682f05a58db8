import t from 'tap';
import { GREEKS_IN_STRIDE, GREEKS_OUT_STRIDE, greeksBatch } from '../../../engine/pricing/batch.ts';
import { bsGreeks } from '../../../engine/pricing/blackScholes.ts';
import { prng } from '../domain/prng.ts';

t.test('batch rows equal the scalar Greeks bit for bit', async (t) => {
  t.equal(GREEKS_IN_STRIDE, 7);
  t.equal(GREEKS_OUT_STRIDE, 6);
  const rnd = prng(51);
  const n = 3000;
  const input = new Float64Array(n * GREEKS_IN_STRIDE);
  for (let i = 0; i < n; i++) {
    const S = 10 + rnd() * 100000;
    // Include expired and zero-vol rows: the degenerate path must agree too.
    const T = i % 50 === 0 ? 0 : Math.exp(Math.log(1 / 8760) + rnd() * 8);
    const vol = i % 70 === 0 ? 0 : 0.05 + rnd() * 2;
    input.set([rnd() < 0.5 ? 1 : 0, S, S * (0.5 + rnd()), T, rnd() * 0.1, rnd() < 0.5 ? 0 : rnd() * 0.05, vol], i * GREEKS_IN_STRIDE);
  }
  const out = new Float64Array(n * GREEKS_OUT_STRIDE).fill(NaN);
  greeksBatch(input, out, n);
  let bad = 0;
  for (let i = 0; i < n; i++) {
    const a = i * GREEKS_IN_STRIDE, b = i * GREEKS_OUT_STRIDE;
    const g = bsGreeks(input[a] === 1, input[a + 1]!, input[a + 2]!, input[a + 3]!, input[a + 4]!, input[a + 5]!, input[a + 6]!);
    const want = [g.price, g.delta, g.gamma, g.vega, g.theta, g.rho];
    for (let k = 0; k < 6; k++) if (!Object.is(out[b + k], want[k])) bad++;
  }
  t.equal(bad, 0);
});

t.test('a partial count leaves the rest untouched; short arrays throw', async (t) => {
  const input = new Float64Array(2 * GREEKS_IN_STRIDE);
  input.set([1, 100, 100, 1, 0, 0, 0.2, 0, 100, 100, 1, 0, 0, 0.2]);
  const out = new Float64Array(2 * GREEKS_OUT_STRIDE).fill(-7);
  greeksBatch(input, out, 1);
  t.ok(out[0]! > 7 && out[0]! < 8.5, `ATM call ~7.97: ${out[0]}`);
  t.same([...out.slice(GREEKS_OUT_STRIDE)], new Array(GREEKS_OUT_STRIDE).fill(-7));
  t.throws(() => greeksBatch(input, new Float64Array(6), 2), RangeError);
  t.throws(() => greeksBatch(new Float64Array(7), out, 2), RangeError);
});
