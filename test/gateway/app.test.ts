/**
 * The assembled venue: its generated OpenAPI document validates and covers both forms,
 * the documents and metrics are served, and thousands of random malformed requests to
 * every route of the real route table (taken from its own OpenAPI document) never get a
 * 500, a stack trace or a body outside the two error shapes.
 */
import t from 'tap';
import { Validator } from '@seriousme/openapi-schema-validator';
import { startTestApp, request } from './support/testApp.ts';

const unlimited = JSON.stringify(Object.fromEntries(['markets', 'helpers', 'auth', 'account', 'orders', 'platform', 'admin', 'docs'].map((g) => [g, { anonymous: null, tier1: null, tier2: null, tier3: null }])));
const app = await startTestApp({ memory: true, env: { RATE_LIMITS: unlimited, ADMIN_ADDRESSES: '0x00000000000000000000000000000000000000ad' } });
t.teardown(() => app.close());
const url = app.url;

const doc = (await request(url + '/openapi/json')).body as { paths: Record<string, Record<string, unknown>> };

t.test('OpenAPI 3.1 document of the real venue', async (t) => {
  const v = await new Validator().validate(doc as never);
  t.ok(v.valid, `validates${v.valid ? '' : `: ${JSON.stringify(v.errors).slice(0, 500)}`}`);
  for (const path of ['/api/markets', '/markets', '/api/markets/ticker/{symbol}', '/api/auth/siwe/verify', '/auth/siwe/verify', '/api/mm/orders/place', '/api/portfolio/deposit', '/api/keys', '/api/health-signal', '/health']) {
    t.ok(doc.paths[path], `documents ${path}`);
  }
  const yaml = await fetch(url + '/openapi/yaml');
  t.match(await yaml.text(), /openapi: 3\.1\.0/);
  const page = await fetch(url + '/openapi');
  t.match(page.headers.get('content-type') ?? '', /text\/html/);
  t.notMatch(await page.text(), /https?:\/\/(cdn|unpkg|jsdelivr)/, 'the interactive page loads nothing from a CDN');
  t.match(await (await fetch(url + '/llms.txt')).text(), /\/api\/markets\/ticker/);
});

t.test('metrics include HTTP, engine, journal and worker metrics', async (t) => {
  await request(url + '/api/markets/pairs');
  const text = await (await fetch(url + '/metrics')).text();
  for (const name of ['http_requests_total', 'http_request_duration_seconds', 'engine_commands_total', 'engine_command_apply_seconds', 'journal_commit_seconds', 'worker_pool_queue_size', 'nodejs_eventloop_lag_seconds']) {
    t.match(text, new RegExp(`^# TYPE ${name} `, 'm'), name);
  }
  t.match(text, /engine_commands_total\{type="list_pair",outcome="ok"\} 2/, 'the two pairs listed at start are counted');
});

t.test('fuzz every route with malformed input', async (t) => {
  let seed = 424242;
  const rnd = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const token = await app.session('0x00000000000000000000000000000000000000ad');
  const junk = ['', 'x', '-1', '1e999', '0x', '0x' + 'f'.repeat(64), '%00', '%FF%FE', '9'.repeat(90), 'null', '[]', '{}', 'BTC-1-C-1', "'; drop", '\u202e', '..%2F..%2Fetc'];
  const bodies: (string | undefined)[] = [undefined, '', '{', 'null', '[]', '"x"', '1e999', '{"a":'.repeat(200), JSON.stringify({ seriesId: 1, isBuy: 'yes', size: -1, price: 'abc' }), JSON.stringify({ amount: '-5', portfolioId: 'x' }), JSON.stringify({ symbols: 'x' }), JSON.stringify({ orders: new Array(60).fill({}) }), JSON.stringify({ message: 1, signature: '0xzz' }), JSON.stringify({ label: 'k'.repeat(5000), scopes: ['root'] })];
  const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).filter((m) => ['get', 'post', 'put', 'delete', 'patch'].includes(m)).map((m) => ({ path, method: m.toUpperCase() })));
  t.ok(operations.length > 60, `${operations.length} operations under test`);
  let count = 0;
  const failures: string[] = [];
  for (let i = 0; i < 1500; i++) {
    const op = pick(operations);
    const path = op.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(pick(junk)));
    const query = rnd() < 0.5 ? `?${pick(['limit', 'cursor', 'depth', 'portfolioId', 'before', 'tick', 'price', 'pairId'])}=${encodeURIComponent(pick(junk))}` : '';
    const body = op.method === 'GET' ? undefined : pick(bodies);
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (rnd() < 0.6) headers['authorization'] = `Bearer ${token}`;
    else if (rnd() < 0.3) Object.assign(headers, { 'x-api-key': 'ok_' + '0'.repeat(24), 'x-api-timestamp': String(app.clock.now), 'x-api-signature': 'ab' });
    const res = await fetch(url + path + query, { method: op.method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await res.text();
    count++;
    let parsed: Record<string, unknown> | null = null;
    try {
      parsed = JSON.parse(text) as Record<string, unknown>;
    } catch {
      /* checked below */
    }
    const current = path.startsWith('/api/');
    const shapeOk = res.status < 400 || (parsed !== null && (current ? typeof parsed['code'] === 'string' && 'details' in parsed : typeof parsed['error'] === 'string') && typeof parsed['message'] === 'string');
    // The chain webhook answers 503 unavailable before anything else here (no WEBHOOK_SECRET): documented, not a failure.
    const unconfigured = res.status === 503 && op.path.endsWith('/webhooks/chain') && (parsed?.['code'] ?? parsed?.['error']) === 'unavailable';
    if ((res.status >= 500 && !unconfigured) || parsed === null && res.headers.get('content-type')?.includes('json') || !shapeOk || /at .*\.ts:\d+/.test(text)) {
      failures.push(`${op.method} ${path}${query} -> ${res.status} ${text.slice(0, 200)}`);
    }
  }
  t.equal(count, 1500);
  t.same(failures.slice(0, 10), [], 'no 500, no stack trace, every error in its form\'s shape');
});
