/**
 * A wallet's nonce floor raised on chain by the wallet itself (docs/chain.md "Leaving without
 * the venue"): `orderBook.raiseNonceFloor(n)` queues the request, the venue's indexer sees it,
 * the engine cancels the wallet's open orders signed below `n` (`cancelReason: nonce_floor`) and
 * refuses any nonce below it, and the stream's NONCE_FLOOR item puts the floor in force on chain,
 * reconciled. The orders at or above the floor trade and settle as before.
 */
import t from 'tap';
import type { Hex } from 'viem';
import { orderBookAbi } from '../../chain/artifacts.ts';
import { request } from '../gateway/support/testApp.ts';
import { liveSeries, place, post, signServed, trader } from '../gateway/routes/ordersFixture.ts';
import { chainOf, settled, startChainApp, until } from './support/venueApp.ts';

t.setTimeout(240_000);

t.test('raiseNonceFloor from the wallet: older orders cancelled in the venue, lower nonces refused, the floor in force on chain', async (t) => {
  const app = await startChainApp();
  t.teardown(() => app.close());
  const chain = chainOf(app);
  const seriesId = liveSeries(app).spec.seriesId;
  const alice = await trader(app, 'floor-alice', { deposit: 100_000 });
  const bob = await trader(app, 'floor-bob', { deposit: 100_000 });
  const older = await place(app, alice, { seriesId, isBuy: false, size: '1', price: '2000' });
  const newer = await place(app, alice, { seriesId, isBuy: false, size: '1', price: '2100' });
  t.equal(newer.relay.status, 200, 'two resting orders', { body: newer.relay.body });
  const olderId = older.relay.body.orders[0].orderId as Hex;
  const newerId = newer.relay.body.orders[0].orderId as Hex;
  const floor = BigInt(newer.signed['nonce'] as string);
  t.ok(BigInt(older.signed['nonce'] as string) < floor, 'the older order was signed below the floor');

  await chain.fund(alice.address);
  const ob = { address: chain.addresses.orderBook, abi: orderBookAbi } as const;
  const hash = await chain.wallet(alice.account).writeContract({ ...ob, functionName: 'raiseNonceFloor', args: [floor] } as never);
  t.equal((await chain.client.waitForTransactionReceipt({ hash })).status, 'success', 'the wallet asked on chain');

  const cancelled = await until('the older order cancelled by the floor', async () => {
    const r = await request(`${app.url}/api/mm/orders/${olderId}`, { token: alice.token });
    return r.body.status === 'cancelled' ? r.body : null;
  });
  t.equal(cancelled.cancelReason, 'nonce_floor', 'its cancel reason names the floor');
  const open = await request(`${app.url}/api/mm/orders/${newerId}`, { token: alice.token });
  t.equal(open.body.status, 'open', 'the order signed at the floor rests on');

  // A nonce below the floor that was never used: refused as used.
  const typed = await post(app, '/api/mm/orders/place', alice.token, { portfolioId: alice.portfolioId, seriesId, isBuy: false, size: '1', price: '2200' });
  const below = { ...typed.body.typedData, message: { ...typed.body.typedData.message, nonce: (floor - 10n).toString() } };
  const refused = await post(app, '/api/mm/orders/place', alice.token, await signServed(alice.account, below));
  t.equal(refused.status, 400, 'an order signed below the floor', { body: refused.body });
  t.equal(refused.body.details.reason, 'nonce_used');

  const bid = await place(app, bob, { seriesId, isBuy: true, size: '1', price: '2100' });
  t.equal(bid.relay.body.orders[0].status, 'filled', 'the crossing order trades with the order at the floor', { body: bid.relay.body });
  await settled(app);
  t.equal(await chain.client.readContract({ ...ob, functionName: 'nonceFloor', args: [alice.address] }), floor, 'the floor is in force on chain (and reconciled)');
  t.equal(await chain.filledOf(alice.address, newerId), 10n ** 18n, 'the fill of the order at the floor settled');
  t.equal(await chain.filledOf(alice.address, olderId), 0n, 'the older order never filled');
});
