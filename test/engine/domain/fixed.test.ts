import t from 'tap';
import {
  C6, INT256_MAX, UINT128_MAX, UINT256_MAX, UINT32_MAX, WAD, collateralToWad, floatToWad, formatHuman, formatWad,
  mulDiv, parseHuman, parseIntString, wadDiv, wadMul, wadToCollateral, wadToFloat, type Rounding,
} from '../../../engine/domain/fixed.ts';
import { prng, randBig, randInt } from './prng.ts';

t.test('constants', async (t) => {
  t.equal(WAD, 1_000_000_000_000_000_000n);
  t.equal(C6, 1_000_000n);
  t.equal(UINT32_MAX, 4294967295n);
  t.equal(UINT128_MAX, 340282366920938463463374607431768211455n);
  t.equal(UINT256_MAX.toString(16), 'f'.repeat(64));
  t.equal(INT256_MAX.toString(16), '7' + 'f'.repeat(63));
});

t.test('parseIntString accepts wire integers', async (t) => {
  const good: Array<[unknown, bigint, Parameters<typeof parseIntString>[2]]> = [
    ['50000000000000000', 50000000000000000n, { bits: 256 }],
    ['0', 0n, { bits: 256 }],
    ['007', 7n, { bits: 32 }],
    ['4294967295', 4294967295n, { bits: 32 }],
    [UINT256_MAX.toString(), UINT256_MAX, { bits: 256 }],
    ['-5', -5n, { bits: 256, signed: true }],
    [(-(2n ** 255n)).toString(), -(2n ** 255n), { bits: 256, signed: true }],
    [INT256_MAX.toString(), INT256_MAX, { bits: 256, signed: true }],
    [12345, 12345n, { bits: 64 }],
    [Number.MAX_SAFE_INTEGER, 9007199254740991n, { bits: 64 }],
    ['1', 1n, { bits: 128, positive: true }],
  ];
  for (const [text, want, opts] of good) {
    const r = parseIntString(text, 'amount', opts);
    t.same(r, { ok: true, value: want }, `${String(text)} ${JSON.stringify(opts)}`);
  }
});

t.test('parseIntString refuses, naming the field', async (t) => {
  const bad: Array<[unknown, Parameters<typeof parseIntString>[2], RegExp]> = [
    [undefined, { bits: 256 }, /^amount is required$/],
    [null, { bits: 256 }, /^amount is required$/],
    ['', { bits: 256 }, /^amount must be a non-negative numeric string$/],
    [' 1', { bits: 256 }, /numeric string/],
    ['1 ', { bits: 256 }, /numeric string/],
    ['+1', { bits: 256 }, /numeric string/],
    ['1.5', { bits: 256 }, /no decimal point/],
    ['1.', { bits: 256 }, /no decimal point/],
    ['.5', { bits: 256 }, /no decimal point/],
    ['1e18', { bits: 256 }, /numeric string/],
    ['0x10', { bits: 256 }, /numeric string/],
    ['NaN', { bits: 256 }, /numeric string/],
    ['Infinity', { bits: 256 }, /numeric string/],
    ['1_000', { bits: 256 }, /numeric string/],
    ['-1', { bits: 256 }, /^amount must not be negative$/],
    ['-0', { bits: 256 }, /^amount must not be negative$/],
    ['0', { bits: 256, positive: true }, /^amount must be a positive numeric string$/],
    ['-3', { bits: 256, positive: true }, /^amount must be a positive numeric string$/],
    ['abc', { bits: 256, positive: true }, /^amount must be a positive numeric string$/],
    ['4294967296', { bits: 32 }, /^amount is out of range for uint32$/],
    [(UINT256_MAX + 1n).toString(), { bits: 256 }, /out of range for uint256/],
    [(INT256_MAX + 1n).toString(), { bits: 256, signed: true }, /out of range for int256/],
    [(-(2n ** 255n) - 1n).toString(), { bits: 256, signed: true }, /out of range for int256/],
    ['1'.repeat(101), { bits: 256 }, /numeric string/],
    [1.5, { bits: 256 }, /numeric string/],
    [2 ** 60, { bits: 256 }, /numeric string/],
    [NaN, { bits: 256 }, /numeric string/],
    [-1, { bits: 256 }, /^amount must not be negative$/],
    [true, { bits: 256 }, /numeric string/],
    [{}, { bits: 256 }, /numeric string/],
    [['1'], { bits: 256 }, /numeric string/],
    [10n, { bits: 256 }, /numeric string/],
  ];
  for (const [text, opts, re] of bad) {
    const r = parseIntString(text, 'amount', opts);
    t.equal(r.ok, false, `refuses ${typeof text === 'bigint' ? `${text}n` : JSON.stringify(text)}`);
    if (!r.ok) {
      t.equal(r.error.field, 'amount');
      t.match(r.error.message, re, `message for ${String(text)}`);
    }
  }
});

t.test('parseHuman', async (t) => {
  const good: Array<[unknown, number, bigint, Parameters<typeof parseHuman>[3]?]> = [
    ['0.05', 18, 50000000000000000n],
    ['1.5', 18, 1500000000000000000n],
    ['3550.50', 18, 3550500000000000000000n],
    ['.5', 18, 500000000000000000n],
    ['5.', 18, 5000000000000000000n],
    ['0', 18, 0n],
    ['000.100', 6, 100000n],
    ['0.000000000000000001', 18, 1n],
    ['-1.25', 6, -1250000n, { signed: true }],
    ['-0', 6, 0n, { signed: true }],
    [0.1, 18, 100000000000000000n],
    [2500, 6, 2500000000n],
    ['12', 0, 12n],
  ];
  for (const [text, decimals, want, opts] of good) {
    t.same(parseHuman(text, decimals, 'size', opts), { ok: true, value: want }, `${String(text)}`);
  }
  const bad: Array<[unknown, number, RegExp, Parameters<typeof parseHuman>[3]?]> = [
    ['0.0000000000000000001', 18, /^size has more than 18 decimal places$/],
    ['1.1234567', 6, /more than 6 decimal places/],
    ['1e5', 18, /decimal string/],
    [1e-7, 18, /decimal string/],
    ['', 18, /decimal string/],
    ['.', 18, /decimal string/],
    [' 1', 18, /decimal string/],
    ['+1', 18, /decimal string/],
    ['1,5', 18, /decimal string/],
    ['1.2.3', 18, /decimal string/],
    ['0x1', 18, /decimal string/],
    ['-0.1', 18, /^size must not be negative$/],
    ['-0', 18, /^size must not be negative$/],
    ['0', 18, /^size must be a positive numeric string$/, { positive: true }],
    ['-1', 18, /positive/, { positive: true, signed: true }],
    [undefined, 18, /^size is required$/],
    [NaN, 18, /decimal string/],
    [Infinity, 18, /decimal string/],
    [{}, 18, /decimal string/],
    ['340282366920938463463.374607431768211456', 18, /out of range/, { bits: 128 }],
    ['9'.repeat(101), 0, /decimal string/],
  ];
  for (const [text, decimals, re, opts] of bad) {
    const r = parseHuman(text, decimals, 'size', opts);
    t.equal(r.ok, false, `refuses ${String(text)}`);
    if (!r.ok) t.match(r.error.message, re, `message for ${String(text)}`);
  }
  // The largest uint128 in WAD parses; one more unit does not.
  t.same(parseHuman('340282366920938463463.374607431768211455', 18, 'x', { bits: 128 }), { ok: true, value: UINT128_MAX });
});

t.test('formatHuman and formatWad', async (t) => {
  t.equal(formatHuman(0n, 18), '0');
  t.equal(formatHuman(50000000000000000n, 18), '0.05');
  t.equal(formatHuman(3550500000000000000000n, 18), '3550.5');
  t.equal(formatHuman(-1250000n, 6), '-1.25');
  t.equal(formatHuman(1n, 18), '0.000000000000000001');
  t.equal(formatHuman(7n, 0), '7');
  t.equal(formatWad(50000000000000000n), '50000000000000000');
  const rnd = prng(1);
  for (let i = 0; i < 2000; i++) {
    const decimals = randInt(rnd, 0, 18);
    const v = (rnd() < 0.5 ? -1n : 1n) * randBig(rnd, 40);
    const text = formatHuman(v, decimals);
    t.notMatch(text, /\.\d*0$/, 'no trailing zeros');
    const back = parseHuman(text, decimals, 'v', { signed: true });
    if (!back.ok || back.value !== v) t.fail(`round trip ${v} @${decimals}: ${text}`);
  }
});

function checkRounding(a: bigint, b: bigint, d: bigint, mode: Rounding, q: bigint): boolean {
  // Compare q with the exact quotient p/d using integer arithmetic only.
  const p = a * b;
  const sd = d < 0n ? -1n : 1n;
  const P = p * sd; // p/d = P/D with D > 0
  const D = d * sd;
  const lower = P >= 0n ? P / D : -((-P + D - 1n) / D); // floor(P/D)
  const exact = lower * D === P;
  if (exact) return q === lower;
  const upper = lower + 1n;
  switch (mode) {
    case 'floor': return q === lower;
    case 'ceil': return q === upper;
    case 'down': return q === (P >= 0n ? lower : upper);
    case 'up': return q === (P >= 0n ? upper : lower);
    case 'half': {
      const twice = 2n * (P - lower * D); // distance above lower, doubled
      if (twice === D) return q === (P >= 0n ? upper : lower); // tie: away from zero
      return q === (twice > D ? upper : lower);
    }
  }
}

t.test('mulDiv rounds the exact quotient in every mode and sign', async (t) => {
  t.equal(mulDiv(7n, 1n, 2n, 'down'), 3n);
  t.equal(mulDiv(-7n, 1n, 2n, 'down'), -3n);
  t.equal(mulDiv(7n, 1n, 2n, 'up'), 4n);
  t.equal(mulDiv(-7n, 1n, 2n, 'up'), -4n);
  t.equal(mulDiv(-7n, 1n, 2n, 'floor'), -4n);
  t.equal(mulDiv(-7n, 1n, 2n, 'ceil'), -3n);
  t.equal(mulDiv(7n, 1n, -2n, 'floor'), -4n);
  t.equal(mulDiv(5n, 1n, 2n, 'half'), 3n);
  t.equal(mulDiv(-5n, 1n, 2n, 'half'), -3n);
  t.equal(mulDiv(4n, 1n, 3n, 'half'), 1n);
  t.equal(mulDiv(5n, 1n, 3n, 'half'), 2n);
  t.equal(mulDiv(UINT256_MAX, UINT256_MAX, UINT256_MAX, 'down'), UINT256_MAX, 'no intermediate overflow');
  t.throws(() => mulDiv(1n, 1n, 0n, 'down'), RangeError);
  const rnd = prng(2);
  const modes: Rounding[] = ['down', 'up', 'floor', 'ceil', 'half'];
  let bad = 0;
  for (let i = 0; i < 5000; i++) {
    const a = (rnd() < 0.5 ? -1n : 1n) * randBig(rnd, 30);
    const b = (rnd() < 0.5 ? -1n : 1n) * randBig(rnd, 10);
    const d = (rnd() < 0.5 ? -1n : 1n) * (rnd() < 0.2 ? 2n : randBig(rnd, 12));
    for (const m of modes) if (!checkRounding(a, b, d, m, mulDiv(a, b, d, m))) bad++;
  }
  t.equal(bad, 0, 'random checks');
});

t.test('WAD arithmetic and collateral conversion', async (t) => {
  t.equal(wadMul(1500000000000000000n, 2000000000000000000n), 3000000000000000000n);
  t.equal(wadMul(-1n, 1n), 0n, 'truncates toward zero');
  t.equal(wadMul(3n, 333333333333333334n), 1n);
  t.equal(wadDiv(1n * WAD, 3n * WAD), 333333333333333333n);
  t.equal(wadDiv(-1n * WAD, 3n * WAD), -333333333333333333n);
  t.throws(() => wadDiv(1n, 0n), RangeError);
  t.equal(wadToCollateral(2500n * WAD, 'down'), 2500000000n);
  t.equal(wadToCollateral(1234567890123456789n, 'down'), 1234567n);
  t.equal(wadToCollateral(1234567890123456789n, 'up'), 1234568n);
  t.equal(wadToCollateral(-1234567890123456789n, 'floor'), -1234568n);
  t.equal(wadToCollateral(-1234567890123456789n, 'ceil'), -1234567n);
  t.equal(wadToCollateral(1234567500000000000n, 'half'), 1234568n);
  t.equal(collateralToWad(2500000000n), 2500n * WAD);
  t.equal(wadToCollateral(collateralToWad(-987654321n), 'down'), -987654321n);
});

t.test('floatToWad rounds the printed decimal to nearest', async (t) => {
  t.equal(floatToWad(0.05), 50000000000000000n);
  t.equal(floatToWad(0.5), 500000000000000000n);
  t.equal(floatToWad(-0.05), -50000000000000000n);
  t.equal(floatToWad(0), 0n);
  t.equal(floatToWad(-0), 0n);
  t.equal(floatToWad(1e-18), 1n);
  t.equal(floatToWad(1.5e-18), 2n, 'half away from zero');
  t.equal(floatToWad(-1.5e-18), -2n);
  t.equal(floatToWad(4e-19), 0n);
  t.equal(floatToWad(5e-324), 0n);
  t.equal(floatToWad(18.9358), 18935800000000000000n);
  t.equal(floatToWad(1e21), 1000n * 10n ** 18n * 10n ** 18n);
  t.equal(floatToWad(123456789.123456789), 123456789123456790000000000n, 'shortest text is 123456789.12345679');
  t.equal(floatToWad(0.1 + 0.2), 300000000000000000n + 40n, '0.30000000000000004');
  t.throws(() => floatToWad(NaN), RangeError);
  t.throws(() => floatToWad(Infinity), RangeError);
  t.throws(() => floatToWad(-Infinity), RangeError);
});

t.test('wadToFloat is correctly rounded and inverts floatToWad', async (t) => {
  t.equal(wadToFloat(50000000000000000n), 0.05);
  t.equal(wadToFloat(-1500000000000000000n), -1.5);
  t.equal(wadToFloat(0n), 0);
  t.equal(wadToFloat(UINT256_MAX), 1.157920892373162e59);
  const rnd = prng(3);
  let bad = 0;
  for (let i = 0; i < 20000; i++) {
    const x = (rnd() < 0.5 ? -1 : 1) * Math.exp(Math.log(0.01) + rnd() * (Math.log(1e12) - Math.log(0.01)));
    if (wadToFloat(floatToWad(x)) !== x) bad++;
    const w = (rnd() < 0.5 ? -1n : 1n) * randBig(rnd, 40);
    if (wadToFloat(w) !== Number(formatHuman(w, 18))) bad++;
  }
  t.equal(bad, 0, 'round trips and correct rounding');
});
