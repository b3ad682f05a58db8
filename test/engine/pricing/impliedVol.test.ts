import t from 'tap';
import { bsGreeks, bsPrice } from '../../../engine/pricing/blackScholes.ts';
import { IV_IN_STRIDE, impliedVol, impliedVolBatch } from '../../../engine/pricing/impliedVol.ts';
import { prng } from '../domain/prng.ts';

const HOUR = 1 / 8760;

t.test('price -> vol -> price over a wide random grid', async (t) => {
  const rnd = prng(41);
  let strict = 0, volBad = 0, priceBad = 0, failed = 0, maxIt = 0, worst = 0;
  for (let i = 0; i < 60000; i++) {
    const S = Math.exp(Math.log(0.1) + rnd() * Math.log(1e6));
    const K = S * Math.exp((rnd() - 0.5) * 4); // deep ITM and OTM: moneyness e^-2 .. e^2
    const T = Math.exp(Math.log(HOUR) + rnd() * Math.log(3 / HOUR)); // one hour .. three years
    const vol = 0.01 + rnd() * 4;
    const r = (rnd() - 0.3) * 0.15, q = rnd() < 0.5 ? 0 : rnd() * 0.08;
    const isCall = rnd() < 0.5;
    const price = bsPrice(isCall, S, K, T, r, q, vol);
    const res = impliedVol(isCall, price, S, K, T, r, q);
    if (!res.ok) {
      // Only a price that underflowed to nothing, or is indistinguishable from its bounds, may fail.
      failed++;
      continue;
    }
    // A subnormal price carries a few bits at most: the solver bisects there, so bound the
    // iterations only where the price is a normal number.
    if (price > 1e-250 * S) maxIt = Math.max(maxIt, res.iterations);
    // The solved vol must reprice to the input within the price's own rounding.
    const back = bsPrice(isCall, S, K, T, r, q, res.vol);
    const noise = 4e-16 * (S + K) + 1e-13 * price;
    if (Math.abs(back - price) > noise) priceBad++;
    // Where the price determines the vol to better than 1e-9, the vol must be within 1e-8.
    const vega = bsGreeks(isCall, S, K, T, r, q, vol).vega;
    if (noise / vega < 1e-9) {
      strict++;
      const err = Math.abs(res.vol - vol);
      worst = Math.max(worst, err);
      if (err > 1e-8) {
        volBad++;
        if (volBad < 4) t.fail(`vol ${vol} -> ${res.vol} ${JSON.stringify({ isCall, S, K, T, r, q, price })}`);
      }
    }
  }
  t.equal(priceBad, 0, 'reprices');
  t.equal(volBad, 0, `vol within 1e-8 (worst ${worst})`);
  t.ok(strict > 30000, `${strict} well-conditioned cases checked strictly`);
  t.ok(failed < 600, `${failed} prices at their bounds`);
  t.ok(maxIt <= 8, `at most ${maxIt} iterations`);
});

t.test('deep in and out of the money, short expiries', async (t) => {
  const cases: Array<[boolean, number, number, number, number]> = [
    [true, 100, 40, 1, 0.3], [false, 100, 40, 1, 0.3], [true, 100, 250, 1, 0.3], [false, 100, 250, 1, 0.3],
    [true, 95000, 82000, 1 / 365, 0.55], [false, 95000, 82000, 1 / 365, 0.55], [true, 95000, 96000, 2 * HOUR, 0.55],
    [false, 3550, 3500, HOUR, 0.8], [true, 100, 100, HOUR, 0.05], [true, 100, 100, 5, 3], [false, 1, 1.0001, 0.02, 0.05],
  ];
  for (const [isCall, S, K, T, vol] of cases) {
    const price = bsPrice(isCall, S, K, T, 0.04, 0, vol);
    const res = impliedVol(isCall, price, S, K, T, 0.04, 0);
    t.ok(res.ok && Math.abs(res.vol - vol) < 1e-8, `${isCall ? 'call' : 'put'} S=${S} K=${K} T=${T}: ${JSON.stringify(res)}`);
  }
});

t.test('failures are values', async (t) => {
  const S = 100, K = 80, T = 0.5, r = 0.05;
  const df = Math.exp(-r * T);
  t.same(impliedVol(true, S - K * df - 0.01, S, K, T, r, 0), { ok: false, reason: 'below_intrinsic' });
  t.same(impliedVol(false, 1, 50, 100, T, r, 0), { ok: false, reason: 'below_intrinsic' });
  t.same(impliedVol(true, S, S, K, T, r, 0), { ok: false, reason: 'above_maximum' });
  t.same(impliedVol(true, 150, S, K, T, r, 0), { ok: false, reason: 'above_maximum' });
  t.same(impliedVol(false, K * df, S, K, T, r, 0), { ok: false, reason: 'above_maximum' });
  t.same(impliedVol(true, 5, S, K, 0, r, 0), { ok: false, reason: 'no_time' });
  t.same(impliedVol(true, 5, S, K, -1, r, 0), { ok: false, reason: 'no_time' });
  for (const args of [[NaN, S, K, T], [5, 0, K, T], [5, S, -1, T], [-1, S, K, T], [5, Infinity, K, T], [5, S, K, NaN]] as const) {
    t.same(impliedVol(true, args[0], args[1], args[2], args[3], r, 0), { ok: false, reason: 'invalid_input' }, JSON.stringify(args));
  }
  t.same(impliedVol(true, 5, S, K, T, NaN, 0), { ok: false, reason: 'invalid_input' });
  // Exactly intrinsic (within rounding) is zero volatility, not a failure.
  const intrinsic = impliedVol(true, S - K * df, S, K, T, r, 0);
  t.ok(intrinsic.ok && intrinsic.vol === 0, JSON.stringify(intrinsic));
  const zero = impliedVol(true, 0, S, 200, T, r, 0);
  t.ok(zero.ok && zero.vol === 0, 'a zero OTM price is zero vol');
});

t.test('batch equals scalar', async (t) => {
  const rnd = prng(42);
  const n = 500;
  const input = new Float64Array(n * IV_IN_STRIDE);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const isCall = rnd() < 0.5, S = 100, K = 50 + rnd() * 100, T = 0.01 + rnd(), r = 0.03, q = 0;
    // Every tenth row is a failure case (a price above the maximum).
    const price = i % 10 === 0 ? 1000 : bsPrice(isCall, S, K, T, r, q, 0.1 + rnd());
    input.set([isCall ? 1 : 0, price, S, K, T, r, q], i * IV_IN_STRIDE);
  }
  impliedVolBatch(input, out, n);
  let bad = 0;
  for (let i = 0; i < n; i++) {
    const o = i * IV_IN_STRIDE;
    const res = impliedVol(input[o] === 1, input[o + 1]!, input[o + 2]!, input[o + 3]!, input[o + 4]!, input[o + 5]!, input[o + 6]!);
    if (res.ok ? res.vol !== out[i] : !Number.isNaN(out[i])) bad++;
  }
  t.equal(bad, 0);
});
