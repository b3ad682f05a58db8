import t from 'tap';
import { contractsAt, contractsOf, lotNumberOf, lotsOfSize, type Lots } from '../../../engine/domain/lots.ts';
import { REG, R_CONTRACTS } from '../../../engine/domain/registers.ts';
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

t.test('contractsAt writes contractsOf with the step found by lotNumberOf, for steps and sizes of every shape', async (t) => {
  const rnd = prng(20261128);
  // Steps that are doubles and steps that are not (lotNumberOf: NaN, the bigint formula), more than the memo keeps at once.
  const steps = [10n ** 16n, 10n ** 15n, 1n, 3n, 123456789012345678n, 2n ** 60n + 1n, 999_999_999_999_999_999n, 7n * 10n ** 17n];
  for (let k = 0; k < 20; k++) steps.push(BigInt(randInt(rnd, 1, 1_000_000)) * 10n ** 10n);
  let cases = 0;
  for (let i = 0; i < 20_000; i++) {
    const lot = steps[randInt(rnd, 0, steps.length - 1)]!;
    const kind = randInt(rnd, 0, 3);
    const x: Lots = kind === 0 ? randInt(rnd, -5000, 5000) : kind === 1 ? randInt(rnd, -(2 ** 40), 2 ** 40) : kind === 2 ? randBig(rnd, 25) : 0;
    contractsAt(x, lot, R_CONTRACTS);
    const want = contractsOf(x, lot, lotNumberOf(lot));
    if (!Object.is(REG[R_CONTRACTS], want)) t.fail(`contractsAt(${x}, ${lot}) = ${REG[R_CONTRACTS]}, expected ${want}`);
    cases++;
  }
  t.equal(cases, 20_000);
  contractsAt(5, 10n ** 16n, R_CONTRACTS);
  t.equal(REG[R_CONTRACTS], 0.05, '5 lots of 0.01: 0.05 contracts');
  contractsAt(-5, 10n ** 16n, R_CONTRACTS);
  t.equal(REG[R_CONTRACTS], -0.05, 'a short balance');
});
