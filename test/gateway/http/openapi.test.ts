/**
 * Generated documents: the OpenAPI 3.1 document validates (@seriousme/openapi-schema-validator),
 * covers both forms, parameters, bodies, error responses and security; YAML matches JSON;
 * the interactive page is self-contained; llms.txt and AsyncAPI come from the same declarations.
 */
import t from 'tap';
import { Type } from '@sinclair/typebox';
import { Validator } from '@seriousme/openapi-schema-validator';
import { parse } from 'yaml';
import { createAsyncApiRegistry } from '../../../gateway/http/asyncapi.ts';
import { createMetrics } from '../../../gateway/http/metrics.ts';
import { buildOpenApi, earlierFormTag } from '../../../gateway/http/openapi.ts';
import { systemRoutes } from '../../../gateway/http/systemRoutes.ts';
import { demoRoutes, faultyRoutes, start } from './support.ts';

type Op = Record<string, unknown> & { parameters?: Array<Record<string, unknown>>; responses: Record<string, Record<string, unknown>>; security: unknown[]; tags: string[] };

const asyncapi = createAsyncApiRegistry();
asyncapi.addServer('public', { host: '{host}', protocol: 'wss', pathname: '/ws/public', description: 'Public stream' });
asyncapi.addChannel('ticker', {
  address: '{symbol}@ticker',
  servers: ['public'],
  description: 'Ticker updates',
  parameters: { symbol: 'canonical symbol, lowercase' },
  sends: { ticker: { summary: 'A ticker', payload: Type.Object({ symbol: Type.String(), markPrice: Type.String() }, { $id: 'TickerUpdate' }) } },
  receives: { subscribe: { payload: Type.Object({ method: Type.Literal('SUBSCRIBE'), params: Type.Array(Type.String()) }) } },
});
const api = [...demoRoutes(), ...faultyRoutes()];
const info = { title: 'Test venue', version: '0.1.0', description: 'Options venue for tests.' };
const metrics = createMetrics({ defaultMetrics: false });
const routes = [...api, ...systemRoutes({ apiRoutes: api, info, metrics, asyncapi })];
const s = await start({ routes });
t.teardown(s.close);

const doc = (await (await fetch(`${s.base}/openapi/json`)).json()) as { paths: Record<string, Record<string, Op>>; components: Record<string, Record<string, unknown>>; tags: Array<{ name: string }> };

t.test('the served document is valid OpenAPI 3.1', async (t) => {
  const validator = new Validator();
  const result = await validator.validate(structuredClone(doc) as Record<string, unknown>);
  t.same(result.errors ?? [], [], 'no validation errors');
  t.equal(result.valid, true);
  t.equal(validator.version, '3.1');
  t.same(buildOpenApi(routes, info), doc, 'the route serves what the generator builds');
  const broken = structuredClone(doc) as Record<string, unknown> & { paths: Record<string, Record<string, Op>> };
  broken.paths['/api/markets']!['get']!.parameters![0]!['in'] = 'nowhere';
  t.equal((await new Validator().validate(broken)).valid, false, 'the validator does reject a broken document');
});

t.test('both forms, parameters, bodies', async (t) => {
  const cur = doc.paths['/api/markets/ticker/{symbol}']?.['get'];
  const old = doc.paths['/markets/ticker/{symbol}']?.['get'];
  t.ok(cur && old, 'current and earlier paths');
  t.equal(cur!['x-form'], 'current');
  t.equal(old!['x-form'], 'earlier');
  t.ok(old!.tags.includes(earlierFormTag) && !cur!.tags.includes(earlierFormTag));
  t.match(cur!.parameters, [{ name: 'symbol', in: 'path', required: true, schema: { type: 'string' }, description: 'canonical symbol' }]);
  t.notOk(doc.paths['/mm/orders/place'], 'current-only routes have no earlier path');
  const markets = doc.paths['/api/markets']?.['get'];
  t.match(markets!.parameters, [{ name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, default: 20 } }]);
  t.notOk(JSON.stringify(markets).includes('errorMessage'), 'private schema options are stripped');
  const place = doc.paths['/api/mm/orders/place']?.['post'];
  t.match(place, { requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['seriesId', 'isBuy', 'size', 'price'] } } } } });
  t.equal(place!['x-scope'], 'trade');
  t.ok(doc.paths['/health']?.['get'] && !doc.paths['/api/health']);
  t.match(doc.paths['/markets/pairs']?.['get']?.responses['200'], { content: { 'application/json': { schema: { type: 'object', properties: { pairs: { type: 'array' } } } } } }, 'earlier responses');
  t.match(doc.paths['/api/markets/pairs']?.['get']?.responses['200'], { content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Pair' } } } } }, '$id schemas are hoisted');
  t.match(doc.components['schemas']?.['Pair'], { type: 'object', required: ['pairId', 'symbol', 'underlying', 'quote'] });
  t.match(doc.paths['/metrics']?.['get']?.responses['200'], { content: { 'text/plain; version=0.0.4': {} } });
});

t.test('error responses and security follow auth, scope and inputs', async (t) => {
  const place = doc.paths['/api/mm/orders/place']!['post']!;
  for (const status of ['400', '401', '403', '413', '429', '500']) t.match(place.responses[status], { $ref: `#/components/responses/Error${status}` }, status);
  t.same(place.security, [{ bearerAuth: [] }, { apiKey: [], apiTimestamp: [], apiSignature: [] }, { sessionCookie: [] }]);
  const oldMe = doc.paths['/account/me']!['get']!;
  t.match(oldMe.responses['401'], { $ref: '#/components/responses/EarlierError401' });
  t.same(oldMe.security[0], { sessionCookie: [] }, 'earlier form lists the cookie first');
  const pairs = doc.paths['/api/markets/pairs']!['get']!;
  t.same(pairs.security, [], 'public');
  t.notOk(pairs.responses['401'] ?? pairs.responses['400'], 'no 401/400 where they cannot happen');
  t.match(pairs.responses['200'], { headers: { 'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' } } });
  t.same(doc.paths['/api/auth/session']!['get']!.security[0], {}, 'optional auth allows anonymous');
  t.same(doc.paths['/api/keys']!['get']!.security, [{ bearerAuth: [] }, { sessionCookie: [] }], 'accepts narrows the schemes');
  t.notOk(doc.paths['/api/health-signal']!['get']!.responses['429'], 'unlimited group has no 429');
  t.match(doc.components['schemas']?.['Error'], { required: ['code', 'message', 'details'] });
  t.match(doc.components['schemas']?.['EarlierError'], { required: ['error', 'message'] });
  t.match(doc.components['securitySchemes'], {
    bearerAuth: { type: 'http', scheme: 'bearer' },
    sessionCookie: { type: 'apiKey', in: 'cookie', name: 'session' },
    apiKey: { in: 'header', name: 'X-API-Key' },
    apiTimestamp: { in: 'header', name: 'X-API-Timestamp' },
    apiSignature: { in: 'header', name: 'X-API-Signature' },
  });
  const ids = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op['operationId']));
  t.equal(new Set(ids).size, ids.length, 'operationIds are unique');
});

t.test('YAML is the same document', async (t) => {
  const res = await fetch(`${s.base}/openapi/yaml`);
  t.match(res.headers.get('content-type'), /yaml/);
  t.same(parse(await res.text()), doc);
});

t.test('the interactive page is self-contained', async (t) => {
  const res = await fetch(`${s.base}/openapi`);
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^text\/html/);
  const html = await res.text();
  t.match(html, /<script>[\s\S]*fetch\(document\.body\.dataset\.spec\)[\s\S]*<\/script>/, 'fetches the spec itself');
  t.match(html, /data-spec="\/openapi\/json"/);
  t.match(html, /crypto\.subtle/, 'signs API-key requests locally');
  t.notMatch(html, /<script[^>]+src=|<link[^>]+href=|https?:\/\//, 'no external script, style or URL');
  t.notMatch(html, /innerHTML/, 'document text is inserted as text');
  // The page's script must at least parse.
  const script = /<script>([\s\S]*)<\/script>/.exec(html)![1]!;
  t.doesNotThrow(() => new Function(script));
});

t.test('llms.txt comes from the declarations', async (t) => {
  const res = await fetch(`${s.base}/llms.txt`);
  t.match(res.headers.get('content-type'), /^text\/markdown/);
  const text = await res.text();
  t.match(text, /^# Test venue\n/);
  t.match(text, /### GET \/api\/markets\/ticker\/:symbol\n\nTicker of a series/);
  t.match(text, /Earlier form: `GET \/markets\/ticker\/:symbol`/);
  t.match(text, /### POST \/api\/mm\/orders\/place[\s\S]*?auth required, scope `trade`[\s\S]*?`seriesId`: string matching/);
  t.match(text, /`limit` \(optional\): integer >= 1 <= 100 \(default 20\)/);
  t.match(text, /`resource_exhausted` 429/);
  t.match(text, /### GET \/markets\/pairs\n[^#]*?- 200: \{ pairs: \{ pairId: string, symbol: string, baseCurrency: string, quoteCurrency: string \}\[\] \}/, 'the earlier form\'s section shows its own reply');
  for (const route of api) t.ok(text.includes(`### ${route.method} ${route.path}`), `${route.method} ${route.path} listed`);
});

t.test('AsyncAPI document from the registry', async (t) => {
  const res = await fetch(`${s.base}/asyncapi/json`);
  const a = (await res.json()) as Record<string, Record<string, Record<string, unknown>>>;
  t.equal(a['asyncapi'] as unknown, '3.0.0');
  t.match(a['channels']?.['ticker'], { address: '{symbol}@ticker', parameters: { symbol: { description: 'canonical symbol, lowercase' } }, messages: { ticker: { $ref: '#/components/messages/ticker.ticker' } } });
  t.match(a['operations'], { 'ticker.send': { action: 'send', channel: { $ref: '#/channels/ticker' } }, 'ticker.receive': { action: 'receive' } });
  t.match(a['components']?.['messages'], { 'ticker.ticker': { payload: { $ref: '#/components/schemas/TickerUpdate' } } });
  t.match(a['servers'], { public: { protocol: 'wss', pathname: '/ws/public' } });
  t.throws(() => asyncapi.addChannel('ticker', { address: 'x', servers: ['public'] }), 'duplicate channel');
});
