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
/** A reply with its body read. */
type Reply = { status: number; headers: Headers; body: unknown };

async function burst(req: Req, n: number): Promise<Reply[]> {
  const out: Reply[] = [];
  // Sequential keeps the server's view of order simple; the clock does not move.
  for (let i = 0; i < n; i++) {
    const init: RequestInit = { method: req.method ?? 'GET', headers: { 'content-type': 'application/json', ...req.headers } };
    if (req.body !== undefined) init.body = req.body;
    const r = await fetch(s.base + req.path, init);
    const text = await r.text();
    out.push({ status: r.status, headers: r.headers, body: text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text });
  }
  return out;
}

const trader = { authorization: 'Bearer tok-trader' };
const order = JSON.stringify({ seriesId: seriesIdExample, isBuy: true, size: '1', price: '1' });

const pairs = [{ pairId: `0x${'01'.repeat(32)}`, symbol: 'BTC-USDC', underlying: 'BTC', quote: 'USDC' }];
const placed = { mode: 'typed_data', seriesId: seriesIdExample, isBuy: true };
// `served`: the body every request within the limit must get (the route's own reply, not an error).
const cases: Array<{ name: string; req: Req; limit: number; authenticated: boolean; served: unknown }> = [
  { name: 'markets, anonymous (IP)', req: { path: '/api/markets/pairs' }, limit: 30, authenticated: false, served: pairs },
  { name: 'markets, tier 1 wallet', req: { path: '/api/markets/pairs', headers: trader }, limit: 15, authenticated: true, served: pairs },
  { name: 'markets, tier 3 wallet', req: { path: '/api/markets/pairs', headers: { authorization: 'Bearer tok-tier3' } }, limit: 50, authenticated: true, served: pairs },
  { name: 'helpers', req: { path: '/api/helpers/symbol/translate/batch', method: 'POST', body: '{"symbols":["a"]}' }, limit: 120, authenticated: false, served: { results: ['A'], errors: [] } },
  { name: 'auth', req: { path: '/api/auth/siwe/nonce', method: 'POST', body: JSON.stringify({ walletAddress: '0x' + '1'.repeat(40), chainId: 1 }) }, limit: 20, authenticated: false, served: { nonce: '0123456789abcdef', host: new URL(s.base).host } },
  { name: 'account, tier 1', req: { path: '/api/account/me', headers: trader }, limit: 30, authenticated: true, served: { address: '0x1111111111111111111111111111111111111111', via: 'bearer' } },
  { name: 'orders, tier 2 wallet', req: { path: '/api/mm/orders/place', method: 'POST', body: order, headers: { authorization: 'Bearer tok-tier2' } }, limit: 60, authenticated: true, served: placed },
  { name: 'orders, tier 3 wallet', req: { path: '/api/mm/orders/place', method: 'POST', body: order, headers: { authorization: 'Bearer tok-tier3' } }, limit: 120, authenticated: true, served: placed },
  { name: "orders, API key (its wallet's bucket and tier)", req: { path: '/api/mm/orders/place', method: 'POST', body: order, headers: { 'x-api-key': 'ok_good', 'x-api-signature': 'sig' } }, limit: 30, authenticated: true, served: placed },
  { name: 'platform', req: { path: '/api/platform/stats' }, limit: 30, authenticated: false, served: { volume: '12345678901234567890' } },
  { name: 'admin', req: { path: '/api/admin/mmm', method: 'POST', body: JSON.stringify({ address: '0x' + '5'.repeat(40), isMmm: true }), headers: { authorization: 'Bearer tok-admin' } }, limit: 30, authenticated: true, served: { address: '0x' + '5'.repeat(40), isMmm: true } },
];

for (const c of cases) {
  t.test(c.name, async (t) => {
    clock.now += 120_000; // every bucket full again
    const replies = await burst(c.req, c.limit);
    t.equal(replies.length, c.limit);
    t.same(replies.map((r) => r.status), Array(c.limit).fill(200), `first ${c.limit} pass`);
    t.same(replies.map((r) => r.body), Array(c.limit).fill(c.served), 'and each is served the route\'s reply');
    const last = replies[replies.length - 1]!;
    if (c.authenticated) {
      // Every reply within the limit counts down by one: the headers tell the caller exactly what is left.
      t.same(replies.map((r) => r.headers.get('x-ratelimit-remaining')), replies.map((_r, i) => String(c.limit - 1 - i)), 'Remaining: limit-1 down to 0');
      t.same(replies.map((r) => r.headers.get('x-ratelimit-limit')), Array(c.limit).fill(String(c.limit)));
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
    const retryAt = clock.now + 60_000 / c.limit;
    // Beyond the limit, every request is refused, not only the first one.
    const beyond = await burst(c.req, 3);
    t.same(beyond.map((r) => r.status), [429, 429, 429], `requests ${c.limit + 1} to ${c.limit + 3} refused`);
    for (const refused of beyond) {
      t.same(refused.body, { code: 'resource_exhausted', message: 'rate limit exceeded', details: { limit: c.limit, resetAt: Math.ceil(retryAt) } });
      t.equal(refused.headers.get('retry-after'), String(Math.ceil(60 / c.limit)));
      if (c.authenticated) t.same([refused.headers.get('x-ratelimit-limit'), refused.headers.get('x-ratelimit-remaining')], [String(c.limit), '0'], 'headers on the 429 too');
    }
    clock.now += Math.ceil(60_000 / c.limit);
    const again = await fetch(s.base + c.req.path, init);
    t.same([again.status, await json(again)], [200, c.served], 'one token back after window/N');
    if (c.authenticated) t.equal(again.headers.get('x-ratelimit-remaining'), '0', 'and only one');
    const after = await fetch(s.base + c.req.path, init);
    t.equal(after.status, 429, 'the next is refused again');
    await after.arrayBuffer();
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
  t.equal(valid.status, 200, "a valid key counts against its wallet's budget, not the IP's");
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
  // More than any group's limit here, at one instant: all served, with the route's reply and no rate-limit headers.
  const replies = await burst({ path: '/api/health-signal' }, 150);
  t.same(replies.map((r) => r.status), Array(150).fill(200));
  t.same(replies.map((r) => r.body), Array(150).fill({ status: 'ok', timestamp: new Date(clock.now).toISOString() }));
  t.same(replies.filter((r) => r.headers.get('x-ratelimit-limit') !== null || r.headers.get('retry-after') !== null).length, 0, 'no rate-limit headers');
  const authenticated = await burst({ path: '/api/health-signal', headers: trader }, 150);
  t.same(authenticated.map((r) => r.status), Array(150).fill(200), 'nor for a wallet');
  t.equal(authenticated[149]!.headers.get('x-ratelimit-limit'), null);
});
