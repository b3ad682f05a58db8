/**
 * The rate-limit groups of issue 22's routes through the real server and its real route table
 * (interface.md "Limits", docs/rate-limits.md), on a fixed clock (no budget refills):
 * - `/api/strategies/*` draws on the orders budget: one wallet's strategy calls and its
 *   `/api/mm/*` calls count down one bucket (both forms), and the refusal is the orders
 *   group's 429;
 * - the public reads of the platform group (`/api/platform/*`, `GET /api/leaderboard`,
 *   `GET /api/user/:address/stats`) share 600 a minute per IP, the default table's figure:
 *   request 601 is refused whichever of them it is.
 */
import t from 'tap';
import { startTestApp, request } from '../support/testApp.ts';
import { liveSeries, trader } from './ordersFixture.ts';

const ORDERS = 7;
const flat = (n: number) => ({ anonymous: n, tier1: n, tier2: n, tier3: n });
// Only the orders group is scaled down; platform keeps its default.
const app = await startTestApp({ memory: true, env: { RATE_LIMITS: JSON.stringify({ orders: flat(ORDERS) }) } });
t.teardown(() => app.close());
const url = app.url;

t.test('strategies draw on the orders budget, with /api/mm/*, in both forms', async (t) => {
  const who = await trader(app, 'budget strategies', { deposit: 1_000 });
  const cookie = await app.session(who.address, 'earlier');
  const seriesId = liveSeries(app).spec.seriesId;
  const quote = { legs: [{ seriesId, ratio: 1 }], size: '1' };
  const calls = [
    () => request(`${url}/api/strategies/templates`, { token: who.token }),
    () => request(`${url}/api/mm/orders`, { token: who.token }),
    () => request(`${url}/api/strategies/quote`, { token: who.token, body: quote }),
    () => request(`${url}/strategies/templates`, { headers: { cookie: `session=${cookie}` } }),
    () => request(`${url}/api/mm/nonce`, { token: who.token }),
    () => request(`${url}/api/strategies/execute`, { token: who.token, body: { portfolioId: who.portfolioId, legs: [{ seriesId, isBuy: true, size: '1', price: '1' }] } }),
    () => request(`${url}/api/strategies/templates`, { token: who.token }),
  ];
  t.equal(calls.length, ORDERS);
  const replies = [];
  for (const call of calls) replies.push(await call());
  t.same(replies.map((r) => r.status), Array(ORDERS).fill(200), 'each served', { bodies: replies.map((r) => r.body) });
  const headed = replies.filter((_r, i) => i !== 3); // the earlier form carries no rate-limit headers
  t.same(headed.map((r) => r.headers.get('x-ratelimit-limit')), Array(headed.length).fill(String(ORDERS)), 'the orders group\'s limit');
  t.same(replies.map((r) => r.headers.get('x-ratelimit-remaining')), ['6', '5', '4', null, '2', '1', '0'], 'one bucket counts down across strategies and /api/mm/* (the earlier-form call counted too)');
  for (const path of ['/api/strategies/quote', '/api/mm/orders']) {
    const r = await request(url + path, path.endsWith('quote') ? { token: who.token, body: quote } : { token: who.token });
    t.equal(r.status, 429, `${path}: refused once the orders budget is spent`);
    t.same(r.body, { code: 'resource_exhausted', message: 'rate limit exceeded', details: { limit: ORDERS, resetAt: app.clock.now + Math.ceil(60_000 / ORDERS) } });
  }
  const earlier = await request(`${url}/strategies/templates`, { headers: { cookie: `session=${cookie}` } });
  t.same([earlier.status, earlier.body.error], [429, 'rate_limited'], 'the earlier form too');
  const account = await request(`${url}/api/account/me`, { token: who.token });
  t.equal(account.status, 200, 'the account group is another bucket');
});

t.test('the platform group: 600 a minute per IP across its public reads', async (t) => {
  const seen = await trader(app, 'budget platform');
  const paths = ['/api/platform/stats', '/platform/volume', '/api/leaderboard?metric=points', '/leaderboard', `/api/user/${seen.address}/stats`, '/api/platform/volume?interval=1d'];
  const statuses = new Map<number, number>();
  for (let i = 0; i < 600; i++) {
    const r = await request(url + paths[i % paths.length]!);
    statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
  }
  t.same([...statuses], [[200, 600]], '600 requests served');
  for (const path of paths) {
    const r = await request(url + path);
    t.equal(r.status, 429, `${path}: request 601 and after refused`);
    if (path.startsWith('/api/')) t.same(r.body, { code: 'resource_exhausted', message: 'rate limit exceeded', details: { limit: 600, resetAt: app.clock.now + 100 } });
    else t.match(r.body, { error: 'rate_limited', details: { limit: 600 } });
  }
  const market = await request(`${url}/api/markets/pairs`);
  t.equal(market.status, 200, 'the markets group is another bucket');
});
