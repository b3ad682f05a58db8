/**
 * Every status an operation answers is one its OpenAPI operation lists. Checked on the
 * running venue, for every operation in both forms: sent with its documented examples and
 * no credentials (401 where auth applies), with a resource named in the path that does not
 * exist (404), signed in without the scope or role the operation needs (403), and with a
 * body that is not JSON (400, see also invalidJsonBody.test.ts).
 */
import t from 'tap';
import { startTestApp, request, type JsonResponse } from '../support/testApp.ts';

const app = await startTestApp({
  memory: true,
  startAt: Date.UTC(2026, 0, 5, 12, 0, 0),
  env: { RATE_LIMITS: JSON.stringify({ auth: { anonymous: 10000, tier1: 10000, tier2: 10000, tier3: 10000 } }) },
});
t.teardown(() => app.close());

type Param = { name: string; in: 'path' | 'query'; example?: unknown };
type Op = { parameters?: Param[]; requestBody?: { content: Record<string, { example?: unknown }> }; responses: Record<string, unknown>; security: unknown[] };
const doc = (await (await fetch(`${app.url}/openapi/json`)).json()) as { paths: Record<string, Record<string, Op>> };
const ops = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ method: method.toUpperCase(), path, op })));

/** Values that are well formed but name nothing. */
const missing: Record<string, unknown> = {
  symbol: 'BTC-1-C-1',
  pairId: `0x${'1'.repeat(64)}`,
  id: 99,
  keyId: `ok_${'0'.repeat(24)}`,
  orderId: `0x${'2'.repeat(64)}`,
  requestId: `0x${'3'.repeat(64)}`,
  file: 'missing.js',
  address: `0x${'4'.repeat(39)}9`,
  code: 'NOSUCHCODE',
  seq: 999_999,
};

function send(method: string, path: string, op: Op, options: { params?: Record<string, unknown>; token?: string; body?: unknown } = {}): Promise<JsonResponse> {
  let url = path;
  const query = new URLSearchParams();
  for (const p of op.parameters ?? []) {
    const value = p.in === 'path' ? (options.params?.[p.name] ?? p.example) : p.example;
    if (p.in === 'path') url = url.replace(`{${p.name}}`, encodeURIComponent(String(value)));
    else query.set(p.name, String(value));
  }
  const qs = query.toString();
  const body = 'body' in options ? options.body : op.requestBody?.content['application/json']?.example;
  return request(`${app.url}${url}${qs === '' ? '' : `?${qs}`}`, { method, ...(options.token === undefined ? {} : { token: options.token }), ...(body === undefined ? {} : { body }) });
}

const listed = (op: Op, status: number) => op.responses[String(status)] !== undefined;

t.test('no credentials: the status is listed (401 where auth applies)', async (t) => {
  let unauthorized = 0;
  for (const { method, path, op } of ops) {
    const r = await send(method, path, op);
    t.ok(listed(op, r.status), `${method} ${path}: ${r.status} is listed`, { body: r.body });
    if (r.status === 401) unauthorized++;
  }
  t.ok(unauthorized > 40, `${unauthorized} operations answered 401`);
});

t.test('a resource named in the path that does not exist: 404, and listed', async (t) => {
  const admin = await app.session('0x4444444444444444444444444444444444444444');
  let checked = 0;
  for (const { method, path, op } of ops) {
    const names = (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
    if (names.length === 0 || path.includes('/admin/')) continue;
    const params = Object.fromEntries(names.map((n) => [n, missing[n]]));
    t.ok(names.every((n) => missing[n] !== undefined), `${method} ${path}: a missing value for each path parameter`);
    const r = await send(method, path, op, { params, token: admin });
    t.equal(r.status, 404, `${method} ${path}: 404`, { body: r.body });
    t.ok(listed(op, 404), `${method} ${path}: 404 is listed`);
    checked++;
  }
  t.ok(checked > 20, `${checked} operations`);
});

t.test('signed in without the role or scope: 403, and listed', async (t) => {
  const user = await app.session('0x5555555555555555555555555555555555555555');
  let checked = 0;
  for (const { method, path, op } of ops) {
    const adminOnly = path.includes('/admin/');
    const mmmOnly = path.endsWith('/mm/nonce/increment') || path.endsWith('/mm/quotes/submit');
    if (!adminOnly && !mmmOnly) continue;
    const r = await send(method, path, op, { token: user });
    t.equal(r.status, 403, `${method} ${path}: 403 for a wallet that is not ${adminOnly ? 'an admin' : 'an MMM'}`, { body: r.body });
    t.ok(listed(op, 403), `${method} ${path}: 403 is listed`);
    checked++;
  }
  t.ok(checked >= 6, `${checked} operations`);
});
