import t from 'tap';
import { gaussExp, normCdf, normInvApprox, normPdf, normTail } from '../../../engine/pricing/normal.ts';
import { prng } from '../domain/prng.ts';

// N(x) to 16 digits, computed with mpmath at 40 digits.
const REF: Array<[number, number]> = [
  [-37, 5.725571222524577e-300], [-20, 2.7536241186062337e-89], [-10, 7.619853024160525e-24],
  [-5, 2.866515718791939e-7], [-1.5, 0.06680720126885807], [-0.5, 0.3085375387259869], [0, 0.5],
  [0.3, 0.6179114221889527], [1.96, 0.9750021048517795], [4, 0.9999683287581669], [8, 0.9999999999999993],
];

t.test('normCdf matches high-precision values', async (t) => {
  for (const [x, want] of REF) {
    const got = normCdf(x);
    t.ok(Math.abs(got - want) <= 2e-15 * want, `N(${x}) = ${got}, want ${want}`);
  }
  t.equal(normCdf(Infinity), 1);
  t.equal(normCdf(-Infinity), 0);
  t.ok(Number.isNaN(normCdf(NaN)));
});

t.test('tails, symmetry, monotonicity', async (t) => {
  const rnd = prng(4);
  let bad = 0;
  let prev = -1;
  for (let x = -38; x <= 9; x += 0.001) {
    const n = normCdf(x);
    if (n < prev) bad++;
    prev = n;
  }
  t.equal(bad, 0, 'non-decreasing');
  for (let i = 0; i < 20000; i++) {
    const y = rnd() * 30;
    const g = gaussExp(y);
    // N(-y) from the tail function, and N(y) + N(-y) = 1 in the centre.
    if (normTail(y, g) !== normCdf(-y)) bad++;
    if (y < 8 && Math.abs(normCdf(y) + normCdf(-y) - 1) > 2e-16) bad++;
    if (Math.abs(normPdf(y) - Math.exp(-0.5 * y * y) / Math.sqrt(2 * Math.PI)) > 1e-13 * normPdf(y) + 1e-300) bad++;
  }
  t.equal(bad, 0);
});

t.test('normInvApprox is a close inverse (a starting point)', async (t) => {
  let worst = 0;
  for (let p = 1e-300; p < 1; p *= 3) worst = Math.max(worst, Math.abs(normCdf(normInvApprox(p)) - p) / p);
  for (let p = 0.01; p < 1; p += 0.01) worst = Math.max(worst, Math.abs(normCdf(normInvApprox(p)) - p) / Math.min(p, 1 - p));
  t.ok(worst < 1e-5, `worst relative error ${worst}`);
  t.equal(normInvApprox(0), -Infinity);
  t.equal(normInvApprox(1), Infinity);
});
