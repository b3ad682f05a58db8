/**
 * ORDER and FILL (docs/chain.md "Items"): every check of the tables, each in a batch that
 * breaks it alone, reverting with its custom error naming the item and leaving the state as it
 * was; then the paths that must pass (partial fills across batches, an MMM in portfolio 0, a
 * maker rebate at the cap, an expired maker deadline).
 */
import t from 'tap';
import { parseEventLogs, type Hex } from 'viem';
import { chainFixture, T0, WAD } from './support/fixture.ts';
import { capOf, listMarket, TICK_VALUE, EXPIRY, STRIKE } from './support/market.ts';
import { seriesIdOf } from './support/ids.ts';
import { BatchWriter } from '../../chain/items.ts';
import { orderBookAbi } from '../../chain/artifacts.ts';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

const fx = await chainFixture('orderChecks');
t.teardown(() => fx.stop());
const m = await listMarket(fx, 'ORD', 6);
type Account = (typeof m.accounts)[number];
const [alice, bob, carol, dave, erin, frank] = m.accounts as [Account, Account, Account, Account, Account, Account];
const MT = BigInt(T0 - 1000);
fx.setMatchTime(MT);

/** A batch of a maker's and a taker's order and a fill between them, built by `f`. */
async function pair(opts: {
  makerAccount?: Account; makerBuys?: boolean; makerTick?: number; takerTick?: number; size?: bigint; fill?: bigint; fees?: [bigint, bigint];
  maker?: Parameters<typeof m.order>[4]; taker?: Parameters<typeof m.order>[4];
} = {}) {
  const size = opts.size ?? 2n * WAD;
  const mo = await m.order(opts.makerAccount ?? alice, opts.makerBuys ?? false, opts.makerTick ?? 100, size, opts.maker);
  const to = await m.order(bob, !(opts.makerBuys ?? false), opts.takerTick ?? opts.makerTick ?? 100, size, opts.taker);
  const w = new BatchWriter();
  const mi = w.order(mo.orderId, mo.order);
  const ti = w.order(to.orderId, to.order);
  w.fill(mi, ti, opts.fill ?? WAD, opts.fees?.[0] ?? 0n, opts.fees?.[1] ?? 0n);
  return { w, maker: mo, taker: to };
}

const state = (orders: { orderId: Hex; order: { owner: Hex } }[] = []) => () =>
  fx.fingerprint({
    accounts: [[alice.address, 1n], [bob.address, 1n], [frank.address, 1n], [fx.addresses.collateralVault, 0n]],
    positions: [[alice.address, 1n, m.seriesId], [bob.address, 1n, m.seriesId], [frank.address, 1n, m.seriesId]],
    orders: orders.map((o) => [o.order.owner, o.orderId]),
  });

t.test('a signature by another key than the owner\'s: BadSignature naming both', async (t) => {
  const forged = await fx.signOrder(carol, { seriesId: m.seriesId, portfolioId: 1n, isBuy: false, tick: 100, size: WAD, expiry: T0 + 86400, nonce: 9_000n, deadline: BigInt(T0 + 86400) });
  const w = new BatchWriter();
  w.order(forged.orderId, { ...forged.order, owner: alice.address });
  t.match(await fx.settleReverts(w, state()), { name: 'BadSignature', args: { item: 0n, expected: alice.address, recovered: carol.address }, item: 0 });
});

t.test('an order field changed after signing: BadSignature', async (t) => {
  const { maker, taker } = await pair();
  const w = new BatchWriter();
  w.order(maker.orderId, maker.order);
  w.order(taker.orderId, { ...taker.order, size: taker.order.size + 1n });
  const err = await fx.settleReverts(w, state());
  t.match(err, { name: 'BadSignature', args: { item: 1n, expected: bob.address }, item: 1 });
  t.not(err!.args.recovered, bob.address);
});

t.test('a high-s or a v of 0/1 signature recovers to no one', async (t) => {
  const { maker } = await pair();
  const sig = maker.order.signature;
  const s = BigInt(`0x${sig.slice(66, 130)}`);
  const v = parseInt(sig.slice(130), 16);
  const high = `${sig.slice(0, 66)}${(N - s).toString(16).padStart(64, '0')}${(v === 27 ? 28 : 27).toString(16)}` as Hex;
  for (const signature of [high]) {
    const w = new BatchWriter();
    w.order(maker.orderId, { ...maker.order, signature });
    t.match(await fx.settleReverts(w, state()), { name: 'BadSignature', args: { item: 0n, expected: alice.address, recovered: '0x0000000000000000000000000000000000000000' } });
  }
  // v 0/1 cannot be written (the encoder refuses it); patched in the bytes it recovers to no one.
  const w = new BatchWriter();
  w.order(maker.orderId, maker.order);
  const bytes = w.bytes();
  bytes[214] = v - 27;
  t.match(await fx.settleReverts(bytes, state()), { name: 'BadSignature', args: { recovered: '0x0000000000000000000000000000000000000000' } });
});

t.test('Overfilled within one batch and across two', async (t) => {
  const mo = await m.order(alice, false, 100, WAD);
  const to = await m.order(bob, true, 100, 3n * WAD);
  const w = new BatchWriter();
  const mi = w.order(mo.orderId, mo.order);
  const ti = w.order(to.orderId, to.order);
  w.fill(mi, ti, (6n * WAD) / 10n, 0n, 0n);
  w.fill(mi, ti, (6n * WAD) / 10n, 0n, 0n);
  t.match(await fx.settleReverts(w, state([mo, to])), { name: 'Overfilled', args: { item: 3n, orderId: mo.orderId, filledAfter: (12n * WAD) / 10n, signedSize: WAD }, item: 3 });
  w.reset();
  w.fill(w.order(mo.orderId, mo.order), w.order(to.orderId, to.order), (6n * WAD) / 10n, 0n, 0n);
  await fx.settle(w);
  t.equal(await fx.filledOf(alice.address, mo.orderId), (6n * WAD) / 10n);
  w.reset();
  w.fill(w.order(mo.orderId, mo.order), w.order(to.orderId, to.order), (6n * WAD) / 10n, 0n, 0n);
  t.match(await fx.settleReverts(w, state([mo, to])), { name: 'Overfilled', args: { item: 2n, orderId: mo.orderId, filledAfter: (12n * WAD) / 10n, signedSize: WAD } }, 'the next batch');
  w.reset();
  w.fill(w.order(mo.orderId, mo.order), w.order(to.orderId, to.order), (4n * WAD) / 10n, 0n, 0n);
  await fx.settle(w);
  t.equal(await fx.filledOf(alice.address, mo.orderId), WAD, 'filled exactly to its size across two batches');
  t.equal(await fx.filledOf(bob.address, to.orderId), WAD);
  const many = await fx.pub.readContract({ address: fx.addresses.orderBook, abi: orderBookAbi, functionName: 'filledOfMany', args: [[alice.address, bob.address, carol.address], [mo.orderId, to.orderId, mo.orderId]] });
  t.same(many, [WAD, WAD, 0n]);
});

t.test('an order declared twice in a batch still fills at most its size', async (t) => {
  const mo = await m.order(alice, false, 100, WAD);
  const to = await m.order(bob, true, 100, 3n * WAD);
  const w = new BatchWriter();
  const a = w.order(mo.orderId, mo.order);
  const b = w.order(to.orderId, to.order);
  w.fill(a, b, WAD, 0n, 0n);
  const twice = new Uint8Array([...w.bytes(), ...w.bytes().subarray(0, 215)]);
  const fill2 = new BatchWriter();
  fill2.order(`0x${'00'.repeat(31)}01`, mo.order);
  fill2.order(`0x${'00'.repeat(31)}02`, mo.order);
  fill2.order(`0x${'00'.repeat(31)}03`, to.order);
  fill2.fill(2, 1, 1n, 0n, 0n);
  // ORDER, ORDER, FILL, ORDER (mo again, number 2), FILL 2 x 1.
  const bytes = new Uint8Array([...twice, ...fill2.bytes().subarray(215 * 3)]);
  bytes[twice.length + 1] = 0;
  bytes[twice.length + 2] = 2;
  bytes[twice.length + 4] = 1;
  t.match(await fx.settleReverts(bytes, state([mo, to])), { name: 'Overfilled', args: { item: 4n, orderId: mo.orderId, filledAfter: WAD + 1n } });
});

t.test('SeriesMismatch, SameSide, UnknownOrder', async (t) => {
  const other = seriesIdOf(m.pairId, STRIKE, EXPIRY, false);
  const { w: mismatch } = await pair({ taker: { seriesId: other } });
  t.match(await fx.settleReverts(mismatch, state()), { name: 'SeriesMismatch', args: { item: 2n, makerSeries: m.seriesId, takerSeries: other } });
  const mo = await m.order(alice, true, 100, WAD);
  const to = await m.order(bob, true, 100, WAD);
  const w = new BatchWriter();
  w.fill(w.order(mo.orderId, mo.order), w.order(to.orderId, to.order), WAD, 0n, 0n);
  t.match(await fx.settleReverts(w, state()), { name: 'SameSide', args: { item: 2n } });
  const { w: unknown } = await pair();
  const bytes = unknown.bytes();
  bytes[215 * 2 + 4] = 2; // the taker index: order number 2, not declared
  t.match(await fx.settleReverts(bytes, state()), { name: 'UnknownOrder', args: { item: 2n, index: 2n } });
  // A fill naming an order declared only after it.
  const late = new Uint8Array([...bytes.subarray(0, 215), ...bytes.subarray(430, 483), ...bytes.subarray(215, 430)]);
  late[215 + 4] = 1;
  t.match(await fx.settleReverts(late, state()), { name: 'UnknownOrder', args: { item: 1n, index: 1n } });
});

t.test('UnknownSeries and SeriesExpired', async (t) => {
  const unlisted = seriesIdOf(m.pairId, STRIKE + 1n, EXPIRY, true);
  const { w } = await pair({ maker: { seriesId: unlisted }, taker: { seriesId: unlisted } });
  t.match(await fx.settleReverts(w, state()), { name: 'UnknownSeries', args: { item: 2n, seriesId: unlisted } });
  const expiry = T0 - 2000;
  const listing = new BatchWriter();
  listing.series(m.pairId, STRIKE, expiry, true);
  await fx.settle(listing);
  const expired = seriesIdOf(m.pairId, STRIKE, expiry, true);
  const { w: e } = await pair({ maker: { seriesId: expired }, taker: { seriesId: expired } });
  t.match(await fx.settleReverts(e, state()), { name: 'SeriesExpired', args: { item: 2n, seriesId: expired, expiry: BigInt(expiry) } });
});

t.test('ZeroSize and a size beyond int128', async (t) => {
  const { w } = await pair({ fill: 0n });
  t.match(await fx.settleReverts(w, state()), { name: 'ZeroSize', args: { item: 2n } });
  const { w: big } = await pair({ size: 1n << 127n, fill: 1n << 127n });
  t.match(await fx.settleReverts(big, state()), { name: 'ValueOutOfRange', args: { item: 2n } });
});

t.test('PriceOutsideLimit: a buyer below the maker\'s price, a seller above it', async (t) => {
  const { w } = await pair({ makerTick: 100, takerTick: 99 });
  t.match(await fx.settleReverts(w, state()), { name: 'PriceOutsideLimit', args: { item: 2n, price: 100n * TICK_VALUE, limit: 99n * TICK_VALUE } });
  const { w: s } = await pair({ makerBuys: true, makerTick: 100, takerTick: 101 });
  t.match(await fx.settleReverts(s, state()), { name: 'PriceOutsideLimit', args: { item: 2n, price: 100n * TICK_VALUE, limit: 101n * TICK_VALUE } });
  const { w: better } = await pair({ makerTick: 100, takerTick: 150 });
  await fx.settle(better);
  t.pass('a buyer whose limit is above the maker\'s price trades at the maker\'s price');
});

t.test('OrderExpired (good-till) of either order, DeadlinePassed of the taker only', async (t) => {
  const { w, maker } = await pair({ maker: { expiry: Number(MT) } });
  t.match(await fx.settleReverts(w, state()), { name: 'OrderExpired', args: { item: 2n, orderId: maker.orderId, expiry: MT } });
  const { w: w2, taker } = await pair({ taker: { expiry: Number(MT) - 1 } });
  t.match(await fx.settleReverts(w2, state()), { name: 'OrderExpired', args: { item: 2n, orderId: taker.orderId, expiry: MT - 1n } });
  const { w: w3, taker: t3 } = await pair({ taker: { deadline: MT - 1n } });
  t.match(await fx.settleReverts(w3, state()), { name: 'DeadlinePassed', args: { item: 2n, orderId: t3.orderId, deadline: MT - 1n } });
  const { w: ok } = await pair({ taker: { deadline: MT }, maker: { deadline: MT - 500n } });
  await fx.settle(ok);
  t.pass('the taker\'s deadline at the match time, and a maker\'s long past: accepted');
});

t.test('raiseNonceFloor queues a request; the stream\'s NONCE_FLOOR sets the floor, and fills below it fail BelowNonceFloor', async (t) => {
  await fx.fund(frank.address);
  const wallet = fx.walletOf(frank);
  const ob = { address: fx.addresses.orderBook, abi: orderBookAbi } as const;
  const hash = await wallet.writeContract({ ...ob, account: frank, chain: fx.chain, functionName: 'raiseNonceFloor', args: [1_000_000n] });
  const receipt = await fx.pub.waitForTransactionReceipt({ hash });
  t.equal(receipt.status, 'success');
  const logs = parseEventLogs({ abi: orderBookAbi, logs: receipt.logs, eventName: 'NonceFloorRequested' });
  t.match(logs.map((l) => l.args), [{ owner: frank.address, floor: 1_000_000n }], 'the request is a log for the venue\'s indexer');
  t.equal(await fx.pub.readContract({ ...ob, functionName: 'requestedNonceFloor', args: [frank.address] }), 1_000_000n, 'queued');
  t.equal(await fx.pub.readContract({ ...ob, functionName: 'nonceFloor', args: [frank.address] }), 0n, 'not in force until the stream takes it in');
  const raise = async (floor: bigint) => {
    try {
      await fx.pub.simulateContract({ ...ob, account: frank, functionName: 'raiseNonceFloor', args: [floor] });
      return null;
    } catch (e) {
      return String(e);
    }
  };
  t.match(await raise(1_000_000n), /NonceFloorNotRaised/, 'a request at or below the last one asked for is refused');

  const item = new BatchWriter();
  item.nonceFloor(frank.address, 1_000_000n);
  const settled = await fx.settle(item);
  t.match(parseEventLogs({ abi: orderBookAbi, logs: settled.logs, eventName: 'NonceFloorRaised' }).map((l) => l.args), [{ owner: frank.address, floor: 1_000_000n }]);
  t.equal(await fx.pub.readContract({ ...ob, functionName: 'nonceFloor', args: [frank.address] }), 1_000_000n, 'in force');
  const { w } = await pair({ makerAccount: frank, maker: { nonce: 999_999n } });
  t.match(await fx.settleReverts(w, state()), { name: 'BelowNonceFloor', args: { item: 0n, owner: frank.address, nonce: 999_999n, floor: 1_000_000n } });
  const { w: ok } = await pair({ makerAccount: frank, maker: { nonce: 1_000_000n }, taker: { nonce: 5n } });
  await fx.settle(ok);
  t.pass('at the floor, and another owner\'s low nonce: accepted');
  t.match(await raise(1_000_000n), /NonceFloorNotRaised/, 'a floor is only raised');

  const again = new BatchWriter();
  again.nonceFloor(frank.address, 1_000_000n);
  t.match(await fx.settleReverts(again, state()), { name: 'NonceFloorNotIncreasing', args: { item: 0n, owner: frank.address, current: 1_000_000n, given: 1_000_000n } }, 'the stream only raises a floor');

  // Within one batch: orders after a NONCE_FLOOR item are checked against the new floor.
  const before = await m.order(bob, false, 100, WAD, { nonce: 7_000n });
  const after = await m.order(bob, false, 100, WAD, { nonce: 7_001n });
  const buyer = await m.order(alice, true, 100, 2n * WAD, { nonce: 7_002n });
  const mixed = new BatchWriter();
  const bi = mixed.order(buyer.orderId, buyer.order);
  mixed.fill(mixed.order(before.orderId, before.order), bi, WAD, 0n, 0n);
  mixed.nonceFloor(bob.address, 7_001n + 1n);
  mixed.fill(mixed.order(after.orderId, after.order), bi, WAD, 0n, 0n);
  t.match(await fx.settleReverts(mixed, state()), { name: 'BelowNonceFloor', args: { item: 4n, owner: bob.address, nonce: 7_001n, floor: 7_002n } }, 'an order declared after the floor item in the same batch');
});

t.test('NotMmm for portfolio 0; an MMM trades there', async (t) => {
  const { w } = await pair({ maker: { portfolioId: 0n } });
  t.match(await fx.settleReverts(w, state()), { name: 'NotMmm', args: { item: 0n, account: alice.address } });
  const mo = await m.order(dave, false, 100, WAD, { portfolioId: 0n });
  const to = await m.order(erin, true, 100, WAD);
  const b = new BatchWriter();
  b.mmm(dave.address, true);
  b.fill(b.order(mo.orderId, mo.order), b.order(to.orderId, to.order), WAD, 0n, 0n);
  await fx.settle(b);
  t.equal(await fx.positionOf(dave.address, 0n, m.seriesId), -WAD, 'the MMM\'s position is in (mmm, 0)');
  t.equal(await fx.premiumOf(dave.address, 0n, m.seriesId), (WAD * 100n * TICK_VALUE) / 10n ** 30n);
});

t.test('FeeAboveCap: a taker fee above the cap or negative, a maker fee beyond ±cap', async (t) => {
  const cap = capOf(WAD, 100);
  t.ok(cap > 0n);
  const cases: [bigint, bigint, bigint][] = [[0n, cap + 1n, cap + 1n], [0n, -1n, -1n], [cap + 1n, 0n, cap + 1n], [-cap - 1n, 0n, -cap - 1n]];
  for (const [makerFee, takerFee, fee] of cases) {
    const { w } = await pair({ fees: [makerFee, takerFee] });
    t.match(await fx.settleReverts(w, state()), { name: 'FeeAboveCap', args: { item: 2n, fee, cap } }, `maker ${makerFee}, taker ${takerFee}`);
  }
  const before = await fx.cashOf(alice.address, 1n);
  const fees = await fx.cashOf(fx.addresses.collateralVault, 0n);
  const { w } = await pair({ fees: [-cap, cap] });
  await fx.settle(w);
  t.equal(await fx.cashOf(alice.address, 1n), before + cap, 'a maker rebate of the cap is paid');
  t.equal(await fx.cashOf(fx.addresses.collateralVault, 0n), fees, 'out of the taker\'s fee');
});

t.test('partial fills of one order across batches', async (t) => {
  const mo = await m.order(carol, false, 200, 3n * WAD);
  const before = await fx.positionOf(carol.address, 1n, m.seriesId);
  for (let i = 0; i < 3; i++) {
    const to = await m.order(erin, true, 200, WAD);
    const w = new BatchWriter();
    w.fill(w.order(mo.orderId, mo.order), w.order(to.orderId, to.order), WAD, 0n, 0n);
    await fx.settle(w);
    t.equal(await fx.filledOf(carol.address, mo.orderId), BigInt(i + 1) * WAD);
  }
  t.equal(await fx.positionOf(carol.address, 1n, m.seriesId), before - 3n * WAD);
});

t.test('orders and cancels sent to the order book directly: each signer recovered and logged, nothing else changes', async (t) => {
  await fx.fund(erin.address);
  const ob = { address: fx.addresses.orderBook, abi: orderBookAbi } as const;
  const strip = (o: { owner: unknown; signature: unknown }) => {
    const { owner: _o, signature: _s, ...order } = o;
    return order;
  };
  const a = await m.order(alice, true, 100, WAD, { nonce: 77_000n });
  const b = await m.order(bob, false, 100, WAD, { nonce: 77_001n });
  const send = async (functionName: string, args: readonly unknown[]) =>
    fx.pub.waitForTransactionReceipt({ hash: await fx.walletOf(erin).writeContract({ ...ob, account: erin, chain: fx.chain, functionName, args } as never) });
  const placed = await send('batchPlaceOrders', [[strip(a.order), strip(b.order)], [a.order.signature, b.order.signature]]);
  const [log] = parseEventLogs({ abi: orderBookAbi, logs: placed.logs, eventName: 'OrdersPlacedDirect' });
  t.same([log?.args.orderIds, log?.args.owners], [[a.orderId, b.orderId], [alice.address, bob.address]], 'anyone may send them: the signers are the owners, the ids the venue computes');
  t.equal(await fx.pub.readContract({ ...ob, functionName: 'filledOf', args: [alice.address, a.orderId] }), 0n, 'no state: the venue enters them');

  const typed = { domain: fx.bookDomain, types: { CancelOrder: [{ name: 'orderId', type: 'bytes32' }, { name: 'nonce', type: 'uint256' }, { name: 'deadline', type: 'uint256' }] }, primaryType: 'CancelOrder', message: { orderId: a.orderId, nonce: 77_002n, deadline: 10n ** 12n } } as const;
  const cancelSig = await alice.signTypedData(typed);
  const c = await m.order(alice, true, 101, WAD, { nonce: 77_003n });
  const replaced = await send('replaceOrderSigned', [typed.message, cancelSig, strip(c.order), c.order.signature]);
  const [r] = parseEventLogs({ abi: orderBookAbi, logs: replaced.logs, eventName: 'OrdersReplacedDirect' });
  t.same([r?.args.cancelOwners, r?.args.placeIds, r?.args.placeOwners], [[alice.address], [c.orderId], [alice.address]], 'a replace: its cancel and its order, each signer recovered');

  const refusal = (functionName: string, args: readonly unknown[]) => fx.pub.simulateContract({ ...ob, account: erin, functionName, args } as never).then(() => null, (e: unknown) => String(e));
  t.match(await refusal('batchPlaceOrders', [[strip(a.order)], []]), /SignatureCountMismatch/);
  t.match(await refusal('placeOrderSigned', [strip(a.order), `0x${'00'.repeat(65)}`]), /ECDSAInvalidSignature/, 'a signature that recovers to nothing');
  t.match(await refusal('batchReplaceOrders', [[typed.message], [cancelSig], [], []]), /SignatureCountMismatch/, 'a replace needs its pairs');
});
