/**
 * The AsyncAPI document at /asyncapi/json covers every stream, channel and message, and is
 * a valid AsyncAPI 3.0 document: @asyncapi/parser reports no error and no warning, and its
 * structure is also checked here against the 3.0 rules (required fields, allowed keys,
 * actions, address parameters, every $ref resolving, operations pointing into their channel)
 * with every payload compiling as JSON Schema with ajv. Each channel names the stream
 * (server) it lives on, and /ws/public refuses the channels it does not offer. The other
 * stream tests validate the frames the server really sends against these payloads.
 */
import t from 'tap';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { Parser } from '@asyncapi/parser';
import { startTestApp } from '../support/testApp.ts';
import { connect, wsEnv } from './support.ts';

wsEnv();
const app = await startTestApp({ memory: true, startAt: Date.UTC(2026, 0, 5, 12, 0, 0) });
t.teardown(() => app.close());
const res = await fetch(`${app.url}/asyncapi/json`);
const doc = (await res.json()) as Record<string, any>;

const allowed = {
  root: ['asyncapi', 'id', 'info', 'servers', 'defaultContentType', 'channels', 'operations', 'components'],
  info: ['title', 'version', 'description', 'termsOfService', 'contact', 'license', 'tags', 'externalDocs'],
  server: ['host', 'protocol', 'protocolVersion', 'pathname', 'description', 'title', 'summary', 'variables', 'security', 'tags', 'externalDocs', 'bindings'],
  channel: ['address', 'messages', 'title', 'summary', 'description', 'servers', 'parameters', 'tags', 'externalDocs', 'bindings'],
  parameter: ['enum', 'default', 'description', 'examples', 'location'],
  operation: ['action', 'channel', 'title', 'summary', 'description', 'security', 'tags', 'externalDocs', 'bindings', 'traits', 'messages', 'reply'],
  message: ['headers', 'payload', 'correlationId', 'contentType', 'name', 'title', 'summary', 'description', 'tags', 'externalDocs', 'bindings', 'examples', 'traits'],
  components: ['schemas', 'servers', 'channels', 'operations', 'messages', 'securitySchemes', 'serverVariables', 'parameters', 'correlationIds', 'replies', 'replyAddresses', 'externalDocs', 'tags', 'operationTraits', 'messageTraits', 'serverBindings', 'channelBindings', 'operationBindings', 'messageBindings'],
};
const extraKeys = (obj: Record<string, unknown>, keys: readonly string[]) => Object.keys(obj).filter((k) => !keys.includes(k) && !k.startsWith('x-'));

function resolve(ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !(key in node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function refs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const x of node) refs(x, out);
  else if (node !== null && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refs(v, out);
    }
  }
  return out;
}

t.test('served as JSON, AsyncAPI 3.0.0 with info', async (t) => {
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /json/);
  t.equal(doc['asyncapi'], '3.0.0');
  t.same(extraKeys(doc, allowed.root), [], 'only AsyncAPI root fields');
  t.type(doc['info']?.title, 'string');
  t.type(doc['info']?.version, 'string');
  t.same(extraKeys(doc['info'], allowed.info), []);
});

t.test('servers: one per WebSocket path, with host and protocol', async (t) => {
  const servers = doc['servers'] as Record<string, Record<string, unknown>>;
  t.same(Object.values(servers).map((s) => s['pathname']).sort(), ['/ws/monitor', '/ws/private', '/ws/public', '/ws/rfq/mm']);
  for (const [name, s] of Object.entries(servers)) {
    t.type(s['host'], 'string', `${name}.host`);
    t.equal(s['protocol'], 'ws', `${name}.protocol`);
    t.same(extraKeys(s, allowed.server), [], `${name}: allowed keys`);
  }
});

t.test('channels, operations and components follow AsyncAPI 3.0', async (t) => {
  const channels = doc['channels'] as Record<string, Record<string, any>>;
  for (const [id, ch] of Object.entries(channels)) {
    t.same(extraKeys(ch, allowed.channel), [], `${id}: allowed keys`);
    t.type(ch['address'], 'string', `${id}: address`);
    const params = [...String(ch['address']).matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    for (const p of params) t.ok(ch['parameters']?.[p], `${id}: parameter {${p}} is described`);
    for (const [p, def] of Object.entries((ch['parameters'] ?? {}) as Record<string, Record<string, unknown>>)) {
      t.ok(params.includes(p), `${id}: parameter ${p} appears in the address`);
      t.same(extraKeys(def, allowed.parameter), [], `${id}.${p}: allowed keys`);
    }
    t.ok(Object.keys(ch['messages'] ?? {}).length > 0, `${id}: has messages`);
  }
  const operations = doc['operations'] as Record<string, Record<string, any>>;
  for (const [id, op] of Object.entries(operations)) {
    t.same(extraKeys(op, allowed.operation), [], `${id}: allowed keys`);
    t.ok(op['action'] === 'send' || op['action'] === 'receive', `${id}: action`);
    const channelRef = op['channel']?.$ref as string;
    t.ok(resolve(channelRef), `${id}: channel resolves`);
    for (const m of op['messages'] ?? []) t.ok(String(m.$ref).startsWith(`${channelRef}/messages/`), `${id}: message ${m.$ref} belongs to its channel`);
  }
  t.same(extraKeys(doc['components'], allowed.components), [], 'components: allowed keys');
  for (const section of ['schemas', 'messages'] as const) {
    for (const key of Object.keys(doc['components'][section] ?? {})) t.match(key, /^[\w\d.\-_]+$/, `components.${section}.${key}: valid key`);
  }
  const messages = doc['components']['messages'] as Record<string, Record<string, unknown>>;
  const ajv = new Ajv({ strict: false });
  addFormats.default(ajv);
  ajv.addSchema({ $id: 'asyncapi', components: doc['components'] });
  for (const [key, m] of Object.entries(messages)) {
    t.same(extraKeys(m, allowed.message), [], `${key}: allowed keys`);
    t.type(m['payload'], 'object', `${key}: payload`);
    const payload = JSON.parse(JSON.stringify(m['payload']).replace(/"\$ref":"#\//g, '"$ref":"asyncapi#/'));
    t.doesNotThrow(() => ajv.compile(payload), `${key}: payload is valid JSON Schema`);
  }
  const unresolved = refs(doc).filter((r) => resolve(r) === undefined);
  t.same(unresolved, [], 'every $ref resolves');
});

t.test('covers every channel and message the streams use', async (t) => {
  const channels = doc['channels'] as Record<string, Record<string, any>>;
  const byAddress = Object.fromEntries(Object.values(channels).map((c) => [c['address'], Object.keys(c['messages'])]));
  const expected: Record<string, string[]> = {
    control: ['ack', 'subscriptions', 'pong', 'error', 'subscribe', 'listSubscriptions', 'ping'],
    '{symbol}@depth': ['depthSnapshot', 'depthDelta'],
    '{symbol}@ticker': ['ticker'],
    '{symbol}@trades': ['trade'],
    'orderbook:{symbol}': ['depthSnapshot', 'depthDelta'],
    'ticker:{symbol}': ['ticker'],
    'trades:{symbol}': ['trade'],
    '{pair}@index': ['index'],
    'global@rfq': ['rfqCreated', 'rfqResolved'],
    auth: ['authSuccess', 'authFailed', 'authToken', 'authApiKey'],
    'account@fills': ['traderFill', 'makerFill'],
    'account@positions': ['position'],
    'account@portfolios': ['portfolio'],
    'account@orders': ['order'],
    'account@mmp': ['mmp'],
    'rfq/mm': ['rfqRequest', 'rfqResolved', 'rfqResponseAck', 'error', 'rfqResponse'],
  };
  for (const [address, messages] of Object.entries(expected)) t.same(byAddress[address], messages, `${address}: ${messages.join(', ')}`);
  const ops = Object.entries(doc['operations'] as Record<string, Record<string, any>>).map(([id, o]) => `${id}:${o['action']}`);
  for (const expected of ['control.receive:receive', 'control.send:send', 'auth.receive:receive', 'rfqMm.receive:receive', 'rfqMm.send:send', 'depth.send:send', 'accountFills.send:send']) t.ok(ops.includes(expected), expected);
});

t.test('@asyncapi/parser: no error and no warning', async (t) => {
  const parser = new Parser();
  const { document, diagnostics } = await parser.parse(JSON.stringify(doc));
  t.ok(document, 'parsed');
  // Severities: 0 error, 1 warning, 2 information, 3 hint.
  t.same(diagnostics.filter((d) => d.severity <= 1).map((d) => `${d.code} ${d.path.join('.')}: ${d.message}`), []);
  t.same(document!.channels().get('accountFills')!.servers().all().map((x) => x.id()), ['private'], 'the parser reads the channel\'s server');
  const broken = structuredClone(doc);
  broken['channels']['accountFills']['servers'] = [{ $ref: '#/servers/nowhere' }];
  const bad = await parser.parse(JSON.stringify(broken));
  t.ok(bad.diagnostics.some((d) => d.severity === 0), 'and does report a channel on an unknown server');
});

t.test('each channel names the stream it lives on; private channels are not on /ws/public', async (t) => {
  const servers = doc['servers'] as Record<string, Record<string, unknown>>;
  const pathOf = (ref: string) => servers[ref.replace('#/servers/', '')]?.['pathname'];
  const channels = doc['channels'] as Record<string, Record<string, any>>;
  const streamsOf = Object.fromEntries(Object.values(channels).map((c) => [c['address'], (c['servers'] ?? []).map((r: { $ref: string }) => pathOf(r.$ref)).sort()]));
  const expected: Record<string, string[]> = {
    control: ['/ws/monitor', '/ws/private', '/ws/public'],
    '{symbol}@depth': ['/ws/public'],
    '{symbol}@ticker': ['/ws/public'],
    '{symbol}@trades': ['/ws/public'],
    'orderbook:{symbol}': ['/ws/public'],
    'ticker:{symbol}': ['/ws/public'],
    'trades:{symbol}': ['/ws/public'],
    '{pair}@index': ['/ws/public'],
    'global@rfq': ['/ws/public'],
    auth: ['/ws/monitor', '/ws/private', '/ws/rfq/mm'],
    'account@fills': ['/ws/private'],
    'account@positions': ['/ws/private'],
    'account@portfolios': ['/ws/private'],
    'account@orders': ['/ws/private'],
    orders: ['/ws/private'],
    'account@mmp': ['/ws/private'],
    'account@liquidations': ['/ws/private'],
    'account@settlement': ['/ws/private'],
    'global@liquidations': ['/ws/public'],
    'global@journal': ['/ws/public'],
    'rfq/mm': ['/ws/rfq/mm'],
    'venue@health': ['/ws/monitor'],
    'venue@alerts': ['/ws/monitor'],
  };
  t.same(streamsOf, expected);
  // The server agrees: /ws/public refuses every account@ channel the document puts elsewhere.
  const privateOnly = Object.values(channels).filter((c) => !(c['servers'] as Array<{ $ref: string }>).some((r) => r.$ref === '#/servers/public')).map((c) => String(c['address'])).filter((a) => a.includes('@'));
  t.same(privateOnly.sort(), ['account@fills', 'account@liquidations', 'account@mmp', 'account@orders', 'account@portfolios', 'account@positions', 'account@settlement', 'venue@alerts', 'venue@health']);
  const c = await connect(app, '/ws/public');
  let id = 100;
  for (const address of privateOnly) {
    c.send({ method: 'SUBSCRIBE', params: [address], id: ++id });
    const f = await c.next((x) => x['id'] === id, address);
    t.equal(f['error']?.code, 4003, `${address} is refused on /ws/public`);
  }
  c.close();
});
