/**
 * The route x scope matrix of docs/auth.md, against the real server, row by row: every
 * authenticated route in each of its forms, called by an admin wallet with an API key of
 * each single scope and with a login session (bearer token on the current form, cookie on
 * the earlier one). The expectations are read from the documented table, and the table
 * must list exactly the authenticated routes the server registers, so a new route (or a
 * dropped `scope`) cannot go unnoticed.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { getAddress } from 'viem';
import { startTestApp, request, type JsonResponse } from '../support/testApp.ts';
import { hmacHeaders, newWallet, relaxedAuthLimits } from '../auth/siweClient.ts';
import { apiRoutes } from '../../../gateway/routes/index.ts';
import { pathForForm, scopes, type Scope } from '../../../gateway/http/route.ts';
import { pairIdOf } from '../../../engine/domain/ids.ts';

const credentials = [...scopes, 'session'] as const;
type Credential = (typeof credentials)[number];
type Row = { current: string | null; earlier: string | null; needs: Scope | 'session only'; expect: Record<Credential, 'pass' | '403'> };

/** The matrix table of docs/auth.md ("Route x scope matrix"). */
function documentedMatrix(): Row[] {
  const doc = readFileSync(new URL('../../../docs/auth.md', import.meta.url), 'utf8');
  const start = doc.indexOf('| current form | earlier form | needs |');
  if (start < 0) throw new Error('docs/auth.md has no route x scope matrix');
  // The table runs to the first line that is not a table row.
  const lines = doc.slice(start).split('\n');
  const table = lines.slice(2, lines.findIndex((l) => !l.startsWith('|')));
  const rows: Row[] = [];
  for (const line of table) {
    const cells = line.split('|').slice(1, -1).map((c) => c.trim().replace(/`/g, ''));
    if (cells.length !== 8) throw new Error(`matrix row with ${cells.length} cells: ${line}`);
    const route = (c: string) => (c === '—' ? null : c);
    const verdict = (c: string) => {
      if (c !== 'pass' && c !== '403') throw new Error(`matrix cell must be pass or 403: ${line}`);
      return c;
    };
    rows.push({
      current: route(cells[0]!),
      earlier: route(cells[1]!),
      needs: cells[2] as Row['needs'],
      expect: { read: verdict(cells[3]!), trade: verdict(cells[4]!), withdraw: verdict(cells[5]!), admin: verdict(cells[6]!), session: verdict(cells[7]!) },
    });
  }
  return rows;
}

const relaxed = Object.fromEntries(['auth', 'account', 'orders', 'admin'].map((g) => [g, { anonymous: 100_000, tier1: 100_000, tier2: 100_000, tier3: 100_000 }]));
const admin = newWallet();
const app = await startTestApp({
  memory: true,
  startAt: Date.UTC(2026, 0, 5, 12, 0, 0),
  env: { ...relaxedAuthLimits, RATE_LIMITS: JSON.stringify(relaxed), ADMIN_ADDRESSES: admin.address.toLowerCase(), NETWORK: 'local' },
});
t.teardown(() => app.close());
const url = app.url;
const matrix = documentedMatrix();

const setupToken = await app.session(admin.address);
const keys = {} as Record<Scope, { keyId: string; secret: string }>;
for (const scope of scopes) {
  const r = await request(`${url}/api/keys`, { token: setupToken, body: { label: `only ${scope}`, scopes: [scope] } });
  if (r.status !== 200) throw new Error(`key ${scope}: ${r.status} ${JSON.stringify(r.body)}`);
  keys[scope] = r.body;
}
// MMM membership, so that no MMM-only route answers 403 for a reason other than authorization.
const mmm = await request(`${url}/api/admin/mmm`, { token: setupToken, body: { address: admin.address, isMmm: true } });
if (mmm.status !== 200) throw new Error(`mmm: ${mmm.status}`);

let ts = app.clock.now - 25_000;
const params: Record<string, string> = { keyId: `ok_${'0'.repeat(24)}`, id: '1', pairId: pairIdOf('BTC-USDC'), orderId: `0x${'ab'.repeat(32)}`, requestId: `0x${'cd'.repeat(32)}` };

async function call(route: string, form: 'current' | 'earlier', credential: Credential): Promise<JsonResponse> {
  const [method, pattern] = route.split(' ') as [string, string];
  const path = pattern.replace(/:([A-Za-z]+)/g, (_m, name: string) => params[name] ?? `no-example-for-${name}`);
  const headers: Record<string, string> = {};
  let token: string | undefined;
  if (credential === 'session') {
    // A fresh session each time: sign-out revokes the one it is called with.
    const session = await app.session(admin.address, form);
    if (form === 'current') token = session;
    else headers['cookie'] = `session=${session}`;
  } else {
    Object.assign(headers, hmacHeaders(keys[credential].keyId, keys[credential].secret, ++ts));
  }
  const body = method === 'GET' || method === 'DELETE' ? undefined : {};
  return request(url + path, { method, headers, ...(token !== undefined ? { token } : {}), ...(body !== undefined ? { body } : {}) });
}

const authMessages = [/^Missing required scope: (read|trade|withdraw|admin)$/, /^This endpoint does not accept API keys$/, /^Admin access required$/];

t.test('the documented matrix lists exactly the registered authenticated routes, with their declared scopes', async (t) => {
  const registered = new Map<string, string>();
  for (const route of apiRoutes(app.app.services).routes) {
    if (route.auth !== 'required' && route.auth !== 'admin') continue;
    const needs = route.scope ?? 'session only';
    for (const form of route.forms) registered.set(`${form} ${route.method} ${pathForForm(route, form)}`, needs);
  }
  const documented = new Map<string, string>();
  for (const row of matrix) {
    if (row.current !== null) documented.set(`current ${row.current}`, row.needs);
    if (row.earlier !== null) documented.set(`earlier ${row.earlier}`, row.needs);
  }
  t.ok(registered.size > 40, `${registered.size} authenticated routes registered`);
  t.same([...documented.keys()].sort(), [...registered.keys()].sort(), 'same routes in both forms');
  for (const [route, needs] of registered) t.equal(documented.get(route), needs, `${route} needs ${needs}`);
  for (const row of matrix) {
    // The columns follow from `needs`: a key passes with exactly that scope (scopes do not imply one another); a login passes everywhere.
    const derived = Object.fromEntries(credentials.map((c) => [c, c === 'session' || c === row.needs ? 'pass' : '403']));
    t.same(row.expect, derived, `${row.current ?? row.earlier}: columns agree with "${row.needs}"`);
  }
  const orderRoutes = matrix.filter((r) => r.current?.startsWith('POST /api/mm/orders/'));
  t.ok(orderRoutes.length >= 5, 'every order-entry route is in the table');
  for (const r of orderRoutes) t.equal(r.expect.read, '403', `${r.current}: a read key cannot trade`);
});

for (const row of matrix) {
  for (const form of ['current', 'earlier'] as const) {
    const route = form === 'current' ? row.current : row.earlier;
    if (route === null) continue;
    t.test(`${route} (${form} form)`, async (t) => {
      for (const credential of credentials) {
        const r = await call(route, form, credential);
        const what = `${credential === 'session' ? 'login session' : `${credential} key`}: ${r.status} ${JSON.stringify(r.body)}`;
        if (row.expect[credential] === 'pass') {
          t.ok(r.status !== 401 && r.status !== 403 && r.status < 500, `passes, ${what}`);
        } else {
          t.equal(r.status, 403, `refused, ${what}`);
          const message = String(r.body.message);
          t.same(form === 'current' ? r.body.code : r.body.error, form === 'current' ? 'permission_denied' : 'forbidden', 'in the form\'s error shape');
          t.ok(authMessages.some((m) => m.test(message)), `an authorization message: ${message}`);
          if (row.needs !== 'session only') t.equal(message, `Missing required scope: ${row.needs}`);
        }
      }
    });
  }
}

t.test('admin: a read key of an admin wallet is refused; an admin key and a session act', async (t) => {
  const target = newWallet().address;
  const byRead = await request(`${url}/api/admin/mmm`, { headers: hmacHeaders(keys.read.keyId, keys.read.secret, ++ts), body: { address: target, isMmm: true } });
  t.same([byRead.status, byRead.body], [403, { code: 'permission_denied', message: 'Missing required scope: admin', details: null }]);
  t.equal(app.app.engine.state.accounts.walletOf(getAddress(target)) < 0 || app.app.engine.state.accounts.isMmm[app.app.engine.state.accounts.walletOf(getAddress(target))] === 0, true, 'nothing changed');
  const byAdminKey = await request(`${url}/api/admin/mmm`, { headers: hmacHeaders(keys.admin.keyId, keys.admin.secret, ++ts), body: { address: target, isMmm: true } });
  t.same([byAdminKey.status, byAdminKey.body], [200, { address: getAddress(target), isMmm: true }]);
  t.equal(app.app.engine.state.accounts.isMmm[app.app.engine.state.accounts.walletOf(getAddress(target))], 1, 'the admin key granted it');
  const cookie = await app.session(admin.address, 'earlier');
  const byCookie = await request(`${url}/api/admin/mmm`, { headers: { cookie: `session=${cookie}` }, body: { address: target, isMmm: false } });
  t.same([byCookie.status, byCookie.body], [200, { address: getAddress(target), isMmm: false }], 'a session cookie of an admin wallet works on /api/admin/*');
  // Another wallet's admin key (if it could get one) is of no use: it cannot even be created.
  const other = newWallet();
  const otherToken = await app.session(other.address);
  const refused = await request(`${url}/api/keys`, { token: otherToken, body: { label: 'sneaky', scopes: ['read', 'admin'] } });
  t.same([refused.status, refused.body], [403, { code: 'permission_denied', message: 'Only an admin wallet may create a key with scope admin', details: { reason: 'admin_scope_needs_admin', field: 'scopes' } }]);
  t.same((await request(`${url}/api/keys`, { token: otherToken })).body.keys, [], 'no key was created');
  const fine = await request(`${url}/api/keys`, { token: otherToken, body: { label: 'reader', scopes: ['read'] } });
  t.equal(fine.status, 200, 'the same wallet may create other keys');
  const adminScopes = await request(`${url}/api/keys`, { token: setupToken, body: { label: 'ops', scopes: ['admin', 'read', 'admin'] } });
  t.same([adminScopes.status, adminScopes.body.scopes], [200, ['read', 'admin']], 'an admin wallet may; scopes deduplicated in canonical order');
  const unknown = await request(`${url}/api/keys`, { token: setupToken, body: { label: 'x', scopes: ['root'] } });
  t.same([unknown.status, unknown.body.message], [400, 'scopes[0] must be one of: read, trade, withdraw, admin']);
});
