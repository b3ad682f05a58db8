/**
 * The OpenAPI 3.1 document, generated from the route declarations (style.md habit 10),
 * never written by hand. Every route appears once per form it has; operations of the
 * earlier form of a route are tagged `Earlier form` and carry `x-form: earlier`. Error
 * responses (both shapes), rate-limit headers and security requirements are derived
 * from each route's `auth`, `scope`, inputs and group.
 */
import { stringify } from 'yaml';
import { earlierErrorCodes, errorCodes } from './errors.ts';
import { toJsonSchema, type JsonSchema } from './jsonSchema.ts';
import { defaultRateLimits } from './rateLimit.ts';
import { forms, pathForForm, type Form, type Route, type RouteExamples } from './route.ts';

export type OpenApiInfo = {
  readonly title: string;
  readonly version: string;
  /** Markdown; the generator appends sections on forms, authentication, errors and limits. */
  readonly description?: string;
  readonly servers?: ReadonlyArray<{ readonly url: string; readonly description?: string }>;
  readonly contact?: { readonly name: string; readonly url?: string };
  /** `identifier` is an SPDX expression (`LicenseRef-...` for a licence of one's own). */
  readonly license?: { readonly name: string; readonly identifier?: string; readonly url?: string };
  /** Descriptions of tags beyond the built-in ones (rate-limit groups and the shared tags). */
  readonly tagDescriptions?: Readonly<Record<string, string>>;
};

export type OpenApiDocument = { readonly openapi: '3.1.0'; readonly [key: string]: unknown };

/** Tag of the duplicated earlier-form operations. */
export const earlierFormTag = 'Earlier form';

const schemaRef = '#/components/schemas/';

/** Tag descriptions: one per rate-limit group and per shared tag (a tag without one fails the lint test). */
export const tagDescriptions: Readonly<Record<string, string>> = {
  markets: 'Public market data: series, pairs, order books, tickers, trades, oracle, contracts and EIP-712 domains, open interest.',
  helpers: 'Public computations: series and pair ids, tick and price conversion, symbol translation.',
  auth: 'Sign-In with Ethereum, sessions and linked wallets.',
  account: 'Your account: profile, portfolios, positions, open orders, trades, fees and API keys.',
  orders: 'Portfolios and collateral moves, and EIP-712 order entry (place, replace, cancel) with the order history.',
  rfq: 'Requests for quote: requests, MMM quotes, fills and the MMM quote nonce.',
  platform: 'Platform information: venue-wide statistics and volume.',
  leaderboard: 'Wallets ranked by traded volume, realized PnL or points over 24 h, 7 d, 30 d or all time.',
  points: 'Points earned by trading and referrals, per weekly epoch.',
  user: "A wallet's public 30-day figures and your own history per hour or day.",
  referrals: 'Referral codes: create yours, check and apply one, and read the rebates your referees earned you.',
  strategies: 'Multi-leg option strategies: templates, a quote of a package, and all-or-nothing execution.',
  webhooks: 'Chain events told by a chain-indexing provider (HMAC-signed): deposits, withdrawals, relays.',
  admin: 'Operator actions; an admin wallet only.',
  audit: 'The public journal (PUBLIC_JOURNAL=1): the committed commands and the stored snapshots that `npm run audit` replays against the state hashes posted on chain.',
  health: 'Liveness of the process (no input, no credentials, no rate limit).',
  docs: 'Machine-readable descriptions of the API.',
  documentation: 'Machine-readable descriptions of the API: OpenAPI, AsyncAPI, llms.txt.',
  operations: 'Operations: Prometheus metrics.',
  web: 'The market web page and its script modules (read-only, public).',
  [earlierFormTag]: 'The earlier form of routes that also have a current form: the same path without `/api`, a session cookie, errors `{ error, message, details? }`.',
};

const errorDescriptions: Record<number, string> = {
  400: 'Invalid input (the message names the field) or a failed precondition',
  401: 'Missing, invalid or expired credentials',
  403: 'Authenticated but not allowed (scope, admin, credential kind)',
  404: 'Not found',
  405: 'Method not allowed on this path',
  413: 'Request body too large',
  415: 'A request authenticated by the session cookie (or an earlier-form sign-in, which sets it) sent a body that is not Content-Type: application/json',
  429: 'Rate limit exceeded; see Retry-After',
  500: 'Unexpected server error (generic message, never a stack trace)',
  503: 'Service not ready',
};

const generatedDescription = `
## Two forms

Every route is served in its current form under \`/api\` (bearer tokens or API keys; errors \`{ code, message, details }\`).
Routes that also have the earlier form are served at the same path without \`/api\` (session cookie; errors
\`{ error, message, details? }\`); those operations are tagged \`${earlierFormTag}\`.

## Authentication

- \`Authorization: Bearer <token>\` from SIWE sign-in (current form).
- Cookie \`session\` set by the earlier form's SIWE verify. A request it authenticates that carries a body must send
  \`Content-Type: application/json\` (parameters such as \`; charset=utf-8\` allowed), else 415 \`unsupported_media_type\`
  (protection against cross-site form posts).
- API keys: \`X-API-Key\` (key id), \`X-API-Timestamp\` (Unix ms, within 30 s), \`X-API-Signature\`
  (lowercase hex HMAC-SHA256 of the timestamp string keyed with the secret). On public routes invalid
  API-key headers are ignored and the request is limited by IP.

## Errors and limits

See the \`Error\` and \`EarlierError\` schemas. Rate limits are per group and caller (the wallet, whichever of its sessions or API keys calls, else the IP);
authenticated current-form replies carry \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\`
(Unix seconds); 429 replies carry \`Retry-After\` (seconds) and \`details: { limit, resetAt }\` (Unix ms).
`;

function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function operationId(method: string, path: string, form: Form, used: Set<string>): string {
  const words = path.split(/[/:_.-]+/).filter((w) => w !== '');
  let id = method.toLowerCase() + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('') + (form === 'earlier' ? 'Earlier' : '');
  for (let n = 2; used.has(id); n++) id = id.replace(/\d*$/, String(n));
  used.add(id);
  return id;
}

function securityFor(route: Route, form: Form): Array<Record<string, string[]>> {
  if (route.auth === 'none') return [];
  const bearer = { bearerAuth: [] };
  const cookie = { sessionCookie: [] };
  const apiKey = { apiKey: [], apiTimestamp: [], apiSignature: [] };
  const byKind = { bearer, cookie, apikey: apiKey };
  const order = form === 'current' ? (['bearer', 'apikey', 'cookie'] as const) : (['cookie', 'bearer', 'apikey'] as const);
  const accepted = order.filter((k) => route.accepts === undefined || route.accepts.includes(k)).map((k) => byKind[k]);
  return route.auth === 'optional' ? [{}, ...accepted] : accepted;
}

function errorResponse(form: Form, status: number): JsonSchema {
  return { $ref: `#/components/responses/${form === 'current' ? 'Error' : 'EarlierError'}${status}` };
}

function limited(route: Route): boolean {
  return Object.values(defaultRateLimits[route.group]).some((n) => n !== null);
}

/** The route's examples, resolved now (a function names what exists when the document is built). */
export function routeExamples(route: Route): RouteExamples {
  return typeof route.examples === 'function' ? route.examples() : (route.examples ?? {});
}

/** A parameter's example: the route's, else the schema's `examples[0]`, else its `default`. */
function parameterExample(given: Readonly<Record<string, unknown>> | undefined, name: string, schema: JsonSchema): unknown {
  if (given !== undefined && name in given) return given[name];
  const examples = schema['examples'];
  if (Array.isArray(examples) && examples.length > 0) return examples[0];
  return schema['default'];
}

function parameters(route: Route, components: Record<string, JsonSchema>, examples: RouteExamples): JsonSchema[] {
  const out: JsonSchema[] = [];
  for (const [location, schema, given] of [['path', route.params, examples.params], ['query', route.query, examples.query]] as const) {
    if (schema === undefined) continue;
    const json = toJsonSchema(schema, components, schemaRef);
    const props = (json['properties'] ?? {}) as Record<string, JsonSchema>;
    const required = new Set((json['required'] ?? []) as string[]);
    for (const [name, prop] of Object.entries(props)) {
      const p: JsonSchema = { name, in: location, required: location === 'path' || required.has(name), schema: prop };
      if (typeof prop['description'] === 'string') p['description'] = prop['description'];
      const example = parameterExample(given, name, prop);
      if (example !== undefined) p['example'] = example;
      out.push(p);
    }
  }
  return out;
}

/** Whether the route reads a request body: a body schema, or any method but GET (a body there must be JSON). */
export function takesBody(route: Route): boolean {
  return route.body !== undefined || route.method !== 'GET';
}

/** Error statuses an operation can answer, from its auth, scope, inputs, limits and declared `errors`. */
export function errorStatuses(route: Route, form: Form): number[] {
  const errors = new Set<number>([500, ...(route.errors ?? [])]);
  if (route.params !== undefined || route.query !== undefined || takesBody(route)) errors.add(400);
  if (route.params !== undefined) errors.add(404);
  if (route.auth === 'required' || route.auth === 'admin') errors.add(401);
  if (route.scope !== undefined || route.auth === 'admin' || route.accepts !== undefined) errors.add(403);
  if (takesBody(route)) errors.add(413);
  // Cookie writes must be JSON (gateway/http/csrf.ts).
  if (takesBody(route) && route.auth !== 'none' && (route.accepts === undefined || route.accepts.includes('cookie'))) errors.add(415);
  // The earlier form's sign-in sets the cookie: its body must be JSON too (login CSRF).
  if (takesBody(route) && form === 'earlier' && route.setsSessionCookie === true) errors.add(415);
  if (limited(route)) errors.add(429);
  return [...errors].sort((a, b) => a - b);
}

function operation(route: Route, form: Form, components: Record<string, JsonSchema>, used: Set<string>): JsonSchema {
  const path = pathForForm(route, form)!;
  const duplicated = form === 'earlier' && route.forms.includes('current');
  const tags = [...(route.tags ?? [route.group]), ...(duplicated ? [earlierFormTag] : [])];
  const op: JsonSchema = {
    operationId: operationId(route.method, path, form, used),
    summary: route.summary,
    tags,
    'x-form': form,
    'x-rate-limit-group': route.group,
  };
  const notes: string[] = [];
  if (route.description !== undefined) notes.push(route.description);
  if (duplicated) notes.push(`Earlier form of \`${route.method} ${openApiPath(route.path)}\`.`);
  if (route.scope !== undefined) notes.push(`Requires scope \`${route.scope}\`.`);
  if (route.auth === 'admin') notes.push('Requires an admin wallet (a login session, or an API key with scope `admin`).');
  if (notes.length > 0) op['description'] = notes.join('\n\n');
  if (route.scope !== undefined) op['x-scope'] = route.scope;
  const examples = routeExamples(route);
  const params = parameters(route, components, examples);
  if (params.length > 0) op['parameters'] = params;
  if (route.body !== undefined) {
    const media: JsonSchema = { schema: toJsonSchema(route.body, components, schemaRef) };
    if (examples.body !== undefined) media['example'] = examples.body;
    op['requestBody'] = { required: true, content: { 'application/json': media } };
  }
  const responses: JsonSchema = {};
  const declared = form === 'earlier' ? (route.earlier?.responses ?? route.responses) : route.responses;
  const produces = route.produces ?? 'application/json';
  for (const [status, schema] of Object.entries(declared)) {
    // A 304 has no body (RFC 9110 15.4.5): its schema only carries the description.
    if (status === '304') {
      responses[status] = { description: (schema as { description?: string }).description ?? 'Not Modified' };
      continue;
    }
    const r: JsonSchema = { description: status === '200' ? 'OK' : (errorDescriptions[Number(status)] ?? 'Reply'), content: { [produces]: { schema: toJsonSchema(schema, components, schemaRef) } } };
    // Sent to authenticated callers of the current form (an API key on a public route counts).
    if (form === 'current' && limited(route)) {
      r['headers'] = {
        'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
        'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
        'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
      };
    }
    responses[status] = r;
  }
  for (const status of errorStatuses(route, form)) if (responses[String(status)] === undefined) responses[String(status)] = errorResponse(form, status);
  op['responses'] = responses;
  op['security'] = securityFor(route, form);
  return op;
}

function errorComponents(): { schemas: Record<string, JsonSchema>; responses: Record<string, JsonSchema> } {
  const schemas: Record<string, JsonSchema> = {
    Error: {
      type: 'object',
      description: 'Current-form error body.',
      required: ['code', 'message', 'details'],
      properties: {
        code: { type: 'string', enum: Object.keys(errorCodes) },
        message: { type: 'string' },
        details: { anyOf: [{ type: 'object' }, { type: 'null' }] },
      },
    },
    EarlierError: {
      type: 'object',
      description: 'Earlier-form error body.',
      required: ['error', 'message'],
      properties: {
        error: { type: 'string', enum: Object.keys(earlierErrorCodes) },
        message: { type: 'string' },
        details: { type: 'object' },
      },
    },
  };
  const responses: Record<string, JsonSchema> = {};
  for (const status of Object.keys(errorDescriptions)) {
    const description = errorDescriptions[Number(status)]!;
    responses[`Error${status}`] = { description, content: { 'application/json': { schema: { $ref: `${schemaRef}Error` } } } };
    responses[`EarlierError${status}`] = { description, content: { 'application/json': { schema: { $ref: `${schemaRef}EarlierError` } } } };
  }
  const retryAfter = { description: 'Seconds to wait (429 only)', schema: { type: 'integer' } };
  responses['Error429'] = { ...responses['Error429'], headers: { 'Retry-After': retryAfter } };
  responses['EarlierError429'] = { ...responses['EarlierError429'], headers: { 'Retry-After': retryAfter } };
  return { schemas, responses };
}

/** Build the document from every route (API and system routes alike). */
export function buildOpenApi(routes: readonly Route[], info: OpenApiInfo): OpenApiDocument {
  const { schemas, responses: allResponses } = errorComponents();
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const used = new Set<string>();
  const tagNames = new Set<string>();
  for (const route of routes) {
    for (const form of forms) {
      const path = pathForForm(route, form);
      if (path === null) continue;
      const op = operation(route, form, schemas, used);
      for (const tag of op['tags'] as string[]) tagNames.add(tag);
      (paths[openApiPath(path)] ??= {})[route.method.toLowerCase()] = op;
    }
  }
  // Only the error responses some operation refers to.
  const referenced = JSON.stringify(paths);
  const responses = Object.fromEntries(Object.entries(allResponses).filter(([name]) => referenced.includes(`"#/components/responses/${name}"`)));
  const infoObject: Record<string, unknown> = { title: info.title, version: info.version, description: `${info.description ?? ''}\n${generatedDescription}`.trim() };
  if (info.contact !== undefined) infoObject['contact'] = { ...info.contact };
  if (info.license !== undefined) infoObject['license'] = { ...info.license };
  const doc: Record<string, unknown> = { openapi: '3.1.0', info: infoObject };
  if (info.servers !== undefined) doc['servers'] = info.servers.map((s) => ({ ...s }));
  const described = { ...tagDescriptions, ...info.tagDescriptions };
  doc['tags'] = [...tagNames]
    .sort((a, b) => (a === earlierFormTag ? 1 : b === earlierFormTag ? -1 : a.localeCompare(b)))
    .map((name) => (described[name] === undefined ? { name } : { name, description: described[name] }));
  doc['paths'] = paths;
  doc['components'] = {
    schemas,
    responses,
    headers: {
      'X-RateLimit-Limit': { description: 'Requests allowed per minute in this group', schema: { type: 'integer' } },
      'X-RateLimit-Remaining': { description: 'Requests left right now', schema: { type: 'integer' } },
      'X-RateLimit-Reset': { description: 'Unix seconds when Remaining is back at Limit', schema: { type: 'integer' } },
    },
    securitySchemes: {
      bearerAuth: { type: 'http', scheme: 'bearer', description: 'Token from POST /api/auth/siwe/verify' },
      sessionCookie: { type: 'apiKey', in: 'cookie', name: 'session', description: 'Earlier form session cookie' },
      apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'API key id' },
      apiTimestamp: { type: 'apiKey', in: 'header', name: 'X-API-Timestamp', description: 'Unix ms, within 30 s of server time' },
      apiSignature: { type: 'apiKey', in: 'header', name: 'X-API-Signature', description: 'Lowercase hex HMAC-SHA256 of the timestamp string, keyed with the secret' },
    },
  };
  return doc as OpenApiDocument;
}

export function openApiYaml(doc: OpenApiDocument): string {
  return stringify(doc, { aliasDuplicateObjects: false });
}
