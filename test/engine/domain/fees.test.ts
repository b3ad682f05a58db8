/**
 * A fill's notional and fees in doubles (engine/domain/fees.ts): equal to the bigint formulas
 * (collateralOf, amount x rate / WAD, the taker fee's cap) to the unit, the double path taken
 * only while provably exact, and the bigint fallback taken at each bound (never a silent
 * overflow).
 */
import t from 'tap';
import { feeInDoubles, fillMoneyOf, makerFeeInBigint, moneyFigure, mulDivInDoubles, notionalInDoubles, notionalPerLot, ratioOf, takerFeeInBigint, takerFeeInDoubles, worstFeeInDoubles, type FeeRates, type FillMoney } from '../../../engine/domain/fees.ts';
import { collateralOf } from '../../../engine/actors/position.ts';
import { tickToPrice } from '../../../engine/domain/ticks.ts';
import { premiumInDoubles, premiumPerLotTick } from '../../../engine/domain/premium.ts';
import { WAD } from '../../../engine/domain/fixed.ts';
import { defaultVenueConfig } from '../../../engine/config.ts';
import { prng, randBig, randInt } from './prng.ts';

const SAFE = Number.MAX_SAFE_INTEGER; // 2^53 - 1
const LOT = WAD / 100n;
const SPOT = 60_000n * WAD;

/** The references: every bigint caller's arithmetic. */
const notionalRef = (lots: number, spot: bigint, step: bigint): bigint => collateralOf(spot, BigInt(lots) * step);
const feeRef = (amount: bigint, rate: bigint): bigint => (amount * rate) / WAD;
const takerRef = (notional: bigint, premium: bigint, rate: bigint, cap: bigint): bigint => {
  const a = feeRef(notional, rate);
  const b = feeRef(premium, cap);
  return a < b ? a : b;
};

t.test('ratios in lowest terms, unusable beyond 2^53', async (t) => {
  t.same(ratioOf(3n * 10n ** 14n, WAD), { num: 3, den: 10_000 }, '3 bp');
  t.same(ratioOf(125n * 10n ** 15n, WAD), { num: 1, den: 8 }, '12.5%');
  t.same(ratioOf(0n, WAD), { num: 0, den: 1 }, 'a zero rate');
  t.same(notionalPerLot(SPOT, LOT), { num: 600_000_000, den: 1 }, 'a lot of 0.01 at 60,000: 600 USDC');
  t.same(notionalPerLot(60_000_123_456_789n * 10n ** 9n, LOT), { num: 60_000_123_456_789, den: 100_000 }, 'a spot with 9 decimals');
  t.equal(notionalPerLot(SPOT + 1n, LOT).den, 0, 'a spot with 18 decimals: num beyond 2^53, the bigint path');
  t.equal(ratioOf(-1n, WAD).den, 0, 'a negative ratio: the bigint path');
  t.equal(ratioOf(BigInt(SAFE), 1n).num, SAFE, 'num 2^53 - 1: usable');
  t.equal(ratioOf(2n ** 53n, 1n).den, 0, 'num 2^53: unusable');
  t.equal(ratioOf(1n, 2n ** 53n).den, 0, 'den 2^53: unusable');
});

t.test('x x num / den at each bound', async (t) => {
  t.equal(mulDivInDoubles(SAFE, { num: 1, den: 1 }), SAFE, 'x x num = 2^53 - 1: exact');
  t.equal(mulDivInDoubles(2 ** 53, { num: 1, den: 1 }), -1, 'x x num = 2^53: the fallback');
  const third = Math.floor(SAFE / 3); // 3 x third = 2^53 - 2
  t.equal(mulDivInDoubles(third, { num: 3, den: 10_000 }), Number((BigInt(third) * 3n) / 10_000n), 'the largest x at 3 bp: exact');
  t.equal(mulDivInDoubles(third + 1, { num: 3, den: 10_000 }), -1, 'one more: 2^53 + 1 rounds to 2^53, the fallback');
  t.equal(mulDivInDoubles(SAFE, { num: 1, den: 3 }), Number(BigInt(SAFE) / 3n), 'a quotient just below a whole number truncates');
  t.equal(mulDivInDoubles(SAFE - 1, { num: 1, den: 2 ** 52 }), 1, '(2^53 - 2) / 2^52 = 1.99..: 1');
  t.equal(mulDivInDoubles(-3, { num: 1, den: 1 }), -1, 'a negative x: the fallback (bigint truncates toward zero)');
  t.equal(mulDivInDoubles(1.5, { num: 2, den: 1 }), -1, 'a fractional x');
  t.equal(mulDivInDoubles(NaN, { num: 2, den: 1 }), -1, 'NaN');
  t.equal(mulDivInDoubles(5, { num: 0, den: 0 }), -1, 'an unusable ratio');
});

t.test('x x num beyond 2^53: num split into whole x den + rest, exact while both terms are', async (t) => {
  // A mark value's ratio (lot 0.01 x mark 30,003.196... / 10^30): num near 2^51, so 5 lots already overflow x x num.
  const mark = { num: 1875199767093889, den: 6250000 };
  const exact = (x: number, r: { num: number; den: number }) => Number((BigInt(x) * BigInt(r.num)) / BigInt(r.den));
  for (const x of [5, 37, 1000, 123_456]) t.equal(mulDivInDoubles(x, mark), exact(x, mark), `${x} lots at a mark: the bigint value`);
  const whole = Math.floor(mark.num / mark.den);
  const most = Math.floor(SAFE / whole); // x x whole at its bound (x x rest is far below)
  t.equal(mulDivInDoubles(most, mark), exact(most, mark), 'x x whole below 2^53 (the sum checked too)');
  t.equal(mulDivInDoubles(most + 1, mark), -1, 'x x whole beyond: the fallback');
  t.equal(mulDivInDoubles(2 ** 40, { num: 2 ** 20 + 1, den: 2 ** 21 }), -1, 'x x rest beyond 2^53: the fallback');
  // Random ratios and sizes: the value is the bigint's whenever it is not -1, and -1 only when a term leaves the bound.
  const rnd = prng(19);
  let split = 0;
  for (let i = 0; i < 20_000; i++) {
    const den = randInt(rnd, 1, 2 ** randInt(rnd, 1, 40));
    const num = randInt(rnd, 0, 2 ** randInt(rnd, 1, 52));
    const x = randInt(rnd, 0, 2 ** randInt(rnd, 0, 40));
    const r = { num, den };
    const v = mulDivInDoubles(x, r);
    const rest = num % den;
    const fits = BigInt(x) * BigInt(num) <= BigInt(SAFE) || (BigInt(x) * BigInt((num - rest) / den) <= BigInt(SAFE) && BigInt(x) * BigInt(rest) <= BigInt(SAFE) && exact(x, r) <= SAFE);
    if (BigInt(x) * BigInt(num) > BigInt(SAFE) && fits) split++;
    if (v !== (fits ? exact(x, r) : -1)) {
      t.fail(`x ${x} num ${num} den ${den}: ${v}, expected ${fits ? exact(x, r) : -1}`);
      return;
    }
  }
  t.ok(split > 1000, `the split path taken (${split} times)`);
});

t.test('notional at its bound: lots x spot x sizeStep', async (t) => {
  const most = Math.floor(SAFE / 600_000_000); // lots of 0.01 at 60,000
  t.equal(notionalInDoubles(most, SPOT, LOT), most * 600_000_000, 'the most lots exact in doubles');
  t.equal(BigInt(notionalInDoubles(most, SPOT, LOT)), notionalRef(most, SPOT, LOT), 'equal to collateralOf');
  t.equal(notionalInDoubles(most + 1, SPOT, LOT), -1, 'one more lot: the fallback');
  const m = inBigint(fillMoneyOf(scratch(), most + 1, 1, LOT, 2, SPOT, defaultVenueConfig, false));
  t.equal(m.notional, notionalRef(most + 1, SPOT, LOT), 'the fallback value, by bigint');
  t.ok(m.notional > BigInt(SAFE), 'which is indeed beyond 2^53');
  const odd = SPOT + 1n; // 18 decimals: the ratio does not reduce
  t.equal(notionalInDoubles(3, odd, LOT), -1, 'a spot the ratio cannot hold: the fallback');
  t.equal(inBigint(fillMoneyOf(scratch(), 3, 1, LOT, 2, odd, defaultVenueConfig, false)).notional, notionalRef(3, odd, LOT), 'and bigint gives collateralOf');
});

t.test('fees at their bounds', async (t) => {
  const rate = 3n * 10n ** 14n;
  const cap = 125n * 10n ** 15n;
  const most = Math.floor(SAFE / 3);
  t.equal(feeInDoubles(most, rate), Number(feeRef(BigInt(most), rate)), 'notional x 3 bp: the largest exact notional');
  t.equal(feeInDoubles(most + 1, rate), -1, 'one more micro-unit: the fallback');
  t.equal(feeInDoubles(SAFE, cap), Number(feeRef(BigInt(SAFE), cap)), 'premium x 1/8: exact up to 2^53 - 1');
  t.equal(feeInDoubles(-1, rate), -1, 'an amount known only in bigint (-1): the fallback');
  t.equal(takerFeeInDoubles(most + 1, 10, rate, cap), -1, 'a taker fee with one part beyond its bound: the fallback');
  t.equal(takerFeeInDoubles(1_000_000, 10, rate, cap), 1, 'the cap binds: 10 / 8 = 1');
  t.equal(takerFeeInDoubles(1_000_000, 1_000_000, rate, cap), 300, 'the rate binds: 300');
  const odd = 3n * 10n ** 14n + 1n; // a rate with 18 significant digits: no usable ratio
  t.equal(feeInDoubles(5, odd), -1, 'an unreducible rate: the fallback');
  const rates: FeeRates = { takerFeeRate: rate, takerFeeCapRate: cap, makerFeeRate: odd };
  const money = fillMoneyOf(scratch(), 1_000, 100_000, LOT, 2, SPOT, rates, false);
  t.equal(money.makerFeeN, -1, 'the maker fee only in bigint');
  const m = inBigint(money);
  t.equal(m.makerFee, makerFeeInBigint(rates, m.notional), 'the maker fee by bigint');
  t.equal(m.takerFee, takerFeeInBigint(rates, m.notional, m.premium), 'the taker fee in doubles, equal to bigint');
  t.equal(worstFeeInDoubles(m.notional > 0n ? Number(m.notional) : 0, Number(m.premium), rates), -1, 'the worst fee with a maker rate beyond doubles: the fallback');
  const free = inBigint(fillMoneyOf(scratch(), 1_000, 100_000, LOT, 2, SPOT, rates, true));
  t.same([free.takerFee, free.makerFee], [0n, 0n], 'fee-free: no fee');
});

t.test('seeded: a fill\'s money equal to the bigint formulas on pairs, spots and rates of every shape', async (t) => {
  const rnd = prng(19);
  const steps = [LOT, WAD / 10n, WAD, 10n ** 12n, 5n * 10n ** 15n, 25n * 10n ** 14n, 3n * WAD];
  const rateSet = [0n, 1n, 3n * 10n ** 14n, 125n * 10n ** 15n, 5n * 10n ** 14n, 7n * 10n ** 13n + 1n, WAD, 2n * WAD];
  const out = scratch();
  let doubles = 0;
  let bigints = 0;
  let worstInDoubles = 0;
  for (let i = 0; i < 20_000; i++) {
    const step = steps[randInt(rnd, 0, steps.length - 1)]!;
    const tickDecimals = randInt(rnd, 0, 18);
    const spotDecimals = randInt(rnd, 0, 18);
    const spot = randBig(rnd, 7) * 10n ** BigInt(18 - spotDecimals) + (spotDecimals > 0 ? randBig(rnd, spotDecimals) : 0n);
    const lots = rnd() < 0.1 ? randInt(rnd, 0, SAFE) : randInt(rnd, 0, 100_000);
    const tick = rnd() < 0.1 ? 2 ** 32 - 1 - randInt(rnd, 0, 10) : randInt(rnd, 0, 2_000_000);
    const rates: FeeRates = { takerFeeRate: rateSet[randInt(rnd, 0, rateSet.length - 1)]!, takerFeeCapRate: rateSet[randInt(rnd, 0, rateSet.length - 1)]!, makerFeeRate: rateSet[randInt(rnd, 0, rateSet.length - 1)]! };
    const feeFree = rnd() < 0.05;
    if (notionalInDoubles(lots, spot, step) >= 0) doubles++;
    else bigints++;
    fillMoneyOf(out, lots, tick, step, tickDecimals, spot, rates, feeFree);
    const premium = collateralOf(BigInt(lots) * step, tickToPrice(tick, tickDecimals));
    const notional = notionalRef(lots, spot, step);
    const want = [premium, notional, feeFree ? 0n : takerRef(notional, premium, rates.takerFeeRate, rates.takerFeeCapRate), feeFree ? 0n : feeRef(notional, rates.makerFeeRate)];
    // A figure in its double when exact (its bigint field then stale from an earlier fill: this scratch is reused), else in its bigint.
    const m = inBigint(out);
    const got = [m.premium, m.notional, m.takerFee, m.makerFee];
    const worst = worstFeeInDoubles(notionalInDoubles(lots, spot, step), premiumInDoubles(lots, tick, premiumPerLotTick(step, tickDecimals)), rates);
    if (worst >= 0) {
      worstInDoubles++;
      const taker = takerRef(notional, premium, rates.takerFeeRate, rates.takerFeeCapRate);
      const maker = feeRef(notional, rates.makerFeeRate);
      if (BigInt(worst) !== (taker > maker ? taker : maker)) {
        t.fail(`worst fee of ${lots} lots at tick ${tick}, spot ${spot}: ${worst}, bigint ${taker} / ${maker}`);
        return;
      }
    }
    if (got.some((g, j) => g !== want[j])) {
      t.fail(`${lots} lots of ${step} at tick ${tick} (tickDecimals ${tickDecimals}), spot ${spot}, rates ${rates.takerFeeRate}/${rates.takerFeeCapRate}/${rates.makerFeeRate}: ${got.join(',')}, bigint ${want.join(',')}`);
      return;
    }
  }
  t.ok(doubles > 1_000 && bigints > 1_000, `both notional paths exercised (${doubles} in doubles, ${bigints} in bigint)`);
  t.ok(worstInDoubles > 300, `the worst fee in doubles ${worstInDoubles} times, equal to bigint`);
});

/** A fill's money in bigint, each figure from its double when exact (FillMoney's contract) or from its bigint. */
function inBigint(m: FillMoney): { premium: bigint; notional: bigint; takerFee: bigint; makerFee: bigint } {
  const big = (n: number, b: bigint): bigint => {
    const c = moneyFigure(n, b);
    return typeof c === 'number' ? BigInt(c) : c;
  };
  return { premium: big(m.premiumN, m.premium), notional: big(m.notionalN, m.notional), takerFee: big(m.takerFeeN, m.takerFee), makerFee: big(m.makerFeeN, m.makerFee) };
}

function scratch(): FillMoney {
  return { premium: 0n, notional: 0n, takerFee: 0n, makerFee: 0n, premiumN: -1, notionalN: -1, takerFeeN: -1, makerFeeN: -1 };
}
