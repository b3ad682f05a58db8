/**
 * Single-order entry against the real server, signed with viem accounts: both phases of
 * place and replace, crossing and partial fills, relay calldata decoded with viem, the
 * check order, and the engine's refusals (margin, cash, OI cap, self-trade prevention).
 */
import t from 'tap';
import { decodeFunctionData, hashTypedData, recoverTypedDataAddress } from 'viem';
import { startTestApp, request } from '../support/testApp.ts';
import { orderBookAbi } from '../../../gateway/abi.ts';
import { liveSeries, place, post, signServed, toViemMessage, trader, wad, type Trader } from './ordersFixture.ts';

const app = await startTestApp({ memory: true });
t.teardown(() => app.close());
const series = liveSeries(app);
const seriesId = series.spec.seriesId;
const contracts = app.app.services.config.contracts;

const alice = await trader(app, 'alice', { deposit: 2_000_000 });
const bob = await trader(app, 'bob', { deposit: 2_000_000 });
const mmm = await trader(app, 'mmm', { deposit: 2_000_000, mmm: true });
const poor = await trader(app, 'poor', { deposit: 10 });

const getOrder = (tr: Trader, orderId: string) => request(`${app.url}/api/mm/orders/${orderId}`, { token: tr.token });

t.test('place: typed data with server-filled fields, then relay with calldata that decodes field by field', async (t) => {
  const typed = await post(app, '/api/mm/orders/place', alice.token, { seriesId, isBuy: true, size: '0.5', price: '100.25', portfolioId: alice.portfolioId });
  t.equal(typed.status, 200, 'status', { body: typed.body });
  t.equal(typed.body.mode, 'typed_data');
  t.equal(typed.body.operation, 'place_order');
  t.equal(typed.body.contractAddress, contracts.orderBook);
  const td = typed.body.typedData;
  t.same(td.domain, { name: 'DiffusalOptionsOrderBook', version: '1', chainId: 10143, verifyingContract: contracts.orderBook });
  t.equal(td.primaryType, 'PlaceOrder');
  t.same(td.types.PlaceOrder.map((f: { name: string }) => f.name), ['seriesId', 'portfolioId', 'isBuy', 'tick', 'size', 'expiry', 'nonce', 'deadline']);
  const m = td.message;
  t.equal(m.tick, 10025, 'tick = price x 10^tickDecimals (BTC: 2)');
  t.equal(m.size, wad(0.5).toString(), 'size in WAD');
  t.equal(m.expiry, series.spec.expiry, 'expiry defaults to the series expiry');
  t.equal(m.portfolioId, String(alice.portfolioId));
  t.equal(Number(m.deadline), Math.floor(app.clock.now / 1000) + 300, 'deadline = now + 5 minutes');
  t.equal(typed.body.orderId, hashTypedData({ ...td, message: toViemMessage(td.types, 'PlaceOrder', m) }), 'orderId = hashTypedData(PlaceOrder)');

  const again = await post(app, '/api/mm/orders/place', alice.token, { seriesId, isBuy: true, size: '0.5', price: '100.25', portfolioId: alice.portfolioId });
  t.ok(BigInt(again.body.typedData.message.nonce) > BigInt(m.nonce), 'two unsigned requests never get the same nonce');

  const signed = await signServed(alice.account, td);
  const relay = await post(app, '/api/mm/orders/place', alice.token, signed);
  t.equal(relay.status, 200, 'status', { body: relay.body });
  t.equal(relay.body.mode, 'relay');
  t.equal(relay.body.operation, 'place_order');
  t.same(Object.keys(relay.body.relay).sort(), ['calldata', 'chainId', 'functionName', 'to', 'value']);
  t.equal(relay.body.relay.to, contracts.orderBook);
  t.equal(relay.body.relay.value, '0');
  t.equal(relay.body.relay.chainId, 10143);
  t.equal(relay.body.relay.functionName, 'placeOrderSigned');
  t.same(relay.body.orders, [{ orderId: typed.body.orderId, status: 'open', filled: '0', remaining: wad(0.5).toString(), trades: [], timeInForce: 'GTC', postOnly: false, reduceOnly: false, mmp: false, clientOrderId: null, cancelReason: null }]);
  const decoded = decodeFunctionData({ abi: orderBookAbi, data: relay.body.relay.calldata });
  t.equal(decoded.functionName, 'placeOrderSigned');
  const [order, sig] = decoded.args as unknown as [Record<string, unknown>, string];
  t.equal(order.seriesId, seriesId);
  t.equal(order.portfolioId, BigInt(alice.portfolioId));
  t.equal(order.isBuy, true);
  t.equal(order.tick, 10025);
  t.equal(order.size, wad(0.5));
  t.equal(order.expiry, series.spec.expiry);
  t.equal(order.nonce, BigInt(m.nonce));
  t.equal(order.deadline, BigInt(m.deadline));
  t.equal(sig, signed.signature, 'the signature as signed (65 bytes)');
  const signer = await recoverTypedDataAddress({ ...td, message: toViemMessage(td.types, 'PlaceOrder', order as Record<string, unknown>), signature: sig as `0x${string}` });
  t.equal(signer, alice.address, 'calldata recovers to the signer');

  const got = await getOrder(alice, typed.body.orderId);
  t.equal(got.status, 200);
  t.match(got.body, { orderId: typed.body.orderId, seriesId, side: 'buy', price: '100250000000000000000', size: wad(0.5).toString(), status: 'open', portfolioId: alice.portfolioId });
  const list = await request(`${app.url}/api/mm/orders?seriesId=${seriesId}`, { token: alice.token });
  t.ok(list.body.orders.some((o: { orderId: string }) => o.orderId === typed.body.orderId), 'listed among open orders');
  t.equal((await getOrder(bob, typed.body.orderId)).status, 404, "another wallet's order is 404");
});

t.test('cross and partial fill: trades in the relay reply, maker partial', async (t) => {
  const maker = await place(app, alice, { seriesId, isBuy: false, size: '1', price: '2000' });
  t.equal(maker.relay.status, 200, 'status', { body: maker.relay.body });
  const makerId = maker.relay.body.orders[0].orderId;
  const taker = await place(app, bob, { seriesId, isBuy: true, size: '0.4', price: '2000.5' });
  t.equal(taker.relay.status, 200, 'status', { body: taker.relay.body });
  const o = taker.relay.body.orders[0];
  t.equal(o.status, 'filled');
  t.equal(o.filled, wad(0.4).toString());
  t.equal(o.remaining, '0');
  t.equal(o.trades.length, 1);
  t.same({ price: o.trades[0].price, size: o.trades[0].size }, { price: wad(2000).toString(), size: wad(0.4).toString() }, 'trades at the maker price');
  t.match(o.trades[0].tradeId, /^[0-9]+$/);
  const m = await getOrder(alice, makerId);
  t.match(m.body, { status: 'partial', filled: wad(0.4).toString(), remaining: wad(0.6).toString() });
  const filled = await getOrder(bob, o.orderId);
  t.equal(filled.status, 200, 'a filled order is still readable');
  t.equal(filled.body.status, 'filled');
  const done = await request(`${app.url}/api/mm/orders?status=filled`, { token: bob.token });
  t.ok(done.body.orders.some((x: { orderId: string }) => x.orderId === o.orderId), 'listed with status=filled');
});

t.test('replace: atomic cancel + place, both phases; partial signatures refused', async (t) => {
  const first = await place(app, alice, { seriesId, isBuy: true, size: '0.2', price: '50' });
  const oldId = first.relay.body.orders[0].orderId;
  const typed = await post(app, '/api/mm/orders/replace', alice.token, { cancel: { orderId: oldId }, place: { seriesId, isBuy: true, size: '0.3', price: '51', portfolioId: alice.portfolioId } });
  t.equal(typed.status, 200, 'status', { body: typed.body });
  t.equal(typed.body.operation, 'replace_order');
  const r = typed.body.replacement;
  t.equal(r.oldOrderId, oldId);
  t.equal(r.cancelTypedData.primaryType, 'CancelOrder');
  t.equal(r.cancelTypedData.message.orderId, oldId);
  t.not(r.cancelTypedData.message.nonce, r.placeTypedData.message.nonce, 'cancel and place get different nonces');
  const cancel = await signServed(alice.account, r.cancelTypedData);
  const placeSigned = await signServed(alice.account, r.placeTypedData);
  const partial = await post(app, '/api/mm/orders/replace', alice.token, { cancel, place: { ...placeSigned, signature: undefined } });
  t.equal(partial.status, 400);
  t.equal(partial.body.code, 'invalid_argument');
  t.equal(partial.body.details.error, 'OrderValidationError');
  t.equal(partial.body.details.reason, 'partial_signatures');
  const relay = await post(app, '/api/mm/orders/replace', alice.token, { cancel, place: placeSigned });
  t.equal(relay.status, 200, 'status', { body: relay.body });
  t.equal(relay.body.relay.functionName, 'replaceOrderSigned');
  t.equal(relay.body.orders[0].orderId, r.orderId);
  t.equal(relay.body.orders[0].status, 'open');
  t.same(relay.body.cancelled.map((c: { orderId: string; status: string }) => [c.orderId, c.status]), [[oldId, 'cancelled']]);
  const decoded = decodeFunctionData({ abi: orderBookAbi, data: relay.body.relay.calldata });
  t.equal(decoded.functionName, 'replaceOrderSigned');
  const [c, cSig, p, pSig] = decoded.args as unknown as [Record<string, unknown>, string, Record<string, unknown>, string];
  t.same(c, { orderId: oldId, nonce: BigInt(cancel.nonce as string), deadline: BigInt(cancel.deadline as string) });
  t.equal(cSig, cancel.signature);
  t.equal(p.tick, 5100);
  t.equal(p.size, wad(0.3));
  t.equal(pSig, placeSigned.signature);
  t.equal((await getOrder(alice, oldId)).body.status, 'cancelled');
  t.equal((await getOrder(alice, r.orderId)).body.status, 'open');
  const again = await post(app, '/api/mm/orders/replace', alice.token, { cancel: { orderId: oldId }, place: { seriesId, isBuy: true, size: '0.3', price: '51', portfolioId: alice.portfolioId } });
  t.equal(again.status, 400, 'replacing a cancelled order');
  t.equal(again.body.details.reason, 'order_not_open');
});

t.test('checks in order: fields, portfolio, series, tick grid and size step, deadline, nonce, signer', async (t) => {
  const base = { seriesId, isBuy: true, size: '0.1', price: '10', portfolioId: alice.portfolioId };
  const cases: [string, Record<string, unknown>, number, string, RegExp][] = [
    ['missing isBuy', { ...base, isBuy: undefined }, 400, 'invalid_argument', /isBuy is required/],
    ['size not a decimal', { ...base, size: 'abc' }, 400, 'invalid_argument', /size/],
    ['bad seriesId', { ...base, seriesId: '0x12' }, 400, 'invalid_argument', /seriesId/],
    ['foreign portfolio', { ...base, portfolioId: 7 }, 404, 'not_found', /Portfolio not found: 7/],
    ['unknown series', { ...base, seriesId: `0x${'ab'.repeat(32)}` }, 404, 'not_found', new RegExp(`Series not found: 0x${'ab'.repeat(32)}`)],
    ['off-grid price', { ...base, price: '10.005' }, 400, 'invalid_argument', /price must be a multiple of the tick size 0\.01/],
    ['off-step size', { ...base, size: '0.015' }, 400, 'invalid_argument', /size must be a multiple of the size step 0\.01/],
  ];
  for (const [name, body, status, code, message] of cases) {
    const r = await post(app, '/api/mm/orders/place', alice.token, body);
    t.equal(r.status, status, name);
    t.equal(r.body.code, code, name);
    t.match(r.body.message, message, name);
    if (code === 'invalid_argument') t.equal(r.body.details.error, 'OrderValidationError', `${name}: OrderValidationError`);
  }
  const nonMmm = await post(app, '/api/mm/orders/place', alice.token, { ...base, portfolioId: undefined });
  t.equal(nonMmm.status, 400);
  t.match(nonMmm.body.message, /portfolioId is required/);
  const noAuth = await request(`${app.url}/api/mm/orders/place`, { method: 'POST', body: base });
  t.equal(noAuth.status, 401);

  const typed = await post(app, '/api/mm/orders/place', alice.token, base);
  const signed = await signServed(alice.account, typed.body.typedData);
  const bobSigned = await signServed(bob.account, typed.body.typedData);
  const wrong = await post(app, '/api/mm/orders/place', alice.token, bobSigned);
  t.equal(wrong.status, 400, 'a signature by another wallet');
  t.equal(wrong.body.details.reason, 'wrong_signer');
  t.equal(wrong.body.details.signer, bob.address);
  const td0 = typed.body.typedData;
  t.equal(wrong.body.details.digest, hashTypedData({ domain: td0.domain, types: td0.types, primaryType: 'PlaceOrder', message: toViemMessage(td0.types, 'PlaceOrder', td0.message) as never }), 'details name the digest the venue computed');
  t.same(wrong.body.details.domain, td0.domain, 'and the domain it used');
  const contracts = await request(`${app.url}/api/markets/contracts`);
  t.same(contracts.body.domains.orderBook, td0.domain, '/api/markets/contracts lists the order book domain');
  const badSig = await post(app, '/api/mm/orders/place', alice.token, { ...signed, signature: '0x1234' });
  t.equal(badSig.status, 400);
  t.equal(badSig.body.details.field, 'signature');
  const tampered = await post(app, '/api/mm/orders/place', alice.token, { ...signed, tick: 1001 });
  t.equal(tampered.body.details.reason, 'wrong_signer', 'a changed field no longer recovers to the caller');

  // Phase one skipped: the client builds and signs the message itself, with a deadline already past.
  const now = Math.floor(app.clock.now / 1000);
  const td = typed.body.typedData;
  const expired = await signServed(alice.account, { ...td, message: { ...td.message, deadline: String(now - 10), nonce: '987654' } });
  const late = await post(app, '/api/mm/orders/place', alice.token, expired);
  t.equal(late.status, 400);
  t.equal(late.body.code, 'failed_precondition');
  t.equal(late.body.details.reason, 'deadline_passed');

  const ok = await post(app, '/api/mm/orders/place', alice.token, signed);
  t.equal(ok.status, 200);
  const replay = await post(app, '/api/mm/orders/place', alice.token, signed);
  t.equal(replay.status, 400, 'a replayed signed body');
  t.equal(replay.body.code, 'failed_precondition');
  t.equal(replay.body.details.reason, 'nonce_used');
});

t.test('MMM wallets trade from portfolio 0 and may omit it', async (t) => {
  const typed = await post(app, '/api/mm/orders/place', mmm.token, { seriesId, isBuy: false, size: '0.1', price: '3000' });
  t.equal(typed.status, 200, 'status', { body: typed.body });
  t.equal(typed.body.typedData.message.portfolioId, '0');
  const relay = await post(app, '/api/mm/orders/place', mmm.token, await signServed(mmm.account, typed.body.typedData));
  t.equal(relay.status, 200, 'status', { body: relay.body });
  t.equal((await getOrder(mmm, relay.body.orders[0].orderId)).body.portfolioId, 0);
  const zero = await post(app, '/api/mm/orders/place', alice.token, { seriesId, isBuy: true, size: '0.1', price: '1', portfolioId: 0 });
  t.equal(zero.status, 400, 'portfolio 0 is not for other wallets');
  t.equal(zero.body.details.reason, 'portfolio_reserved');
});

t.test('identical orders of two wallets get different orderIds (nonces start per wallet)', async (t) => {
  const mmm2 = await trader(app, 'mmm2', { deposit: 2_000_000, mmm: true });
  const body = { seriesId, isBuy: true, size: '0.1', price: '7' };
  const a = await place(app, mmm, body);
  const b = await place(app, mmm2, body);
  t.equal(a.relay.status, 200, 'status', { body: a.relay.body });
  t.equal(b.relay.status, 200, 'status', { body: b.relay.body });
  t.not(a.typed.body.orderId, b.typed.body.orderId);
  const nonce = await request(`${app.url}/api/mm/nonce`, { token: mmm2.token });
  t.ok(BigInt(nonce.body.nextOrderNonce) > BigInt(b.signed.nonce as string), 'nextOrderNonce is above the used one');
});

t.test('the OpenAPI document shows both phases of every order route', async (t) => {
  const doc = (await request(`${app.url}/openapi/json`)).body;
  for (const path of ['/api/mm/orders/place', '/api/mm/orders/replace', '/api/mm/orders/place-batch', '/api/mm/orders/cancel-batch', '/api/mm/orders/replace-batch']) {
    const op = doc.paths[path].post;
    t.ok(op.security?.length > 0 || op.description, `${path} documented`);
    const reply = JSON.stringify(op.responses['200']);
    t.match(reply, /typed_data/, `${path}: phase-one reply`);
    t.match(reply, /relay/, `${path}: relay reply`);
    t.match(JSON.stringify(op.requestBody), /signature/, `${path}: signed body`);
  }
  t.ok(doc.paths['/api/mm/orders/{orderId}'].get);
});

t.test('engine refusals: cash, margin, OI cap; self-trade prevention', async (t) => {
  const cash = await place(app, poor, { seriesId, isBuy: true, size: '1', price: '500' });
  t.equal(cash.relay.status, 400, 'status', { body: cash.relay.body });
  t.equal(cash.relay.body.code, 'failed_precondition');
  t.equal(cash.relay.body.details.reason, 'insufficient_cash');
  const margin = await place(app, poor, { seriesId, isBuy: false, size: '1', price: '500' });
  t.equal(margin.relay.status, 400);
  t.equal(margin.relay.body.details.reason, 'insufficient_margin');

  const put = liveSeries(app, false);
  const submit = app.app.services.pipeline.submit.bind(app.app.services.pipeline);
  t.ok((await submit({ type: 'set_oi_caps', pairId: put.spec.pairId, maxCallOI: 0n, maxPutOI: wad(0.05) })).ok);
  const oi = await place(app, alice, { seriesId: put.spec.seriesId, isBuy: true, size: '0.1', price: '10' });
  t.equal(oi.relay.status, 400, 'status', { body: oi.relay.body });
  t.equal(oi.relay.body.details.reason, 'oi_cap');
  t.ok((await submit({ type: 'set_oi_caps', pairId: put.spec.pairId, maxCallOI: 0n, maxPutOI: 0n })).ok);

  const fresh = liveSeries(app, true, 'BTC-USDC', 1).spec.seriesId;
  const resting = await place(app, bob, { seriesId: fresh, isBuy: false, size: '0.1', price: '4000' });
  t.equal(resting.relay.status, 200);
  const restingId = resting.relay.body.orders[0].orderId;
  const own = await place(app, bob, { seriesId: fresh, isBuy: true, size: '0.1', price: '4000' });
  t.equal(own.relay.status, 200, 'status', { body: own.relay.body });
  t.equal(own.relay.body.orders[0].trades.length, 0, 'no trade against its own order');
  t.equal(own.relay.body.orders[0].status, 'open', 'the incoming order rests');
  const cancelled = await getOrder(bob, restingId);
  t.match(cancelled.body, { status: 'cancelled', reason: 'self_trade_prevention' }, 'the resting order was cancelled');
});

t.test('GET /api/mm/orders: filters, pagination, bad queries', async (t) => {
  const all = await request(`${app.url}/api/mm/orders?limit=100`, { token: alice.token });
  t.equal(all.status, 200);
  t.ok(all.body.orders.length >= 2);
  t.ok(all.body.orders.every((o: { status: string }) => o.status === 'open' || o.status === 'partial'), 'open orders by default');
  const page1 = await request(`${app.url}/api/mm/orders?limit=1`, { token: alice.token });
  t.equal(page1.body.orders.length, 1);
  const page2 = await request(`${app.url}/api/mm/orders?limit=1&cursor=${page1.body.nextCursor}`, { token: alice.token });
  t.not(page2.body.orders[0].orderId, page1.body.orders[0].orderId);
  for (const q of ['limit=0', 'status=bogus', 'seriesId=0x1', 'cursor=0x' + '00'.repeat(32)]) {
    const r = await request(`${app.url}/api/mm/orders?${q}`, { token: alice.token });
    t.equal(r.status, 400, q);
  }
  t.equal((await request(`${app.url}/api/mm/orders/0x${'00'.repeat(32)}`, { token: alice.token })).status, 404);
  t.equal((await request(`${app.url}/api/mm/orders`)).status, 401);
});
