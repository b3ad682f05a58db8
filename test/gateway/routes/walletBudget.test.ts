/**
 * Rate limits per wallet, not per credential (docs/rate-limits.md): a session, a cookie
 * and two API keys of one wallet draw on one budget per group; another wallet has its own.
 * Real server, real authenticator, fixed clock (the budget never refills during the test).
 */
import t from 'tap';
import { startTestApp, request, type JsonResponse } from '../support/testApp.ts';
import { hmacHeaders, newWallet } from '../auth/siweClient.ts';

const LIMIT = 9;
const flat = { anonymous: LIMIT, tier1: LIMIT, tier2: LIMIT, tier3: LIMIT };
const app = await startTestApp({ memory: true, startAt: Date.UTC(2026, 0, 5, 12, 0, 0), env: { RATE_LIMITS: JSON.stringify({ account: flat, markets: flat }) } });
t.teardown(() => app.close());
const url = app.url;
let ts = app.clock.now - 20_000;

type Key = { keyId: string; secret: string };
async function keyOf(token: string, label: string): Promise<Key> {
  const r = await request(`${url}/api/keys`, { token, body: { label, scopes: ['read'] } });
  if (r.status !== 200) throw new Error(`key: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

t.test('two API keys, a bearer session and a cookie of one wallet share one budget per group', async (t) => {
  const wallet = newWallet();
  // Key management is in the account group too: the two creations count against the same budget.
  const token = await app.session(wallet.address);
  const keyA = await keyOf(token, 'bot A');
  const keyB = await keyOf(token, 'bot B');
  const cookie = await app.session(wallet.address, 'earlier');
  const used = 2; // the two key creations above
  const as = [
    (path: string) => request(url + path, { token }),
    (path: string) => request(url + path, { headers: hmacHeaders(keyA.keyId, keyA.secret, ++ts) }),
    (path: string) => request(url + path, { headers: hmacHeaders(keyB.keyId, keyB.secret, ++ts) }),
    (path: string) => request(url + path, { headers: { cookie: `session=${cookie}` } }),
  ];
  const replies: JsonResponse[] = [];
  for (let i = 0; i < LIMIT - used; i++) replies.push(await as[i % as.length]!('/api/account/me'));
  t.same(replies.map((r) => r.status), Array(LIMIT - used).fill(200), `the first ${LIMIT - used} requests, by turns, are served`);
  t.same(replies.map((r) => r.body.address), Array(LIMIT - used).fill(wallet.address), 'each reply is the wallet\'s account');
  t.same(
    replies.map((r) => r.headers.get('x-ratelimit-remaining')),
    replies.map((_r, i) => String(LIMIT - used - 1 - i)),
    'Remaining counts down across credentials: one bucket',
  );
  t.same(replies.map((r) => r.headers.get('x-ratelimit-limit')), Array(LIMIT - used).fill(String(LIMIT)));
  for (const [i, send] of as.entries()) {
    const r = await send('/api/account/me');
    t.equal(r.status, 429, `credential ${i} is refused once the wallet's budget is spent`);
    t.same(r.body, { code: 'resource_exhausted', message: 'rate limit exceeded', details: { limit: LIMIT, resetAt: app.clock.now + Math.ceil(60_000 / LIMIT) } });
  }
  const earlier = await request(`${url}/account/me`, { headers: { cookie: `session=${cookie}` } });
  t.same([earlier.status, earlier.body.error], [429, 'rate_limited'], 'the earlier form of the route shares the budget too');
  const other = await app.session(newWallet().address);
  const r = await request(`${url}/api/account/me`, { token: other });
  t.same([r.status, r.headers.get('x-ratelimit-remaining')], [200, String(LIMIT - 1)], 'another wallet has its own budget');
  // Another group is another bucket, shared the same way: a key on a public route counts against its wallet.
  const market = await request(`${url}/api/markets/pairs`, { headers: hmacHeaders(keyA.keyId, keyA.secret, ++ts) });
  t.same([market.status, market.headers.get('x-ratelimit-remaining')], [200, String(LIMIT - 1)]);
  const marketBySession = await request(`${url}/api/markets/pairs`, { token });
  t.same([marketBySession.status, marketBySession.headers.get('x-ratelimit-remaining')], [200, String(LIMIT - 2)], 'the session continues the key\'s markets bucket');
});
