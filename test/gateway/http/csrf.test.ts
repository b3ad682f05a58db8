/**
 * Cookie writes must be JSON (gateway/http/csrf.ts): a request authenticated by the
 * earlier form's `session` cookie that carries a body gets 415 `unsupported_media_type`
 * unless it says `Content-Type: application/json`, so that a cross-site form post (text/plain,
 * form encodings: no CORS preflight) cannot act with a victim's cookie. Bearer tokens and
 * API keys are unaffected. Against the real venue, both forms.
 */
import t from 'tap';
import { cookieWriteCheck, isJsonContentType, CSRF_MESSAGE, SIGN_IN_MESSAGE } from '../../../gateway/http/csrf.ts';
import { startTestApp, request } from '../support/testApp.ts';
import { currentNonce, earlierNonce, hmacHeaders, hostOf, loginEarlier, login, newWallet, relaxedAuthLimits, siweMessage, LINK_STATEMENT } from '../auth/siweClient.ts';

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
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
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

t.test('the earlier form\'s sign-in sets the cookie: its body must be JSON (login CSRF)', async (t) => {
  const anonymousCaller = { kind: 'anonymous' } as never;
  const body = new TextEncoder().encode('{}');
  const signIn = { auth: 'none', hasBody: true, setsSessionCookie: true };
  t.same(cookieWriteCheck(signIn, anonymousCaller, { 'content-type': 'text/plain' }, body), { error: { code: 'unsupported_media_type', message: SIGN_IN_MESSAGE, details: null } }, 'no credentials needed to be checked');
  t.equal(cookieWriteCheck(signIn, anonymousCaller, { 'content-type': 'application/json' }, body), null);

  // A cross-site form posts the attacker's own signed sign-in as text/plain: no session, no cookie.
  const attacker = newWallet();
  const nonce = await earlierNonce(url, attacker.address);
  const message = siweMessage({ domain: hostOf(url), address: attacker.address, nonce });
  const signature = await attacker.signMessage({ message });
  const forged = await post('/auth/siwe/verify', { 'content-type': 'text/plain' }, JSON.stringify({ message, signature }));
  t.same([forged.status, forged.body], [415, { error: 'unsupported_media_type', message: SIGN_IN_MESSAGE }], 'refused');
  t.equal(forged.headers.get('set-cookie'), null, 'no cookie set');
  // The nonce was not consumed by the refusal: the same message as JSON signs in.
  const ok = await post('/auth/siwe/verify', { 'content-type': 'application/json' }, JSON.stringify({ message, signature }));
  t.equal(ok.status, 200, 'as JSON it signs in');
  t.match(ok.headers.get('set-cookie') ?? '', /session=/);
  // The current form sets no cookie and keeps taking what it took.
  const w = newWallet();
  const cnonce = await currentNonce(url, w.address);
  const cmessage = siweMessage({ domain: hostOf(url), address: w.address, nonce: cnonce });
  const current = await post('/api/auth/siwe/verify', { 'content-type': 'text/plain' }, JSON.stringify({ message: cmessage, signature: await w.signMessage({ message: cmessage }) }));
  t.equal(current.status, 200, 'current form: a token, no cookie, not checked');
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
  const publicRoute = await post('/helpers/symbol/translate', { cookie: `session=${cookie}`, 'content-type': 'text/plain' }, JSON.stringify({}));
  t.equal(publicRoute.status, 400, 'a public route does not act on the cookie and is not checked (its own validation answers)');
  t.not(publicRoute.body.error, 'unsupported_media_type');
});
