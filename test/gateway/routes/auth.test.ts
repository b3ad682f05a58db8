/**
 * Sign-In with Ethereum against the real server, with viem-signed messages: every success
 * and failure case of the interface in both forms (bearer token / cookie), sessions,
 * sign-out, linked wallets, SIWE_DOMAIN and the auth group's 20/min limit. The hardening
 * of the SIWE checks (domain never from Host, statements per purpose, nonces of others,
 * parse errors) is in authSiwe.test.ts.
 */
import t, { type Test } from 'tap';
import { privateKeyToAccount } from 'viem/accounts';
import { startTestApp, request } from '../support/testApp.ts';
import { currentNonce, earlierNonce, hostOf, login, loginEarlier, newWallet, relaxedAuthLimits, siweMessage, hmacHeaders, LINK_STATEMENT } from '../auth/siweClient.ts';

const app = await startTestApp({ memory: true, env: relaxedAuthLimits, startAt: Date.UTC(2026, 0, 5, 12, 0, 0) });
t.teardown(() => app.close());
const url = app.url;
const host = hostOf(url);

const verifyPath = { current: '/api/auth/siwe/verify', earlier: '/auth/siwe/verify' } as const;

/** Expect the failed-sign-in reply of a form. */
function refused(t: Test, r: { status: number; body: any }, form: 'current' | 'earlier', message: string) {
  t.equal(r.status, 401, `${form}: 401`);
  if (form === 'current') t.same(r.body, { code: 'unauthenticated', message, details: null }, `${form}: ${message}`);
  else t.same(r.body, { error: 'auth_error', message }, `${form}: ${message}`);
}

t.test('nonces: 16 hex (current), 32 alphanumeric (earlier, served at two paths)', async (t) => {
  const w = newWallet();
  t.match(await currentNonce(url, w.address), /^[0-9a-f]{16}$/);
  t.match(await earlierNonce(url, w.address), /^[A-Za-z0-9]{32}$/);
  t.match(await earlierNonce(url), /^[A-Za-z0-9]{32}$/, 'walletAddress is optional in the earlier form');
  const alt = await request(`${url}/api/auth/siwe/nonce?walletAddress=${w.address}`);
  t.match(alt.body.nonce, /^[A-Za-z0-9]{32}$/, 'GET /api/auth/siwe/nonce is the earlier nonce too');
  const a = await currentNonce(url, w.address);
  const b = await currentNonce(url, w.address);
  t.not(a, b, 'fresh every time');
  const bad = await request(`${url}/api/auth/siwe/nonce`, { body: { walletAddress: '0x1234', chainId: 10143 } });
  t.equal(bad.status, 400);
  t.equal(bad.body.message, 'Invalid wallet address');
  const chain = await request(`${url}/api/auth/siwe/nonce`, { body: { walletAddress: w.address, chainId: 1 } });
  t.same(chain.body, { code: 'invalid_argument', message: 'ChainId mismatch: expected 10143', details: { field: 'chainId', expected: 10143 } });
  const old = await request(`${url}/auth/siwe/nonce?walletAddress=nope`);
  t.same(old.body.error, 'validation_error', 'earlier-form error shape');
});

t.test('current form: a viem-signed login gives a 24-hour bearer token', async (t) => {
  const w = newWallet();
  const nonce = await currentNonce(url, w.address);
  const message = siweMessage({ domain: host, address: w.address, nonce });
  const signature = await w.signMessage({ message });
  const r = await request(url + verifyPath.current, { body: { message, signature, walletAddress: w.address, chainId: 10143 } });
  t.equal(r.status, 200);
  t.match(r.body, { token: /^[0-9a-f]{64}$/, success: true, user: { id: /^\d+$/, address: w.address, walletAddress: w.address, chainId: 10143 } });
  t.equal(Date.parse(r.body.expiresAt), app.app.services.pipeline.now() + 24 * 3600_000);
  t.equal(r.headers.get('set-cookie'), null, 'no cookie in the current form');
  const me = await request(`${url}/api/account/me`, { token: r.body.token });
  t.equal(me.status, 200);
  t.equal(me.body.address, w.address);
  t.ok(me.headers.get('x-ratelimit-limit'), 'authenticated replies carry rate-limit headers');
  const again = await login(url, w);
  const session = await request(`${url}/api/auth/session`, { token: again });
  t.equal(session.body.user.id, r.body.user.id, 'the same wallet is the same user');
  t.not(again, r.body.token, 'every login is a new session');
  // Lowercase addresses in the message and the body are accepted (wallets send both).
  const lower = w.address.toLowerCase();
  const n2 = await currentNonce(url, lower);
  const m2 = siweMessage({ domain: host, address: lower, nonce: n2 });
  const r2 = await request(url + verifyPath.current, { body: { message: m2, signature: await w.signMessage({ message: m2 }), walletAddress: lower } });
  t.equal(r2.status, 200);
  t.equal(r2.body.user.address, w.address, 'answered checksummed');

  app.clock.advance(24 * 3600_000 + 1);
  const expired = await request(`${url}/api/account/me`, { token: r.body.token });
  t.same([expired.status, expired.body.message], [401, 'Invalid or expired token'], 'after 24 hours the token is refused');
});

t.test('earlier form: { session, user } and an HttpOnly session cookie', async (t) => {
  const w = newWallet();
  const { response, cookie } = await loginEarlier(url, w);
  t.match(response.body, { session: { id: /^[0-9a-f]{32}$/, expiresAt: String }, user: { id: /^\d+$/, address: w.address } });
  t.notOk('token' in response.body, 'no token in the body');
  t.equal(Date.parse(response.body.session.expiresAt), app.app.services.pipeline.now() + 24 * 3600_000);
  const setCookie = response.headers.get('set-cookie')!;
  t.match(setCookie, /^session=[0-9a-f]{64}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=86400$/, 'HttpOnly, 24 h, not Secure on local http');
  const headers = { cookie: `session=${cookie}` };
  const me = await request(`${url}/account/me`, { headers });
  t.same([me.status, me.body.address], [200, w.address]);
  const cur = await request(`${url}/api/account/me`, { headers });
  t.equal(cur.status, 200, 'the cookie is accepted on current paths too');
  const session = await request(`${url}/auth/session`, { headers });
  t.same(session.body, { user: { id: response.body.user.id, address: w.address }, session: response.body.session });
});

type Case = { name: string; message: string; build: (w: ReturnType<typeof newWallet>, nonce: string) => Promise<{ message: string; signature: string; extra?: Record<string, unknown> }>; nonce?: 'current' | 'earlier' | 'none' };

const other = newWallet();
const sign = (w: ReturnType<typeof newWallet>, fields: Partial<Parameters<typeof siweMessage>[0]> & { nonce: string }) => {
  const message = siweMessage({ domain: host, address: w.address, ...fields });
  return w.signMessage({ message }).then((signature) => ({ message, signature }));
};
const drop = (text: string, prefix: string) => text.split('\n').filter((l) => !l.startsWith(prefix)).join('\n');

const cases: Case[] = [
  { name: 'unknown nonce', message: 'Invalid or expired nonce', nonce: 'none', build: (w) => sign(w, { nonce: '0123456789abcdef' }) },
  { name: 'signed by another key', message: 'Invalid SIWE signature', build: async (w, nonce) => ({ message: siweMessage({ domain: host, address: w.address, nonce }), signature: await other.signMessage({ message: siweMessage({ domain: host, address: w.address, nonce }) }) }) },
  {
    name: 'message changed after signing',
    message: 'Invalid SIWE signature',
    build: async (w, nonce) => {
      const s = await sign(w, { nonce });
      return { message: s.message.replace('URI: http://', 'URI: https://'), signature: s.signature };
    },
  },
  { name: 'signature of the wrong length', message: 'Invalid SIWE signature', build: async (w, nonce) => ({ ...(await sign(w, { nonce })), signature: '0x1234' }) },
  { name: 'signature not hex', message: 'Invalid signature format (must be 0x hex)', build: async (w, nonce) => ({ ...(await sign(w, { nonce })), signature: 'not-a-signature' }) },
  { name: 'no address', message: 'Invalid SIWE message: no address', build: async (w, nonce) => ({ message: siweMessage({ domain: host, address: 'nobody', nonce }), signature: (await sign(w, { nonce })).signature }) },
  { name: 'no chain id', message: 'Invalid SIWE message: no chainId', build: async (w, nonce) => { const s = await sign(w, { nonce }); return { message: drop(s.message, 'Chain ID:'), signature: s.signature }; } },
  { name: 'no nonce', message: 'Invalid SIWE message: no nonce', build: async (w, nonce) => { const s = await sign(w, { nonce }); return { message: drop(s.message, 'Nonce:'), signature: s.signature }; } },
  { name: 'another domain', message: `Domain mismatch: expected ${host} or localhost:${app.app.port}`, build: (w, nonce) => sign(w, { nonce, domain: 'evil.example.com' }) },
  { name: 'another chain', message: 'ChainId mismatch: expected 10143', build: (w, nonce) => sign(w, { nonce, chainId: 1 }) },
  { name: 'another statement', message: 'Invalid SIWE message: statement must be "Sign in to Diffusal"', build: (w, nonce) => sign(w, { nonce, statement: 'Hello' }) },
  { name: 'expired message', message: 'Invalid SIWE message: expired (Expiration Time has passed)', build: (w, nonce) => sign(w, { nonce, expirationTime: new Date(app.clock.now - 1000).toISOString() }) },
];

for (const form of ['current', 'earlier'] as const) {
  t.test(`${form} form: every refused sign-in is 401 with the interface's message`, async (t) => {
    for (const c of cases) {
      const w = newWallet();
      const nonce = c.nonce === 'none' ? '' : form === 'current' ? await currentNonce(url, w.address) : await earlierNonce(url, w.address);
      const { message, signature } = await c.build(w, nonce);
      const r = await request(url + verifyPath[form], { body: { message, signature } });
      t.test(c.name, async (t) => refused(t, r, form, c.message));
    }
  });
}

t.test('nonces are single use, expire after 5 minutes and belong to the wallet they were asked for', async (t) => {
  for (const form of ['current', 'earlier'] as const) {
    const w = newWallet();
    const nonce = form === 'current' ? await currentNonce(url, w.address) : await earlierNonce(url, w.address);
    const good = await sign(w, { nonce });
    const bad = await request(url + verifyPath[form], { body: { message: good.message, signature: (await sign(other, { nonce })).signature } });
    refused(t, bad, form, 'Invalid SIWE signature');
    const first = await request(url + verifyPath[form], { body: good });
    t.equal(first.status, 200, `${form}: a bad signature did not burn the nonce`);
    refused(t, await request(url + verifyPath[form], { body: good }), form, 'Invalid or expired nonce');

    const late = await sign(w, { nonce: form === 'current' ? await currentNonce(url, w.address) : await earlierNonce(url, w.address) });
    app.clock.advance(5 * 60_000);
    refused(t, await request(url + verifyPath[form], { body: late }), form, 'Invalid or expired nonce');

    const forOther = form === 'current' ? await currentNonce(url, other.address) : await earlierNonce(url, other.address);
    refused(t, await request(url + verifyPath[form], { body: await sign(w, { nonce: forOther }) }), form, 'Invalid or expired nonce');
  }
  // The current body's walletAddress and chainId must agree with the message.
  const w = newWallet();
  const s1 = await sign(w, { nonce: await currentNonce(url, w.address) });
  refused(t, await request(url + verifyPath.current, { body: { ...s1, walletAddress: other.address } }), 'current', 'Invalid SIWE message: address does not match the address of the request');
  refused(t, await request(url + verifyPath.current, { body: { ...s1, chainId: 1 } }), 'current', 'ChainId mismatch: expected 10143');
  const bodyless = await request(url + verifyPath.current, { body: { message: s1.message } });
  t.same([bodyless.status, bodyless.body.message], [400, 'signature is required']);
});

t.test('sign-out revokes the session in both forms', async (t) => {
  const w = newWallet();
  const token = await login(url, w);
  const out = await request(`${url}/api/auth/sign-out`, { method: 'POST', token });
  t.same([out.status, out.body], [200, { success: true }]);
  t.match(out.headers.get('set-cookie'), /^session=; .*Max-Age=0/, 'clears the cookie');
  const after = await request(`${url}/api/account/me`, { token });
  t.same([after.status, after.body.message], [401, 'Invalid or expired token']);
  t.same((await request(`${url}/api/auth/session`, { token })).body, { user: null, session: null }, 'a revoked token has no session');

  const { cookie } = await loginEarlier(url, w);
  const headers = { cookie: `session=${cookie}` };
  t.equal((await request(`${url}/auth/sign-out`, { method: 'POST', headers })).status, 200);
  const old = await request(`${url}/account/me`, { headers });
  t.same([old.status, old.body], [401, { error: 'unauthorized', message: 'Invalid or expired token' }]);
  const none = await request(`${url}/api/auth/sign-out`, { method: 'POST' });
  t.same([none.status, none.body.message], [401, 'No auth data available']);
});

t.test('session: nulls without credentials, the user for an API key', async (t) => {
  t.same((await request(`${url}/api/auth/session`)).body, { user: null, session: null });
  t.same((await request(`${url}/api/auth/session`, { token: 'f'.repeat(64) })).body, { user: null, session: null }, 'an unknown token is not an error here');
  const w = newWallet();
  const token = await login(url, w);
  const key = await request(`${url}/api/keys`, { token, body: { label: 'k', scopes: ['read'] } });
  const r = await request(`${url}/api/auth/session`, { headers: hmacHeaders(key.body.keyId, key.body.secret, app.clock.now) });
  t.same([r.body.user.address, r.body.session], [w.address, null]);
  const s = await request(`${url}/api/auth/session`, { token });
  t.match(s.body, { user: { address: w.address }, session: { id: /^[0-9a-f]{32}$/, expiresAt: String } });
  t.equal(s.headers.get('x-ratelimit-limit'), '10000', 'authenticated auth-group replies carry the limit headers');
});

t.test('wallets: link a second wallet by its SIWE signature', async (t) => {
  const a = newWallet();
  const b = newWallet();
  const token = await login(url, a);
  const link = async (wallet: typeof b, as: typeof b, authToken: string) => {
    const nonce = await earlierNonce(url, wallet.address);
    const message = siweMessage({ domain: host, address: wallet.address, nonce, statement: LINK_STATEMENT });
    return request(`${url}/auth/api/wallets/verify`, { token: authToken, body: { message, signature: await as.signMessage({ message }), address: wallet.address } });
  };
  refused(t, await link(b, other, token), 'earlier', 'Invalid SIWE signature');
  const ok = await link(b, b, token);
  t.same([ok.status, ok.body], [200, { success: true, message: 'Wallet linked', address: b.address }]);
  const list = await request(`${url}/auth/api/wallets`, { token });
  t.equal(list.body.total, 2);
  t.same(list.body.wallets.map((x: { address: string; isPrimary: boolean }) => [x.address, x.isPrimary]), [[a.address, true], [b.address, false]]);
  t.ok(list.body.wallets.every((x: { linkedAt: string }) => !Number.isNaN(Date.parse(x.linkedAt))));
  const primary = await request(`${url}/auth/api/wallets/primary`, { token });
  const userId = (await request(`${url}/api/auth/session`, { token })).body.user.id;
  t.same(primary.body, { address: a.address, userId });
  const viaB = await login(url, b);
  t.equal((await request(`${url}/api/auth/session`, { token: viaB })).body.user.id, userId, 'signing in with the linked wallet reaches the same user');
  const c = await login(url, newWallet());
  const taken = await link(b, b, c);
  t.same([taken.status, taken.body.error, taken.body.details?.reason], [400, 'failed_precondition', 'wallet_linked_elsewhere']);
  const anon = await request(`${url}/auth/api/wallets`);
  t.same([anon.status, anon.body], [401, { error: 'unauthorized', message: 'No auth data available' }]);
});

t.test('a contract wallet (no EOA key) cannot sign in: EIP-1271 is not supported', async (t) => {
  // A signature that a smart-contract wallet would return: arbitrary bytes that do not recover to the account.
  const contract = '0x' + '5'.repeat(40);
  const checksummed = privateKeyToAccount(`0x${'1'.repeat(64)}`).address;
  const nonce = await currentNonce(url, checksummed);
  const message = siweMessage({ domain: host, address: contract, nonce });
  const r = await request(url + verifyPath.current, { body: { message, signature: '0x' + 'ab'.repeat(100) } });
  refused(t, r, 'current', 'Invalid SIWE signature');
});

t.test('SIWE_DOMAIN adds domains, whatever the Host header; the auth group allows 20 requests a minute', async (t) => {
  const pinned = await startTestApp({ memory: true, env: { SIWE_DOMAIN: 'app.example.com' }, startAt: Date.UTC(2026, 0, 5, 12, 0, 0) });
  t.teardown(() => pinned.close());
  const w = newWallet();
  let used = 0;
  const nonce = await currentNonce(pinned.url, w.address);
  used++;
  const wrong = siweMessage({ domain: 'other.example.com', address: w.address, nonce });
  const expected = `Domain mismatch: expected ${hostOf(pinned.url)} or localhost:${pinned.app.port} or app.example.com`;
  refused(t, await request(pinned.url + verifyPath.current, { body: { message: wrong, signature: await w.signMessage({ message: wrong }) } }), 'current', expected);
  used++;
  const nonce2 = await currentNonce(pinned.url, w.address);
  used++;
  const right = siweMessage({ domain: 'app.example.com', address: w.address, nonce: nonce2 });
  const ok = await request(pinned.url + verifyPath.current, { body: { message: right, signature: await w.signMessage({ message: right }) } });
  used++;
  t.equal(ok.status, 200, 'the SIWE_DOMAIN entry signs in whatever the Host header');
  while (used < 20) {
    const r = await request(`${pinned.url}/auth/siwe/nonce`);
    t.equal(r.status, 200);
    used++;
  }
  const limited = await request(`${pinned.url}/api/auth/siwe/nonce`, { body: { walletAddress: w.address } });
  t.equal(limited.status, 429, 'the 21st auth request within a minute is refused');
  t.match(limited.body, { code: 'resource_exhausted', message: 'rate limit exceeded', details: { limit: 20 } });
  t.ok(Number(limited.headers.get('retry-after')) >= 1);
  const session = await request(`${pinned.url}/api/auth/session`, { token: ok.body.token });
  t.equal(session.status, 200, 'a signed-in wallet has its own budget');
  t.equal(session.headers.get('x-ratelimit-limit'), '20');
  t.equal(session.headers.get('x-ratelimit-remaining'), '19');
  pinned.clock.advance(60_000);
  t.equal((await request(`${pinned.url}/auth/siwe/nonce`)).status, 200, 'the bucket refills');
});
