/**
 * Fuzz against the real venue (test/gateway/http/fuzz.test.ts does the HTTP layer on demo
 * routes): every operation of the served OpenAPI document, called with path parameters,
 * queries and bodies generated from the operation's own schema and then broken (wrong
 * types, missing and extra fields, huge, negative and fractional numbers, odd strings), as a
 * funded market maker, a funded trader, an admin, a session of the earlier form, a stranger
 * or nobody. Every reply must be JSON, and an error in the interface's shape for its form,
 * never a 500. Afterwards the engine's indexes and margin sums must still check out and the
 * venue must still take a valid order. Seeded (APP_FUZZ_SEED), so a failure replays.
 */
import t from 'tap';
import { errorCodes, earlierErrorCodes } from '../../gateway/http/errors.ts';
import { startTestApp, request } from './support/testApp.ts';
import { liveSeries, place, trader, wallet } from './routes/ordersFixture.ts';
import { prng } from '../engine/domain/prng.ts';

const seed = Number(process.env['APP_FUZZ_SEED'] ?? 20261122);
const total = Number(process.env['APP_FUZZ_COUNT'] ?? 2000);

const rnd = prng(seed);
const int = (n: number): number => Math.floor(rnd() * n);
const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
const chance = (p: number): boolean => rnd() < p;

const admin = wallet('fuzz-admin');
// A webhook secret, so the webhook route answers its own refusals (401, 400) rather than 503 unconfigured.
const app = await startTestApp({ env: { ADMIN_ADDRESSES: admin.address, WEBHOOK_SECRET: 'fuzz-webhook-secret' } });
t.teardown(() => app.close());

const mm = await trader(app, 'fuzz-mm', { mmm: true, deposit: 1_000_000 });
const alice = await trader(app, 'fuzz-alice', { deposit: 100_000 });
const series = liveSeries(app, true);
const seriesId = series.spec.seriesId;
const resting = await place(app, alice, { seriesId, isBuy: true, size: '0.01', price: '5' });
const restingOrderId = resting.relay.body.orders?.[0]?.orderId as string | undefined;
const tokens = {
  mm: mm.token,
  alice: alice.token,
  admin: await app.session(admin.address),
  earlier: await app.session(alice.address, 'earlier'),
  stranger: await app.session(wallet('fuzz-stranger').address),
};

type Schema = { [k: string]: any };
const doc = (await request(`${app.url}/openapi/json`)).body as { paths: Record<string, Record<string, Schema>>; components?: { schemas?: Record<string, Schema> } };
const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method: method.toUpperCase(), op })));

const weird = ['', ' ', '0', '-0', '-1', '1e400', 'NaN', 'Infinity', '9'.repeat(80), '0x', '0x10', '1.5', '0.000000000000000000001', 'true', 'null', '__proto__', 'constructor', '%', '😀', '\u202e', 'a'.repeat(3000)];
const hex = (bytes: number): string => '0x' + Array.from({ length: bytes * 2 }, () => '0123456789abcdef'[int(16)]).join('');

/** A value a field of this name would plausibly hold: gets requests past the first checks. */
function plausible(name: string): unknown {
  const n = name.toLowerCase();
  if (n.includes('seriesid')) return pick([seriesId, seriesId, hex(32), seriesId.toUpperCase()]);
  if (n.includes('orderid')) return pick([restingOrderId ?? hex(32), hex(32)]);
  if (n.includes('requestid') || n.includes('quoteid')) return hex(32);
  if (n.includes('pairid')) return pick([series.spec.pairId, hex(32)]);
  if (n.includes('signature')) return hex(65);
  if (n.includes('address') || n === 'mmm' || n.includes('wallet')) return pick([mm.address, alice.address, hex(20)]);
  if (n.includes('symbol') || n === 'name') return pick(['BTC-USDC', 'ETH-USDC', 'BTC-20991231-100000-C', 'XYZ']);
  if (n.includes('portfolio') || n === 'id') return pick([0, 1, 2, '1', 99]);
  if (n.includes('size') || n.includes('amount') || n.includes('price') || n.includes('spot') || n.includes('strike')) return pick(['0.01', '1', '100', '0.001', '1000000000']);
  if (n.includes('expiry') || n.includes('deadline') || n.includes('seconds') || n.includes('time')) return pick([Math.floor(app.clock.now / 1000) + 3600, 0, 2 ** 32]);
  if (n.includes('nonce')) return pick(['0', '1', String(2n ** 256n)]);
  if (n.startsWith('is') || n.includes('buy')) return chance(0.5);
  return undefined;
}

function resolve(schema: Schema): Schema {
  let s = schema;
  for (let i = 0; i < 5 && typeof s?.['$ref'] === 'string'; i++) s = doc.components?.schemas?.[s['$ref'].split('/').pop()!] ?? {};
  return s ?? {};
}

function randomJson(depth: number): unknown {
  switch (int(depth > 2 ? 6 : 8)) {
    case 0:
      return pick([null, true, false, 0, -1, 1e308, 2 ** 53 + 1, 0.5]);
    case 1:
    case 2:
      return pick(weird);
    case 3:
      return int(1000) - 500;
    case 4:
      return hex(pick([20, 32, 65]));
    case 5:
      return String(rnd() * 1e6);
    case 6:
      return Array.from({ length: int(4) }, () => randomJson(depth + 1));
    default:
      return Object.fromEntries(Array.from({ length: int(4) }, () => [pick(['seriesId', 'size', 'price', 'isBuy', 'x', '__proto__']), randomJson(depth + 1)]));
  }
}

/** From the schema, with a field name's plausible value preferred, then broken now and then. */
function generate(schema: Schema, name: string, depth: number): unknown {
  if (chance(0.08) || depth > 6) return randomJson(depth);
  const s = resolve(schema);
  const variants = s['anyOf'] ?? s['oneOf'];
  if (Array.isArray(variants) && variants.length > 0) return generate(pick(variants as Schema[]), name, depth);
  if (Array.isArray(s['enum']) && chance(0.85)) return pick(s['enum'] as unknown[]);
  if ('const' in s && chance(0.85)) return s['const'];
  const type = Array.isArray(s['type']) ? pick(s['type'] as string[]) : s['type'];
  const hint = plausible(name);
  if (hint !== undefined && type !== 'object' && type !== 'array' && chance(0.75)) return hint;
  switch (type) {
    case 'string':
      return chance(0.5) ? pick(weird) : String(int(1000));
    case 'integer':
      return pick([0, 1, -1, 7, 2 ** 31, 2 ** 53, int(100)]);
    case 'number':
      return pick([0, 1.5, -1, 1e21, 0.1]);
    case 'boolean':
      return chance(0.5);
    case 'array': {
      const max = typeof s['maxItems'] === 'number' ? s['maxItems'] + 1 : 4;
      return Array.from({ length: int(Math.min(max, 60) + 1) }, () => generate(s['items'] ?? {}, name, depth + 1));
    }
    case 'object':
    default: {
      const props = (s['properties'] ?? {}) as Record<string, Schema>;
      const required = new Set((s['required'] ?? []) as string[]);
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(props)) if (chance(required.has(k) ? 0.93 : 0.6)) out[k] = generate(v, k, depth + 1);
      if (chance(0.1)) out[pick(['extra', 'signature', 'seriesId', '__proto__'])] = randomJson(depth + 1);
      return out;
    }
  }
}

function encodeParam(v: unknown): string {
  return encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v) ?? '');
}

type Outcome = { where: string; status: number; text: string; contentType: string | null; form: 'current' | 'earlier' };

async function one(): Promise<Outcome> {
  const { path, method, op } = pick(operations);
  const params = (op['parameters'] ?? []) as { name: string; in: string; schema?: Schema }[];
  let url = path.replace(/\{(\w+)\}/g, (_, name: string) => encodeParam(generate(params.find((p) => p.name === name)?.schema ?? {}, name, 0)));
  const query = params.filter((p) => p.in === 'query' && chance(0.6)).map((p) => `${encodeURIComponent(p.name)}=${encodeParam(generate(p.schema ?? {}, p.name, 0))}`);
  if (chance(0.1)) query.push(`${encodeURIComponent(pick(weird))}=${encodeURIComponent(pick(weird))}`);
  if (query.length > 0) url += '?' + query.join('&');
  const who = pick(['mm', 'mm', 'alice', 'admin', 'earlier', 'stranger', 'none', 'bogus'] as const);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (who === 'bogus') headers['authorization'] = pick(['Bearer nope', 'Bearer ', 'Basic x']);
  else if (who !== 'none') {
    // Signing out ends the session it is called with: use one of its own, the others live on.
    const owner = { mm: mm.address, alice: alice.address, admin: admin.address, earlier: alice.address, stranger: wallet('fuzz-stranger').address }[who];
    const token = path.endsWith('/sign-out') ? await app.session(owner, who === 'earlier' ? 'earlier' : 'current') : tokens[who];
    headers['authorization'] = `Bearer ${token}`;
  }
  let body: string | undefined;
  if (method !== 'GET' && method !== 'DELETE') {
    const schema = op['requestBody']?.content?.['application/json']?.schema;
    body = schema === undefined || chance(0.05) ? pick(['', '{', '[]', 'null', JSON.stringify(randomJson(0))]) : JSON.stringify(generate(schema, '', 0));
  }
  const res = await fetch(app.url + url, { method, headers, ...(body === undefined ? {} : { body }) });
  const form = path === '/api' || path.startsWith('/api/') ? 'current' : 'earlier';
  return { where: `${method} ${url.slice(0, 160)} as ${who} ${body?.slice(0, 300) ?? ''}`, status: res.status, text: await res.text(), contentType: res.headers.get('content-type'), form };
}

function problemOf(o: Outcome): string | null {
  if (o.status >= 500) return `${o.status} ${o.text.slice(0, 300)}`;
  if (o.status < 400) return null;
  if (!/^application\/json/.test(o.contentType ?? '')) return `content-type ${o.contentType}`;
  let b: Record<string, unknown>;
  try {
    b = JSON.parse(o.text) as Record<string, unknown>;
  } catch {
    return `not JSON: ${o.text.slice(0, 100)}`;
  }
  if (o.form === 'current') {
    const shape = Object.keys(b).sort().join() === 'code,details,message' && Object.hasOwn(errorCodes, b['code'] as string) && typeof b['message'] === 'string';
    if (!shape) return `not the current error shape: ${o.text.slice(0, 200)}`;
    if (errorCodes[b['code'] as keyof typeof errorCodes].status !== o.status) return `${String(b['code'])} with status ${o.status}`;
    return null;
  }
  const keys = Object.keys(b).sort().join();
  const shape = (keys === 'error,message' || keys === 'details,error,message') && Object.hasOwn(earlierErrorCodes, b['error'] as string) && typeof b['message'] === 'string';
  return shape ? null : `not the earlier error shape: ${o.text.slice(0, 200)}`;
}

t.test(`random requests to every operation (seed ${seed})`, async (t) => {
  t.ok(operations.length > 80, `the OpenAPI document lists the operations (${operations.length})`);
  t.ok(restingOrderId !== undefined, 'a resting order to aim at');
  const problems: string[] = [];
  const statuses = new Map<number, number>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < total) {
      next++;
      const o = await one();
      statuses.set(o.status, (statuses.get(o.status) ?? 0) + 1);
      const problem = problemOf(o);
      if (problem !== null) problems.push(`${o.where}: ${problem}`);
    }
  };
  await Promise.all(Array.from({ length: 6 }, worker));
  t.same(problems.slice(0, 10), [], `${problems.length} problems`);
  for (const status of [200, 400, 401, 403, 404]) t.ok((statuses.get(status) ?? 0) > 0, `the fuzz reached status ${status}`);
  t.comment(`statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}`);

  const state = app.app.engine.state;
  t.equal(state.verifyOrderIndex(), null, 'the order index still matches the books and portfolios');
  t.equal(state.accounts.margin.verify(state.accounts.allPortfolios()), null, 'the kept margin sums equal a recount');
  // A new wallet (the fuzz may have moved the others' cash), caps lifted (admins may have set
  // them), past the rate-limit windows the fuzz filled.
  app.clock.advance(61_000);
  const target = liveSeries(app, true);
  const lifted = await app.app.services.pipeline.submit({ type: 'set_oi_caps', pairId: target.spec.pairId, maxCallOI: 0n, maxPutOI: 0n });
  t.ok(lifted.ok, 'caps lifted');
  const bob = await trader(app, 'fuzz-bob', { deposit: 100_000 });
  const after = await place(app, bob, { seriesId: target.spec.seriesId, isBuy: true, size: '0.01', price: '5' });
  t.equal(after.relay.status, 200, `a valid order still goes through (${JSON.stringify(after.relay.body).slice(0, 200)})`);
});
