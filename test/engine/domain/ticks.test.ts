import t from 'tap';
import { exactTick, isTickDecimals, priceToTick, tickSize, tickToPrice } from '../../../engine/domain/ticks.ts';
import { UINT32_MAX, WAD } from '../../../engine/domain/fixed.ts';
import { prng, randBig, randInt } from './prng.ts';

t.test('interface example: tickDecimals 4, price 0.05 -> tick 500', async (t) => {
  t.equal(priceToTick(50000000000000000n, 4, false), 500n);
  t.same(exactTick(50000000000000000n, 4, 'price'), { ok: true, value: 500 });
  t.equal(tickToPrice(500, 4), 50000000000000000n);
  t.equal(tickToPrice(500n, 4), 50000000000000000n);
});

t.test('tick size and bounds', async (t) => {
  t.equal(tickSize(18), 1n);
  t.equal(tickSize(0), WAD);
  t.equal(tickSize(2), 10n ** 16n);
  for (const bad of [-1, 19, 2.5, NaN]) t.throws(() => tickSize(bad), RangeError, `tickDecimals ${bad}`);
  t.throws(() => tickToPrice(1.5, 2), RangeError);
  t.ok(isTickDecimals(0));
  t.notOk(isTickDecimals('2'));
});

t.test('priceToTick rounds toward the requested side', async (t) => {
  const p = 1234567n * 10n ** 13n; // 12.34567 with tickDecimals 2 -> 1234.567 ticks
  t.equal(priceToTick(p, 2, false), 1234n);
  t.equal(priceToTick(p, 2, true), 1235n);
  t.equal(priceToTick(-p, 2, false), -1235n, 'floor for negatives');
  t.equal(priceToTick(-p, 2, true), -1234n);
  t.equal(priceToTick(0n, 5, true), 0n);
});

t.test('exactTick refuses off-grid and oversized prices', async (t) => {
  const off = exactTick(50010000000000000n, 3, 'price');
  t.same(off, { ok: false, error: { field: 'price', message: 'price must be a multiple of the tick size 0.001' } });
  const big = exactTick((UINT32_MAX + 1n) * 10n ** 16n, 2, 'price');
  t.equal(big.ok, false);
  if (!big.ok) t.match(big.error.message, /exceeds uint32/);
  t.same(exactTick(UINT32_MAX * 10n ** 16n, 2, 'price'), { ok: true, value: 4294967295 });
  t.equal(exactTick(-(10n ** 16n), 2, 'price').ok, false);
});

t.test('random round trips', async (t) => {
  const rnd = prng(9);
  let bad = 0;
  for (let i = 0; i < 5000; i++) {
    const td = randInt(rnd, 0, 18);
    const tick = randBig(rnd, 9) % (UINT32_MAX + 1n);
    const price = tickToPrice(tick, td);
    if (priceToTick(price, td, false) !== tick || priceToTick(price, td, true) !== tick) bad++;
    const r = exactTick(price, td, 'price');
    if (!r.ok || BigInt(r.value) !== tick) bad++;
    if (td < 18) {
      const nudged = price + 1n;
      if (priceToTick(nudged, td, true) !== tick + 1n || priceToTick(nudged, td, false) !== tick) bad++;
      if (exactTick(nudged, td, 'price').ok) bad++;
    }
  }
  t.equal(bad, 0);
});

t.test('tickToPrice: cached prices stay right across ticks that share a cache slot and across tick sizes', async (t) => {
  const rnd = prng(7);
  let bad = 0;
  for (let i = 0; i < 20_000; i++) {
    // Few distinct low bits, many ticks and decimals: slots are reused and overwritten constantly.
    const tick = randInt(rnd, 0, 7) + 1024 * randInt(rnd, 0, 4_000_000);
    const td = randInt(rnd, 0, 18);
    if (tickToPrice(tick, td) !== BigInt(tick) * 10n ** BigInt(18 - td)) bad++;
  }
  t.equal(bad, 0);
  t.equal(tickToPrice(0, 2), 0n, 'tick 0 (an empty slot holds no tick)');
  t.equal(tickToPrice(2 ** 32 + 5, 0), (2n ** 32n + 5n) * WAD, 'ticks above 2^32');
});
