/**
 * Route declarations: how forms map to paths, and the programming errors defineRoute
 * and the compiler refuse at start.
 */
import t from 'tap';
import { Type } from '@sinclair/typebox';
import { compileRoutes } from '../../../gateway/http/compile.ts';
import { defineRoute, pathForForm, type Route } from '../../../gateway/http/route.ts';

const base = { group: 'markets', auth: 'none', summary: 's', responses: { 200: Type.Object({}) }, handler: () => ({ body: {} }) } as const;

t.test('forms map to paths', async (t) => {
  const both = defineRoute({ ...base, method: 'GET', path: '/api/markets/ticker/:symbol', forms: ['current', 'earlier'], params: Type.Object({ symbol: Type.String() }) });
  t.equal(pathForForm(both, 'current'), '/api/markets/ticker/:symbol');
  t.equal(pathForForm(both, 'earlier'), '/markets/ticker/:symbol');
  const current = defineRoute({ ...base, method: 'GET', path: '/api/markets/pairs' });
  t.same(current.forms, ['current'], 'default form');
  t.equal(pathForForm(current, 'earlier'), null);
  const moved = defineRoute({ ...base, method: 'GET', path: '/api/health-signal', forms: ['current', 'earlier'], earlier: { path: '/health' } });
  t.equal(pathForForm(moved, 'earlier'), '/health');
  const earlierOnly = defineRoute({ ...base, method: 'GET', path: '/auth/api/wallets', forms: ['earlier'] });
  t.equal(pathForForm(earlierOnly, 'earlier'), '/auth/api/wallets');
  t.equal(pathForForm(earlierOnly, 'current'), null);
  const root = defineRoute({ ...base, method: 'GET', path: '/', forms: ['earlier'] });
  t.equal(pathForForm(root, 'earlier'), '/', 'the root is a path (the market page)');
});

t.test('defineRoute refuses programming errors', async (t) => {
  const bad: Array<[string, () => Route]> = [
    ['current path outside /api', () => defineRoute({ ...base, method: 'GET', path: '/markets' })],
    ['trailing slash', () => defineRoute({ ...base, method: 'GET', path: '/api/markets/' })],
    ['empty segment', () => defineRoute({ ...base, method: 'GET', path: '//', forms: ['earlier'] })],
    ['bad parameter', () => defineRoute({ ...base, method: 'GET', path: '/api/x/:1a' })],
    ['duplicate parameter', () => defineRoute({ ...base, method: 'GET', path: '/api/x/:a/:a', params: Type.Object({ a: Type.String() }) })],
    ['params schema missing a parameter', () => defineRoute({ ...base, method: 'GET', path: '/api/x/:a' })],
    ['params schema with an extra name', () => defineRoute({ ...base, method: 'GET', path: '/api/x/:a', params: Type.Object({ a: Type.String(), b: Type.String() }) })],
    ['scope on a public route', () => defineRoute({ ...base, method: 'GET', path: '/api/x', scope: 'trade' })],
    ['accepts on a public route', () => defineRoute({ ...base, method: 'GET', path: '/api/x', accepts: ['bearer'] })],
    ['an authenticated route API keys can call, without a scope', () => defineRoute({ ...base, method: 'GET', path: '/api/x', auth: 'required' })],
    ['... also when it lists apikey among the credentials it accepts', () => defineRoute({ ...base, method: 'GET', path: '/api/x', auth: 'required', accepts: ['bearer', 'apikey'] })],
    ['an admin route without scope admin', () => defineRoute({ ...base, method: 'POST', path: '/api/admin/x', auth: 'admin' })],
    ['an admin route with another scope', () => defineRoute({ ...base, method: 'POST', path: '/api/admin/x', auth: 'admin', scope: 'read' })],
    ['scope admin on a non-admin route', () => defineRoute({ ...base, method: 'GET', path: '/api/x', auth: 'required', scope: 'admin' })],
    ['earlier options without the earlier form', () => defineRoute({ ...base, method: 'GET', path: '/api/x', earlier: { path: '/x' } })],
    ['earlier path with other parameters', () => defineRoute({ ...base, method: 'GET', path: '/api/x/:a', forms: ['current', 'earlier'], params: Type.Object({ a: Type.String() }), earlier: { path: '/x/:b' } })],
    ['no form', () => defineRoute({ ...base, method: 'GET', path: '/api/x', forms: [] })],
  ];
  for (const [name, f] of bad) t.throws(f, name);
});

t.test('the compiler refuses conflicting routes', async (t) => {
  const a = defineRoute({ ...base, method: 'GET', path: '/api/x/:a', params: Type.Object({ a: Type.String() }) });
  const b = defineRoute({ ...base, method: 'GET', path: '/api/x/:b', params: Type.Object({ b: Type.String() }) });
  t.throws(() => compileRoutes([a, b], { validateResponses: false }), /conflicts/);
  const c = defineRoute({ ...base, method: 'GET', path: '/api/y', forms: ['current', 'earlier'] });
  const d = defineRoute({ ...base, method: 'GET', path: '/y', forms: ['earlier'] });
  t.throws(() => compileRoutes([c, d], { validateResponses: false }), /conflicts/, 'an earlier path clashing with an earlier-only route');
  const e = defineRoute({ ...base, method: 'POST', path: '/api/x/:a', params: Type.Object({ a: Type.String() }) });
  t.equal(compileRoutes([a, e], { validateResponses: false }).length, 2, 'same path, other method is fine');
  const compiled = compileRoutes([c], { validateResponses: false });
  t.same(compiled.map((r) => [r.form, r.path]), [['current', '/api/y'], ['earlier', '/y']]);
  t.ok(compiled[0]!.readHeaders.includes('authorization') && compiled[0]!.readHeaders.includes('cookie'));
});
