/**
 * Market maker protection through the real server (docs/order-entry.md "Market maker
 * protection"): GET/POST /api/mm/mmp and POST /api/mm/mmp/reset in both forms, a trip by one
 * taker's sweep with account@mmp frames (checked against the served AsyncAPI document), the
 * early refusal mmp_frozen of an mmp order, and the unfreeze by time at a clock command.
 * The venue clock is injected and moved by hand: no real time passes.
 */
import t from 'tap';
import { startTestApp, request } from '../support/testApp.ts';
import { instructionsOf } from '../../../engine/domain/instructions.ts';
import type { Command, CommandBody } from '../../../engine/commands.ts';
import { wsEnv, connect, priceMarks, fund, atmSeries, order, wallet, wad, asyncApiValidator, BTC, type Client } from '../streams/support.ts';

wsEnv({ WS_MESSAGES_PER_MINUTE: '10000' });
const app = await startTestApp({ memory: true, startAt: Date.UTC(2026, 0, 5, 12, 0, 0) });
t.teardown(() => app.close());
await priceMarks(app);
const maker = wallet(0x33a1);
const taker = wallet(0x33b2);
const other = wallet(0x33c3);
for (const w of [maker, taker, other]) await fund(app, w);
const series = atmSeries(app);
const api = await asyncApiValidator(app);
const submit = (c: CommandBody) => app.app.services.pipeline.submit(c as Command);
const token = await app.session(maker);
const cookie = await app.session(maker, 'earlier');
const mmp = { instructions: instructionsOf({ mmp: true }) };

const config = { pairId: BTC, windowMs: 1000, frozenMs: 5000, qtyLimit: '0', deltaLimit: '0', vegaLimit: '0', tradeCountLimit: 2 };

async function privateClient(address: string, channels: string[]): Promise<Client> {
  const c = await connect(app, '/ws/private');
  c.send({ type: 'AUTH', token: await app.session(address) });
  await c.next((f) => f['type'] === 'AUTH_SUCCESS', 'AUTH_SUCCESS');
  c.send({ method: 'SUBSCRIBE', params: channels, id: 'sub' });
  await c.next((f) => f['id'] === 'sub', 'subscribe ack');
  return c;
}

t.test('routes in both forms: set, read, reset; validation and unknown pairs', async (t) => {
  const empty = await request(`${app.url}/api/mm/mmp`, { token });
  t.same([empty.status, empty.body], [200, { configs: [] }]);
  const set = await request(`${app.url}/api/mm/mmp`, { token, body: config });
  t.same([set.status, set.body], [200, config], 'the stored config');
  const read = await request(`${app.url}/api/mm/mmp`, { token });
  t.same(read.body, { configs: [{ ...config, frozen: false, frozenUntil: null, reason: null, window: { qty: '0', delta: '0', vega: '0', trades: 0 } }] });
  const earlier = await request(`${app.url}/mm/mmp`, { headers: { cookie: `session=${cookie}` } });
  t.same([earlier.status, earlier.body], [200, read.body], 'the earlier form reads the same');
  const earlierSet = await request(`${app.url}/mm/mmp`, { headers: { cookie: `session=${cookie}` }, body: { ...config, qtyLimit: '5000000000000000000' } });
  t.same([earlierSet.status, earlierSet.body], [200, { ...config, qtyLimit: '5000000000000000000' }], 'the earlier form sets');
  await request(`${app.url}/api/mm/mmp`, { token, body: config });

  const badWindow = await request(`${app.url}/api/mm/mmp`, { token, body: { ...config, windowMs: 99 } });
  t.match([badWindow.status, badWindow.body], [400, { code: 'invalid_argument', message: /windowMs/ }]);
  const badLimit = await request(`${app.url}/api/mm/mmp`, { token, body: { ...config, vegaLimit: '-1' } });
  t.match([badLimit.status, badLimit.body], [400, { code: 'invalid_argument', details: { field: 'vegaLimit' } }]);
  const badEarlier = await request(`${app.url}/mm/mmp`, { headers: { cookie: `session=${cookie}` }, body: { ...config, frozenMs: 3_600_001 } });
  t.match([badEarlier.status, badEarlier.body], [400, { error: 'validation_error' }], 'the earlier error shape');
  const unknownPair = await request(`${app.url}/api/mm/mmp`, { token, body: { ...config, pairId: `0x${'12'.repeat(32)}` } });
  t.match([unknownPair.status, unknownPair.body], [404, { code: 'not_found', details: { reason: 'unknown_pair' } }]);
  const notConfigured = await request(`${app.url}/api/mm/mmp/reset`, { token: await app.session(other), body: { pairId: BTC } });
  t.match([notConfigured.status, notConfigured.body], [404, { code: 'not_found', details: { reason: 'mmp_not_configured' } }]);
  const reset = await request(`${app.url}/mm/mmp/reset`, { headers: { cookie: `session=${cookie}` }, body: { pairId: BTC } });
  t.same([reset.status, reset.body], [200, { ...config, frozen: false, frozenUntil: null, reason: null, window: { qty: '0', delta: '0', vega: '0', trades: 0 } }], 'reset in the earlier form');
});

t.test('a taker sweeping the maker trips within its order; account@mmp reports the trip, mmp_frozen refuses early, the freeze ends at a clock command', async (t) => {
  const watcher = await privateClient(maker, ['account@mmp', 'account@orders']);
  const bystander = await privateClient(other, ['account@mmp']);
  const quotes = [2000, 2010, 2020, 2030].map((p) => ({ ...order(app, maker, series, false, p, 1), ...mmp }));
  const plain = order(app, other, series, false, 2025, 1);
  t.ok((await submit({ type: 'place', orders: [...quotes, plain] })).ok);
  const sweep = await submit({ type: 'place', orders: [order(app, taker, series, true, 2100, 5)] });
  t.ok(sweep.ok);
  const trades = sweep.events.filter((e) => e.type === 'trade').map((e) => (e as { maker: string }).maker);
  t.same(trades, [maker, maker, other], 'two quotes, then the other maker; the rest of the quotes are cancelled');

  const frame = await watcher.next((f) => f['channel'] === 'account@mmp', 'account@mmp trip');
  const tripTs = app.app.services.reads.ts;
  t.match(frame['data'], { pairId: BTC, frozen: true, frozenUntil: tripTs + 5000, reason: 'trades', window: { trades: 2, qty: wad(2).toString() } });
  t.equal(api.check('accountMmp.mmp', frame), null, 'the frame validates against the AsyncAPI document');
  const cancelled = await watcher.next((f) => f['channel'] === 'account@orders' && f['data'].cancelReason === 'mmp', 'an order cancelled by mmp');
  t.equal(cancelled['data'].status, 'cancelled');

  const read = await request(`${app.url}/api/mm/mmp`, { token });
  t.match(read.body.configs, [{ pairId: BTC, frozen: true, frozenUntil: tripTs + 5000, reason: 'trades', window: { trades: 2 } }]);
  const metrics = (await request(`${app.url}/metrics`)).body as string;
  t.match(metrics, /mmp_trips_total\{reason="trades"\} 1\n/, 'the trip is counted once, by its limit');
  t.match(metrics, /order_venue_cancels_total\{reason="mmp"\} [1-9]/, 'and the orders MMP cancelled');

  // An mmp order is refused early (phase one, before any signature); a plain one is not.
  const body = { seriesId: series.spec.seriesId, isBuy: false, size: '1', price: '2000', portfolioId: 1 };
  const refused = await request(`${app.url}/api/mm/orders/place`, { token, body: { ...body, mmp: true } });
  t.match([refused.status, refused.body], [400, { code: 'failed_precondition', details: { reason: 'mmp_frozen', field: 'mmp', pairId: BTC } }]);
  const plainOk = await request(`${app.url}/api/mm/orders/place`, { token, body });
  t.equal(plainOk.status, 200, 'a non-mmp order goes on to its typed data');

  // The freeze runs out: the first clock command at or past frozenUntil unfreezes and reports it.
  app.clock.now = tripTs + 4999;
  t.ok((await submit({ type: 'clock' })).ok);
  app.clock.now = tripTs + 5000;
  t.ok((await submit({ type: 'clock' })).ok);
  const thaw = await watcher.next((f) => f['channel'] === 'account@mmp' && f['data'].frozen === false, 'account@mmp unfreeze');
  t.match(thaw['data'], { pairId: BTC, frozen: false, frozenUntil: null, reason: null, window: { trades: 0 } });
  t.equal(api.check('accountMmp.mmp', thaw), null);
  t.same(watcher.frames.filter((f) => f['channel'] === 'account@mmp').length, 2, 'the trip and the unfreeze only (fills alone are not sent)');
  t.same(bystander.frames.filter((f) => f['channel'] === 'account@mmp'), [], 'another wallet hears nothing');
  const after = await request(`${app.url}/api/mm/orders/place`, { token, body: { ...body, mmp: true } });
  t.equal(after.status, 200, 'mmp orders are accepted again');
  watcher.close();
  bystander.close();
});
