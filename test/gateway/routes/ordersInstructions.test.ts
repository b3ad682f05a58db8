/**
 * Order instructions through HTTP (docs/order-entry.md "Order instructions"): both phases of
 * place, place-batch, replace and replace-batch accept timeInForce, postOnly, reduceOnly, mmp
 * and clientOrderId; phase one echoes them, phase two applies them; replies and order reads
 * carry them and cancelReason; bad values are 400 invalid_argument naming the field.
 */
import t from 'tap';
import { startTestApp, request } from '../support/testApp.ts';
import { liveSeries, post, signServed, trader, wad, type Trader } from './ordersFixture.ts';

const app = await startTestApp({ memory: true, startAt: Date.UTC(2026, 0, 5, 12, 0, 0) });
t.teardown(() => app.close());
const series = liveSeries(app);
const seriesId = series.spec.seriesId;
const alice = await trader(app, 'instr-alice', { deposit: 2_000_000 });
const bob = await trader(app, 'instr-bob', { deposit: 2_000_000 });

const get = (tr: Trader, path: string) => request(`${app.url}${path}`, { token: tr.token });

/** Both phases of one place with instructions `ins` (sent in each phase). */
async function placeWith(tr: Trader, body: Record<string, unknown>, ins: Record<string, unknown>) {
  const typed = await post(app, '/api/mm/orders/place', tr.token, { seriesId, portfolioId: tr.portfolioId, ...body, ...ins });
  if (typed.status !== 200) return { typed, relay: typed };
  const signed = await signServed(tr.account, typed.body.typedData);
  const relay = await post(app, '/api/mm/orders/place', tr.token, { ...signed, ...ins });
  return { typed, relay };
}

t.test('place: phase one echoes the instructions, phase two applies them; reads carry them', async (t) => {
  const ins = { timeInForce: 'GTC', postOnly: true, mmp: true, clientOrderId: 'quote-A_1' };
  const { typed, relay } = await placeWith(alice, { isBuy: true, size: '0.5', price: '100' }, ins);
  t.equal(typed.status, 200, 'phase one', { body: typed.body });
  t.match(typed.body, { mode: 'typed_data', ...ins, reduceOnly: false });
  t.notOk('clientOrderId' in typed.body.typedData.message, 'not part of the signed struct');
  t.equal(relay.status, 200, 'phase two', { body: relay.body });
  t.same(relay.body.orders, [{ orderId: typed.body.orderId, status: 'open', filled: '0', remaining: wad(0.5).toString(), trades: [], ...ins, reduceOnly: false, cancelReason: null }]);
  const one = await get(alice, `/api/mm/orders/${typed.body.orderId}`);
  t.match(one.body, { orderId: typed.body.orderId, status: 'open', ...ins, reduceOnly: false, cancelReason: null });
  const list = await get(alice, '/api/mm/orders');
  t.match(list.body.orders.find((o: { orderId: string }) => o.orderId === typed.body.orderId), { clientOrderId: 'quote-A_1', postOnly: true });
  const account = await get(alice, '/api/account/orders');
  t.match(account.body.orders.find((o: { orderId: string }) => o.orderId === typed.body.orderId), { clientOrderId: 'quote-A_1', mmp: true, timeInForce: 'GTC' });

  const dup = await post(app, '/api/mm/orders/place', alice.token, { seriesId, portfolioId: alice.portfolioId, isBuy: true, size: '0.5', price: '99', clientOrderId: 'quote-A_1' });
  t.equal(dup.status, 400);
  t.match(dup.body, { code: 'failed_precondition', details: { reason: 'duplicate_client_order_id', field: 'clientOrderId', clientOrderId: 'quote-A_1' } });

  // A replacement may keep the client order id of the order it cancels; the old one reads cancelReason replace.
  const rep = await post(app, '/api/mm/orders/replace', alice.token, { cancel: { orderId: typed.body.orderId }, place: { seriesId, portfolioId: alice.portfolioId, isBuy: true, size: '0.5', price: '101', clientOrderId: 'quote-A_1' } });
  t.equal(rep.status, 200, 'replace phase one', { body: rep.body });
  t.equal(rep.body.replacement.clientOrderId, 'quote-A_1');
  const cancel = await signServed(alice.account, rep.body.replacement.cancelTypedData);
  const place = await signServed(alice.account, rep.body.replacement.placeTypedData);
  const repRelay = await post(app, '/api/mm/orders/replace', alice.token, { cancel, place: { ...place, clientOrderId: 'quote-A_1' } });
  t.equal(repRelay.status, 200, 'replace phase two', { body: repRelay.body });
  t.match(repRelay.body.orders, [{ status: 'open', clientOrderId: 'quote-A_1' }]);
  t.match(repRelay.body.cancelled, [{ orderId: typed.body.orderId, status: 'cancelled', cancelReason: 'replace', clientOrderId: 'quote-A_1' }]);
  t.match((await get(alice, `/api/mm/orders/${typed.body.orderId}`)).body, { status: 'cancelled', cancelReason: 'replace', clientOrderId: 'quote-A_1' });
});

t.test('IOC, FOK, post-only and reduce-only through HTTP', async (t) => {
  const ask = await placeWith(alice, { isBuy: false, size: '1', price: '300' }, {});
  t.equal(ask.relay.status, 200, 'a resting ask', { body: ask.relay.body });
  const ioc = await placeWith(bob, { isBuy: true, size: '1.5', price: '300' }, { timeInForce: 'IOC' });
  t.equal(ioc.relay.status, 200, { body: ioc.relay.body });
  t.match(ioc.relay.body.orders, [{ status: 'cancelled', filled: wad(1).toString(), remaining: '0', timeInForce: 'IOC', cancelReason: 'ioc' }]);
  t.match((await get(bob, `/api/mm/orders/${ioc.typed.body.orderId}`)).body, { status: 'cancelled', cancelReason: 'ioc', timeInForce: 'IOC' });

  await placeWith(alice, { isBuy: false, size: '1', price: '310' }, {});
  const fok = await placeWith(bob, { isBuy: true, size: '2', price: '310' }, { timeInForce: 'FOK' });
  t.match(fok.relay.body.orders, [{ status: 'cancelled', filled: '0', cancelReason: 'fok' }], 'cannot fill 2: killed');
  const fills = await placeWith(bob, { isBuy: true, size: '1', price: '310' }, { timeInForce: 'FOK' });
  t.match(fills.relay.body.orders, [{ status: 'filled', filled: wad(1).toString(), cancelReason: null }]);

  await placeWith(alice, { isBuy: false, size: '1', price: '320' }, {});
  const post1 = await post(app, '/api/mm/orders/place', bob.token, { seriesId, portfolioId: bob.portfolioId, isBuy: true, size: '1', price: '320', postOnly: true });
  t.equal(post1.status, 400);
  t.match(post1.body, { code: 'failed_precondition', details: { reason: 'post_only_would_take', field: 'postOnly' } });

  // bob holds 2 long (the IOC's 1 and the FOK's 1): a reduce-only sell of 2 fits, one lot more does not.
  const over = await post(app, '/api/mm/orders/place', bob.token, { seriesId, portfolioId: bob.portfolioId, isBuy: false, size: '2.01', price: '900', reduceOnly: true });
  t.match(over.body, { code: 'failed_precondition', details: { reason: 'reduce_only_would_increase', field: 'reduceOnly', position: wad(2).toString() } });
  const fits = await placeWith(bob, { isBuy: false, size: '2', price: '900' }, { reduceOnly: true });
  t.match(fits.relay.body.orders, [{ status: 'open', reduceOnly: true }]);
});

t.test('batches carry instructions per entry', async (t) => {
  const entries = [
    { seriesId, portfolioId: alice.portfolioId, isBuy: true, size: '0.1', price: '50', clientOrderId: 'b-1' },
    { seriesId, portfolioId: alice.portfolioId, isBuy: true, size: '0.1', price: '51', clientOrderId: 'b-2', mmp: true },
  ];
  const typed = await post(app, '/api/mm/orders/place-batch', alice.token, { orders: entries });
  t.equal(typed.status, 200, { body: typed.body });
  t.match(typed.body.placements, [{ clientOrderId: 'b-1', mmp: false }, { clientOrderId: 'b-2', mmp: true }]);
  const signed = await Promise.all(typed.body.placements.map(async (p: { typedData: unknown }, i: number) => ({ ...(await signServed(alice.account, p.typedData)), clientOrderId: entries[i]!.clientOrderId, ...(i === 1 ? { mmp: true } : {}) })));
  const relay = await post(app, '/api/mm/orders/place-batch', alice.token, { orders: signed });
  t.equal(relay.status, 200, { body: relay.body });
  t.match(relay.body.orders, [{ clientOrderId: 'b-1', mmp: false }, { clientOrderId: 'b-2', mmp: true }]);
  const twice = await post(app, '/api/mm/orders/place-batch', alice.token, { orders: [{ ...entries[0], clientOrderId: 'b-9' }, { ...entries[1], clientOrderId: 'b-9' }] });
  t.equal(twice.status, 200, 'phase one checks entries one by one (nothing is applied)');
  const rb = await post(app, '/api/mm/orders/replace-batch', alice.token, { replacements: [{ cancel: { orderId: relay.body.orders[0].orderId }, place: { ...entries[0], price: '52', timeInForce: 'IOC' } }] });
  t.equal(rb.status, 200, { body: rb.body });
  t.match(rb.body.replacements, [{ clientOrderId: 'b-1', timeInForce: 'IOC' }]);
});

t.test('bad instruction values: 400 invalid_argument naming the field', async (t) => {
  const base = { seriesId, portfolioId: alice.portfolioId, isBuy: true, size: '0.1', price: '50' };
  for (const [field, value] of [
    ['clientOrderId', 'has space'],
    ['clientOrderId', ''],
    ['clientOrderId', 'x'.repeat(37)],
    ['clientOrderId', 7],
    ['timeInForce', 'DAY'],
    ['timeInForce', 'ioc'],
    ['postOnly', 'yes'],
    ['reduceOnly', 1],
    ['mmp', 'true'],
  ] as const) {
    const r = await post(app, '/api/mm/orders/place', alice.token, { ...base, [field]: value });
    t.equal(r.status, 400, `${field} ${JSON.stringify(value)}`);
    t.match(r.body, { code: 'invalid_argument', details: { field, error: 'OrderValidationError' } }, `${field} ${JSON.stringify(value)} names the field`);
  }
  const batch = await post(app, '/api/mm/orders/place-batch', alice.token, { orders: [base, { ...base, timeInForce: 'GTD' }] });
  t.match(batch.body, { code: 'invalid_argument', details: { field: 'orders[1].timeInForce' } });
});
