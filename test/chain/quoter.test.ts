/**
 * The Quoter against the engine's Black-Scholes (engine/pricing/blackScholes.ts, q = 0) on a
 * grid of spots, strikes, times, volatilities and rates: within the approximation it documents
 * (normal CDF error below 7.5e-8, so a price within about 7.5e-8 x (spot + strike)).
 */
import t from 'tap';
import { chainFixture, T0, WAD } from './support/fixture.ts';
import { pairIdOf, seriesIdOf } from './support/ids.ts';
import { BatchWriter } from '../../chain/items.ts';
import { quoterAbi } from '../../chain/artifacts.ts';
import { bsPrice } from '../../engine/pricing/blackScholes.ts';

const fx = await chainFixture('quoter');
t.teardown(() => fx.stop());
const quoter = { address: fx.addresses.quoter, abi: quoterAbi } as const;
const wad = (x: number): bigint => BigInt(Math.round(x * 1e9)) * 10n ** 9n;
const num = (x: bigint): number => Number(x) / 1e18;

t.test('price() on a grid is the engine\'s within the documented error', async (t) => {
  let worst = 0;
  let n = 0;
  for (const isCall of [true, false]) {
    for (const S of [100, 1_000, 50_000]) {
      for (const moneyness of [0.5, 0.9, 1, 1.1, 2]) {
        const K = S * moneyness;
        for (const T of [1 / 365, 30 / 365, 0.5, 2]) {
          for (const vol of [0.05, 0.3, 1.2]) {
            for (const r of [0, 0.05]) {
              const chain = num(await fx.pub.readContract({ ...quoter, functionName: 'price', args: [isCall, wad(S), wad(K), wad(T), wad(vol), wad(r)] }));
              const engine = bsPrice(isCall, S, K, T, r, 0, vol);
              const err = Math.abs(chain - engine) / (S + K);
              worst = Math.max(worst, err);
              n++;
              if (err > 1e-7) t.fail(`${isCall ? 'call' : 'put'} S ${S} K ${K} T ${T} vol ${vol} r ${r}: ${chain} vs ${engine}`);
            }
          }
        }
      }
    }
  }
  t.comment(`${n} prices, worst |chain - engine| / (S + K) = ${worst.toExponential(2)}`);
  t.ok(worst < 1e-7);
});

t.test('degenerate inputs: no time or no volatility is the discounted intrinsic value', async (t) => {
  t.equal(await fx.pub.readContract({ ...quoter, functionName: 'price', args: [true, 120n * WAD, 100n * WAD, 0n, wad(0.3), wad(0.05)] }), 20n * WAD);
  t.equal(await fx.pub.readContract({ ...quoter, functionName: 'price', args: [false, 120n * WAD, 100n * WAD, 0n, wad(0.3), 0n] }), 0n);
  const forward = num(await fx.pub.readContract({ ...quoter, functionName: 'price', args: [true, 120n * WAD, 100n * WAD, WAD, 0n, wad(0.05)] }));
  t.ok(Math.abs(forward - (120 - 100 * Math.exp(-0.05))) < 1e-9);
});

t.test('quote() of a listed series: time to expiry from `time`; unlisted refused', async (t) => {
  const pairId = pairIdOf('Q-USDC');
  const expiry = T0 + 30 * 86_400;
  const strike = 2_000n * WAD;
  const w = new BatchWriter();
  w.pair(pairId, 2);
  w.series(pairId, strike, expiry, false);
  await fx.settle(w);
  const seriesId = seriesIdOf(pairId, strike, expiry, false);
  const at = T0 - 5 * 86_400;
  const q = await fx.pub.readContract({ ...quoter, functionName: 'quote', args: [seriesId, 1_900n * WAD, wad(0.6), wad(0.04), BigInt(at)] });
  const years = ((BigInt(expiry - at)) * WAD) / 31_536_000n;
  t.equal(q, await fx.pub.readContract({ ...quoter, functionName: 'price', args: [false, 1_900n * WAD, strike, years, wad(0.6), wad(0.04)] }));
  t.ok(Math.abs(num(q) - bsPrice(false, 1900, 2000, (expiry - at) / 31_536_000, 0.04, 0, 0.6)) < 1e-7 * 3900);
  t.equal(await fx.pub.readContract({ ...quoter, functionName: 'quote', args: [seriesId, 1_900n * WAD, wad(0.6), wad(0.04), BigInt(expiry + 1)] }), 100n * WAD, 'after expiry: intrinsic');
  await t.rejects(fx.pub.readContract({ ...quoter, functionName: 'quote', args: [pairId, WAD, WAD, 0n, 0n] }), /SeriesNotListed/);
});
