/**
 * API key management against the real server: shapes of api.md, rotation, revocation,
 * validation, the per-wallet cap, and that a wallet never sees or touches another's keys.
 */
import t from 'tap';
import { startTestApp, request } from '../support/testApp.ts';
import { hmacHeaders, login, loginEarlier, newWallet, relaxedAuthLimits } from '../auth/siweClient.ts';

const app = await startTestApp({ memory: true, env: relaxedAuthLimits });
t.teardown(() => app.close());
const url = app.url;
const alice = newWallet();
const bob = newWallet();
const aliceToken = await login(url, alice);
const bobToken = await login(url, bob);
let ts = app.clock.now;
const signed = (key: { keyId: string; secret: string }) => hmacHeaders(key.keyId, key.secret, ++ts);

t.test('create returns the secret once; list shows keys without secrets', async (t) => {
  const r = await request(`${url}/api/keys`, { token: aliceToken, body: { label: 'market maker bot', scopes: ['trade', 'read', 'read'] } });
  t.equal(r.status, 200);
  t.match(r.body, { keyId: /^ok_[0-9a-f]{24}$/, secret: /^[0-9a-f]{64}$/, label: 'market maker bot' });
  t.same(r.body.scopes, ['read', 'trade'], 'scopes deduplicated, in canonical order');
  const list = await request(`${url}/api/keys`, { token: aliceToken });
  t.equal(list.status, 200);
  t.same(list.body.keys, [{ keyId: r.body.keyId, label: 'market maker bot', scopes: ['read', 'trade'], createdAt: new Date(app.clock.now).toISOString(), lastUsedAt: null }]);
  t.notOk(JSON.stringify(list.body).includes(r.body.secret), 'the secret is never listed');
  t.equal((await request(`${url}/api/account/me`, { headers: signed(r.body) })).status, 200, 'the key works');
});

t.test('rotate: same key, new secret; the old secret stops at once', async (t) => {
  const key = (await request(`${url}/api/keys`, { token: aliceToken, body: { label: 'rotating', scopes: ['read'] } })).body;
  const rotated = await request(`${url}/api/keys/${key.keyId}/rotate`, { method: 'POST', token: aliceToken });
  t.equal(rotated.status, 200);
  t.match(rotated.body, { keyId: key.keyId, label: 'rotating', scopes: ['read'], secret: /^[0-9a-f]{64}$/ });
  t.not(rotated.body.secret, key.secret);
  const old = await request(`${url}/api/account/me`, { headers: signed(key) });
  t.same([old.status, old.body.message], [401, 'Invalid API key signature']);
  t.equal((await request(`${url}/api/account/me`, { headers: signed(rotated.body) })).status, 200);
});

t.test('revoke: gone from the list and refused', async (t) => {
  const key = (await request(`${url}/api/keys`, { token: aliceToken, body: { label: 'short-lived', scopes: ['read'] } })).body;
  const del = await request(`${url}/api/keys/${key.keyId}`, { method: 'DELETE', token: aliceToken });
  t.same([del.status, del.body], [200, { success: true, keyId: key.keyId }]);
  const list = await request(`${url}/api/keys`, { token: aliceToken });
  t.notOk(list.body.keys.some((k: { keyId: string }) => k.keyId === key.keyId));
  t.equal((await request(`${url}/api/account/me`, { headers: signed(key) })).status, 401);
  const twice = await request(`${url}/api/keys/${key.keyId}`, { method: 'DELETE', token: aliceToken });
  t.same([twice.status, twice.body.code], [404, 'not_found']);
});

t.test("a wallet never sees, rotates or revokes another wallet's keys", async (t) => {
  const key = (await request(`${url}/api/keys`, { token: aliceToken, body: { label: 'mine', scopes: ['read'] } })).body;
  t.same((await request(`${url}/api/keys`, { token: bobToken })).body, { keys: [] }, "bob's list is empty");
  const rotate = await request(`${url}/api/keys/${key.keyId}/rotate`, { method: 'POST', token: bobToken });
  t.same([rotate.status, rotate.body], [404, { code: 'not_found', message: `API key not found: ${key.keyId}`, details: { keyId: key.keyId } }]);
  const del = await request(`${url}/api/keys/${key.keyId}`, { method: 'DELETE', token: bobToken });
  t.equal(del.status, 404, 'same answer as an unknown key');
  const me = await request(`${url}/api/account/me`, { headers: signed(key) });
  t.same([me.status, me.body.address], [200, alice.address], "alice's key still works and still acts as alice");
});

t.test('an earlier-form cookie session may manage keys too', async (t) => {
  const { cookie } = await loginEarlier(url, bob);
  const r = await request(`${url}/api/keys`, { headers: { cookie: `session=${cookie}` }, body: { label: 'cookie', scopes: ['read'] } });
  t.equal(r.status, 200);
  t.equal((await request(`${url}/api/keys`, { token: bobToken })).body.keys.length, 1, 'keys belong to the wallet, whatever the session');
});

t.test('validation and authentication', async (t) => {
  const cases: [unknown, string][] = [
    [{ label: 'x', scopes: [] }, 'scopes must be a non-empty array of read, trade, withdraw, admin'],
    [{ label: 'x', scopes: ['root'] }, 'scopes[0] must be one of: read, trade, withdraw, admin'],
    [{ label: 'x', scopes: 'read' }, 'scopes must be a non-empty array of read, trade, withdraw, admin'],
    [{ scopes: ['read'] }, 'label is required'],
    [{ label: '', scopes: ['read'] }, 'label must be a string of 1 to 64 characters'],
    [{ label: 'x'.repeat(65), scopes: ['read'] }, 'label must be a string of 1 to 64 characters'],
  ];
  for (const [body, message] of cases) {
    const r = await request(`${url}/api/keys`, { token: aliceToken, body });
    t.same([r.status, r.body.code, r.body.message], [400, 'invalid_argument', message], JSON.stringify(body));
  }
  const anon = await request(`${url}/api/keys`);
  t.same([anon.status, anon.body.message], [401, 'No auth data available']);
});

t.test('at most 20 active keys per wallet', async (t) => {
  const w = newWallet();
  const token = await login(url, w);
  for (let i = 0; i < 20; i++) t.equal((await request(`${url}/api/keys`, { token, body: { label: `k${i}`, scopes: ['read'] } })).status, 200);
  const over = await request(`${url}/api/keys`, { token, body: { label: 'one too many', scopes: ['read'] } });
  t.same([over.status, over.body.code, over.body.details], [400, 'failed_precondition', { reason: 'too_many_keys', limit: 20 }]);
  const first = (await request(`${url}/api/keys`, { token })).body.keys[0];
  await request(`${url}/api/keys/${first.keyId}`, { method: 'DELETE', token });
  t.equal((await request(`${url}/api/keys`, { token, body: { label: 'after revoke', scopes: ['read'] } })).status, 200);
});

t.test('the OpenAPI document shows who may call what', async (t) => {
  const doc = (await request(`${url}/openapi/json`)).body;
  t.same(doc.paths['/api/keys'].post.security, [{ bearerAuth: [] }, { sessionCookie: [] }], 'key management: sessions only');
  t.same(doc.paths['/api/account/me'].get.security, [{ bearerAuth: [] }, { apiKey: [], apiTimestamp: [], apiSignature: [] }, { sessionCookie: [] }]);
  t.same(doc.paths['/account/me'].get.security[0], { sessionCookie: [] }, 'earlier form: cookie first');
  t.same(doc.paths['/api/auth/siwe/nonce'].post.security, [], 'login is public');
  t.equal(doc.paths['/api/portfolio/withdraw'].post['x-scope'], 'withdraw');
  t.match(doc.components.securitySchemes, { bearerAuth: { scheme: 'bearer' }, sessionCookie: { in: 'cookie', name: 'session' }, apiKey: { name: 'X-API-Key' }, apiTimestamp: { name: 'X-API-Timestamp' }, apiSignature: { name: 'X-API-Signature' } });
  for (const path of ['/api/auth/siwe/verify', '/auth/siwe/verify', '/api/auth/sign-out', '/api/auth/session', '/auth/api/wallets', '/auth/api/wallets/primary', '/auth/api/wallets/verify', '/api/keys/{keyId}', '/api/keys/{keyId}/rotate', '/api/account/portfolios/{id}/positions', '/account/trades', '/api/portfolio/list', '/api/portfolio/transfer', '/api/admin/mmm', '/api/admin/oracle/{pairId}', '/api/admin/open-interest/{pairId}', '/api/admin/advance-time']) {
    t.ok(doc.paths[path], `${path} is documented`);
  }
});
