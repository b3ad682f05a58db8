/**
 * A body that is not JSON is 400 on every route that takes a body, those whose body is
 * optional or ignored included (`POST /api/portfolio/create` once created a portfolio
 * from the body `x`). The routes come from the served OpenAPI document, which is generated
 * from the route registry: a new route is covered without touching this test. Each request
 * is signed in (an admin wallet with every scope) and fills path parameters from their
 * documented examples, so that the body is the only thing wrong with it.
 */
import t from 'tap';
import { startTestApp, request } from '../support/testApp.ts';

const admin = '0x2222222222222222222222222222222222222222';
const app = await startTestApp({ memory: true, startAt: Date.UTC(2026, 0, 5, 12, 0, 0), env: { ADMIN_ADDRESSES: admin } });
t.teardown(() => app.close());
const token = await app.session(admin);

type Op = { parameters?: Array<{ name: string; in: string; example?: unknown }>; 'x-form': 'current' | 'earlier'; responses: Record<string, unknown> };
const doc = (await (await fetch(`${app.url}/openapi/json`)).json()) as { paths: Record<string, Record<string, Op>> };

const bodyRoutes = Object.entries(doc.paths).flatMap(([path, methods]) =>
  Object.entries(methods)
    .filter(([method]) => method !== 'get')
    .map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
);

t.test('the registry has body-taking routes in both forms, optional bodies among them', async (t) => {
  t.ok(bodyRoutes.length >= 30, `${bodyRoutes.length} routes`);
  const ids = bodyRoutes.map((r) => `${r.method} ${r.path}`);
  for (const id of ['POST /api/portfolio/create', 'POST /portfolio/create', 'POST /api/auth/sign-out', 'POST /api/mm/nonce/increment', 'DELETE /api/keys/{keyId}', 'POST /api/portfolio/deposit']) t.ok(ids.includes(id), id);
});

t.test('the body `x` is 400 Invalid JSON body on each, in the shape of its form', async (t) => {
  for (const { method, path, op } of bodyRoutes) {
    let url = path;
    for (const p of op.parameters ?? []) if (p.in === 'path') url = url.replace(`{${p.name}}`, encodeURIComponent(String(p.example)));
    const r = await request(app.url + url, { method, body: 'x', token });
    const id = `${method} ${path}`;
    t.equal(r.status, 400, id);
    t.ok(op.responses['400'], `${id}: 400 is listed`);
    if (op['x-form'] === 'current') t.match(r.body, { code: 'invalid_argument', message: 'Invalid JSON body', details: { field: 'body', location: 'body' } }, id);
    else t.match(r.body, { error: 'validation_error', message: 'Invalid JSON body' }, id);
  }
});

t.test('nothing happened: no portfolio was created', async (t) => {
  const list = await request(`${app.url}/api/portfolio/list`, { token });
  t.equal(list.status, 200);
  t.same(list.body.portfolios, []);
  const created = await request(`${app.url}/api/portfolio/create`, { method: 'POST', token });
  t.equal(created.status, 200, 'an empty body is still no body');
  t.equal(created.body.id, 1);
  const json = await request(`${app.url}/api/portfolio/create`, { method: 'POST', token, body: {} });
  t.equal(json.status, 200, 'and any JSON body is accepted and ignored');
});
