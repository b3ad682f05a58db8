/**
 * Every documented example is sent to a running venue, and every 2xx reply is validated
 * against the response schema the OpenAPI document gives for it (ajv, JSON Schema 2020-12).
 * Every operation is sent, in both forms (`/api/...` and the earlier path), with the
 * parameter and body examples of the document as served; operations without inputs are
 * sent as they are. The caller is signed in (a trader with portfolios 0 and 1 funded, who is
 * also an admin; an MMM for the MMM-only operations).
 *
 * Some examples cannot be accepted as written, because they name something that only a
 * caller's own earlier call creates or because they carry a signature. `replaced` below
 * lists each such input, says why, and builds a correct one in this test; everything else
 * is sent exactly as documented.
 */
import t from 'tap';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { keccak256, toBytes, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { startTestApp, request, type JsonResponse } from '../support/testApp.ts';
import { relaxedAuthLimits } from '../auth/siweClient.ts';
import { place, signServed, trader, wallet } from '../routes/ordersFixture.ts';
import { rfqQuoteTypes } from '../../../workers/eip712/types.ts';
import { webhookSignature } from '../../../gateway/routes/webhooks.ts';

const WEBHOOK_SECRET = 'examples-webhook-secret';

const traderWallet = wallet('examples-trader');
const app = await startTestApp({
  memory: true,
  startAt: Date.UTC(2026, 0, 5, 12, 0, 0),
  env: { ADMIN_ADDRESSES: traderWallet.address, WEBHOOK_SECRET, PUBLIC_JOURNAL: '1', ...relaxedAuthLimits },
});
t.teardown(() => app.close());
const taker = await trader(app, 'examples-trader', { deposit: 1_000_000 });
const mmm = await trader(app, 'examples-mmm', { mmm: true, deposit: 1_000_000 });
const host = new URL(app.url).host;

type Media = { schema?: unknown; example?: unknown };
type Param = { name: string; in: 'path' | 'query'; example?: unknown };
type Op = { parameters?: Param[]; requestBody?: { content: Record<string, Media> }; responses: Record<string, { content?: Record<string, Media> } | { $ref: string }>; 'x-form': 'current' | 'earlier' };
const doc = (await (await fetch(`${app.url}/openapi/json`)).json()) as { paths: Record<string, Record<string, Op>>; components: Record<string, unknown> };

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema({ $id: 'openapi', components: doc.components });
const validator = (schema: unknown) => ajv.compile(JSON.parse(JSON.stringify(schema).replace(/"\$ref":"#\//g, '"$ref":"openapi#/')) as object);

/** `token`: the caller, when not the trader (an operation once per wallet needs a fresh one). */
type Input = { params: Record<string, unknown>; query: Record<string, unknown>; body: unknown; token?: string; headers?: Record<string, string> };
let fresh = 0;
/** The MMM's referral code, created at the first use (the examples name it). */
const mmmReferralCode = async (example: unknown) => void (await request(`${app.url}/api/referral/code`, { body: { code: (example as { code: string }).code }, token: mmm.token }));
type Replacement = { why: string; make: (given: Input) => Promise<Partial<Input>> };

/** An open order of the trader (resting: a buy at the lowest price), placed and signed through both phases. */
async function openOrder(seriesId: string): Promise<string> {
  const r = await place(app, taker, { seriesId, isBuy: true, size: '1', price: '1' });
  if (r.relay.status !== 200) throw new Error(`place: ${r.relay.status} ${JSON.stringify(r.relay.body)}`);
  return r.relay.body.orders[0].orderId as string;
}

let clientIds = 0;
/** An open order of the trader carrying a fresh clientOrderId (an instruction: sent again beside the signed message); returns that id. */
async function openOrderWithClientId(seriesId: string): Promise<string> {
  const clientOrderId = `examples-${++clientIds}`;
  const typed = await request(`${app.url}/api/mm/orders/place`, { body: { seriesId, isBuy: true, size: '1', price: '1', portfolioId: taker.portfolioId }, token: taker.token });
  if (typed.status !== 200) throw new Error(`place: ${typed.status} ${JSON.stringify(typed.body)}`);
  const signed = await signServed(taker.account, typed.body.typedData);
  const r = await request(`${app.url}/api/mm/orders/place`, { body: { ...signed, clientOrderId }, token: taker.token });
  if (r.status !== 200) throw new Error(`place: ${r.status} ${JSON.stringify(r.body)}`);
  return clientOrderId;
}

/** An RFQ request of the trader, from the documented example body. */
async function openRequest(): Promise<string> {
  const example = doc.paths['/api/rfq/request']!['post']!.requestBody!.content['application/json']!.example;
  const r = await request(`${app.url}/api/rfq/request`, { body: example, token: taker.token });
  if (r.status !== 200) throw new Error(`rfq request: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.requestId as string;
}

/** The documented quote, made real: the MMM's address, its current nonce, a fresh expiry, signed with the RFQ domain of /api/markets/contracts. */
async function signedQuote(quote: Record<string, unknown>): Promise<{ wire: Record<string, unknown>; signature: Hex }> {
  const nonce = (await request(`${app.url}/api/mm/nonce`, { token: mmm.token })).body.nonce as string;
  const domain = (await request(`${app.url}/api/markets/contracts`)).body.domains.rfq;
  const wire: Record<string, unknown> = { ...quote, mmm: mmm.address, nonce, quoteExpiry: String(Math.floor(app.app.services.pipeline.now() / 1000) + 20) };
  // Signed as the client signs served typed data (client/signing.ts).
  const { signature } = await signServed(mmm.account, { domain, types: rfqQuoteTypes, primaryType: 'RfqQuote', message: wire });
  return { wire, signature: signature as Hex };
}

/** The documented SIWE message with this server's host, the signer's address and a fresh nonce, signed. */
async function signedSiwe(example: string, account: ReturnType<typeof privateKeyToAccount>): Promise<{ message: string; signature: Hex }> {
  const nonce = (await request(`${app.url}/api/auth/siwe/nonce`, { body: { walletAddress: account.address } })).body.nonce as string;
  const lines = example.split('\n');
  const message = lines
    .map((line, i) => (i === 0 ? `${host} wants you to sign in with your Ethereum account:` : i === 1 ? account.address : line.startsWith('URI: ') ? `URI: http://${host}` : line.startsWith('Nonce: ') ? `Nonce: ${nonce}` : line))
    .join('\n');
  return { message, signature: await account.signMessage({ message }) };
}

let siweLogins = 0;
const newAccount = () => privateKeyToAccount(keccak256(toBytes(`examples-siwe-${++siweLogins}`)));

/** Inputs a test must make, keyed by method and path without the `/api` prefix (one entry serves both forms). */
const replaced: Record<string, Replacement> = {
  'POST /auth/siwe/verify': { why: 'a sign-in needs a fresh single-use nonce, this server as SIWE domain and a real signature', make: async ({ body }) => {
    const account = newAccount();
    const b = body as { message: string };
    return { body: { ...(body as object), ...(await signedSiwe(b.message, account)), walletAddress: account.address } };
  } },
  'POST /auth/api/wallets/verify': { why: 'linking a wallet needs a fresh nonce and a signature by that wallet', make: async ({ body }) => {
    const account = newAccount();
    return { body: { ...(await signedSiwe((body as { message: string }).message, account)), address: account.address } };
  } },
  'POST /referral/code': { why: 'a wallet has one referral code: a fresh wallet asks for it', make: async () => ({ body: { code: `FRESH${++fresh}` }, token: await app.session(wallet(`referrer ${fresh}`).address) }) },
  'POST /referral/apply': { why: 'a wallet applies a code once, before its first trade, and never its own: a fresh wallet applies another wallet\'s code', make: async ({ body }) => {
    await mmmReferralCode(body);
    return { token: await app.session(wallet(`referee ${++fresh}`).address) };
  } },
  'GET /referral/code/{code}': { why: 'the code must exist: the MMM creates it', make: async ({ params }) => {
    await mmmReferralCode(params);
    return {};
  } },
  'POST /webhooks/chain': { why: 'the provider signs each body with WEBHOOK_SECRET and a fresh timestamp; each form sends its own event id', make: async ({ body }) => {
    const b = { ...(body as object), id: `evt_example_${++fresh}` };
    const timestamp = String(app.clock.now);
    return { body: b, headers: { 'x-webhook-timestamp': timestamp, 'x-webhook-signature': webhookSignature(WEBHOOK_SECRET, timestamp, JSON.stringify(b)) } };
  } },
  'DELETE /keys/{keyId}': { why: 'a key id is what POST /api/keys returned to this caller', make: async () => ({ params: { keyId: await newKey() } }) },
  'POST /keys/{keyId}/rotate': { why: 'a key id is what POST /api/keys returned to this caller', make: async () => ({ params: { keyId: await newKey() } }) },
  'GET /mm/orders/{orderId}': { why: 'an order id is the EIP-712 hash of an order this caller signed', make: async () => ({ params: { orderId: await openOrder(seriesId) } }) },
  'GET /mm/orders': { why: 'cursor is an order id of the previous page of this caller\'s orders', make: async ({ query }) => ({ query: { ...query, cursor: await openOrder(seriesId) } }) },
  'POST /mm/orders/replace': { why: 'cancel.orderId must be an open order of this caller', make: async ({ body }) => ({ body: { ...(body as object), cancel: { orderId: await openOrder(seriesId) } } }) },
  'POST /mm/orders/cancel-batch': { why: 'the orderIds must be open orders of this caller', make: async () => ({ body: { cancellations: [{ orderId: await openOrder(seriesId) }] } }) },
  'POST /mm/orders/cancel': { why: 'the clientOrderId must name an open order of this caller', make: async () => ({ body: { clientOrderId: await openOrderWithClientId(seriesId) } }) },
  'POST /mm/orders/replace-batch': { why: 'cancel.orderId must be an open order of this caller', make: async ({ body }) => {
    const [first] = (body as { replacements: Array<{ place: unknown }> }).replacements;
    return { body: { replacements: [{ cancel: { orderId: await openOrder(seriesId) }, place: first!.place }] } };
  } },
  'GET /rfq/quotes/{requestId}': { why: 'a request id is what this caller\'s POST /api/rfq/request returned', make: async () => ({ params: { requestId: await openRequest() } }) },
  'POST /mm/quotes/submit': { why: 'a quote is signed by its MMM at the current MMM nonce, for an open request', make: async ({ body }) => {
    const requestId = await openRequest();
    const { signature: _s, requestId: _r, ...quote } = body as Record<string, unknown>;
    const q = await signedQuote(quote);
    return { body: { ...q.wire, signature: q.signature, requestId } };
  } },
  'POST /rfq/fill': { why: 'a fill names a live quote with its MMM signature, for a request of this caller', make: async ({ body }) => {
    const requestId = await openRequest();
    const b = body as { quote: Record<string, unknown> };
    const q = await signedQuote(b.quote);
    const submitted = await request(`${app.url}/api/mm/quotes/submit`, { body: { ...q.wire, signature: q.signature, requestId }, token: mmm.token });
    if (submitted.status !== 200) throw new Error(`quote: ${submitted.status} ${JSON.stringify(submitted.body)}`);
    return { body: { ...(body as object), quote: q.wire, mmSignature: q.signature } };
  } },
};

const seriesId = (doc.paths['/api/rfq/request']!['post']!.requestBody!.content['application/json']!.example as { seriesId: string }).seriesId;
async function newKey(): Promise<string> {
  const r = await request(`${app.url}/api/keys`, { body: { label: 'examples test', scopes: ['read'] }, token: taker.token });
  if (r.status !== 200) throw new Error(`key: ${r.status}`);
  return r.body.keyId as string;
}

/** Operations that must come last: advance-time moves the clock, sign-out ends a session. */
const last = new Set(['POST /admin/advance-time', 'POST /auth/sign-out']);
const mmmOnly = new Set(['POST /mm/quotes/submit', 'POST /mm/nonce/increment']);
const keyOf = (method: string, path: string) => `${method} ${path.replace(/^\/api\//, '/')}`;

const ops = Object.entries(doc.paths)
  .flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ method: method.toUpperCase(), path, op, key: keyOf(method.toUpperCase(), path) })))
  .sort((a, b) => Number(last.has(a.key)) - Number(last.has(b.key)));

t.test('every documented example is accepted; every 2xx reply matches its documented schema', async (t) => {
  t.ok(ops.length > 100, `${ops.length} operations`);
  const used = new Set<string>();
  let examples = 0;
  let validated = 0;
  for (const { method, path, op, key } of ops) {
    const given: Input = { params: {}, query: {}, body: op.requestBody?.content['application/json']?.example };
    for (const p of op.parameters ?? []) {
      t.not(p.example, undefined, `${method} ${path}: ${p.name} has an example`);
      (p.in === 'path' ? given.params : given.query)[p.name] = p.example;
      examples++;
    }
    if (given.body !== undefined) examples++;
    let input = given;
    const replacement = replaced[key];
    if (replacement !== undefined) {
      used.add(key);
      input = { ...given, ...(await replacement.make(given)) };
    }
    let url = path;
    for (const [name, value] of Object.entries(input.params)) url = url.replace(`{${name}}`, encodeURIComponent(String(value)));
    const qs = new URLSearchParams(Object.entries(input.query).map(([k, v]): [string, string] => [k, String(v)])).toString();
    const token = input.token !== undefined ? input.token : key === 'POST /auth/sign-out' ? await app.session(taker.address) : mmmOnly.has(key) ? mmm.token : taker.token;
    const res: JsonResponse = await request(`${app.url}${url}${qs === '' ? '' : `?${qs}`}`, { method, token, ...(input.headers === undefined ? {} : { headers: input.headers }), ...(input.body === undefined ? {} : { body: input.body }) });
    const id = `${method} ${path}${replacement === undefined ? '' : ' (replaced: ' + replacement.why + ')'}`;
    t.ok(res.status >= 200 && res.status < 300, `${id}: ${res.status}`, { body: res.body });
    const declared = op.responses[String(res.status)];
    const media = declared !== undefined && 'content' in declared ? declared.content?.['application/json'] : undefined;
    if (media?.schema === undefined) continue;
    const validate = validator(media.schema);
    t.ok(validate(res.body), `${id}: reply matches the documented schema`, { errors: validate.errors, body: res.body });
    validated++;
  }
  t.ok(examples > 80, `${examples} parameter and body examples sent`);
  t.ok(validated > 80, `${validated} replies validated`);
  t.same([...used].sort(), Object.keys(replaced).sort(), 'every replacement is for an operation that exists');
  const contracts = doc.paths['/api/markets/contracts']!['get']!.responses['200'] as { content: Record<string, Media> };
  t.notOk(validator(contracts.content['application/json']!.schema)({ chainId: 'one' }), 'the validator does reject a reply that does not match');
});
