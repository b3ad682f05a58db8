/**
 * POST /api/mm/orders/cancel (extensions.md "Cancels"): the one-order form of cancel-batch,
 * by orderId and by clientOrderId, both phases, in both forms (bearer on /api, the session
 * cookie and `{ error }` bodies on /mm/orders/cancel); unknown orders are 404.
 */
import t from 'tap';
import { decodeFunctionData } from 'viem';
import { startTestApp, request, type JsonResponse } from '../support/testApp.ts';
import { orderBookAbi } from '../../../gateway/abi.ts';
import { liveSeries, post, signServed, trader, type Trader } from './ordersFixture.ts';

const app = await startTestApp({ memory: true });
t.teardown(() => app.close());
const seriesId = liveSeries(app).spec.seriesId;
const alice = await trader(app, 'cancel-one-alice', { deposit: 2_000_000 });
const bob = await trader(app, 'cancel-one-bob', { deposit: 2_000_000 });
const aliceCookie = await app.session(alice.address, 'earlier');

let price = 10;
/** A resting buy of `tr`, signed through both phases, with an optional clientOrderId; returns its orderId. */
async function rest(tr: Trader, clientOrderId?: string): Promise<string> {
  const typed = await post(app, '/api/mm/orders/place', tr.token, { seriesId, isBuy: true, size: '0.1', price: String(price++), portfolioId: tr.portfolioId });
  if (typed.status !== 200) throw new Error(JSON.stringify(typed.body));
  const signed = await signServed(tr.account, typed.body.typedData);
  const relay = await post(app, '/api/mm/orders/place', tr.token, clientOrderId === undefined ? signed : { ...signed, clientOrderId });
  if (relay.status !== 200) throw new Error(JSON.stringify(relay.body));
  return relay.body.orders[0].orderId;
}

const earlier = (body: unknown): Promise<JsonResponse> => request(`${app.url}/mm/orders/cancel`, { body, headers: { cookie: `session=${aliceCookie}` } });
const getOrder = (orderId: string) => request(`${app.url}/api/mm/orders/${orderId}`, { token: alice.token });

/** Phase two from a phase-one reply: the signed CancelOrder, optionally naming the order by clientOrderId instead. */
async function signCancel(typed: JsonResponse, clientOrderId?: string): Promise<Record<string, unknown>> {
  const signed = await signServed(alice.account, typed.body.cancellations[0].typedData);
  if (clientOrderId === undefined) return signed;
  const { orderId: _o, ...rest } = signed;
  return { ...rest, clientOrderId };
}

t.test('by orderId: the reply of cancel-batch for one entry, in both phases', async (t) => {
  const orderId = await rest(alice);
  const typed = await post(app, '/api/mm/orders/cancel', alice.token, { orderId });
  t.equal(typed.status, 200, 'phase one', { body: typed.body });
  const batchTyped = await post(app, '/api/mm/orders/cancel-batch', alice.token, { cancellations: [{ orderId }] });
  t.same(Object.keys(typed.body).sort(), Object.keys(batchTyped.body).sort(), 'the same fields as cancel-batch');
  t.match(typed.body, { mode: 'typed_data', operation: 'cancel_orders_batch', contractAddress: app.app.services.config.contracts.orderBook, count: 1 });
  t.equal(typed.body.cancellations.length, 1);
  t.equal(typed.body.cancellations[0].orderId, orderId);
  t.equal(typed.body.cancellations[0].typedData.primaryType, 'CancelOrder');
  t.equal((await getOrder(orderId)).body.status, 'open', 'phase one changes nothing');

  const relay = await post(app, '/api/mm/orders/cancel', alice.token, await signCancel(typed));
  t.equal(relay.status, 200, 'phase two', { body: relay.body });
  t.same(Object.keys(relay.body).sort(), ['contractAddress', 'count', 'mode', 'operation', 'orders', 'relay']);
  t.match(relay.body, { mode: 'relay', operation: 'cancel_orders_batch', count: 1, relay: { functionName: 'batchCancelOrders', value: '0', chainId: 10143 } });
  t.same(relay.body.orders, [{ orderId, status: 'cancelled', filled: '0', remaining: '0', trades: [], timeInForce: 'GTC', postOnly: false, reduceOnly: false, mmp: false, clientOrderId: null, cancelReason: 'user' }]);
  const decoded = decodeFunctionData({ abi: orderBookAbi, data: relay.body.relay.calldata });
  t.equal(decoded.functionName, 'batchCancelOrders');
  const [cancels] = decoded.args as unknown as [{ orderId: string }[]];
  t.same(cancels.map((c) => c.orderId), [orderId]);
  t.equal((await getOrder(orderId)).body.status, 'cancelled');
});

t.test('by clientOrderId: resolved to the caller\'s open order carrying it', async (t) => {
  const orderId = await rest(alice, 'quote-bid-1');
  const typed = await post(app, '/api/mm/orders/cancel', alice.token, { clientOrderId: 'quote-bid-1' });
  t.equal(typed.status, 200, 'phase one', { body: typed.body });
  t.equal(typed.body.cancellations[0].orderId, orderId, 'the typed data names the order carrying the id');
  const relay = await post(app, '/api/mm/orders/cancel', alice.token, await signCancel(typed, 'quote-bid-1'));
  t.equal(relay.status, 200, 'phase two by clientOrderId', { body: relay.body });
  t.match(relay.body.orders, [{ orderId, status: 'cancelled', clientOrderId: 'quote-bid-1', cancelReason: 'user' }]);
  const again = await post(app, '/api/mm/orders/cancel', alice.token, { clientOrderId: 'quote-bid-1' });
  t.equal(again.status, 404, 'the id names no open order once its order is cancelled');
  t.match(again.body, { code: 'not_found', message: 'Order not found: clientOrderId quote-bid-1', details: { reason: 'unknown_order', clientOrderId: 'quote-bid-1' } });
  const reused = await rest(alice, 'quote-bid-1');
  const typed2 = await post(app, '/api/mm/orders/cancel', alice.token, { clientOrderId: 'quote-bid-1' });
  t.equal(typed2.body.cancellations[0].orderId, reused, 'a reused id names the new open order');
});

t.test('the earlier form: /mm/orders/cancel with the session cookie, { error } bodies', async (t) => {
  const orderId = await rest(alice, 'earlier-1');
  const typed = await earlier({ clientOrderId: 'earlier-1' });
  t.equal(typed.status, 200, 'phase one', { body: typed.body });
  t.equal(typed.body.cancellations[0].orderId, orderId);
  const relay = await earlier(await signCancel(typed));
  t.equal(relay.status, 200, 'phase two by orderId', { body: relay.body });
  t.match(relay.body, { mode: 'relay', operation: 'cancel_orders_batch', count: 1, orders: [{ orderId, status: 'cancelled' }] });
  const unknown = await earlier({ orderId: `0x${'12'.repeat(32)}` });
  t.equal(unknown.status, 404);
  t.match(unknown.body, { error: 'not_found', message: /Order not found/ });
  t.notOk('code' in unknown.body, 'earlier shape');
  const unknownClient = await earlier({ clientOrderId: 'never-used' });
  t.equal(unknownClient.status, 404);
  t.equal(unknownClient.body.error, 'not_found');
  const bad = await earlier({});
  t.equal(bad.status, 400);
  t.equal(bad.body.error, 'validation_error');
  const anonymous = await request(`${app.url}/mm/orders/cancel`, { body: { orderId } });
  t.equal(anonymous.status, 401, 'authentication required');
});

t.test('refusals: unknown, foreign, both or neither reference, bad clientOrderId', async (t) => {
  const unknown = await post(app, '/api/mm/orders/cancel', alice.token, { orderId: `0x${'34'.repeat(32)}` });
  t.equal(unknown.status, 404);
  t.match(unknown.body, { code: 'not_found', message: /Order not found/ });
  const bobs = await rest(bob, 'bob-1');
  t.equal((await post(app, '/api/mm/orders/cancel', alice.token, { orderId: bobs })).status, 404, "another wallet's order is 404");
  t.equal((await post(app, '/api/mm/orders/cancel', alice.token, { clientOrderId: 'bob-1' })).status, 404, "another wallet's clientOrderId names nothing of the caller");
  const unknownClient = await post(app, '/api/mm/orders/cancel', alice.token, { clientOrderId: 'nope' });
  t.equal(unknownClient.status, 404);
  const both = await post(app, '/api/mm/orders/cancel', alice.token, { orderId: bobs, clientOrderId: 'bob-1' });
  t.equal(both.status, 400);
  t.match(both.body, { code: 'invalid_argument', details: { error: 'OrderValidationError', field: 'clientOrderId', reason: 'order_reference' } });
  const neither = await post(app, '/api/mm/orders/cancel', alice.token, { nonce: '5' });
  t.equal(neither.status, 400);
  t.match(neither.body, { details: { error: 'OrderValidationError', field: 'orderId', reason: 'order_reference' } });
  const badId = await post(app, '/api/mm/orders/cancel', alice.token, { clientOrderId: 'has space' });
  t.match(badId.body, { code: 'invalid_argument', details: { field: 'clientOrderId' } });
  const badNonce = await post(app, '/api/mm/orders/cancel', alice.token, { orderId: await rest(alice), nonce: 'x' });
  t.match(badNonce.body, { code: 'invalid_argument', details: { field: 'nonce' } }, 'fields are named at the top level');
  t.equal((await post(app, '/api/mm/orders/cancel', bob.token, { clientOrderId: 'bob-1' })).status, 200, 'the owner resolves it');
});
