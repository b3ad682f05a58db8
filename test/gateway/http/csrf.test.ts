/**
 * Cookie writes must be JSON (gateway/http/csrf.ts): a request authenticated by the
 * earlier form's `session` cookie that carries a body gets 415 `unsupported_media_type`
 * unless it says `Content-Type: application/json`, so that a cross-site form post (text/plain,
 * form encodings: no CORS preflight) cannot act with a victim's cookie. Bearer tokens and
 * API keys are unaffected. Against the real venue, both forms.
 */
import t from 'tap';
import { cookieWriteCheck, isJsonContentType, CSRF_MESSAGE } from '../../../gateway/http/csrf.ts';
import { startTestApp, request } from '../support/testApp.ts';
import { earlierNonce, hmacHeaders, hostOf, loginEarlier, login, newWallet, relaxedAuthLimits, siweMessage, LINK_STATEMENT } from '../auth/siweClient.ts';

t.test('what counts as JSON', async (t) => {
  for (const ok of ['application/json', 'application/json; charset=utf-8', 'Application/JSON;charset=UTF-8', ' application/json ']) t.ok(isJsonContentType(ok), ok);
  for (const bad of [undefined, '', 'text/plain', 'text/plain; charset=utf-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx', 'application/json-seq', 'text/json']) t.notOk(isJsonContentType(bad), String(bad));
});

t.test('which requests are checked', async (t) => {
  const cookie = { kind: 'user', userId: '1', address: '0x1', scopes: [], via: 'cookie' } as const;
  const body = new TextEncoder().encode('{}');
  const plain = { 'content-type': 'text/plain' };
  const route = { auth: 'required', hasBody: true };
  t.same(cookieWriteCheck(route, cookie, plain, body), { error: { code: 'unsupported_media_type', message: CSRF_MESSAGE, details: null } });
  t.same(cookieWriteCheck(route, cookie, {}, body), { error: { code: 'unsupported_media_type', message: CSRF_MESSAGE, details: null } }, 'a body without a Content-Type');
  t.same(cookieWriteCheck(route, cookie, plain, null), { error: { code: 'unsupported_media_type', message: CSRF_MESSAGE, details: null } }, 'an empty body that names a non-JSON type');
  t.equal(cookieWriteCheck(route, cookie, {}, null), null, 'no body and no Content-Type: nothing to forge');
  t.equal(cookieWriteCheck(route, cookie, { 'content-type': 'application/json; charset=utf-8' }, body), null);
  t.equal(cookieWriteCheck({ auth: 'optional', hasBody: true }, cookie, plain, body) !== null, true, 'optional routes act on the cookie too');
  t.equal(cookieWriteCheck({ auth: 'none', hasBody: true }, cookie, plain, body), null, 'public routes ignore the cookie');
  t.equal(cookieWriteCheck({ auth: 'required', hasBody: false }, cookie, plain, null), null, 'routes without a body');
  t.equal(cookieWriteCheck(route, { ...cookie, via: 'bearer' }, plain, body), null, 'bearer');
  t.equal(cookieWriteCheck(route, { ...cookie, via: 'apikey', keyId: 'ok_x' }, plain, body), null, 'API key');
  t.equal(cookieWriteCheck(route, { kind: 'none' }, plain, body), null, 'anonymous');
});

const app = await startTestApp({ memory: true, env: relaxedAuthLimits, startAt: Date.UTC(2026, 0, 5, 12, 0, 0) });
t.teardown(() => app.close());
const url = app.url;

/** A raw POST: the test helper always sends application/json. */
async function post(path: string, headers: Record<string, string>, body: string) {
  const res = await fetch(url + path, { method: 'POST', headers, body });
  return { status: res.status, body: (await res.json()) as any };
}

t.test('a cookie POST that is not application/json gets 415 and changes nothing', async (t) => {
  const w = newWallet();
  const { cookie } = await loginEarlier(url, w);
  const session = `session=${cookie}`;
  const deposit = JSON.stringify({ portfolioId: 0, amount: '5000000' });
  const balance = async () => (await request(`${url}/portfolio/list`, { headers: { cookie: session } })).body.portfolios.find((p: { id: number }) => p.id === 0)?.cashBalance ?? '0';

  for (const contentType of ['text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
    const old = await post('/portfolio/deposit', { cookie: session, 'content-type': contentType }, deposit);
    t.same([old.status, old.body], [415, { error: 'unsupported_media_type', message: CSRF_MESSAGE }], `earlier form, ${contentType}`);
    const cur = await post('/api/portfolio/deposit', { cookie: session, 'content-type': contentType }, deposit);
    t.same([cur.status, cur.body], [415, { code: 'unsupported_media_type', message: CSRF_MESSAGE, details: null }], `current path with the cookie, ${contentType}`);
  }
  t.equal(await balance(), '0', 'no deposit was made');

  const json = await post('/portfolio/deposit', { cookie: session, 'content-type': 'application/json' }, deposit);
  t.same([json.status, json.body.deposit], [200, '5000000'], 'application/json works');
  const charset = await post('/portfolio/deposit', { cookie: session, 'content-type': 'application/json; charset=utf-8' }, deposit);
  t.same([charset.status, charset.body.deposit], [200, '10000000'], 'with a charset parameter too');
  t.equal(await balance(), '10000000');
});

t.test('wallet linking with the cookie: 415 unless JSON', async (t) => {
  const w = newWallet();
  const { cookie } = await loginEarlier(url, w);
  const b = newWallet();
  const nonce = await earlierNonce(url, b.address);
  const message = siweMessage({ domain: hostOf(url), address: b.address, nonce, statement: LINK_STATEMENT });
  const body = JSON.stringify({ message, signature: await b.signMessage({ message }), address: b.address });
  const forged = await post('/auth/api/wallets/verify', { cookie: `session=${cookie}`, 'content-type': 'text/plain' }, body);
  t.same([forged.status, forged.body.error], [415, 'unsupported_media_type']);
  const wallets = await request(`${url}/auth/api/wallets`, { headers: { cookie: `session=${cookie}` } });
  t.equal(wallets.body.total, 1, 'nothing linked');
  const ok = await post('/auth/api/wallets/verify', { cookie: `session=${cookie}`, 'content-type': 'application/json' }, body);
  t.same([ok.status, ok.body.message], [200, 'Wallet linked'], 'the same body as JSON links (its nonce was not used by the refused one)');
});

t.test('bearer tokens and API keys are unaffected; a cookie without a body is too', async (t) => {
  const w = newWallet();
  const token = await login(url, w);
  const deposit = JSON.stringify({ portfolioId: 0, amount: '1000000' });
  const bearer = await post('/api/portfolio/deposit', { authorization: `Bearer ${token}`, 'content-type': 'text/plain' }, deposit);
  t.same([bearer.status, bearer.body.deposit], [200, '1000000'], 'bearer with text/plain');
  const key = await request(`${url}/api/keys`, { token, body: { label: 'k', scopes: ['trade'] } });
  const keyed = await post('/api/portfolio/deposit', { ...hmacHeaders(key.body.keyId, key.body.secret, app.clock.now), 'content-type': 'text/plain' }, deposit);
  t.same([keyed.status, keyed.body.deposit], [200, '2000000'], 'API key with text/plain');
  const { cookie } = await loginEarlier(url, newWallet());
  const created = await request(`${url}/portfolio/create`, { method: 'POST', headers: { cookie: `session=${cookie}` } });
  t.same([created.status, created.body], [200, { id: 1 }], 'a cookie POST without a body or Content-Type');
  const publicRoute = await post('/auth/siwe/verify', { cookie: `session=${cookie}`, 'content-type': 'text/plain' }, JSON.stringify({ message: 'x', signature: 'y' }));
  t.same([publicRoute.status, publicRoute.body.message], [401, 'Invalid signature format (must be 0x hex)'], 'a public route does not act on the cookie and is not checked');
});
