/**
 * Rate limits through the real server on a fake clock: for each group the N+1-th
 * request of the minute gets 429 with the right body (both forms), Retry-After and, for
 * authenticated current-form callers, the X-RateLimit headers. The tier table is scaled
 * down by 20 (helpers and auth keep their defaults) so the file stays fast on a busy
 * machine; rateLimit.test.ts proves the full default table on the limiter itself.
 */
import t from 'tap';
import { createRateLimiter, type GroupLimits } from '../../../gateway/http/rateLimit.ts';
import { systemRoutes } from '../../../gateway/http/systemRoutes.ts';
import { demoRoutes, fakeAuthenticate, fakeClock, isAdmin, json, seriesIdExample, start, tierOf } from './support.ts';

const orders: GroupLimits = { anonymous: 30, tier1: 30, tier2: 60, tier3: 120 };
const limits = {
  markets: { anonymous: 30, tier1: 15, tier2: 30, tier3: 50 },
  orders,
  account: orders,
  platform: { anonymous: 30, tier1: 30, tier2: 30, tier3: 30 },
  admin: { anonymous: 30, tier1: 30, tier2: 30, tier3: 30 },
};
const clock = fakeClock(1_800_000_000_000);
const rateLimiter = createRateLimiter({ clock: clock.read, tierOf, limits });
const api = demoRoutes();
const s = await start({ routes: [...api, ...systemRoutes({ apiRoutes: api, info: { title: 't', version: '1' } })], authenticate: fakeAuthenticate, isAdmin, rateLimiter, clock: clock.read });
t.teardown(s.close);

type Req = { path: string; method?: string; headers?: Record<string, string>; body?: string };

async function burst(req: Req, n: number): Promise<Response[]> {
  const out: Response[] = [];
  // Sequential keeps the server's view of order simple; the clock does not move.
  for (let i = 0; i < n; i++) {
    const init: RequestInit = { method: req.method ?? 'GET', headers: { 'content-type': 'application/json', ...req.headers } };
    if (req.body !== undefined) init.body = req.body;
    const r = await fetch(s.base + req.path, init);
    await r.arrayBuffer();
    out.push(r);
  }
  return out;
}

const trader = { authorization: 'Bearer tok-trader' };
const order = JSON.stringify({ seriesId: seriesIdExample, isBuy: true, size: '1', price: '1' });

const cases: Array<{ name: string; req: Req; limit: number; authenticated: boolean }> = [
  { name: 'markets, anonymous (IP)', req: { path: '/api/markets/pairs' }, limit: 30, authenticated: false },
  { name: 'markets, tier 1 wallet', req: { path: '/api/markets/pairs', headers: trader }, limit: 15, authenticated: true },
  { name: 'markets, tier 3 wallet', req: { path: '/api/markets/pairs', headers: { authorization: 'Bearer tok-tier3' } }, limit: 50, authenticated: true },
  { name: 'helpers', req: { path: '/api/helpers/symbol/translate/batch', method: 'POST', body: '{"symbols":["a"]}' }, limit: 120, authenticated: false },
  { name: 'auth', req: { path: '/api/auth/siwe/nonce', method: 'POST', body: JSON.stringify({ walletAddress: '0x' + '1'.repeat(40), chainId: 1 }) }, limit: 20, authenticated: false },
  { name: 'account, tier 1', req: { path: '/api/account/me', headers: trader }, limit: 30, authenticated: true },
  { name: 'orders, tier 2 wallet', req: { path: '/api/mm/orders/place', method: 'POST', body: order, headers: { authorization: 'Bearer tok-tier2' } }, limit: 60, authenticated: true },
  { name: 'orders, tier 3 wallet', req: { path: '/api/mm/orders/place', method: 'POST', body: order, headers: { authorization: 'Bearer tok-tier3' } }, limit: 120, authenticated: true },
  { name: 'orders, API key (own bucket, tier of its wallet)', req: { path: '/api/mm/orders/place', method: 'POST', body: order, headers: { 'x-api-key': 'ok_good', 'x-api-signature': 'sig' } }, limit: 30, authenticated: true },
  { name: 'platform', req: { path: '/api/platform/stats' }, limit: 30, authenticated: false },
  { name: 'admin', req: { path: '/api/admin/mmm', method: 'POST', body: JSON.stringify({ address: '0x' + '5'.repeat(40), isMmm: true }), headers: { authorization: 'Bearer tok-admin' } }, limit: 30, authenticated: true },
];

for (const c of cases) {
  t.test(c.name, async (t) => {
    clock.now += 120_000; // every bucket full again
    const replies = await burst(c.req, c.limit);
    t.ok(replies.every((r) => r.status === 200), `first ${c.limit} pass`);
    const last = replies[replies.length - 1]!;
    if (c.authenticated) {
      t.equal(last.headers.get('x-ratelimit-limit'), String(c.limit));
      t.equal(last.headers.get('x-ratelimit-remaining'), '0');
      t.equal(last.headers.get('x-ratelimit-reset'), String(Math.ceil((clock.now + 60_000) / 1000)));
      t.equal(replies[0]!.headers.get('x-ratelimit-remaining'), String(c.limit - 1));
      t.match(last.headers.get('access-control-expose-headers'), /X-RateLimit-Remaining/, 'exposed to browsers');
    } else {
      t.equal(last.headers.get('x-ratelimit-limit'), null, 'anonymous replies carry no rate-limit headers');
    }
    const init: RequestInit = { method: c.req.method ?? 'GET', headers: { 'content-type': 'application/json', ...c.req.headers } };
    if (c.req.body !== undefined) init.body = c.req.body;
    const refused = await fetch(s.base + c.req.path, init);
    t.equal(refused.status, 429, `request ${c.limit + 1} refused`);
    const retryAt = clock.now + 60_000 / c.limit;
    t.same(await json(refused), { code: 'resource_exhausted', message: 'rate limit exceeded', details: { limit: c.limit, resetAt: Math.ceil(retryAt) } });
    t.equal(refused.headers.get('retry-after'), String(Math.ceil(60 / c.limit)));
    if (c.authenticated) t.equal(refused.headers.get('x-ratelimit-limit'), String(c.limit), 'headers on the 429 too');
    clock.now += Math.ceil(60_000 / c.limit);
    const again = await fetch(s.base + c.req.path, init);
    t.equal(again.status, 200, 'one token back after window/N');
  });
}

t.test('earlier form: rate_limited with resetAt in ms, same budget as the current form', async (t) => {
  clock.now += 120_000;
  await burst({ path: '/markets/pairs' }, 15);
  await burst({ path: '/api/markets/pairs' }, 15);
  const r = await fetch(s.base + '/markets/pairs');
  t.equal(r.status, 429);
  t.same(await json(r), { error: 'rate_limited', message: 'rate limit exceeded', details: { limit: 30, resetAt: clock.now + 2000 } });
  t.equal(r.headers.get('x-ratelimit-limit'), null, 'earlier form: rate-limit information only in the body');
  t.equal(r.headers.get('retry-after'), '2');
  const cookie = await burst({ path: '/account/me', headers: { cookie: 'session=s-trader' } }, 30);
  t.equal(cookie[29]!.headers.get('x-ratelimit-limit'), null, 'authenticated earlier-form replies carry no headers either');
  const over = await fetch(s.base + '/account/me', { headers: { cookie: 'session=s-trader' } });
  t.equal(over.status, 429);
  t.match(await json(over), { error: 'rate_limited', details: { limit: 30 } });
});

t.test('invalid API key on a public route falls back to the IP bucket', async (t) => {
  clock.now += 120_000;
  await burst({ path: '/api/markets/pairs', headers: { 'x-api-key': 'ok_forged', 'x-api-signature': 'bad' } }, 30);
  const anon = await fetch(s.base + '/api/markets/pairs');
  t.equal(anon.status, 429, 'the forged-key requests used the IP budget');
  const valid = await fetch(s.base + '/api/markets/pairs', { headers: { 'x-api-key': 'ok_reader', 'x-api-signature': 'sig' } });
  t.equal(valid.status, 200, 'a valid key has its own budget');
  t.equal(valid.headers.get('x-ratelimit-limit'), '15');
});

t.test('429 is answered before authorization: an anonymous flood on a private route is limited by IP', async (t) => {
  clock.now += 120_000;
  const replies = await burst({ path: '/api/account/me' }, 31);
  t.equal(replies.filter((r) => r.status === 401).length, 30);
  t.equal(replies[30]!.status, 429);
});

t.test('docs group: 120 per minute, earlier shape (its paths have no /api)', async (t) => {
  clock.now += 120_000;
  const replies = await burst({ path: '/openapi/json' }, 120);
  t.ok(replies.every((r) => r.status === 200));
  const r = await fetch(s.base + '/openapi/json');
  t.equal(r.status, 429);
  t.same(await json(r), { error: 'rate_limited', message: 'rate limit exceeded', details: { limit: 120, resetAt: clock.now + 500 } });
});

t.test('health is not limited', async (t) => {
  const replies = await burst({ path: '/api/health-signal' }, 50);
  t.ok(replies.every((r) => r.status === 200));
});
