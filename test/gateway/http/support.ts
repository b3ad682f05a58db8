/**
 * Shared by the HTTP framework tests: demo routes in the style the venue's routes will
 * use, a fake authenticator, a fake clock, a capturing logger, and a helper that starts
 * the real uWS server on an ephemeral port.
 */
import { UnavailableError } from '../../../persistence/unavailable.ts';
import { Type } from '@sinclair/typebox';
import type { AuthResult, Authenticator } from '../../../gateway/http/auth.ts';
import { ApiError, errorReply } from '../../../gateway/http/errors.ts';
import type { Logger } from '../../../gateway/http/log.ts';
import { createRateLimiter, type RateLimiter, type Tier } from '../../../gateway/http/rateLimit.ts';
import { defineRoute, type Route } from '../../../gateway/http/route.ts';
import { createHttpServer, type HttpServer, type HttpServerOptions } from '../../../gateway/http/server.ts';

export const hex32 = '^0x[0-9a-fA-F]{64}$';
export const seriesIdExample = `0x${'ab'.repeat(32)}`;

export const users = {
  trader: '0x1111111111111111111111111111111111111111',
  reader: '0x2222222222222222222222222222222222222222',
  admin: '0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
  tier2: '0x3333333333333333333333333333333333333333',
  tier3: '0x4444444444444444444444444444444444444444',
} as const;

function user(address: string, scopes: string[], via: 'bearer' | 'cookie' | 'apikey', keyId?: string): AuthResult {
  return keyId === undefined ? { kind: 'user', userId: `u-${address.slice(2, 6)}`, address, scopes, via } : { kind: 'user', userId: `u-${address.slice(2, 6)}`, address, scopes, via, keyId };
}

const all = ['read', 'trade', 'withdraw', 'admin'];

/** Bearer tokens `tok-<name>` (`throw`: a bug; `unavailable`: the stores not answering), cookie `session=s-trader`, API key `ok_good` signed `sig`. Async, like the real one. */
export const fakeAuthenticate: Authenticator = async (headers, cookies) => {
  const bearer = headers['authorization'];
  if (bearer !== undefined) {
    const token = bearer.startsWith('Bearer ') ? bearer.slice(7) : '';
    if (token === 'throw') throw new Error('session store unreachable');
    if (token === 'unavailable') throw new UnavailableError('the shared stores do not answer (sessions: TIMEOUT); try again');
    if (token === 'tok-trader') return user(users.trader, all, 'bearer');
    if (token === 'tok-reader') return user(users.reader, ['read'], 'bearer');
    if (token === 'tok-admin') return user(users.admin, all, 'bearer');
    if (token === 'tok-tier2') return user(users.tier2, all, 'bearer');
    if (token === 'tok-tier3') return user(users.tier3, all, 'bearer');
    return { kind: 'invalid', message: 'Invalid or expired token' };
  }
  const key = headers['x-api-key'];
  if (key !== undefined) {
    if (key === 'ok_good' && headers['x-api-signature'] === 'sig') return user(users.trader, ['read', 'trade'], 'apikey', 'ok_good');
    if (key === 'ok_reader' && headers['x-api-signature'] === 'sig') return user(users.reader, ['read'], 'apikey', 'ok_reader');
    return { kind: 'invalid', message: 'Invalid API key signature' };
  }
  if (cookies['session'] === 's-trader') return user(users.trader, all, 'cookie');
  return { kind: 'invalid', message: 'Invalid session' };
};

export const isAdmin = (address: string): boolean => address.toLowerCase() === users.admin;
export const tierOf = (wallet: string): Tier => (wallet === users.tier3 ? 3 : wallet === users.tier2 ? 2 : 1);

export type FakeClock = { now: number; readonly read: () => number };
export function fakeClock(start = 1_800_000_000_000): FakeClock {
  const clock = { now: start, read: () => clock.now };
  return clock;
}

export type CapturedLog = Logger & { readonly lines: Array<{ level: string; message: string; fields?: Readonly<Record<string, unknown>> }> };
export function captureLog(): CapturedLog {
  const lines: CapturedLog['lines'] = [];
  const push = (level: string) => (message: string, fields?: Readonly<Record<string, unknown>>) => {
    lines.push(fields === undefined ? { level, message } : { level, message, fields });
  };
  return { lines, info: push('info'), warn: push('warn'), error: push('error') };
}

const Pair = Type.Object({ pairId: Type.String(), symbol: Type.String(), underlying: Type.String(), quote: Type.String() }, { $id: 'Pair' });
const EarlierPair = Type.Object({ pairId: Type.String(), symbol: Type.String(), baseCurrency: Type.String(), quoteCurrency: Type.String() });

/** Demo routes covering every group, auth mode and reply kind; none of them fails on purpose. */
export function demoRoutes(): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/markets/ticker/:symbol',
      forms: ['current', 'earlier'],
      group: 'markets',
      auth: 'none',
      summary: 'Ticker of a series',
      params: Type.Object({ symbol: Type.String({ pattern: '^[A-Z]+-[0-9_]+-[CP]-[0-9]+$', errorMessage: 'Invalid symbol format', description: 'canonical symbol' }) }),
      responses: { 200: Type.Object({ symbol: Type.String(), markPrice: Type.String() }) },
      handler: (ctx) => (ctx.params.symbol.startsWith('ZZZ-') ? errorReply('not_found', `Series not found: ${ctx.params.symbol}`) : { body: { symbol: ctx.params.symbol, markPrice: '1000000000000000000' } }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/markets/pairs',
      forms: ['current', 'earlier'],
      group: 'markets',
      auth: 'none',
      summary: 'Trading pairs',
      responses: { 200: Type.Array(Pair) },
      earlier: {
        responses: { 200: Type.Object({ pairs: Type.Array(EarlierPair) }) },
        reply: (pairs) => ({ pairs: pairs.map((p) => ({ pairId: p.pairId, symbol: p.symbol, baseCurrency: p.underlying, quoteCurrency: p.quote })) }),
      },
      handler: () => ({ body: [{ pairId: `0x${'01'.repeat(32)}`, symbol: 'BTC-USDC', underlying: 'BTC', quote: 'USDC' }] }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/markets',
      forms: ['current', 'earlier'],
      group: 'markets',
      auth: 'none',
      summary: 'Series list',
      query: Type.Object({
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, errorMessage: 'limit must be greater than 0 and at most 100' })),
        cursor: Type.Optional(Type.String({ maxLength: 200 })),
        isCall: Type.Optional(Type.Boolean()),
        expiry: Type.Optional(Type.Integer({ minimum: 0 })),
        strikes: Type.Optional(Type.Array(Type.Number())),
      }),
      responses: { 200: Type.Object({ markets: Type.Array(Type.Unknown()), total: Type.Integer(), hasMore: Type.Boolean(), nextCursor: Type.Union([Type.String(), Type.Null()]), echo: Type.Unknown() }) },
      handler: (ctx) => ({ body: { markets: [], total: 0, hasMore: false, nextCursor: null, echo: ctx.query } }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/helpers/series-id',
      forms: ['current', 'earlier'],
      group: 'helpers',
      auth: 'none',
      summary: 'Compute a series id',
      query: Type.Object({
        pairId: Type.String({ pattern: hex32, errorMessage: 'pairId must be a hex string' }),
        strike: Type.String({ pattern: '^[0-9]{1,78}$' }),
        expiry: Type.Integer({ minimum: 0 }),
        isCall: Type.Boolean(),
      }),
      responses: { 200: Type.Object({ seriesId: Type.String(), strike: Type.String(), expiry: Type.Integer(), isCall: Type.Boolean() }) },
      handler: (ctx) => ({ body: { seriesId: seriesIdExample, strike: ctx.query.strike, expiry: ctx.query.expiry, isCall: ctx.query.isCall } }),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/helpers/symbol/translate/batch',
      forms: ['current', 'earlier'],
      group: 'helpers',
      auth: 'none',
      summary: 'Translate symbols',
      body: Type.Object({ symbols: Type.Array(Type.String({ maxLength: 100 }), { minItems: 1, maxItems: 50, errorMessage: 'symbols must be an array of 1 to 50 strings' }) }),
      responses: { 200: Type.Object({ results: Type.Array(Type.String()), errors: Type.Array(Type.String()) }) },
      handler: (ctx) => ({ body: { results: ctx.body.symbols.map((s) => s.toUpperCase()), errors: [] } }),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/auth/siwe/nonce',
      forms: ['current'],
      group: 'auth',
      auth: 'none',
      summary: 'Get a SIWE nonce',
      headers: ['host'],
      body: Type.Object({ walletAddress: Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', errorMessage: 'Invalid wallet address' }), chainId: Type.Integer() }),
      responses: { 200: Type.Object({ nonce: Type.String(), host: Type.String() }) },
      handler: (ctx) => ({ body: { nonce: '0123456789abcdef', host: ctx.headers['host'] ?? '' } }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/auth/session',
      forms: ['current', 'earlier'],
      group: 'auth',
      auth: 'optional',
      summary: 'Current session',
      responses: { 200: Type.Object({ user: Type.Union([Type.Object({ id: Type.String(), address: Type.String() }), Type.Null()]), kind: Type.String() }) },
      handler: (ctx) => ({ body: { user: ctx.auth.kind === 'user' ? { id: ctx.auth.userId, address: ctx.auth.address } : null, kind: ctx.auth.kind } }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/account/me',
      forms: ['current', 'earlier'],
      group: 'account',
      auth: 'required',
      scope: 'read',
      summary: 'Profile',
      responses: { 200: Type.Object({ address: Type.String(), via: Type.String() }) },
      handler: (ctx) => ({ body: { address: ctx.auth.address, via: ctx.auth.via } }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/keys',
      group: 'account',
      auth: 'required',
      accepts: ['bearer', 'cookie'],
      summary: 'List API keys',
      responses: { 200: Type.Object({ keys: Type.Array(Type.Unknown()) }) },
      handler: () => ({ body: { keys: [] } }),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/mm/orders/place',
      group: 'orders',
      auth: 'required',
      scope: 'trade',
      summary: 'Place an order (unsigned phase)',
      body: Type.Object({
        seriesId: Type.String({ pattern: hex32, errorMessage: 'seriesId must be a hex string' }),
        isBuy: Type.Boolean(),
        size: Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$', errorMessage: 'size must be a positive decimal string' }),
        price: Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$', errorMessage: 'price must be a positive decimal string' }),
        portfolioId: Type.Optional(Type.Integer({ minimum: 0 })),
      }),
      responses: { 200: Type.Object({ mode: Type.Literal('typed_data'), seriesId: Type.String(), isBuy: Type.Boolean() }) },
      handler: async (ctx) => {
        await new Promise((r) => setImmediate(r));
        if (ctx.body.size === '0') return errorReply('failed_precondition', 'size below minimum', { reason: 'MinSize' });
        return { body: { mode: 'typed_data' as const, seriesId: ctx.body.seriesId, isBuy: ctx.body.isBuy } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/admin/mmm',
      group: 'admin',
      auth: 'admin',
      scope: 'admin',
      summary: 'Set MMM membership',
      body: Type.Object({ address: Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' }), isMmm: Type.Boolean() }),
      responses: { 200: Type.Object({ address: Type.String(), isMmm: Type.Boolean() }) },
      handler: (ctx) => ({ body: ctx.body }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/platform/stats',
      group: 'platform',
      auth: 'none',
      summary: 'Platform statistics',
      responses: { 200: Type.Object({ volume: Type.String() }) },
      // A bigint in the body: written as a decimal string.
      handler: () => ({ body: { volume: 12345678901234567890n as unknown as string } }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/health-signal',
      group: 'health',
      auth: 'none',
      summary: 'Health',
      responses: { 200: Type.Object({ status: Type.Literal('ok'), timestamp: Type.String() }) },
      handler: (ctx) => ({ body: { status: 'ok' as const, timestamp: new Date(ctx.now).toISOString() } }),
    }),
    defineRoute({
      method: 'GET',
      path: '/health',
      forms: ['earlier'],
      group: 'health',
      auth: 'none',
      summary: 'Health (earlier form)',
      responses: { 200: Type.Object({ status: Type.Literal('ok'), timestamp: Type.Number() }) },
      handler: (ctx) => ({ raw: `{"status":"ok","timestamp":${ctx.now}}` }),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/mm/orders/:orderId',
      group: 'orders',
      auth: 'required',
      scope: 'trade',
      summary: 'Cancel',
      params: Type.Object({ orderId: Type.String({ pattern: hex32, errorMessage: 'orderId must be a hex string' }) }),
      responses: { 200: Type.Object({ cancelled: Type.String() }) },
      handler: (ctx) => {
        if (ctx.params.orderId.endsWith('00')) throw new ApiError('not_found', 'Order not found', { orderId: ctx.params.orderId });
        return { body: { cancelled: ctx.params.orderId } };
      },
    }),
  ];
}

/** Routes that fail on purpose, kept apart from the fuzz set. */
export function faultyRoutes(): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/demo/boom',
      forms: ['current', 'earlier'],
      group: 'platform',
      auth: 'none',
      summary: 'Throws a bug',
      responses: { 200: Type.Object({}) },
      handler: () => {
        throw new Error('secret internal detail');
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/demo/async-boom',
      group: 'platform',
      auth: 'none',
      summary: 'Rejects with a bug',
      responses: { 200: Type.Object({}) },
      handler: async () => {
        await Promise.resolve();
        throw new TypeError('cannot read x of undefined');
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/demo/wrong-shape',
      group: 'platform',
      auth: 'none',
      summary: 'Replies against its schema',
      responses: { 200: Type.Object({ n: Type.Integer() }) },
      handler: () => ({ body: { n: 'not a number' as unknown as number } }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/demo/header-injection',
      group: 'platform',
      auth: 'none',
      summary: 'Sets a header from unchecked input',
      query: Type.Object({ v: Type.String() }),
      responses: { 200: Type.Object({}) },
      handler: (ctx) => ({ body: {}, headers: { 'X-Echo': ctx.query.v } }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/demo/slow',
      group: 'platform',
      auth: 'none',
      summary: 'Answers after 200 ms',
      responses: { 200: Type.Object({ ok: Type.Boolean() }) },
      handler: async () => {
        await new Promise((r) => setTimeout(r, 200));
        return { body: { ok: true } };
      },
    }),
  ];
}

export type Started = { readonly server: HttpServer; readonly base: string; readonly port: number; readonly close: () => void };

export async function start(options: Partial<HttpServerOptions> & { routes: readonly Route[] }): Promise<Started> {
  const server = createHttpServer({ log: captureLog(), ...options });
  const port = await server.listen('127.0.0.1', 0);
  return { server, port, base: `http://127.0.0.1:${port}`, close: () => server.close() };
}

export function limiter(clock: FakeClock, extra: { maxKeys?: number } = {}): RateLimiter {
  return createRateLimiter({ clock: clock.read, tierOf, ...extra });
}

export async function json(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  return JSON.parse(text) as Record<string, unknown>;
}
