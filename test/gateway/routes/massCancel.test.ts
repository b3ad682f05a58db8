/**
 * Mass cancel and the dead-man switch over REST, against the real server (extensions.md
 * "Cancels", "Cancel on disconnect and the dead-man switch"): scopes, the reply with typed
 * data to sign the on-chain cancels later, the reads after it, 404s, and the switch armed,
 * moved, disarmed and fired by the clock.
 */
import t from 'tap';
import { decodeFunctionData, recoverTypedDataAddress } from 'viem';
import { orderBookAbi } from '../../../gateway/abi.ts';
import { startTestApp, request } from '../support/testApp.ts';
import { liveSeries, post, signServed, trader, toViemMessage } from './ordersFixture.ts';

const app = await startTestApp({ memory: true });
t.teardown(() => app.close());
const call = liveSeries(app, true);
const put = liveSeries(app, false);

/** Place and rest an order through both phases; order instructions (`extra`) go with both. */
async function rest(tr: Awaited<ReturnType<typeof trader>>, seriesId: string, isBuy: boolean, extra: Record<string, unknown> = {}): Promise<string> {
  const typed = await post(app, '/api/mm/orders/place', tr.token, { portfolioId: tr.portfolioId, seriesId, isBuy, size: '0.1', price: isBuy ? '1' : '90000', ...extra });
  const relay = await post(app, '/api/mm/orders/place', tr.token, { ...(await signServed(tr.account, typed.body.typedData)), ...extra });
  if (relay.status !== 200) throw new Error(`place: ${JSON.stringify(relay.body)}`);
  return typed.body.orderId as string;
}

t.test('cancel-all by scope: the orders in it, typed data for each, the reads after it', async (t) => {
  const alice = await trader(app, 'mc-alice', { deposit: 1_000_000 });
  const bob = await trader(app, 'mc-bob', { deposit: 1_000_000 });
  const callBuy = await rest(alice, call.spec.seriesId, true);
  const callSell = await rest(alice, call.spec.seriesId, false);
  const putBuy = await rest(alice, put.spec.seriesId, true, { mmp: true });
  const bobs = await rest(bob, call.spec.seriesId, true);

  const sells = await post(app, '/api/mm/orders/cancel-all', alice.token, { side: 'sell' });
  t.equal(sells.status, 200);
  t.same(sells.body.orderIds, [callSell], 'side sell: the one sell');
  t.equal(sells.body.cancelled, 1);
  const c = sells.body.cancellations[0];
  t.equal(c.orderId, callSell);
  t.equal(c.typedData.primaryType, 'CancelOrder');
  t.equal(c.typedData.message.orderId, callSell, 'typed data of the cancel of that order');
  const { signature } = await signServed(alice.account, c.typedData);
  const signer = await recoverTypedDataAddress({ domain: c.typedData.domain, types: c.typedData.types, primaryType: 'CancelOrder', message: toViemMessage(c.typedData.types, 'CancelOrder', c.typedData.message) as never, signature });
  t.equal(signer, alice.address, 'it signs like any served typed data');

  const order = await request(`${app.url}/api/mm/orders/${callSell}`, { token: alice.token });
  t.equal(order.body.status, 'cancelled');
  t.equal(order.body.cancelReason, 'mass_cancel', 'the order reads cancelReason mass_cancel');

  const mmp = await post(app, '/api/mm/orders/cancel-all', alice.token, { mmpOnly: true });
  t.same(mmp.body.orderIds, [putBuy], 'mmpOnly: the mmp order');
  const rest2 = await post(app, '/api/mm/orders/cancel-all', alice.token, {});
  t.same(rest2.body.orderIds, [callBuy], '{}: everything left');
  const none = await post(app, '/api/mm/orders/cancel-all', alice.token, {});
  t.same(none.body, { cancelled: 0, orderIds: [], cancellations: [] }, 'nothing open');
  const open = await request(`${app.url}/api/mm/orders`, { token: alice.token });
  t.same(open.body.orders, [], 'no open order left');
  const bobOpen = await request(`${app.url}/api/mm/orders`, { token: bob.token });
  t.same(bobOpen.body.orders.map((o: { orderId: string }) => o.orderId), [bobs], "another wallet's order stays");

  for (const [body, what] of [
    [{ pairId: `0x${'ab'.repeat(32)}` }, 'Pair not found'],
    [{ seriesId: `0x${'cd'.repeat(32)}` }, 'Series not found'],
    [{ portfolioId: 77 }, 'Portfolio not found'],
  ] as const) {
    const r = await post(app, '/api/mm/orders/cancel-all', alice.token, body);
    t.equal(r.status, 404, what);
    t.match(r.body.message, new RegExp(`^${what}`));
  }
  const bad = await post(app, '/api/mm/orders/cancel-all', alice.token, { side: 'both' });
  t.equal(bad.status, 400, 'a bad side');
});

t.test("cancel-batch answers a signed cancel of an order the venue cancelled with its relay, and changes nothing", async (t) => {
  const dave = await trader(app, 'mc-dave', { deposit: 1_000_000 });
  const gone = await rest(dave, call.spec.seriesId, true);
  const open = await rest(dave, call.spec.seriesId, true);
  const all = await post(app, '/api/mm/orders/cancel-all', dave.token, { side: 'buy' });
  t.same([...all.body.orderIds].sort(), [gone, open].sort());
  const stillOpen = await rest(dave, call.spec.seriesId, true);
  const typed = all.body.cancellations.find((c: { orderId: string }) => c.orderId === gone).typedData;
  const signedGone = await signServed(dave.account, typed);
  const seq = app.app.engine.seq;
  const r = await post(app, '/api/mm/orders/cancel-batch', dave.token, { cancellations: [signedGone] });
  t.equal(r.status, 200, JSON.stringify(r.body).slice(0, 300));
  t.equal(r.body.mode, 'relay');
  t.equal(r.body.operation, 'cancel_orders_batch');
  const decoded = decodeFunctionData({ abi: orderBookAbi, data: r.body.relay.calldata });
  t.equal(decoded.functionName, 'batchCancelOrders', 'relay calldata of the on-chain cancel');
  t.same(r.body.orders.map((o: { orderId: string; status: string; cancelReason: string }) => [o.orderId, o.status, o.cancelReason]), [[gone, 'cancelled', 'mass_cancel']], 'the order as the venue cancelled it');
  t.equal(app.app.engine.seq, seq, 'no command: nothing changed');
  // With a cancel of an open order in the same batch: that one is applied, the other answered.
  const typedOpen = (await post(app, '/api/mm/orders/cancel-batch', dave.token, { cancellations: [{ orderId: stillOpen }] })).body.cancellations[0].typedData;
  const mixed = await post(app, '/api/mm/orders/cancel-batch', dave.token, { cancellations: [await signServed(dave.account, typed), await signServed(dave.account, typedOpen)] });
  t.equal(mixed.status, 200);
  t.same(mixed.body.orders.map((o: { orderId: string; cancelReason: string }) => [o.orderId, o.cancelReason]), [[gone, 'mass_cancel'], [stillOpen, 'user']], 'in request order');
  t.equal(app.app.engine.seq, seq + 1, 'one command, for the open order');
  // A replace of an order the venue cancelled is still refused.
  const rep = await post(app, '/api/mm/orders/replace', dave.token, { cancel: { orderId: open }, place: { seriesId: call.spec.seriesId, isBuy: true, size: '0.1', price: '1', portfolioId: dave.portfolioId } });
  t.equal(rep.status, 400, 'a replace needs an open order');
});

t.test('cancel-after: armed, moved, disarmed; the clock fires it', async (t) => {
  const carol = await trader(app, 'mc-carol', { deposit: 1_000_000 });
  const id = await rest(carol, call.spec.seriesId, true);
  for (const timeoutMs of [999, 600_001, -5]) {
    const r = await post(app, '/api/mm/orders/cancel-after', carol.token, { timeoutMs });
    t.equal(r.status, 400, `${timeoutMs} is refused`);
  }
  const armed = await post(app, '/api/mm/orders/cancel-after', carol.token, { timeoutMs: 5_000 });
  t.equal(armed.status, 200);
  t.equal(armed.body.cancelAt, app.clock.now + 5_000, 'cancelAt: now + timeoutMs (venue ms)');
  app.clock.advance(4_000);
  const moved = await post(app, '/api/mm/orders/cancel-after', carol.token, { timeoutMs: 5_000 });
  t.equal(moved.body.cancelAt, app.clock.now + 5_000, 'each call moves the deadline');
  app.clock.advance(4_000);
  await app.app.services.pipeline.submit({ type: 'clock' });
  t.equal((await request(`${app.url}/api/mm/orders/${id}`, { token: carol.token })).body.status, 'open', 'the first deadline passed, the moved one not: still open');
  app.clock.advance(1_500);
  await app.app.services.pipeline.submit({ type: 'clock' });
  const fired = await request(`${app.url}/api/mm/orders/${id}`, { token: carol.token });
  t.equal(fired.body.status, 'cancelled', 'cancelled at the first clock past the deadline');
  t.equal(fired.body.cancelReason, 'dead_man');
  const metrics = (await request(`${app.url}/metrics`)).body as string;
  t.match(metrics, /order_venue_cancels_total\{reason="dead_man"\} 1\n/, 'counted as a dead-man cancel');
  t.match(metrics, /order_venue_cancels_total\{reason="mass_cancel"\} [1-9]/, 'and the mass cancels before');
  const id2 = await rest(carol, call.spec.seriesId, true);
  await post(app, '/api/mm/orders/cancel-after', carol.token, { timeoutMs: 1_000 });
  const off = await post(app, '/api/mm/orders/cancel-after', carol.token, { timeoutMs: 0 });
  t.same(off.body, { cancelAt: null }, '0 disarms');
  app.clock.advance(2_000);
  await app.app.services.pipeline.submit({ type: 'clock' });
  t.equal((await request(`${app.url}/api/mm/orders/${id2}`, { token: carol.token })).body.status, 'open', 'a disarmed switch does not fire');
});
