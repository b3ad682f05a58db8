/**
 * The chain's position arithmetic against the engine's (engine/actors/position.ts): random fills
 * between a few portfolios (book fills with fees and partial fills, liquidation fills, the
 * insurance fund's take-overs) are applied to the engine's Position objects and settled on
 * chain; after every batch every position, deferred premium and cash read with the batch views
 * equals the engine's to the unit, and the solvency identity holds.
 */
import t, { type Test } from 'tap';
import type { Address, Hex } from 'viem';
import { accountOf, chainFixture, FUND, T0, WAD } from './support/fixture.ts';
import { pairIdOf, seriesIdOf } from './support/ids.ts';
import { BatchWriter } from '../../chain/items.ts';
import { rng } from '../persistence/fixtures/rng.ts';
import { collateralVaultAbi, positionManagerAbi } from '../../chain/artifacts.ts';
import { applyToPosition, balanceOf, collateralOf, emptyPosition, premiumOf, type Position } from '../../engine/actors/position.ts';

const LOT = 10n ** 16n; // the pair's size step: 0.01 contract
const TICK_DECIMALS = 2;
const TICK_VALUE = 10n ** BigInt(18 - TICK_DECIMALS);
const CAP_RATE = 125n * 10n ** 15n;

const fx = await chainFixture('differential');
t.teardown(() => fx.stop());
const pairId = pairIdOf('DIFF-USDC');
const EXPIRY = T0 + 90 * 86400;
const series: Hex[] = [seriesIdOf(pairId, 50_000n * WAD, EXPIRY, true), seriesIdOf(pairId, 45_000n * WAD, EXPIRY, false)];
const people = [0, 1, 2, 3, 4].map((i) => accountOf(`differential:${i}`));
/** The portfolios that trade: (owner, portfolioId). */
const portfolios: { account: (typeof people)[number]; id: bigint }[] = [
  ...people.map((account) => ({ account, id: 1n })),
  { account: people[0]!, id: 2n },
  { account: people[1]!, id: 2n },
];
const START = 10n ** 13n;

// The engine's side.
const cash = new Map<string, bigint>();
const positions = new Map<string, Position>();
const key = (owner: Address, id: bigint): string => `${owner}:${id}`;
const credit = (owner: Address, id: bigint, v: bigint): void => {
  cash.set(key(owner, id), (cash.get(key(owner, id)) ?? 0n) + v);
};
const seen = { reduced: 0, flipped: 0, fills: 0 };
function move(owner: Address, id: bigint, seriesId: Hex, lots: number, flow: bigint): void {
  const k = `${owner}:${id}:${seriesId}`;
  let p = positions.get(k);
  if (p === undefined) positions.set(k, (p = emptyPosition(seriesId, LOT)));
  const c = applyToPosition(p, lots, flow);
  const before = Number(c.before);
  const after = Number(c.after);
  if (before !== 0 && Math.sign(before) !== Math.sign(lots)) seen.reduced++;
  if (before !== 0 && after !== 0 && Math.sign(before) !== Math.sign(after)) seen.flipped++;
  credit(owner, id, BigInt(c.realized));
}
/** A book or liquidation fill as the engine books it: the buyer first, then the seller (engine/flows/fill.ts). */
function trade(buyer: [Address, bigint], seller: [Address, bigint], seriesId: Hex, lots: number, price: bigint, buyerFee: bigint, sellerFee: bigint): void {
  const premium = collateralOf(BigInt(lots) * LOT, price);
  seen.fills++;
  move(buyer[0], buyer[1], seriesId, lots, -premium);
  move(seller[0], seller[1], seriesId, -lots, premium);
  credit(buyer[0], buyer[1], -buyerFee);
  credit(seller[0], seller[1], -sellerFee);
  credit(fx.addresses.collateralVault, 0n, buyerFee + sellerFee);
}

async function compare(t: Test, what: string): Promise<void> {
  const accounts = [...portfolios.map((p) => [p.account.address, p.id] as const), [FUND, 1n] as const, [fx.addresses.collateralVault, 0n] as const];
  const onChain = await fx.pub.readContract({ address: fx.addresses.collateralVault, abi: collateralVaultAbi, functionName: 'cashOfMany', args: [accounts.map((a) => a[0]), accounts.map((a) => a[1])] });
  t.same(onChain, accounts.map(([o, id]) => cash.get(key(o, id)) ?? 0n), `${what}: cash`);
  const keys = [...accounts.slice(0, -1)].flatMap(([o, id]) => series.map((s) => [o, id, s] as const));
  const [balances, premiums] = await fx.pub.readContract({ address: fx.addresses.positionManager, abi: positionManagerAbi, functionName: 'positionsOf', args: [keys.map((k) => k[0]), keys.map((k) => k[1]), keys.map((k) => k[2])] });
  const expected = keys.map(([o, id, s]) => positions.get(`${o}:${id}:${s}`));
  t.same(balances, expected.map((p) => (p === undefined ? 0n : balanceOf(p))), `${what}: balances`);
  t.same(premiums, expected.map((p) => (p === undefined ? 0n : premiumOf(p))), `${what}: deferred premiums`);
  const [tokenBalance, totalCash, totalPremium, pending, imbalance] = await fx.solvency();
  t.equal(totalPremium, [...positions.values()].reduce((s, p) => s + premiumOf(p), 0n), `${what}: totalPremium`);
  t.equal(tokenBalance, totalCash + totalPremium + pending - imbalance, `${what}: solvency`);
}

t.test('random fills: the chain books exactly what the engine books', async (t) => {
  const w = new BatchWriter();
  w.pair(pairId, TICK_DECIMALS);
  for (const s of series) w.series(pairId, s === series[0] ? 50_000n * WAD : 45_000n * WAD, EXPIRY, s === series[0]);
  for (const p of portfolios) {
    w.mint(p.account.address, p.id, START);
    credit(p.account.address, p.id, START);
  }
  w.mint(FUND, 1n, START);
  credit(FUND, 1n, START);
  await fx.settle(w);
  await compare(t, 'funded');
  const rand = rng(20240601).next;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  let nonce = 1n;
  for (let batch = 0; batch < 12; batch++) {
    w.reset();
    const fills = 6 + Math.floor(rand() * 8);
    for (let f = 0; f < fills; f++) {
      const seriesId = pick(series);
      const maker = pick(portfolios);
      let taker = pick(portfolios);
      while (taker === maker) taker = pick(portfolios);
      const tick = 1 + Math.floor(rand() * 200_000);
      const price = BigInt(tick) * TICK_VALUE;
      const makerBuys = rand() < 0.5;
      const kind = rand();
      // Sizes in lots; a maker order may fill in up to three pieces (partial fills).
      const pieces = 1 + Math.floor(rand() * 3);
      const lots = Array.from({ length: pieces }, () => 1 + Math.floor(rand() * 700));
      const total = lots.reduce((s, x) => s + x, 0);
      const mo = await fx.signOrder(maker.account, { seriesId, portfolioId: maker.id, isBuy: makerBuys, tick, size: BigInt(total) * LOT, expiry: T0 + 86400, nonce: nonce++, deadline: BigInt(T0 + 86400) });
      const mi = w.order(mo.orderId, mo.order);
      for (const l of lots) {
        const size = BigInt(l) * LOT;
        const cap = (collateralOf(size, price) * CAP_RATE) / WAD;
        const m: [Address, bigint] = [maker.account.address, maker.id];
        if (kind < 0.15) {
          // The liquidated portfolio takes the other side of the book order, unsigned, no fee.
          const liq: [Address, bigint] = [taker.account.address, taker.id];
          w.liquidationFill(mi, liq[0], liq[1], size);
          if (makerBuys) trade(m, liq, seriesId, l, price, 0n, 0n);
          else trade(liq, m, seriesId, l, price, 0n, 0n);
          continue;
        }
        const to = await fx.signOrder(taker.account, { seriesId, portfolioId: taker.id, isBuy: !makerBuys, tick: makerBuys ? tick - Math.floor(rand() * tick) : tick + Math.floor(rand() * 100), size, expiry: T0 + 86400, nonce: nonce++, deadline: BigInt(T0 + 86400) });
        const makerFee = cap === 0n ? 0n : BigInt(Math.floor((rand() * 2 - 1) * Number(cap)));
        const takerFee = cap === 0n ? 0n : BigInt(Math.floor(rand() * Number(cap)));
        w.fill(mi, w.order(to.orderId, to.order), size, makerFee, takerFee);
        const tk: [Address, bigint] = [taker.account.address, taker.id];
        if (makerBuys) trade(m, tk, seriesId, l, price, makerFee, takerFee);
        else trade(tk, m, seriesId, l, price, takerFee, makerFee);
      }
      if (rand() < 0.2) {
        // The insurance fund takes over part of a portfolio at a band edge price.
        const liq = pick(portfolios);
        const l = 1 + Math.floor(rand() * 300);
        const fundPrice = BigInt(1 + Math.floor(rand() * 10 ** 9)) * 10n ** 12n;
        const liquidatedBuys = rand() < 0.5;
        w.fundFill(liq.account.address, liq.id, seriesId, liquidatedBuys, BigInt(l) * LOT, fundPrice);
        const a: [Address, bigint] = [liq.account.address, liq.id];
        if (liquidatedBuys) trade(a, [FUND, 1n], seriesId, l, fundPrice, 0n, 0n);
        else trade([FUND, 1n], a, seriesId, l, fundPrice, 0n, 0n);
      }
    }
    await fx.settle(w);
    await compare(t, `batch ${batch + 1} (${w.fills} fills)`);
  }
  t.ok(seen.fills > 150 && seen.reduced > 50 && seen.flipped > 10, `fills ${seen.fills}, reducing ${seen.reduced}, flipping ${seen.flipped}`);
});
