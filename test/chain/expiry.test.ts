/**
 * Listings and expiry settlement (docs/chain.md, PAIR to SETTLE_POSITION): the oracle key's
 * signed price once the series has expired, the settled mark, and each position paid
 * `balance x intrinsic / 10^30` (truncated toward zero) plus its deferred premium, the
 * truncations counted in settlementImbalance so that solvency holds.
 */
import t from 'tap';
import { parseEventLogs, type Hex } from 'viem';
import { accountOf, chainFixture, T0, WAD } from './support/fixture.ts';
import { pairIdOf, seriesIdOf } from './support/ids.ts';
import { BatchWriter } from '../../chain/items.ts';
import { oracleAbi, positionManagerAbi, seriesRegistryAbi } from '../../chain/artifacts.ts';

const fx = await chainFixture('expiry');
t.teardown(() => fx.stop());
const traders = [0, 1, 2, 3].map((i) => accountOf(`expiry:trader:${i}`));
const pairId = pairIdOf('EXP-USDC');
const E = T0 - 4000;
const CALL_STRIKE = 1000n * WAD;
const PUT_STRIKE = 1300n * WAD;
const call = seriesIdOf(pairId, CALL_STRIKE, E, true);
const put = seriesIdOf(pairId, PUT_STRIKE, E, false);
const later = seriesIdOf(pairId, CALL_STRIKE, E + 100, true);
const PRICE = 1234_567_891_234_567_891_234n; // 1234.567... WAD
const registry = { address: fx.addresses.seriesRegistry, abi: seriesRegistryAbi } as const;
const oracle = { address: fx.addresses.oracle, abi: oracleAbi } as const;
const state = () => fx.fingerprint({ positions: traders.flatMap((a) => [[a.address, 1n, call], [a.address, 1n, put]] as [Hex, bigint, Hex][]), accounts: traders.map((a) => [a.address, 1n] as [Hex, bigint]) });

async function order(owner: typeof traders[0], seriesId: Hex, isBuy: boolean, tick: number, size: bigint, nonce: bigint) {
  return fx.signOrder(owner, { seriesId, portfolioId: 1n, isBuy, tick, size, expiry: T0 + 86400, nonce, deadline: BigInt(T0 + 86400) });
}

t.test('listings: PAIR, SERIES, and their refusals', async (t) => {
  const w = new BatchWriter();
  w.pair(pairId, 2);
  w.series(pairId, CALL_STRIKE, E, true);
  w.series(pairId, PUT_STRIKE, E, false);
  w.series(pairId, CALL_STRIKE, E + 100, true);
  for (const a of traders) w.mint(a.address, 1n, 10n ** 12n);
  const receipt = await fx.settle(w, { matchTime: BigInt(E - 2000) });
  t.equal(parseEventLogs({ abi: seriesRegistryAbi, logs: receipt.logs, eventName: 'SeriesListed' }).length, 3);
  t.same(await fx.seriesOf(call), [pairId, CALL_STRIKE, BigInt(E), true, true, false]);
  t.same(await fx.pub.readContract({ ...registry, functionName: 'pairOf', args: [pairId] }), [true, 2n]);
  t.equal(await fx.pub.readContract({ ...registry, functionName: 'seriesId', args: [pairId, CALL_STRIKE, BigInt(E), true] }), call);
  const again = new BatchWriter();
  again.pair(pairId, 2);
  t.match(await fx.settleReverts(again, state), { name: 'AlreadyListed', args: { item: 0n, id: pairId } });
  again.reset();
  again.series(pairId, CALL_STRIKE, E, true);
  t.match(await fx.settleReverts(again, state), { name: 'AlreadyListed', args: { item: 0n, id: call } });
  again.reset();
  const unknown = pairIdOf('NOPE-USDC');
  again.series(unknown, 1n, E, true);
  t.match(await fx.settleReverts(again, state), { name: 'UnknownPair', args: { item: 0n, pairId: unknown } });
  again.reset();
  again.pair(pairIdOf('TICK-USDC'), 18);
  const bytes = again.bytes();
  bytes[33] = 19;
  t.match(await fx.settleReverts(bytes, state), { name: 'BadTickDecimals', args: { item: 0n, tickDecimals: 19n } });
});

t.test('positions opened before expiry', async (t) => {
  const [a, b, c, d] = traders as [typeof traders[0], typeof traders[0], typeof traders[0], typeof traders[0]];
  const w = new BatchWriter();
  const size1 = 1_234_567_891_234_567_891n;
  const size2 = 777_777_777_777_777_777n;
  const fills: [typeof a, typeof a, Hex, number, bigint][] = [[a, b, call, 23_456, size1], [c, d, call, 11_111, size2], [b, c, put, 7_777, size2], [d, a, put, 5_000, size1]];
  let nonce = 1n;
  for (const [maker, taker, series, tick, size] of fills) {
    const mo = await order(maker, series, false, tick, 2n * size, nonce++);
    const to = await order(taker, series, true, tick, 2n * size, nonce++);
    w.fill(w.order(mo.orderId, mo.order), w.order(to.orderId, to.order), size, 0n, 0n);
  }
  // a sells to three buyers in odd sizes: the payouts' truncations do not cancel.
  for (const [buyer, size] of [[b, 333_333_343_209_876_461n], [c, 444_444_464_197_530_699n], [d, 555_555_585_185_184_941n]] as const) {
    const so = await order(a, call, false, 20_000, size, nonce++);
    const bo = await order(buyer, call, true, 20_000, size, nonce++);
    w.fill(w.order(so.orderId, so.order), w.order(bo.orderId, bo.order), size, 0n, 0n);
  }
  // b closes part of its call: realised cash, a smaller deferred premium.
  const mo = await order(b, call, false, 30_000, size2, nonce++);
  const to = await order(d, call, true, 30_000, size2, nonce++);
  w.fill(w.order(mo.orderId, mo.order), w.order(to.orderId, to.order), size2 / 3n, 0n, 0n);
  await fx.settle(w, { matchTime: BigInt(E - 1000) });
  t.equal(await fx.positionOf(a.address, 1n, call), -2_567_901_283_827_159_992n);
  t.ok((await fx.premiumOf(b.address, 1n, call)) < 0n);
});

t.test('SETTLEMENT_PRICE: not before expiry, only the oracle key, once', async (t) => {
  const sig = await fx.signSettlementPrice(pairId, E, PRICE);
  const early = new BatchWriter();
  early.settlementPrice(pairId, E, PRICE, sig);
  t.match(await fx.settleReverts(early, state, { matchTime: BigInt(E - 1) }), { name: 'NotExpired', args: { item: 0n, expiry: BigInt(E), matchTime: BigInt(E - 1) } });
  const bad = new BatchWriter();
  bad.settlementPrice(pairId, E, PRICE, await fx.signSettlementPrice(pairId, E, PRICE, fx.relayer));
  t.match(await fx.settleReverts(bad, state, { matchTime: BigInt(E) }), { name: 'BadOracleSignature', args: { item: 0n, recovered: fx.relayer.address } }, 'the relayer\'s key is not the oracle\'s');
  bad.reset();
  bad.settlementPrice(pairId, E, PRICE + 1n, sig);
  const err = await fx.settleReverts(bad, state, { matchTime: BigInt(E) });
  t.match(err, { name: 'BadOracleSignature', args: { item: 0n } }, 'a price other than the one signed');
  t.not(err!.args.recovered, fx.oracleSigner.address);
  const receipt = await fx.settle(early, { matchTime: BigInt(E) });
  const [posted] = parseEventLogs({ abi: oracleAbi, logs: receipt.logs, eventName: 'SettlementPricePosted' });
  t.same(posted?.args, { pairId, expiry: BigInt(E), price: PRICE });
  t.equal(await fx.settlementPrice(pairId, BigInt(E)), PRICE);
  t.equal(await fx.pub.readContract({ ...oracle, functionName: 'hasSettlementPrice', args: [pairId, BigInt(E + 100)] }), false);
  t.match(await fx.settleReverts(early, state), { name: 'PriceAlreadyPosted', args: { item: 0n, pairId, expiry: BigInt(E) } });
});

t.test('SERIES_SETTLED needs the price; SETTLE_POSITION needs the mark; a settled series takes no fill', async (t) => {
  const w = new BatchWriter();
  w.settlePosition(traders[0]!.address, 1n, call);
  t.match(await fx.settleReverts(w, state), { name: 'NotSettled', args: { item: 0n, seriesId: call } });
  w.reset();
  w.seriesSettled(later);
  t.match(await fx.settleReverts(w, state), { name: 'NoSettlementPrice', args: { item: 0n, pairId, expiry: BigInt(E + 100) } });
  w.reset();
  const unknown = seriesIdOf(pairId, 1n, E, true);
  w.seriesSettled(unknown);
  t.match(await fx.settleReverts(w, state), { name: 'UnknownSeries', args: { item: 0n, seriesId: unknown } });
  w.reset();
  w.seriesSettled(call);
  w.seriesSettled(put);
  const receipt = await fx.settle(w);
  t.equal(parseEventLogs({ abi: seriesRegistryAbi, logs: receipt.logs, eventName: 'SeriesMarkedSettled' }).length, 2);
  t.same((await fx.seriesOf(call)).slice(4), [true, true]);
  t.same(await fx.pub.readContract({ ...registry, functionName: 'intrinsicOf', args: [put] }), [true, PUT_STRIKE - PRICE]);
  w.reset();
  w.seriesSettled(call);
  t.match(await fx.settleReverts(w, state), { name: 'SeriesSettled', args: { item: 0n, seriesId: call } });
  const mo = await order(traders[0]!, call, false, 100, WAD, 100n);
  const to = await order(traders[1]!, call, true, 100, WAD, 101n);
  w.reset();
  w.fill(w.order(mo.orderId, mo.order), w.order(to.orderId, to.order), WAD, 0n, 0n);
  t.match(await fx.settleReverts(w, state), { name: 'SeriesSettled', args: { item: 2n, seriesId: call } });
});

t.test('SETTLE_POSITION pays balance x intrinsic / 10^30 + premium and removes the position', async (t) => {
  const intrinsic = { [call]: PRICE - CALL_STRIKE, [put]: PUT_STRIKE - PRICE } as Record<Hex, bigint>;
  const expected = new Map<string, bigint>();
  let imbalance = 0n;
  for (const a of traders) {
    for (const s of [call, put]) {
      const balance = await fx.positionOf(a.address, 1n, s);
      const premium = await fx.premiumOf(a.address, 1n, s);
      const value = (balance * intrinsic[s]!) / 10n ** 30n; // bigint division truncates toward zero
      imbalance += value;
      expected.set(a.address, (expected.get(a.address) ?? (await fx.cashOf(a.address, 1n))) + value + premium);
    }
  }
  t.not(imbalance, 0n, 'the truncations do not cancel here');
  const w = new BatchWriter();
  for (const a of traders) for (const s of [call, put]) w.settlePosition(a.address, 1n, s);
  w.settlePosition(accountOf('expiry:nobody').address, 1n, call);
  const receipt = await fx.settle(w);
  for (const a of traders) {
    t.equal(await fx.cashOf(a.address, 1n), expected.get(a.address), `${a.address} paid`);
    for (const s of [call, put]) {
      t.equal(await fx.positionOf(a.address, 1n, s), 0n);
      t.equal(await fx.premiumOf(a.address, 1n, s), 0n);
    }
  }
  t.equal(parseEventLogs({ abi: positionManagerAbi, logs: receipt.logs, eventName: 'PositionSettled' }).length, 8, 'one event a position held, none for an empty one');
  const [tokenBalance, totalCash, totalPremium, pending, settlementImbalance] = await fx.solvency();
  t.equal(settlementImbalance, imbalance);
  t.equal(totalPremium, 0n, 'no deferred premium left');
  t.equal(tokenBalance, totalCash + totalPremium + pending - settlementImbalance);
});
