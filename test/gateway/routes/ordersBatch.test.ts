/**
 * Batches against the real server: place-batch, cancel-batch and replace-batch in both
 * phases, all-or-nothing on one bad entry (bad signature, mixed signatures), the 50-entry
 * limit, and relay calldata decoded with viem.
 */
import t from 'tap';
import { decodeFunctionData } from 'viem';
import { startTestApp, request } from '../support/testApp.ts';
import { orderBookAbi } from '../../../gateway/abi.ts';
import { liveSeries, post, signServed, trader, wad } from './ordersFixture.ts';

const app = await startTestApp({ memory: true });
t.teardown(() => app.close());
const seriesId = liveSeries(app).spec.seriesId;
const alice = await trader(app, 'batch-alice', { deposit: 5_000_000 });
const eve = await trader(app, 'batch-eve', { deposit: 1_000 });

const openCount = async () => (await request(`${app.url}/api/mm/orders?limit=100`, { token: alice.token })).body.orders.length as number;
const unsigned = (i: number) => ({ seriesId, isBuy: true, size: '0.1', price: String(10 + i), portfolioId: alice.portfolioId });

async function signedBatch(n: number, offset = 0): Promise<Record<string, unknown>[]> {
  const typed = await post(app, '/api/mm/orders/place-batch', alice.token, { orders: Array.from({ length: n }, (_, i) => unsigned(i + offset)) });
  if (typed.status !== 200) throw new Error(JSON.stringify(typed.body));
  return Promise.all(typed.body.placements.map((p: { typedData: unknown }) => signServed(alice.account, p.typedData)));
}

t.test('place-batch: typed data for every entry, then one relay with batchPlaceOrders', async (t) => {
  const typed = await post(app, '/api/mm/orders/place-batch', alice.token, { orders: [unsigned(0), unsigned(1), unsigned(2)] });
  t.equal(typed.status, 200, 'status', { body: typed.body });
  t.equal(typed.body.operation, 'place_orders_batch');
  t.equal(typed.body.count, 3);
  t.equal(typed.body.placements.length, 3);
  const nonces = typed.body.placements.map((p: { typedData: { message: { nonce: string } } }) => BigInt(p.typedData.message.nonce));
  t.ok(nonces[0] < nonces[1] && nonces[1] < nonces[2], 'increasing nonces');
  const signed = await Promise.all(typed.body.placements.map((p: { typedData: unknown }) => signServed(alice.account, p.typedData)));
  const before = await openCount();
  const relay = await post(app, '/api/mm/orders/place-batch', alice.token, { orders: signed });
  t.equal(relay.status, 200, 'status', { body: relay.body });
  t.equal(relay.body.relay.functionName, 'batchPlaceOrders');
  t.equal(relay.body.count, 3);
  t.same(relay.body.orders.map((o: { orderId: string }) => o.orderId), typed.body.placements.map((p: { orderId: string }) => p.orderId));
  t.equal(await openCount(), before + 3);
  const decoded = decodeFunctionData({ abi: orderBookAbi, data: relay.body.relay.calldata });
  t.equal(decoded.functionName, 'batchPlaceOrders');
  const [orders, sigs] = decoded.args as unknown as [Record<string, unknown>[], string[]];
  t.equal(orders.length, 3);
  orders.forEach((o, i) => {
    t.equal(o.tick, (10 + i) * 100, `entry ${i} tick`);
    t.equal(o.size, wad(0.1));
    t.equal(o.nonce, nonces[i]);
    t.equal(sigs[i], signed[i]!.signature);
  });
});

t.test('place-batch refusals: mixed, one bad signature, too many, empty; nothing applied', async (t) => {
  const signed = await signedBatch(3, 20);
  const before = await openCount();
  const mixed = await post(app, '/api/mm/orders/place-batch', alice.token, { orders: [signed[0], unsigned(0)] });
  t.equal(mixed.status, 400);
  t.equal(mixed.body.code, 'invalid_argument');
  t.equal(mixed.body.details.error, 'OrderValidationError');
  t.equal(mixed.body.details.reason, 'mixed_batch');

  const eveSigned = await signServed(eve.account, (await post(app, '/api/mm/orders/place', alice.token, unsigned(30))).body.typedData);
  const oneBad = await post(app, '/api/mm/orders/place-batch', alice.token, { orders: [signed[0], eveSigned, signed[2]] });
  t.equal(oneBad.status, 400);
  t.equal(oneBad.body.details.reason, 'wrong_signer');
  t.equal(oneBad.body.details.field, 'orders[1].signature');
  t.equal(await openCount(), before, 'all or nothing: no entry applied');

  const unparseable = await post(app, '/api/mm/orders/place-batch', alice.token, { orders: [signed[0], { ...signed[1], signature: '0x' + '11'.repeat(65) }] });
  t.equal(unparseable.status, 400, 'an unparseable signature names its entry');
  t.equal(unparseable.body.details.field, 'orders[1].signature');

  const many = await post(app, '/api/mm/orders/place-batch', alice.token, { orders: Array.from({ length: 51 }, (_, i) => unsigned(i)) });
  t.equal(many.status, 400);
  t.equal(many.body.details.reason, 'batch_too_large');
  t.match(many.body.message, /at most 50/);
  const empty = await post(app, '/api/mm/orders/place-batch', alice.token, { orders: [] });
  t.equal(empty.status, 400);
  const notArray = await post(app, '/api/mm/orders/place-batch', alice.token, { orders: 'x' });
  t.equal(notArray.status, 400);
  t.equal(notArray.body.details.field, 'orders');
  const fifty = await post(app, '/api/mm/orders/place-batch', alice.token, { orders: Array.from({ length: 50 }, (_, i) => unsigned(i)) });
  t.equal(fifty.status, 200, '50 entries are allowed');

  const dupe = await post(app, '/api/mm/orders/place-batch', alice.token, { orders: [signed[0], signed[0]] });
  t.equal(dupe.status, 400, 'the same signed entry twice');
  t.equal(dupe.body.details.reason, 'duplicate_in_batch');

  const ok = await post(app, '/api/mm/orders/place-batch', alice.token, { orders: signed });
  t.equal(ok.status, 200, 'the untouched batch still goes through');
  t.equal(await openCount(), before + 3);
});

t.test('cancel-batch: both phases; unknown and foreign orders are 404', async (t) => {
  const placed = await post(app, '/api/mm/orders/place-batch', alice.token, { orders: await signedBatch(2, 40) });
  const ids = placed.body.orders.map((o: { orderId: string }) => o.orderId);
  const typed = await post(app, '/api/mm/orders/cancel-batch', alice.token, { cancellations: ids.map((orderId: string) => ({ orderId })) });
  t.equal(typed.status, 200, 'status', { body: typed.body });
  t.equal(typed.body.operation, 'cancel_orders_batch');
  t.equal(typed.body.count, 2);
  t.same(typed.body.cancellations.map((c: { orderId: string }) => c.orderId), ids);
  t.equal(typed.body.cancellations[0].typedData.primaryType, 'CancelOrder');
  const signed = await Promise.all(typed.body.cancellations.map((c: { typedData: unknown }) => signServed(alice.account, c.typedData)));

  const foreign = await post(app, '/api/mm/orders/cancel-batch', eve.token, { cancellations: [{ orderId: ids[0] }] });
  t.equal(foreign.status, 404, "another wallet's order");
  t.match(foreign.body.message, /Order not found/);
  const mixed = await post(app, '/api/mm/orders/cancel-batch', alice.token, { cancellations: [signed[0], { orderId: ids[1] }] });
  t.equal(mixed.body.details.reason, 'mixed_batch');

  const relay = await post(app, '/api/mm/orders/cancel-batch', alice.token, { cancellations: signed });
  t.equal(relay.status, 200, 'status', { body: relay.body });
  t.equal(relay.body.relay.functionName, 'batchCancelOrders');
  t.same(relay.body.orders.map((o: { orderId: string; status: string }) => [o.orderId, o.status]), ids.map((id: string) => [id, 'cancelled']));
  const decoded = decodeFunctionData({ abi: orderBookAbi, data: relay.body.relay.calldata });
  const [cancels, sigs] = decoded.args as unknown as [Record<string, unknown>[], string[]];
  t.same(cancels.map((c) => c.orderId), ids);
  t.same(cancels.map((c) => c.nonce), signed.map((s) => BigInt(s.nonce as string)));
  t.same(sigs, signed.map((s) => s.signature));
  const again = await post(app, '/api/mm/orders/cancel-batch', alice.token, { cancellations: signed });
  t.equal(again.status, 400, 'cancelled orders cannot be cancelled again');
  t.equal(again.body.details.reason, 'order_not_open');
});

t.test('replace-batch: both signatures per entry, atomic', async (t) => {
  const placed = await post(app, '/api/mm/orders/place-batch', alice.token, { orders: await signedBatch(2, 60) });
  const ids = placed.body.orders.map((o: { orderId: string }) => o.orderId);
  const body = { replacements: ids.map((orderId: string, i: number) => ({ cancel: { orderId }, place: unsigned(70 + i) })) };
  const typed = await post(app, '/api/mm/orders/replace-batch', alice.token, body);
  t.equal(typed.status, 200, 'status', { body: typed.body });
  t.equal(typed.body.operation, 'replace_orders_batch');
  t.equal(typed.body.count, 2);
  t.same(typed.body.replacements.map((r: { oldOrderId: string }) => r.oldOrderId), ids);
  const signed = await Promise.all(
    typed.body.replacements.map(async (r: { cancelTypedData: unknown; placeTypedData: unknown }) => ({ cancel: await signServed(alice.account, r.cancelTypedData), place: await signServed(alice.account, r.placeTypedData) })),
  );
  const partial = await post(app, '/api/mm/orders/replace-batch', alice.token, { replacements: [signed[0], { cancel: signed[1]!.cancel, place: { ...signed[1]!.place, signature: undefined } }] });
  t.equal(partial.status, 400);
  t.equal(partial.body.details.error, 'OrderValidationError');
  t.equal(partial.body.details.reason, 'partial_signatures');
  const mixed = await post(app, '/api/mm/orders/replace-batch', alice.token, { replacements: [signed[0], body.replacements[1]] });
  t.equal(mixed.body.details.reason, 'mixed_batch');

  const relay = await post(app, '/api/mm/orders/replace-batch', alice.token, { replacements: signed });
  t.equal(relay.status, 200, 'status', { body: relay.body });
  t.equal(relay.body.relay.functionName, 'batchReplaceOrders');
  t.same(relay.body.cancelled.map((o: { orderId: string }) => o.orderId), ids);
  t.same(relay.body.orders.map((o: { orderId: string }) => o.orderId), typed.body.replacements.map((r: { orderId: string }) => r.orderId));
  const decoded = decodeFunctionData({ abi: orderBookAbi, data: relay.body.relay.calldata });
  t.equal(decoded.functionName, 'batchReplaceOrders');
  const [cancels, cancelSigs, places, placeSigs] = decoded.args as unknown as [Record<string, unknown>[], string[], Record<string, unknown>[], string[]];
  t.same(cancels.map((c) => c.orderId), ids);
  t.same(cancelSigs, signed.map((s) => s.cancel.signature));
  t.same(places.map((p) => p.tick), [8000, 8100], 'price 80 and 81 at 2 tick decimals');
  t.same(placeSigs, signed.map((s) => s.place.signature));
});
