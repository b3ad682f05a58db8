/**
 * The uWS adapter end to end: real server on an ephemeral port, real HTTP with fetch.
 * Error shapes of both forms, 404/405/413, malformed JSON, validation messages, query
 * coercion, unknown fields, auth, CORS/HEAD/OPTIONS, raw and bigint replies, 500s.
 */
import t from 'tap';
import { connect } from 'node:net';
import { captureLog, demoRoutes, faultyRoutes, fakeAuthenticate, isAdmin, json, seriesIdExample, start } from './support.ts';

const log = captureLog();
const s = await start({ routes: [...demoRoutes(), ...faultyRoutes()], authenticate: fakeAuthenticate, isAdmin, log, validateResponses: true, clock: () => 1_800_000_000_123 });
t.teardown(s.close);
const url = (p: string): string => s.base + p;
const post = (p: string, body: string, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(url(p), { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });

t.test('listen reports the actual port', async (t) => {
  t.ok(s.port > 0 && s.port < 65536, `port ${s.port}`);
});

t.test('success replies in both forms, with the earlier reply hook', async (t) => {
  const cur = await fetch(url('/api/markets/pairs'));
  t.equal(cur.status, 200);
  t.match(cur.headers.get('content-type'), /^application\/json/);
  t.equal(cur.headers.get('access-control-allow-origin'), '*');
  t.same(await cur.json(), [{ pairId: `0x${'01'.repeat(32)}`, symbol: 'BTC-USDC', underlying: 'BTC', quote: 'USDC' }]);
  const old = await fetch(url('/markets/pairs'));
  t.equal(old.status, 200);
  t.same(await old.json(), { pairs: [{ pairId: `0x${'01'.repeat(32)}`, symbol: 'BTC-USDC', baseCurrency: 'BTC', quoteCurrency: 'USDC' }] });
});

t.test('error shapes: current { code, message, details }, earlier { error, message, details? }', async (t) => {
  const cur = await fetch(url('/api/markets/ticker/ZZZ-1-C-1'));
  t.equal(cur.status, 404);
  t.same(await cur.json(), { code: 'not_found', message: 'Series not found: ZZZ-1-C-1', details: null });
  const old = await fetch(url('/markets/ticker/ZZZ-1-C-1'));
  t.equal(old.status, 404);
  t.same(await old.json(), { error: 'not_found', message: 'Series not found: ZZZ-1-C-1' });
  const thrown = await fetch(url('/api/mm/orders/0x' + '11'.repeat(31) + '00'), { method: 'DELETE', headers: { authorization: 'Bearer tok-trader' } });
  t.equal(thrown.status, 404);
  t.same(await thrown.json(), { code: 'not_found', message: 'Order not found', details: { orderId: '0x' + '11'.repeat(31) + '00' } });
});

t.test('unknown route 404 and wrong method 405 in the right form', async (t) => {
  const a = await fetch(url('/api/nope/x'));
  t.equal(a.status, 404);
  t.match(await a.json(), { code: 'not_found', message: 'Route GET /api/nope/x not found', details: null });
  const b = await fetch(url('/nope/x'), { method: 'POST', body: '{}' });
  t.equal(b.status, 404);
  const bb = await json(b);
  t.equal(bb['error'], 'not_found');
  t.notOk('code' in bb);
  const c = await fetch(url('/api/markets/pairs'), { method: 'DELETE' });
  t.equal(c.status, 405);
  t.equal(c.headers.get('allow'), 'GET, HEAD, OPTIONS');
  t.same(await c.json(), { code: 'method_not_allowed', message: 'Method DELETE not allowed on /api/markets/pairs', details: { allow: ['GET', 'HEAD'] } });
  const d = await fetch(url('/markets/pairs'), { method: 'POST' });
  t.equal(d.status, 405);
  t.match(await d.json(), { error: 'method_not_allowed' });
  const e = await fetch(url('/api/markets/ticker/'));
  t.equal(e.status, 404, 'empty parameter is not a match');
});

t.test('413 beyond maxBodyBytes, by Content-Length and by streamed size', async (t) => {
  const big = JSON.stringify({ symbols: ['x'.repeat(70 * 1024)] });
  const a = await post('/api/helpers/symbol/translate/batch', big);
  t.equal(a.status, 413);
  t.same(await a.json(), { code: 'payload_too_large', message: 'Request body exceeds 65536 bytes', details: { limit: 65536 } });
  const b = await post('/helpers/symbol/translate/batch', big);
  t.equal(b.status, 413);
  t.match(await b.json(), { error: 'payload_too_large' });
  // Chunked upload (no Content-Length): the limit is enforced while reading.
  const chunks = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < 40; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(4096)));
      controller.close();
    },
  });
  const c = await fetch(url('/api/helpers/symbol/translate/batch'), { method: 'POST', body: chunks, duplex: 'half' } as RequestInit);
  t.equal(c.status, 413);
  const ok = await post('/api/helpers/symbol/translate/batch', JSON.stringify({ symbols: ['y'.repeat(60_000)] }));
  t.equal(ok.status, 400, 'under the limit the body is read (and here validated: maxLength)');
  t.match(await ok.json(), { code: 'invalid_argument', message: 'symbols[0] must be at most 100 characters long', details: { field: 'symbols[0]' } });
});

t.test('malformed JSON and invalid UTF-8 -> 400 Invalid JSON body', async (t) => {
  for (const body of ['{"symbols": [', 'not json', '{"a":1}}', '\u0000']) {
    const r = await post('/api/helpers/symbol/translate/batch', body);
    t.equal(r.status, 400, JSON.stringify(body));
    t.same(await r.json(), { code: 'invalid_argument', message: 'Invalid JSON body', details: { field: 'body', location: 'body' } });
  }
  const bad = await fetch(url('/helpers/symbol/translate/batch'), { method: 'POST', body: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]) });
  t.equal(bad.status, 400);
  t.same(await bad.json(), { error: 'validation_error', message: 'Invalid JSON body', details: { field: 'body', location: 'body' } });
});

t.test('validation messages name the field; custom messages; first error wins', async (t) => {
  const cases: Array<[string, string, string]> = [
    ['/api/markets?limit=0', 'limit must be greater than 0 and at most 100', 'limit'],
    ['/api/markets?limit=abc', 'limit must be greater than 0 and at most 100', 'limit'],
    ['/api/markets?expiry=-1', 'expiry must be greater than or equal to 0', 'expiry'],
    ['/api/markets?expiry=1.5', 'expiry must be an integer', 'expiry'],
    ['/api/markets?isCall=maybe', 'isCall must be a boolean', 'isCall'],
    ['/api/markets?strikes=1&strikes=x', 'strikes[1] must be a number', 'strikes[1]'],
    ['/api/helpers/series-id?strike=1&expiry=1&isCall=true', 'pairId is required', 'pairId'],
    ['/api/helpers/series-id?pairId=0xzz&strike=1&expiry=1&isCall=true', 'pairId must be a hex string', 'pairId'],
    ['/api/markets/ticker/btc', 'Invalid symbol format', 'symbol'],
  ];
  for (const [path, message, field] of cases) {
    const r = await fetch(url(path));
    t.equal(r.status, 400, path);
    t.match(await r.json(), { code: 'invalid_argument', message, details: { field } }, path);
  }
  const body = await post('/api/mm/orders/place', JSON.stringify({ seriesId: 'nothex', isBuy: 'yes' }), { authorization: 'Bearer tok-trader' });
  t.equal(body.status, 400);
  t.match(await body.json(), { code: 'invalid_argument', details: { location: 'body' } });
  const missing = await post('/api/mm/orders/place', JSON.stringify({ isBuy: true, size: '1', price: '1' }), { authorization: 'Bearer tok-trader' });
  t.match(await missing.json(), { message: 'seriesId is required', details: { field: 'seriesId' } });
  const wrong = await post('/api/mm/orders/place', JSON.stringify({ seriesId: '0x12', isBuy: true, size: '1', price: '1' }), { authorization: 'Bearer tok-trader' });
  t.match(await wrong.json(), { message: 'seriesId must be a hex string' });
  const notObject = await post('/api/mm/orders/place', '[1,2]', { authorization: 'Bearer tok-trader' });
  t.match(await notObject.json(), { message: 'body must be an object', details: { field: 'body' } });
  const old = await fetch(url('/helpers/series-id?pairId=1&strike=1&expiry=1&isCall=true'));
  t.same(await old.json(), { error: 'validation_error', message: 'pairId must be a hex string', details: { field: 'pairId', location: 'query' } });
});

t.test('query coercion is exact; defaults fill in; unknown fields ignored', async (t) => {
  const r = await fetch(url('/api/markets?limit=5&isCall=false&expiry=1700000000&strikes=1.5&strikes=2&junk=1&__proto__=x'));
  t.equal(r.status, 200);
  t.same((await json(r))['echo'], { limit: 5, isCall: false, expiry: 1700000000, strikes: [1.5, 2], junk: '1', ['__proto__']: 'x' });
  const d = await fetch(url('/api/markets'));
  t.same((await json(d))['echo'], { limit: 20 }, 'default applied');
  for (const bad of ['1.0e400', '0x10', '1e2.5', ' 5', '']) {
    const x = await fetch(url(`/api/markets?expiry=${encodeURIComponent(bad)}`));
    t.equal(x.status, 400, `expiry=${JSON.stringify(bad)} is not silently converted`);
  }
  const first = await fetch(url('/api/markets?limit=3&limit=4'));
  t.equal(((await json(first))['echo'] as { limit: number }).limit, 3, 'repeated scalar: first wins');
  const extra = await post('/api/helpers/symbol/translate/batch', JSON.stringify({ symbols: ['a'], unknown: { deep: [1, 2, 3] } }));
  t.equal(extra.status, 200);
  t.same(await extra.json(), { results: ['A'], errors: [] });
  const sid = await fetch(url(`/api/helpers/series-id?pairId=${seriesIdExample}&strike=0001&expiry=17&isCall=1`));
  t.same(await sid.json(), { seriesId: seriesIdExample, strike: '0001', expiry: 17, isCall: true }, 'string fields stay strings');
  const enc = await fetch(url('/api/markets/ticker/BTC-1_5-C-17%30'));
  t.same(await enc.json(), { symbol: 'BTC-1_5-C-170', markPrice: '1000000000000000000' }, 'path parameters are percent-decoded');
});

t.test('auth: required, scope, admin, accepts, optional, cookie, invalid credentials', async (t) => {
  const none = await fetch(url('/api/account/me'));
  t.equal(none.status, 401);
  t.same(await none.json(), { code: 'unauthenticated', message: 'No auth data available', details: null });
  const noneOld = await fetch(url('/account/me'));
  t.equal(noneOld.status, 401);
  t.same(await noneOld.json(), { error: 'unauthorized', message: 'No auth data available' });
  const bad = await fetch(url('/api/account/me'), { headers: { authorization: 'Bearer nope' } });
  t.equal(bad.status, 401);
  t.same(await bad.json(), { code: 'unauthenticated', message: 'Invalid or expired token', details: null });
  const okBearer = await fetch(url('/api/account/me'), { headers: { authorization: 'Bearer tok-trader' } });
  t.same(await okBearer.json(), { address: '0x1111111111111111111111111111111111111111', via: 'bearer' });
  const cookie = await fetch(url('/account/me'), { headers: { cookie: 'theme=dark; session=s-trader' } });
  t.same(await cookie.json(), { address: '0x1111111111111111111111111111111111111111', via: 'cookie' });
  const key = await fetch(url('/api/account/me'), { headers: { 'x-api-key': 'ok_good', 'x-api-timestamp': '1', 'x-api-signature': 'sig' } });
  t.same(await key.json(), { address: '0x1111111111111111111111111111111111111111', via: 'apikey' });

  const order = JSON.stringify({ seriesId: seriesIdExample, isBuy: true, size: '1', price: '0.5' });
  const reader = await post('/api/mm/orders/place', order, { authorization: 'Bearer tok-reader' });
  t.equal(reader.status, 403);
  t.same(await reader.json(), { code: 'permission_denied', message: 'Missing required scope: trade', details: null });
  const trader = await post('/api/mm/orders/place', order, { authorization: 'Bearer tok-trader' });
  t.equal(trader.status, 200);
  t.same(await trader.json(), { mode: 'typed_data', seriesId: seriesIdExample, isBuy: true });
  const precondition = await post('/api/mm/orders/place', JSON.stringify({ seriesId: seriesIdExample, isBuy: true, size: '0', price: '1' }), { authorization: 'Bearer tok-trader' });
  t.equal(precondition.status, 400);
  t.same(await precondition.json(), { code: 'failed_precondition', message: 'size below minimum', details: { reason: 'MinSize' } });

  const adminBody = JSON.stringify({ address: '0x5555555555555555555555555555555555555555', isMmm: true });
  const notAdmin = await post('/api/admin/mmm', adminBody, { authorization: 'Bearer tok-trader' });
  t.equal(notAdmin.status, 403);
  t.same(await notAdmin.json(), { code: 'permission_denied', message: 'Admin access required', details: null });
  const anonAdmin = await post('/api/admin/mmm', adminBody);
  t.equal(anonAdmin.status, 401);
  const admin = await post('/api/admin/mmm', adminBody, { authorization: 'Bearer tok-admin' });
  t.equal(admin.status, 200);

  const keysWithKey = await fetch(url('/api/keys'), { headers: { 'x-api-key': 'ok_good', 'x-api-signature': 'sig' } });
  t.equal(keysWithKey.status, 403, 'key endpoints refuse API keys');
  t.match(await keysWithKey.json(), { code: 'permission_denied', message: 'This endpoint does not accept API keys' });
  t.equal((await fetch(url('/api/keys'), { headers: { authorization: 'Bearer tok-trader' } })).status, 200);

  const optionalBad = await fetch(url('/api/auth/session'), { headers: { authorization: 'Bearer nope' } });
  t.equal(optionalBad.status, 200, 'optional routes do not 401 on bad credentials');
  t.same(await optionalBad.json(), { user: null, kind: 'invalid' });
  const optionalGood = await fetch(url('/auth/session'), { headers: { cookie: 'session=s-trader' } });
  t.match(await optionalGood.json(), { user: { address: '0x1111111111111111111111111111111111111111' }, kind: 'user' });
  const publicBadKey = await fetch(url('/api/markets/pairs'), { headers: { 'x-api-key': 'ok_bad', 'x-api-signature': 'x' } });
  t.equal(publicBadKey.status, 200, 'invalid API key on a public route is ignored');
});

t.test('CORS preflight, HEAD, security headers', async (t) => {
  const pre = await fetch(url('/api/mm/orders/place'), { method: 'OPTIONS', headers: { origin: 'https://x.example', 'access-control-request-method': 'POST' } });
  t.equal(pre.status, 204);
  t.equal(await pre.text(), '');
  t.equal(pre.headers.get('access-control-allow-origin'), '*');
  t.equal(pre.headers.get('access-control-allow-methods'), 'POST, OPTIONS');
  t.match(pre.headers.get('access-control-allow-headers'), /Authorization.*X-API-Signature/);
  const head = await fetch(url('/api/markets/pairs'), { method: 'HEAD' });
  t.equal(head.status, 200);
  t.equal(await head.text(), '');
  t.equal(head.headers.get('x-content-type-options'), 'nosniff');
  const unknownOptions = await fetch(url('/api/zzz'), { method: 'OPTIONS' });
  t.equal(unknownOptions.status, 404);
});

t.test('raw replies, bigint bodies, route-declared headers, ctx.now from the clock', async (t) => {
  const raw = await fetch(url('/health'));
  t.equal(raw.status, 200);
  t.equal(await raw.text(), '{"status":"ok","timestamp":1800000000123}');
  t.match(raw.headers.get('content-type'), /^application\/json/);
  const big = await fetch(url('/api/platform/stats'));
  t.same(await big.json(), { volume: '12345678901234567890' });
  const nonce = await post('/api/auth/siwe/nonce', JSON.stringify({ walletAddress: '0x1111111111111111111111111111111111111111', chainId: 10143 }));
  t.same(await nonce.json(), { nonce: '0123456789abcdef', host: `127.0.0.1:${s.port}` });
  const health = await fetch(url('/api/health-signal'));
  t.same(await health.json(), { status: 'ok', timestamp: new Date(1_800_000_000_123).toISOString() });
});

t.test('bugs answer 500 internal with a generic message and a logged stack', async (t) => {
  log.lines.length = 0;
  for (const [path, shape] of [
    ['/api/demo/boom', { code: 'internal', message: 'An unexpected error occurred', details: null }],
    ['/demo/boom', { error: 'internal_error', message: 'An unexpected error occurred' }],
    ['/api/demo/async-boom', { code: 'internal', message: 'An unexpected error occurred', details: null }],
    ['/api/demo/wrong-shape', { code: 'internal', message: 'An unexpected error occurred', details: null }],
  ] as const) {
    const r = await fetch(url(path));
    t.equal(r.status, 500, path);
    const text = await r.text();
    t.same(JSON.parse(text), shape, path);
    t.notMatch(text, /secret internal detail|at .*\.ts/, 'no detail or stack in the body');
  }
  const injected = await fetch(url('/api/demo/header-injection?v=' + encodeURIComponent('a\r\nSet-Cookie: session=evil')));
  t.equal(injected.status, 500, 'a CR/LF in a reply header is refused, not written');
  t.equal(injected.headers.get('set-cookie'), null);
  const echoed = await fetch(url('/api/demo/header-injection?v=fine'));
  t.equal(echoed.headers.get('x-echo'), 'fine');
  const authBug = await fetch(url('/api/account/me'), { headers: { authorization: 'Bearer throw' } });
  t.equal(authBug.status, 500, 'an authenticator exception is a bug, not a 401');
  t.same(await authBug.json(), { code: 'internal', message: 'An unexpected error occurred', details: null });
  const storesDown = await fetch(url('/api/account/me'), { headers: { authorization: 'Bearer unavailable' } });
  t.equal(storesDown.status, 503, 'stores that do not answer are 503, not a 500');
  t.same(await storesDown.json(), { code: 'unavailable', message: 'the shared stores do not answer (sessions: TIMEOUT); try again', details: null });
  t.equal(log.lines.filter((l) => l.level === 'error').length, 6);
  t.match(log.lines[0]?.fields, { error: 'secret internal detail', stack: /boom|support\.ts/ });
  t.match(log.lines[3]?.fields, { error: /declared current response/ });
});

t.test('a client that leaves before the reply does not break the server', async (t) => {
  // The client sends its request and closes its side at once (the route answers after 200 ms);
  // the server is asked again once the connection is gone: no time is waited for.
  let got = '';
  await new Promise<void>((resolve) => {
    // The request, then the client's end of the connection at once.
    const sock = connect(s.port, '127.0.0.1', () => sock.end('GET /api/demo/slow HTTP/1.1\r\nHost: x\r\n\r\n'));
    sock.on('data', (d) => (got += d.toString()));
    sock.on('error', () => {});
    sock.on('close', () => resolve());
  });
  t.equal(got, '', 'the client left before any reply');
  const after = await fetch(url('/api/markets/pairs'));
  t.equal(after.status, 200, 'server still answers after an aborted request');
  const slow = await fetch(url('/api/demo/slow'));
  t.equal(slow.status, 200, 'and still answers the route whose request was abandoned');
});
