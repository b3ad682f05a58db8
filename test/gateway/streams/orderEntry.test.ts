/**
 * Order entry over /ws/private (extensions.md "Order entry over the private WebSocket"),
 * against the real server at its fixed start time, signed with viem accounts: each method
 * answers what its REST route answers (typed data, relay calldata, refusals with the REST
 * code and status), the orders budget is the REST one per wallet, and a key without scope
 * `trade` is refused per message. Frames are checked against the served AsyncAPI document.
 */
import t, { type Test } from 'tap';
import { decodeFunctionData } from 'viem';
import { startTestApp, request, type JsonResponse } from '../support/testApp.ts';
import { orderBookAbi } from '../../../gateway/abi.ts';
import { hmacHex } from '../../../gateway/auth/authenticator.ts';
import { hmacHeaders } from '../auth/siweClient.ts';
import { liveSeries, post, signServed, trader, type Trader } from '../routes/ordersFixture.ts';
import { asyncApiValidator, callMethod, connect, privateSocket, wsEnv, type Client, type Frame } from './support.ts';

const BUDGET = 40;
// A small control window: order methods must not count against it.
wsEnv({ WS_MESSAGES_PER_MINUTE: '10' });
const app = await startTestApp({
  memory: true,
  env: { RATE_LIMITS: JSON.stringify({ orders: { anonymous: BUDGET, tier1: BUDGET, tier2: BUDGET, tier3: BUDGET } }) },
});
t.teardown(() => app.close());
const series = liveSeries(app);
const seriesId = series.spec.seriesId;
const api = await asyncApiValidator(app);

const call = callMethod;
const socket = (tr: Trader): Promise<Client> => privateSocket(app, tr.token);

const messageName: Record<string, string> = { PLACE: 'place', REPLACE: 'replace', CANCEL: 'cancel', PLACE_BATCH: 'placeBatch', CANCEL_BATCH: 'cancelBatch', REPLACE_BATCH: 'replaceBatch' };
/** The answer, checked against the AsyncAPI document: the result of `method`, or an error frame. */
function documented(t: Test, method: string, f: Frame): void {
  const name = 'error' in f ? 'orderEntry.orderError' : `orderEntry.${messageName[method]}Result`;
  t.equal(api.check(name, f), null, `${method}: the frame matches ${name}`);
}

/** The REST error as the socket carries it: the body plus the status. */
const asFrameError = (r: JsonResponse) => ({ code: r.body.code, status: r.status, message: r.body.message, details: r.body.details });

/** Replies compared across transports: orderIds, nonces and calldata differ between two orders of the same kind. */
function normalised(body: Record<string, any>): unknown {
  return JSON.parse(JSON.stringify(body, (k, v) => (['orderId', 'oldOrderId', 'calldata', 'nonce'].includes(k) ? `<${k}>` : v)));
}

let price = 20;
const unsignedPlace = (tr: Trader, extra: Record<string, unknown> = {}) => ({ seriesId, isBuy: true, size: '0.1', price: String(price++), portfolioId: tr.portfolioId, ...extra });

t.test('PLACE: unsigned gives typed data, signed rests; both equal the REST replies for the same kind of order', async (t) => {
  const alice = await trader(app, 'ws-alice', { deposit: 2_000_000 });
  const c = await socket(alice);
  const body = unsignedPlace(alice);
  const typed = await call(c, 'PLACE', body);
  documented(t, 'PLACE', typed);
  t.match(typed['result'], { mode: 'typed_data', operation: 'place_order' });
  const restTyped = await post(app, '/api/mm/orders/place', alice.token, body);
  t.equal(restTyped.status, 200);
  t.same(normalised(typed['result']), normalised(restTyped.body), 'phase one: the REST reply (but for the nonce and so the orderId)');
  t.ok(BigInt(restTyped.body.typedData.message.nonce) > BigInt(typed['result'].typedData.message.nonce), 'one nonce allocator for both transports');

  const signed = await signServed(alice.account, typed['result'].typedData);
  const relay = await call(c, 'PLACE', signed);
  documented(t, 'PLACE', relay);
  t.equal(relay['result'].mode, 'relay');
  t.same(relay['result'].orders, [{ orderId: typed['result'].orderId, status: 'open', filled: '0', remaining: '100000000000000000', trades: [], timeInForce: 'GTC', postOnly: false, reduceOnly: false, mmp: false, clientOrderId: null, cancelReason: null }]);
  const decoded = decodeFunctionData({ abi: orderBookAbi, data: relay['result'].relay.calldata });
  t.equal(decoded.functionName, 'placeOrderSigned');
  const [order, sig] = decoded.args as unknown as [Record<string, unknown>, string];
  t.equal(order['nonce'], BigInt(signed['nonce'] as string));
  t.equal(sig, signed['signature'], 'the calldata carries the signed order');
  const got = await request(`${app.url}/api/mm/orders/${typed['result'].orderId}`, { token: alice.token });
  t.equal(got.body.status, 'open', 'resting, and readable once answered (the reply follows the commit)');

  const restSigned = await signServed(alice.account, restTyped.body.typedData);
  const restRelay = await post(app, '/api/mm/orders/place', alice.token, restSigned);
  t.equal(restRelay.status, 200);
  t.same(normalised(relay['result']), normalised(restRelay.body), 'phase two: the REST reply (but for orderId and calldata)');
  t.equal(relay['result'].relay.calldata.length, restRelay.body.relay.calldata.length, 'calldata of the same length');
  c.close();
});

t.test('a refused order: the REST code, status, message and details', async (t) => {
  const bob = await trader(app, 'ws-bob', { deposit: 2_000_000 });
  const poor = await trader(app, 'ws-poor', { deposit: 1 });
  const c = await socket(bob);
  const offGrid = { seriesId, isBuy: true, size: '0.1', price: '1.005', portfolioId: bob.portfolioId };
  const ws = await call(c, 'PLACE', offGrid);
  documented(t, 'PLACE', ws);
  const rest = await post(app, '/api/mm/orders/place', bob.token, offGrid);
  t.equal(rest.status, 400);
  t.same(ws['error'], asFrameError(rest), 'off the tick grid: 400 invalid_argument OrderValidationError, as REST');
  const unknownSeries = { ...offGrid, price: '1', seriesId: `0x${'77'.repeat(32)}` };
  const ws404 = await call(c, 'PLACE', unknownSeries);
  t.same(ws404['error'], asFrameError(await post(app, '/api/mm/orders/place', bob.token, unknownSeries)), '404 as REST');
  t.equal(ws404['error'].status, 404);
  const noParams = await call(c, 'PLACE', undefined);
  t.match(noParams['error'], { code: 'invalid_argument', status: 400, details: { error: 'OrderValidationError', field: 'body' } }, 'no params: the REST refusal of a missing body');

  const pc = await socket(poor);
  const big = { seriesId, isBuy: false, size: '5', price: '100', portfolioId: poor.portfolioId };
  const typed = await call(pc, 'PLACE', big);
  const refused = await call(pc, 'PLACE', await signServed(poor.account, typed['result'].typedData));
  documented(t, 'PLACE', refused);
  t.match(refused['error'], { code: 'failed_precondition', status: 400, details: { reason: /insufficient_(margin|cash)/ } }, 'the engine refusal after signing');
  c.send({ method: 'PING', id: 'still' });
  t.same(await c.next((f) => f['id'] === 'still'), { result: 'PONG', id: 'still' }, 'the socket stays open');
  c.close();
  pc.close();
});

t.test('REPLACE, CANCEL, PLACE_BATCH, CANCEL_BATCH, REPLACE_BATCH', async (t) => {
  const carol = await trader(app, 'ws-carol', { deposit: 5_000_000 });
  const c = await socket(carol);
  const signAll = (list: { typedData: unknown }[]) => Promise.all(list.map((p) => signServed(carol.account, p.typedData)));

  const batchTyped = await call(c, 'PLACE_BATCH', { orders: [unsignedPlace(carol), unsignedPlace(carol), unsignedPlace(carol, { clientOrderId: 'ws-c-3' })] });
  documented(t, 'PLACE_BATCH', batchTyped);
  t.equal(batchTyped['result'].count, 3);
  const signedOrders = await signAll(batchTyped['result'].placements);
  signedOrders[2] = { ...signedOrders[2]!, clientOrderId: 'ws-c-3' };
  const placed = await call(c, 'PLACE_BATCH', { orders: signedOrders });
  documented(t, 'PLACE_BATCH', placed);
  t.match(placed['result'], { mode: 'relay', operation: 'place_orders_batch', count: 3, relay: { functionName: 'batchPlaceOrders' } });
  const [o1, o2, o3] = placed['result'].orders.map((o: { orderId: string }) => o.orderId) as [string, string, string];

  const replaceTyped = await call(c, 'REPLACE', { cancel: { orderId: o1 }, place: unsignedPlace(carol) });
  documented(t, 'REPLACE', replaceTyped);
  const r = replaceTyped['result'].replacement;
  const replaced = await call(c, 'REPLACE', { cancel: await signServed(carol.account, r.cancelTypedData), place: await signServed(carol.account, r.placeTypedData) });
  documented(t, 'REPLACE', replaced);
  t.match(replaced['result'], { mode: 'relay', operation: 'replace_order', relay: { functionName: 'replaceOrderSigned' }, orders: [{ orderId: r.orderId, status: 'open' }], cancelled: [{ orderId: o1, status: 'cancelled' }] });

  const cancelTyped = await call(c, 'CANCEL', { clientOrderId: 'ws-c-3' });
  documented(t, 'CANCEL', cancelTyped);
  t.equal(cancelTyped['result'].cancellations[0].orderId, o3, 'CANCEL by clientOrderId');
  const cancelled = await call(c, 'CANCEL', await signServed(carol.account, cancelTyped['result'].cancellations[0].typedData));
  documented(t, 'CANCEL', cancelled);
  t.match(cancelled['result'], { mode: 'relay', operation: 'cancel_orders_batch', count: 1, relay: { functionName: 'batchCancelOrders' }, orders: [{ orderId: o3, status: 'cancelled', clientOrderId: 'ws-c-3' }] });
  const unknown = await call(c, 'CANCEL', { orderId: `0x${'55'.repeat(32)}` });
  t.match(unknown['error'], { code: 'not_found', status: 404 });

  const rbTyped = await call(c, 'REPLACE_BATCH', { replacements: [{ cancel: { orderId: o2 }, place: unsignedPlace(carol) }] });
  documented(t, 'REPLACE_BATCH', rbTyped);
  const rb = rbTyped['result'].replacements[0];
  const rbDone = await call(c, 'REPLACE_BATCH', { replacements: [{ cancel: await signServed(carol.account, rb.cancelTypedData), place: await signServed(carol.account, rb.placeTypedData) }] });
  documented(t, 'REPLACE_BATCH', rbDone);
  t.match(rbDone['result'], { mode: 'relay', operation: 'replace_orders_batch', count: 1, relay: { functionName: 'batchReplaceOrders' }, orders: [{ orderId: rb.orderId, status: 'open' }], cancelled: [{ orderId: o2, status: 'cancelled' }] });

  const cbTyped = await call(c, 'CANCEL_BATCH', { cancellations: [{ orderId: r.orderId }, { orderId: rb.orderId }] });
  documented(t, 'CANCEL_BATCH', cbTyped);
  const cbDone = await call(c, 'CANCEL_BATCH', { cancellations: await signAll(cbTyped['result'].cancellations) });
  documented(t, 'CANCEL_BATCH', cbDone);
  t.match(cbDone['result'], { mode: 'relay', operation: 'cancel_orders_batch', count: 2, relay: { functionName: 'batchCancelOrders' } });
  t.same(cbDone['result'].orders.map((o: { status: string }) => o.status), ['cancelled', 'cancelled']);
  const open = await request(`${app.url}/api/mm/orders`, { token: carol.token });
  t.same(open.body.orders, [], 'every order of the flow is gone');

  t.equal(c.frames.filter((f) => f['error']?.code === 4029).length, 0, 'more order messages than the control window allows, none refused by it');
  c.send({ method: 'cancel_all', params: {}, id: 'ca' });
  t.same((await c.next((f) => f['id'] === 'ca'))['result'], { cancelled: 0, orderIds: [], cancellations: [] }, 'CANCEL_ALL (any case): nothing open, nothing cancelled');
  c.send({ method: 'CANCEL_AFTER', params: { timeoutMs: 0 }, id: 'cf' });
  t.same((await c.next((f) => f['id'] === 'cf'))['result'], { cancelAt: null }, 'CANCEL_AFTER 0: disarmed');
  c.send({ method: 'NOPE', params: {}, id: 'np' });
  t.match(await c.next((f) => f['id'] === 'np'), { error: { code: 4000, msg: 'Unknown method: expected SUBSCRIBE, UNSUBSCRIBE, LIST_SUBSCRIPTIONS, PING, PLACE, REPLACE, CANCEL, PLACE_BATCH, CANCEL_BATCH, REPLACE_BATCH, CANCEL_ALL, CANCEL_AFTER, SET_CANCEL_ON_DISCONNECT' } }, 'an unknown method lists them all');
  c.close();
});

t.test('the orders budget is the REST one per wallet: partly spent by REST, the socket is refused at the same count and stays open', async (t) => {
  const dave = await trader(app, 'ws-dave', { deposit: 2_000_000 });
  const c = await socket(dave);
  const byRest = 25;
  for (let i = 0; i < byRest; i++) {
    const r = await post(app, '/api/mm/orders/place', dave.token, unsignedPlace(dave));
    if (r.status !== 200) throw new Error(`REST ${i}: ${r.status}`);
  }
  let accepted = 0;
  let refusal: Frame | null = null;
  for (let i = 0; i < BUDGET; i++) {
    const f = await call(c, 'PLACE', unsignedPlace(dave));
    if ('error' in f) {
      refusal = f;
      break;
    }
    accepted++;
  }
  t.equal(accepted, BUDGET - byRest, `the socket had ${BUDGET - byRest} left of the wallet's ${BUDGET}`);
  t.ok(refusal, 'then refused');
  documented(t, 'PLACE', refusal!);
  t.match(refusal!['error'], { code: 'resource_exhausted', status: 429, message: 'rate limit exceeded', details: { limit: BUDGET } });
  t.ok(refusal!['error'].details.retryAfterMs > 0, `retryAfterMs ${refusal!['error'].details.retryAfterMs}`);
  const rest = await post(app, '/api/mm/orders/place', dave.token, unsignedPlace(dave));
  t.equal(rest.status, 429, 'REST is out of budget too: one bucket');
  c.send({ method: 'PING', id: 'alive' });
  t.same(await c.next((f) => f['id'] === 'alive'), { result: 'PONG', id: 'alive' }, 'the socket stays open');
  t.notOk(c.isClosed());
  c.close();
});

t.test('an API key with scope read is refused per message (403), the socket stays open', async (t) => {
  const erin = await trader(app, 'ws-erin', { deposit: 2_000_000 });
  const key = async (scopes: string[]) => {
    const r = await request(`${app.url}/api/keys`, { token: erin.token, body: { label: `ws ${scopes.join('+')}`, scopes } });
    if (r.status !== 200) throw new Error(JSON.stringify(r.body));
    return r.body as { keyId: string; secret: string };
  };
  let ts = app.clock.now - 10_000;
  const authWith = async (k: { keyId: string; secret: string }) => {
    const c = await connect(app, '/ws/private');
    const stamp = ++ts;
    c.send({ type: 'AUTH', apiKey: k.keyId, timestamp: stamp, signature: hmacHex(k.secret, String(stamp)) });
    await c.next((f) => f['type'] === 'AUTH_SUCCESS', 'AUTH_SUCCESS');
    return c;
  };
  const readKey = await key(['read']);
  const readOnly = await authWith(readKey);
  const refused = await call(readOnly, 'PLACE', unsignedPlace(erin));
  documented(t, 'PLACE', refused);
  t.same(refused['error'], { code: 'permission_denied', status: 403, message: 'Missing required scope: trade', details: null }, 'the REST 403');
  const restRefused = await request(`${app.url}/api/mm/orders/place`, { body: unsignedPlace(erin), headers: hmacHeaders(readKey.keyId, readKey.secret, ++ts) });
  t.same(refused['error'], asFrameError(restRefused), 'the same refusal as REST with that key');
  readOnly.send({ method: 'SUBSCRIBE', params: ['account@orders'], id: 'sub' });
  t.same((await readOnly.next((f) => f['id'] === 'sub'))['channels'], ['account@orders'], 'the socket stays open and reads');
  readOnly.close();

  const trading = await authWith(await key(['read', 'trade']));
  const ok = await call(trading, 'PLACE', unsignedPlace(erin));
  t.equal(ok['result']?.mode, 'typed_data', 'a key with read and trade may enter orders');
  trading.close();
});

t.test('a signed batch of 50 fits in one frame of /ws/private', async (t) => {
  const frank = await trader(app, 'ws-frank', { deposit: 20_000_000 });
  const c = await socket(frank);
  const typed = await call(c, 'PLACE_BATCH', { orders: Array.from({ length: 50 }, () => unsignedPlace(frank, { clientOrderId: `frank-${price}` })) });
  t.equal(typed['result']?.count, 50, 'phase one', { error: typed['error'] });
  const orders = await Promise.all(typed['result'].placements.map(async (p: { typedData: unknown; clientOrderId: string }) => ({ ...(await signServed(frank.account, p.typedData)), clientOrderId: p.clientOrderId })));
  const frame = JSON.stringify({ method: 'PLACE_BATCH', params: { orders }, id: 'big' });
  t.ok(frame.length > 16 * 1024, `${frame.length} bytes: more than the 16 KiB of the other streams`);
  c.send(frame);
  const placed = await c.next((f) => f['id'] === 'big', 'the 50-order relay');
  t.match(placed['result'], { mode: 'relay', count: 50 });
  t.equal(placed['result'].orders.length, 50);
  c.close();
});
