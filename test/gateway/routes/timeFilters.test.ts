/**
 * Time filters (extensions.md "Time filters and the admin scope") against the real server:
 * `startTime`/`endTime` (Unix seconds, the lists' unit, inclusive) on the account's trades and
 * open orders, /api/mm/orders and the public trades of a series, in both forms; a reversed
 * range is 400 `startTime must be before endTime` in each form's error shape.
 */
import t from 'tap';
import { startTestApp, request } from '../support/testApp.ts';
import { newWallet } from '../auth/siweClient.ts';
import { atTheMoney, placeDirect, priceNearMark, USDC, WAD } from '../auth/venueOrders.ts';

const app = await startTestApp({ memory: true });
t.teardown(() => app.close());
const url = app.url;
const alice = newWallet();
const bob = newWallet();
const alic = await app.session(alice.address);
const alicEarlier = await app.session(alice.address, 'earlier');
const bobt = await app.session(bob.address);
const post = (path: string, token: string, body?: unknown) => request(url + path, { method: 'POST', token, ...(body !== undefined ? { body } : {}) });
for (const token of [alic, bobt]) {
  await post('/api/portfolio/create', token);
  await post('/api/portfolio/deposit', token, { portfolioId: 1, amount: String(100_000n * USDC) });
}
const series = atTheMoney(app.app);
const price = priceNearMark(app.app, series);
const tickSize = 10n ** BigInt(18 - app.app.engine.state.pairs.get(series.spec.pairId)!.tickDecimals);
const low = (price / 2n / tickSize) * tickSize;

// Two trades and two resting orders, an hour apart.
const t0 = Math.floor(app.clock.now / 1000);
await placeDirect(app.app, { owner: bob.address, portfolioId: 1, series, isBuy: false, price, size: WAD });
await placeDirect(app.app, { owner: alice.address, portfolioId: 1, series, isBuy: true, price, size: WAD / 2n });
await placeDirect(app.app, { owner: alice.address, portfolioId: 1, series, isBuy: true, price: low, size: WAD / 10n });
app.clock.advance(3600_000);
await app.app.services.pipeline.submit({ type: 'clock' });
const t1 = t0 + 3600;
await placeDirect(app.app, { owner: alice.address, portfolioId: 1, series, isBuy: true, price, size: WAD / 2n });
await placeDirect(app.app, { owner: alice.address, portfolioId: 1, series, isBuy: true, price: low, size: WAD / 5n });

const get = (path: string, form: 'current' | 'earlier' = 'current') =>
  form === 'current' ? request(url + path, { token: alic }) : request(url + path.replace(/^\/api/, ''), { headers: { cookie: `session=${alicEarlier}` } });

const lists = [
  { path: '/api/account/trades', items: (b: any) => b.trades, time: (x: any) => x.timestamp, forms: ['current', 'earlier'] as const },
  { path: '/api/account/orders', items: (b: any) => b.orders, time: (x: any) => x.createdAt, forms: ['current', 'earlier'] as const },
  { path: '/api/mm/orders', items: (b: any) => b.orders, time: (x: any) => x.createdAt, forms: ['current'] as const },
  { path: `/api/markets/trades/${series.spec.symbol}`, items: (b: any) => b.trades, time: (x: any) => x.timestamp, forms: ['current', 'earlier'] as const },
];

for (const list of lists) {
  for (const form of list.forms) {
    t.test(`${list.path} (${form}): startTime/endTime select by time, inclusive`, async (t) => {
      const all = list.items((await get(list.path, form)).body);
      t.same([...new Set(all.map(list.time))].sort(), [t0, t1], 'entries at both times without a filter');
      const sep = list.path.includes('?') ? '&' : '?';
      const late = await get(`${list.path}${sep}startTime=${t1}`, form);
      t.equal(late.status, 200);
      t.ok(list.items(late.body).length > 0 && list.items(late.body).every((x: any) => list.time(x) === t1), 'startTime keeps the later ones');
      const early = await get(`${list.path}${sep}endTime=${t1 - 1}`, form);
      t.ok(list.items(early.body).length > 0 && list.items(early.body).every((x: any) => list.time(x) === t0), 'endTime keeps the earlier ones');
      const exact = await get(`${list.path}${sep}startTime=${t0}&endTime=${t0}`, form);
      t.same(list.items(exact.body).map(list.time), list.items(early.body).map(list.time), 'both bounds inclusive');
      const none = await get(`${list.path}${sep}startTime=${t1 + 1}`, form);
      t.same(list.items(none.body), []);
      const reversed = await get(`${list.path}${sep}startTime=${t1}&endTime=${t0}`, form);
      t.equal(reversed.status, 400);
      if (form === 'current') t.match(reversed.body, { code: 'invalid_argument', message: 'startTime must be before endTime' });
      else t.match(reversed.body, { error: String, message: 'startTime must be before endTime' });
      const bad = await get(`${list.path}${sep}startTime=soon`, form);
      t.equal(bad.status, 400, 'a bound that is not a number is 400');
    });
  }
}
