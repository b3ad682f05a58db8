import t from 'tap';
import {
  canonicalSymbol, formatStrike, parseStrike, parseSymbol, translateSymbol, userSymbol, type SeriesKey,
} from '../../../engine/domain/symbols.ts';
import { WAD } from '../../../engine/domain/fixed.ts';
import { expiryOfDate } from '../../../engine/domain/expiries.ts';
import { prng, randBig, randInt } from './prng.ts';

const wad = (text: string): bigint => {
  const [i, f = ''] = text.split('.');
  return BigInt(i!) * WAD + BigInt(f.padEnd(18, '0'));
};

t.test('strike text: the interface examples', async (t) => {
  t.equal(formatStrike(wad('82000')), '82000');
  t.equal(formatStrike(wad('3550.5')), '3550_5');
  t.equal(formatStrike(wad('3550.50')), '3550_5');
  t.equal(formatStrike(wad('3550.05')), '3550_05');
  t.equal(formatStrike(wad('0.00001234')), '0_00001234');
  t.equal(formatStrike(wad('0.5')), '0_5');
  t.equal(formatStrike(1n), '0_000000000000000001');
  t.throws(() => formatStrike(-1n), RangeError);
  for (const text of ['82000', '3550_5', '3550_05', '0_00001234', '0_5']) {
    const r = parseStrike(text);
    t.ok(r.ok && formatStrike(r.value) === text, `parse ${text}`);
  }
  t.same(parseStrike('3550_50'), { ok: true, value: wad('3550.5') }, 'trailing zeros tolerated');
  t.same(parseStrike('3550_0'), { ok: true, value: wad('3550') });
  for (const bad of ['03550', '3550_', '_5', '3550.5', '0', '0_0', '', '1_0000000000000000001', '-1', '1e3', '12 ', 'x']) {
    t.equal(parseStrike(bad).ok, false, `refuses ${JSON.stringify(bad)}`);
  }
});

t.test('canonical and user-facing forms', async (t) => {
  const key: SeriesKey = { underlying: 'BTC', strike: wad('82000'), isCall: true, expiry: 1767254400 };
  t.equal(canonicalSymbol(key), 'BTC-82000-C-1767254400');
  t.equal(canonicalSymbol({ ...key, isShort: true }), 'BTC-82000-C-1767254400-SHORT');
  t.equal(userSymbol(key), 'BTC-01JAN26-82000-C');
  t.equal(userSymbol({ ...key, isCall: false, strike: wad('3550.5'), underlying: 'eth' }), 'ETH-01JAN26-3550_5-P');
  t.equal(userSymbol({ ...key, expiry: expiryOfDate(2099, 12, 31) }), 'BTC-31DEC99-82000-C');
  t.equal(userSymbol({ ...key, expiry: expiryOfDate(2000, 2, 29) }), 'BTC-29FEB00-82000-C');
  t.throws(() => userSymbol({ ...key, expiry: expiryOfDate(2100, 1, 1) }), RangeError);
});

t.test('parseSymbol detects the format', async (t) => {
  t.same(parseSymbol('BTC-82000-C-1767254400'), {
    ok: true, value: { underlying: 'BTC', strike: wad('82000'), isCall: true, expiry: 1767254400, format: 'diffusal', isShort: false },
  });
  t.same(parseSymbol('BTC-01JAN26-82000-C'), {
    ok: true, value: { underlying: 'BTC', strike: wad('82000'), isCall: true, expiry: 1767254400, format: 'external', isShort: false },
  });
  t.same(parseSymbol('eth-3550_5-p-1767254400-short'), {
    ok: true, value: { underlying: 'ETH', strike: wad('3550.5'), isCall: false, expiry: 1767254400, format: 'diffusal', isShort: true },
  }, 'case-insensitive, as lowercased channel names arrive');
  t.same(parseSymbol('ETH-01jan26-0_5-P-SHORT'), {
    ok: true, value: { underlying: 'ETH', strike: wad('0.5'), isCall: false, expiry: 1767254400, format: 'external', isShort: true },
  }, '-SHORT on the user-facing form');
  const odd = parseSymbol('BTC-82000-C-1767225600');
  t.ok(odd.ok && odd.value.expiry === 1767225600, 'a canonical expiry off 08:00 is syntax-valid');
  t.ok(parseSymbol('1INCH-2_5-C-1767254400').ok, 'tickers may start with a digit');
});

t.test('malformed symbols', async (t) => {
  const bad = [
    '', 'BTC', 'BTC-82000-C', 'BTC-82000-C-1767254400-LONG', 'BTC-82000-C-1767254400-SHORT-SHORT',
    'BTC-82000-X-1767254400', 'BTC-82000-CALL-1767254400', 'BTC-82000-C-', 'BTC-82000-C-0', 'BTC-82000-C-01767254400',
    'BTC-82000-C-1767254400.5', 'BTC-82000-C-1e9', 'BTC-82000-C-99999999999', 'BTC-82000-C-946684799',
    'BTC--C-1767254400', 'BTC-082000-C-1767254400', 'BTC-82000_-C-1767254400', 'BTC-82000.5-C-1767254400',
    'BTC-0-C-1767254400', '-82000-C-1767254400', 'BT_C-82000-C-1767254400', 'ABCDEFGHIJKLMNOPQRSTU-1-C-1767254400',
    'BTC-32JAN26-82000-C', 'BTC-29FEB26-82000-C', 'BTC-01FOO26-82000-C', 'BTC-1JAN26-82000-C', 'BTC-01JAN2026-82000-C',
    'BTC-01JAN26-82000-Q', 'BTC-01JAN26-82000', 'BTC-01JAN26-C-82000', 'BTC 82000 C 1767254400', ' BTC-82000-C-1767254400',
    'BTC-82000-C-1767254400 ', 'BTC-82000-C-1767254400-', 'B'.repeat(101),
  ];
  for (const text of bad) {
    const r = parseSymbol(text);
    t.equal(r.ok, false, `refuses ${JSON.stringify(text)}`);
    if (!r.ok) {
      t.equal(r.error.field, 'symbol');
      t.match(r.error.message, /^Invalid symbol format/);
    }
  }
});

t.test('translateSymbol', async (t) => {
  t.same(translateSymbol('BTC-82000-C-1767254400'), {
    ok: true, value: { input: 'BTC-82000-C-1767254400', inputFormat: 'diffusal', output: 'BTC-01JAN26-82000-C', outputFormat: 'external' },
  });
  t.same(translateSymbol('BTC-01JAN26-82000-C'), {
    ok: true, value: { input: 'BTC-01JAN26-82000-C', inputFormat: 'external', output: 'BTC-82000-C-1767254400', outputFormat: 'diffusal' },
  });
  t.same(translateSymbol('BTC-82000-C-1767254400-SHORT'), {
    ok: true,
    value: { input: 'BTC-82000-C-1767254400-SHORT', inputFormat: 'diffusal', output: 'BTC-01JAN26-82000-C-SHORT', outputFormat: 'external', isShort: true },
  });
  t.same(translateSymbol('btc-01jan26-3550_50-p'), {
    ok: true, value: { input: 'btc-01jan26-3550_50-p', inputFormat: 'external', output: 'BTC-3550_5-P-1767254400', outputFormat: 'diffusal' },
  }, 'echoes the input, outputs canonical text');
  const off = translateSymbol('BTC-82000-C-1767225600');
  t.equal(off.ok, false, 'no user-facing form for an expiry off 08:00');
  if (!off.ok) t.match(off.error.message, /^Invalid symbol format: .*08:00 UTC/);
  t.equal(translateSymbol('nonsense').ok, false);
});

t.test('random round trips through both forms', async (t) => {
  const rnd = prng(21);
  const tickers = ['BTC', 'ETH', 'SOL', 'DOGE', '1INCH', 'X'];
  let bad = 0;
  for (let i = 0; i < 4000; i++) {
    // Strikes from 1e-18 to ~1e12, with every decimal count.
    const decimals = randInt(rnd, 0, 18);
    const strike = randBig(rnd, randInt(rnd, 1, 30)) * 10n ** BigInt(18 - decimals) / (rnd() < 0.3 ? 10n ** BigInt(randInt(rnd, 0, 12)) : 1n) || 1n;
    const year = randInt(rnd, 2000, 2099), month = randInt(rnd, 1, 12), day = randInt(rnd, 1, 28 + (month === 2 ? 0 : 2));
    const key: SeriesKey & { isShort: boolean } = {
      underlying: tickers[randInt(rnd, 0, tickers.length - 1)]!, strike, isCall: rnd() < 0.5, expiry: expiryOfDate(year, month, day), isShort: rnd() < 0.2,
    };
    const canonical = canonicalSymbol(key);
    const user = userSymbol(key);
    const a = parseSymbol(canonical);
    const b = parseSymbol(user);
    const same = (r: typeof a): boolean => r.ok && r.value.underlying === key.underlying && r.value.strike === key.strike &&
      r.value.isCall === key.isCall && r.value.expiry === key.expiry && r.value.isShort === key.isShort;
    if (!same(a) || !same(b)) bad++;
    const ta = translateSymbol(canonical), tb = translateSymbol(user);
    if (!ta.ok || ta.value.output !== user || !tb.ok || tb.value.output !== canonical) bad++;
    if (!parseSymbol(canonical.toLowerCase()).ok) bad++;
    const p = parseStrike(formatStrike(strike));
    if (!p.ok || p.value !== strike) bad++;
  }
  t.equal(bad, 0);
  t.equal(formatStrike(12n * 10n ** 29n), '1200000000000', 'large strikes');
});
