/**
 * Premiums from lots and ticks in doubles (engine/domain/premium.ts): equal to the bigint
 * arithmetic of collateralOf to the unit, the double path taken only while provably exact,
 * and the bigint fallback taken at each bound (never a silent overflow).
 */
import t from 'tap';
import { premiumInBigint, premiumInDoubles, premiumOf, premiumPerLotTick } from '../../../engine/domain/premium.ts';
import { collateralOf } from '../../../engine/actors/position.ts';
import { tickToPrice } from '../../../engine/domain/ticks.ts';
import { WAD } from '../../../engine/domain/fixed.ts';
import { prng, randInt } from './prng.ts';

const SAFE = Number.MAX_SAFE_INTEGER; // 2^53 - 1
const TICK_MAX = 2 ** 32 - 1;

/** The reference: size x price in COLLATERAL6 as every bigint caller computes it. */
const reference = (lots: number, tick: number, sizeStep: bigint, tickDecimals: number): bigint => collateralOf(BigInt(lots) * sizeStep, tickToPrice(tick, tickDecimals));

t.test('the per-pair factor: whole numbers only, 0 otherwise', async (t) => {
  t.equal(premiumPerLotTick(WAD / 100n, 2), 100, 'lots of 0.01 at ticks of 0.01: 100 micro-units a lot-tick');
  t.equal(premiumPerLotTick(WAD / 100n, 4), 1, 'lots of 0.01 at ticks of 0.0001: 1');
  t.equal(premiumPerLotTick(WAD, 0), 10 ** 6, 'whole contracts at whole ticks: 1 USDC');
  t.equal(premiumPerLotTick(10n ** 12n, 2), 0, 'lots of 1e-6 at ticks of 0.01: a hundredth of a micro-unit, not whole');
  t.equal(premiumPerLotTick(5n * 10n ** 15n, 6), 0, '0.005 x 1e-6: not whole');
  t.equal(premiumPerLotTick(2n ** 53n * 10n ** 12n, 0), 0, 'a factor of 2^53: too large for the double path');
  t.equal(premiumPerLotTick((2n ** 53n - 1n) * 10n ** 12n, 0), SAFE, 'a factor of 2^53 - 1: still exact');
});

t.test('at each bound: the double path while exact, the bigint path from there, the same result', async (t) => {
  // k = 1 (sizeStep 0.01, tickDecimals 4): the product lots x tick is the bound.
  const step = WAD / 100n;
  t.equal(premiumInDoubles(SAFE, 1, 1), SAFE, 'lots x tick = 2^53 - 1: exact in doubles');
  t.equal(premiumInDoubles(2 ** 52, 2, 1), -1, 'lots x tick = 2^53: the fallback');
  t.equal(premiumInDoubles(2 ** 52 - 1, 2, 1), 2 ** 53 - 2, 'lots x tick = 2^53 - 2: exact');
  for (const [lots, tick] of [[SAFE, 1], [2 ** 52, 2], [2 ** 52 - 1, 2], [2 ** 52 + 1, 2], [SAFE, TICK_MAX], [2 ** 21, TICK_MAX]] as const) {
    t.equal(premiumOf(lots, tick, step, 4), reference(lots, tick, step, 4), `${lots} lots at tick ${tick}, k = 1`);
  }
  // k = 100 (sizeStep 0.01, tickDecimals 2): lots x tick fits, its product with k is the bound.
  const lt = Math.floor(SAFE / 100); // 90,071,992,547,409
  t.equal(premiumInDoubles(lt, 1, 100), lt * 100, 'lots x tick x 100 just below 2^53: exact');
  t.equal(premiumInDoubles(lt + 1, 1, 100), -1, 'lots x tick x 100 above 2^53: the fallback');
  t.ok(premiumInBigint(lt + 1, 1, step, 2) > BigInt(SAFE), 'the fallback value is indeed beyond 2^53');
  for (const lots of [lt - 1, lt, lt + 1, lt + 2, SAFE]) t.equal(premiumOf(lots, 1, step, 2), reference(lots, 1, step, 2), `${lots} lots at tick 1, k = 100`);
  // The largest tick of the grid, lots around the bound.
  const lotsAtMaxTick = Math.floor(SAFE / 100 / TICK_MAX);
  t.not(premiumInDoubles(lotsAtMaxTick, TICK_MAX, 100), -1, 'at tick 2^32 - 1, the most lots that stay exact');
  t.equal(premiumInDoubles(lotsAtMaxTick + 1, TICK_MAX, 100), -1, 'one more lot: the fallback');
  for (const lots of [lotsAtMaxTick, lotsAtMaxTick + 1]) t.equal(premiumOf(lots, TICK_MAX, step, 2), reference(lots, TICK_MAX, step, 2));
});

t.test('not a whole factor, or not integer lots and ticks: always the bigint path', async (t) => {
  t.equal(premiumInDoubles(1, 1, 0), -1, 'k = 0');
  t.equal(premiumInDoubles(1.5, 2, 100), -1, 'a fractional lot');
  t.equal(premiumInDoubles(2, 0.5, 100), -1, 'a fractional tick');
  t.equal(premiumInDoubles(-1, 2, 100), -1, 'a negative lot');
  t.equal(premiumInDoubles(NaN, 2, 100), -1, 'NaN');
  t.throws(() => premiumOf(1.5, 2, WAD / 100n, 2), RangeError, 'the bigint path refuses what is not an integer: never a silent result');
  // lots of 1e-6 at ticks of 0.01: the truncation to micro-units happens in bigint.
  for (const [lots, tick] of [[1, 1], [99, 1], [100, 1], [12_345, 678], [SAFE, TICK_MAX]] as const) {
    t.equal(premiumOf(lots, tick, 10n ** 12n, 2), reference(lots, tick, 10n ** 12n, 2), `${lots} lots of 1e-6 at tick ${tick}: truncated as bigint`);
  }
});

t.test('seeded: equal to the bigint arithmetic on pairs of every shape', async (t) => {
  const rnd = prng(8);
  const steps = [WAD / 100n, WAD / 10n, WAD, 10n ** 12n, 5n * 10n ** 15n, 25n * 10n ** 14n, 3n * WAD];
  let doubles = 0;
  let bigints = 0;
  for (let i = 0; i < 20_000; i++) {
    const step = steps[randInt(rnd, 0, steps.length - 1)]!;
    const tickDecimals = randInt(rnd, 0, 18);
    const lots = rnd() < 0.1 ? randInt(rnd, 0, SAFE) : randInt(rnd, 0, 10_000);
    const tick = rnd() < 0.1 ? TICK_MAX - randInt(rnd, 0, 10) : randInt(rnd, 0, 2_000_000);
    if (premiumInDoubles(lots, tick, premiumPerLotTick(step, tickDecimals)) >= 0) doubles++;
    else bigints++;
    const got = premiumOf(lots, tick, step, tickDecimals);
    const want = reference(lots, tick, step, tickDecimals);
    if (got !== want) {
      t.fail(`${lots} lots of ${step} at tick ${tick} (tickDecimals ${tickDecimals}): ${got}, bigint ${want}`);
      return;
    }
  }
  t.ok(doubles > 1_000 && bigints > 1_000, `both paths exercised (${doubles} in doubles, ${bigints} in bigint)`);
});
