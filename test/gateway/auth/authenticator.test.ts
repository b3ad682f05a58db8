/**
 * HMAC API keys end to end against the real server (interface.md "API keys (HMAC)"):
 * timestamp skew both ways, bad and replayed signatures, revoked keys, scopes, key
 * endpoints refusing keys, and invalid keys on public routes falling back to IP limits.
 * Also the bearer header's own refusals.
 */
import t from 'tap';
import { startTestApp, request } from '../support/testApp.ts';
import { hmacHeaders, login, newWallet, relaxedAuthLimits } from './siweClient.ts';

// Markets get a tiny anonymous budget so that "falls back to IP limits" is observable.
const limits = { ...JSON.parse(relaxedAuthLimits.RATE_LIMITS), markets: { anonymous: 5, tier1: 300, tier2: 600, tier3: 1000 } };
const app = await startTestApp({ memory: true, env: { RATE_LIMITS: JSON.stringify(limits) } });
t.teardown(() => app.close());
const url = app.url;

const wallet = newWallet();
const token = await login(url, wallet);
const createKey = async (scopes: string[]) => {
  const r = await request(`${url}/api/keys`, { token, body: { label: scopes.join('+'), scopes } });
  if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  return r.body as { keyId: string; secret: string };
};
const readKey = await createKey(['read']);
const tradeKey = await createKey(['read', 'trade']);
let ts = app.clock.now;
/** A fresh timestamp each call: one (key, timestamp) pair is accepted once. */
const signed = (key: { keyId: string; secret: string }, at?: number) => hmacHeaders(key.keyId, key.secret, at ?? ++ts);

t.test('a signed request acts as the wallet that owns the key, with rate-limit headers keyed on that wallet', async (t) => {
  const r = await request(`${url}/api/account/me`, { headers: signed(readKey) });
  t.same([r.status, r.body.address], [200, wallet.address]);
  t.equal(r.headers.get('x-ratelimit-limit'), '600', 'tier-1 account limit');
  const again = await request(`${url}/api/account/me`, { headers: signed(readKey) });
  t.equal(Number(again.headers.get('x-ratelimit-remaining')), Number(r.headers.get('x-ratelimit-remaining')) - 1);
  const viaOther = await request(`${url}/api/account/me`, { headers: signed(tradeKey) });
  t.equal(Number(viaOther.headers.get('x-ratelimit-remaining')), Number(again.headers.get('x-ratelimit-remaining')) - 1, 'the keys of one wallet share its budget');
  const keys = await request(`${url}/api/keys`, { token });
  t.ok(keys.body.keys.find((k: { keyId: string }) => k.keyId === readKey.keyId).lastUsedAt !== null, 'lastUsedAt is recorded');
});

t.test('the timestamp must be within 30 seconds of server time, either way', async (t) => {
  const now = app.clock.now;
  for (const [at, ok] of [[now - 30_000, true], [now + 30_000, true], [now - 30_001, false], [now + 30_001, false]] as const) {
    const r = await request(`${url}/api/account/me`, { headers: signed(readKey, at) });
    if (ok) t.equal(r.status, 200, `skew ${at - now} ms accepted`);
    else t.same([r.status, r.body], [401, { code: 'unauthenticated', message: 'X-API-Timestamp is more than 30 seconds from server time', details: null }], `skew ${at - now} ms refused`);
  }
  const seconds = await request(`${url}/api/account/me`, { headers: { ...signed(readKey), 'x-api-timestamp': String(Math.floor(now / 1000)) } });
  t.equal(seconds.status, 401, 'a timestamp in seconds is far from now in ms');
  const text = await request(`${url}/api/account/me`, { headers: { ...signed(readKey), 'x-api-timestamp': 'yesterday' } });
  t.same([text.status, text.body.message], [401, 'X-API-Timestamp must be Unix milliseconds']);
});

t.test('bad signatures, missing headers, unknown keys', async (t) => {
  const good = signed(readKey);
  const wrong = await request(`${url}/api/account/me`, { headers: { ...good, 'x-api-signature': hmacHeaders(readKey.keyId, tradeKey.secret, Number(good['x-api-timestamp']))['x-api-signature']! } });
  t.same([wrong.status, wrong.body.message], [401, 'Invalid API key signature']);
  const otherTs = await request(`${url}/api/account/me`, { headers: { ...good, 'x-api-timestamp': String(Number(good['x-api-timestamp']) + 1) } });
  t.same([otherTs.status, otherTs.body.message], [401, 'Invalid API key signature'], 'the signature covers the timestamp');
  const missing = await request(`${url}/api/account/me`, { headers: { 'x-api-key': readKey.keyId } });
  t.same([missing.status, missing.body.message], [401, 'X-API-Key needs X-API-Timestamp and X-API-Signature']);
  const unknown = await request(`${url}/api/account/me`, { headers: signed({ keyId: 'ok_' + '0'.repeat(24), secret: readKey.secret }) });
  t.same([unknown.status, unknown.body.message], [401, 'Invalid API key']);
  const earlier = await request(`${url}/account/me`, { headers: { ...signed(readKey), 'x-api-signature': '00' } });
  t.same([earlier.status, earlier.body], [401, { error: 'unauthorized', message: 'Invalid API key signature' }], 'earlier-form shape');
});

t.test('a signed timestamp is accepted once: a replay inside the window is refused', async (t) => {
  const headers = signed(readKey);
  t.equal((await request(`${url}/api/account/me`, { headers })).status, 200);
  const replay = await request(`${url}/api/account/me`, { headers });
  t.same([replay.status, replay.body.message], [401, 'API key signature already used (send a new timestamp)']);
  const sameTsOtherKey = await request(`${url}/api/account/me`, { headers: signed(tradeKey, Number(headers['x-api-timestamp'])) });
  t.equal(sameTsOtherKey.status, 200, 'the same timestamp on another key is another request');
});

t.test('scopes are enforced; a login session has every scope', async (t) => {
  const denied = await request(`${url}/api/portfolio/create`, { method: 'POST', headers: signed(readKey) });
  t.same([denied.status, denied.body], [403, { code: 'permission_denied', message: 'Missing required scope: trade', details: null }]);
  const created = await request(`${url}/api/portfolio/create`, { method: 'POST', headers: signed(tradeKey) });
  t.same([created.status, created.body], [200, { id: 1 }]);
  await request(`${url}/api/portfolio/deposit`, { headers: signed(tradeKey), body: { portfolioId: 1, amount: '5000000' } });
  const withdraw = await request(`${url}/api/portfolio/withdraw`, { headers: signed(tradeKey), body: { portfolioId: 1, amount: '1000000' } });
  t.same([withdraw.status, withdraw.body.message], [403, 'Missing required scope: withdraw']);
  const earlier = await request(`${url}/portfolio/withdraw`, { headers: signed(tradeKey), body: { portfolioId: 1, amount: '1000000' } });
  t.same(earlier.body, { error: 'forbidden', message: 'Missing required scope: withdraw' });
  const withdrawKey = await createKey(['withdraw']);
  t.equal((await request(`${url}/api/portfolio/withdraw`, { headers: signed(withdrawKey), body: { portfolioId: 1, amount: '1000000' } })).status, 200);
  t.equal((await request(`${url}/api/account/me`, { headers: signed(withdrawKey) })).status, 403, 'withdraw alone does not read');
  t.equal((await request(`${url}/api/portfolio/withdraw`, { token, body: { portfolioId: 1, amount: '1000000' } })).status, 200, 'a session may withdraw');
});

t.test('key endpoints need a login session, not a key', async (t) => {
  for (const [method, path] of [['GET', '/api/keys'], ['POST', '/api/keys'], ['DELETE', `/api/keys/${readKey.keyId}`], ['POST', `/api/keys/${readKey.keyId}/rotate`]] as const) {
    const r = await request(url + path, { method, headers: signed(tradeKey), ...(method === 'POST' && path === '/api/keys' ? { body: { label: 'x', scopes: ['read'] } } : {}) });
    t.same([r.status, r.body.message], [403, 'This endpoint does not accept API keys'], `${method} ${path}`);
  }
});

t.test('revoked keys stop working at once', async (t) => {
  const key = await createKey(['read']);
  t.equal((await request(`${url}/api/account/me`, { headers: signed(key) })).status, 200);
  t.equal((await request(`${url}/api/keys/${key.keyId}`, { method: 'DELETE', token })).status, 200);
  const r = await request(`${url}/api/account/me`, { headers: signed(key) });
  t.same([r.status, r.body.message], [401, 'Invalid API key']);
});

t.test('public routes: an invalid key is ignored and the request counts against the IP', async (t) => {
  const revoked = await createKey(['read']);
  await request(`${url}/api/keys/${revoked.keyId}`, { method: 'DELETE', token });
  const invalid = [
    () => ({ ...signed(readKey), 'x-api-signature': 'bad' }),
    () => signed(readKey, app.clock.now - 60_000),
    () => signed(revoked),
    () => ({ 'x-api-key': readKey.keyId }),
    () => ({ authorization: 'Bearer nope' }),
  ];
  for (const headers of invalid) {
    const r = await request(`${url}/api/markets/pairs`, { headers: headers() });
    t.equal(r.status, 200, 'served, no 401');
    t.equal(r.headers.get('x-ratelimit-limit'), null, 'anonymous: no rate-limit headers');
  }
  const limited = await request(`${url}/api/markets/pairs`, { headers: signed(revoked) });
  t.equal(limited.status, 429, 'the sixth request hits the IP budget of 5');
  const valid = await request(`${url}/api/markets/pairs`, { headers: signed(readKey) });
  t.same([valid.status, valid.headers.get('x-ratelimit-limit')], [200, '300'], "a valid key counts against its wallet's (tier-1 data) budget, not the IP's");
  app.clock.advance(60_000);
  ts = app.clock.now;
});

t.test('bearer header refusals', async (t) => {
  const malformed = await request(`${url}/api/account/me`, { headers: { authorization: `Token ${token}` } });
  t.same([malformed.status, malformed.body.message], [401, 'Authorization header must be "Bearer <token>"']);
  const unknown = await request(`${url}/api/account/me`, { token: 'a'.repeat(64) });
  t.same([unknown.status, unknown.body.message], [401, 'Invalid or expired token']);
  const none = await request(`${url}/api/account/me`);
  t.same([none.status, none.body], [401, { code: 'unauthenticated', message: 'No auth data available', details: null }]);
  t.same((await request(`${url}/account/me`)).body, { error: 'unauthorized', message: 'No auth data available' });
});
