import t from 'tap';
import { lotsOfSize } from '../../../engine/domain/lots.ts';
import { prng, randBig, randInt } from './prng.ts';

/** The definition lotsOfSize must give: exact bigint division, NaN off the step. */
function expected(size: bigint, lot: bigint): number {
  return size % lot === 0n ? Number(size / lot) : NaN;
}

t.test('lotsOfSize is the exact division for steps and sizes of every shape', async (t) => {
  const rnd = prng(20261127);
  // Steps: powers of ten (exact doubles), steps that are not doubles (Number(lot) rounds), tiny ones.
  const steps = [10n ** 16n, 10n ** 15n, 1n, 3n, 123456789012345678n, 2n ** 60n + 1n, 999_999_999_999_999_999n, 7n * 10n ** 17n];
  let cases = 0;
  for (const lot of steps) {
    for (let i = 0; i < 3000; i++) {
      const kind = randInt(rnd, 0, 5);
      let size: bigint;
      if (kind === 0) size = BigInt(randInt(rnd, 1, 5000)) * lot; // on the step, within and beyond the memo
      else if (kind === 1) size = BigInt(randInt(rnd, 1, 5000)) * lot + BigInt(randInt(rnd, -3, 3)); // next to it
      else if (kind === 2) size = randBig(rnd, 30); // anything
      else if (kind === 3) size = randBig(rnd, 22) * lot; // lots far beyond 2^53
      else if (kind === 4) size = -BigInt(randInt(rnd, 0, 5000)) * lot; // zero and negatives
      else size = BigInt(randInt(rnd, 1, 4095)) * lot + (lot > 1n ? lot / 2n : 0n); // half a step off, where rounding the guess could hide it
      const got = lotsOfSize(size, lot);
      const want = expected(size, lot);
      if (!Object.is(got, want) && !(Number.isNaN(got) && Number.isNaN(want))) t.fail(`lotsOfSize(${size}, ${lot}) = ${got}, expected ${want}`);
      cases++;
    }
  }
  t.equal(cases, steps.length * 3000);
});

t.test('lotsOfSize at the edges', async (t) => {
  const lot = 10n ** 16n;
  t.equal(lotsOfSize(lot, lot), 1);
  t.equal(lotsOfSize(4095n * lot, lot), 4095, 'the last count the memo keeps');
  t.equal(lotsOfSize(4096n * lot, lot), 4096, 'the first it does not');
  t.equal(lotsOfSize(0n, lot), 0, 'zero is on the step (the minimum size refuses it)');
  t.ok(Number.isNaN(lotsOfSize(lot + 1n, lot)), 'one base unit off');
  t.ok(Number.isNaN(lotsOfSize(lot - 1n, lot)));
  t.equal(lotsOfSize(BigInt(Number.MAX_SAFE_INTEGER) * lot, lot), Number.MAX_SAFE_INTEGER, '2^53 - 1 lots: exact');
  t.equal(lotsOfSize(-7n * lot, lot), -7);
  // A memo entry made by one step is never read for another (the memo is per step).
  t.equal(lotsOfSize(5n * 10n ** 15n, 10n ** 15n), 5);
  t.ok(Number.isNaN(lotsOfSize(5n * 10n ** 15n, lot)));
  // More steps than the memo keeps: old ones are dropped and made again, with the same answers.
  for (let k = 1n; k <= 40n; k++) t.equal(lotsOfSize(12n * k * 1000n, k * 1000n), 12);
  t.equal(lotsOfSize(12n * lot, lot), 12);
});
