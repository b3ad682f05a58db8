/**
 * A typed client of the venue's current form (`/api`): every REST route through one call
 * typed from the route's own schemas (client/routes.ts), sign-in with Ethereum, API keys
 * signed with HMAC, and the two-phase EIP-712 flows of orders and RFQ fills with a viem
 * account (or one round trip, signing locally). docs/client.md has examples.
 *
 *   const venue = new VenueClient({ baseUrl: 'http://127.0.0.1:8080', account });
 *   await venue.login();
 *   const { markets } = await venue.call('GET /api/markets', { query: { limit: 5 } });
 *   const placed = await venue.place({ seriesId, isBuy: true, size: '1', price: '120.5', portfolioId: 1 });
 */
import { createHmac } from 'node:crypto';
import type { Hex, LocalAccount } from 'viem';
import type { BodyOf, CallArgs, ReplyOf, RouteKey } from './routes.ts';
import { signedMessage, signPlaceOrder, signRfqQuote, toUnits, type Eip712Domain, type RfqQuoteFields, type ServedTypedData } from './signing.ts';
import { siweMessage } from './siwe.ts';
import { VenueStream, type StreamOptions, type StreamPath } from './stream.ts';

/** A refusal of the venue: its HTTP status and the current-form error body. */
export class VenueError extends Error {
  override readonly name = 'VenueError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Readonly<Record<string, unknown>> | null,
    readonly route: string,
  ) {
    super(`${route}: ${status} ${code}: ${message}`);
  }
}

export type ApiKey = { readonly keyId: string; readonly secret: string };

export type VenueClientOptions = {
  /** `http://host:port`, without `/api`. */
  readonly baseUrl: string;
  /** The wallet: SIWE sign-in and EIP-712 signatures. */
  readonly account?: LocalAccount;
  readonly token?: string;
  readonly apiKey?: ApiKey;
  /** Local clock (Unix ms); `syncClock()` adds the venue's offset to it. Default Date.now. */
  readonly now?: () => number;
  /** Bound on each request, ms (default none): past it the request is aborted and the call rejects with a `TimeoutError`. */
  readonly timeoutMs?: number;
};

export type RawReply = { readonly status: number; readonly body: unknown; readonly headers: Headers };

type PlaceBody = BodyOf<'POST /api/mm/orders/place'>;
type Unsigned<T> = Exclude<T, { signature: string }>;
/** An unsigned place body (phase one): human units, and the order instructions. */
export type PlaceRequest = Unsigned<PlaceBody>;
export type ReplaceRequest = Exclude<BodyOf<'POST /api/mm/orders/replace'>, { cancel: { signature: string } }>;
export type CancelRequest = Unsigned<BodyOf<'POST /api/mm/orders/cancel'>>;

/** JSON with bigint values as decimal strings. */
export const json = (v: unknown) => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x));

/** A fetch response as `{ status, body, headers }`: the body parsed as JSON, or its text when it is not JSON. */
export async function readReply(res: Response): Promise<RawReply> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON: the text */
  }
  return { status: res.status, body, headers: res.headers };
}

export class VenueClient {
  readonly baseUrl: string;
  readonly account: LocalAccount | undefined;
  token: string | undefined;
  apiKey: ApiKey | undefined;
  private readonly localNow: () => number;
  private readonly timeoutMs: number | undefined;
  private clockOffset = 0;
  private lastStamp = 0;
  private contracts: ReplyOf<'GET /api/markets/contracts'> | null = null;
  private orderNonce: bigint | null = null;

  constructor(o: VenueClientOptions) {
    this.baseUrl = o.baseUrl.replace(/\/+$/, '');
    this.account = o.account;
    this.token = o.token;
    this.apiKey = o.apiKey;
    this.localNow = o.now ?? Date.now;
    this.timeoutMs = o.timeoutMs;
  }

  /** The venue's time as this client knows it (Unix ms). */
  now(): number {
    return this.localNow() + this.clockOffset;
  }

  /** Align `now()` with the venue clock (`GET /api/health`): SIWE `Issued At`, HMAC timestamps and deadlines use it. */
  async syncClock(): Promise<number> {
    const { timestamp } = await this.call('GET /api/health');
    this.clockOffset = Date.parse(timestamp) - this.localNow();
    // Timestamps signed before the sync were on the local clock: count from the venue's now.
    this.lastStamp = 0;
    return this.now();
  }

  /** The credential headers: the API key (signed now) if set, else the bearer token. */
  credentials(): Record<string, string> {
    if (this.apiKey !== undefined) {
      // The venue accepts each signed timestamp once: a burst within one millisecond counts on.
      this.lastStamp = Math.max(this.now(), this.lastStamp + 1);
      const ts = String(this.lastStamp);
      return { 'x-api-key': this.apiKey.keyId, 'x-api-timestamp': ts, 'x-api-signature': createHmac('sha256', this.apiKey.secret).update(ts).digest('hex') };
    }
    return this.token !== undefined ? { authorization: `Bearer ${this.token}` } : {};
  }

  /** Send a request to a route without judging the answer. */
  raw<K extends RouteKey>(key: K, ...args: CallArgs<K>): Promise<RawReply> {
    return this.send(key, args[0]);
  }

  private async send(key: string, input: unknown): Promise<RawReply> {
    const space = key.indexOf(' ');
    const method = key.slice(0, space);
    const i = (input ?? {}) as { params?: Record<string, unknown>; query?: Record<string, unknown>; body?: unknown };
    const path = key.slice(space + 1).replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_m, name: string) => {
      const v = i.params?.[name];
      if (v === undefined) throw new Error(`${key}: params.${name} is required`);
      return encodeURIComponent(String(v));
    });
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(i.query ?? {})) if (v !== undefined) query.set(k, String(v));
    const qs = query.toString();
    const headers: Record<string, string> = { ...this.credentials() };
    if (i.body !== undefined) headers['content-type'] = 'application/json';
    const signal = this.timeoutMs !== undefined ? { signal: AbortSignal.timeout(this.timeoutMs) } : {};
    return readReply(await fetch(`${this.baseUrl}${path}${qs ? `?${qs}` : ''}`, { method, headers, ...signal, ...(i.body !== undefined ? { body: json(i.body) } : {}) }));
  }

  /** Call a route: its 2xx reply, typed from the route's schema; anything else throws a VenueError. */
  async call<K extends RouteKey>(key: K, ...args: CallArgs<K>): Promise<ReplyOf<K>> {
    const r = await this.send(key, args[0]);
    if (r.status >= 200 && r.status < 300) return r.body as ReplyOf<K>;
    const b = (typeof r.body === 'object' && r.body !== null ? r.body : {}) as { code?: string; message?: string; details?: Record<string, unknown> | null };
    throw new VenueError(r.status, b.code ?? 'unknown', b.message ?? String(r.body), b.details ?? null, key);
  }

  /** The AUTH frame of /ws/private and /ws/rfq/mm for this client's credentials (an API key signed now). */
  authFrame(): Record<string, unknown> {
    if (this.apiKey !== undefined) {
      const h = this.credentials();
      return { type: 'AUTH', apiKey: h['x-api-key'], timestamp: Number(h['x-api-timestamp']), signature: h['x-api-signature'] };
    }
    if (this.token === undefined) throw new Error('no credentials: login() or an API key first');
    return { type: 'AUTH', token: this.token };
  }

  /** Open a stream; private streams authenticate with this client's credentials (again on every reconnect). */
  stream(path: StreamPath, o: Omit<StreamOptions, 'baseUrl' | 'path' | 'auth'> = {}): Promise<VenueStream> {
    return VenueStream.open({ ...o, baseUrl: this.baseUrl, path, ...(path === '/ws/public' ? {} : { auth: () => this.authFrame() }) });
  }

  // ---- sign-in and keys -------------------------------------------------------------------

  private wallet(): LocalAccount {
    if (this.account === undefined) throw new Error('this needs a wallet: pass `account` to the VenueClient');
    return this.account;
  }

  /**
   * Sign in with Ethereum (docs/auth.md "Sign-In with Ethereum (EIP-4361)"): nonce, the message signed by the
   * wallet, verify. `Issued At` is the venue's clock (synced first) unless given; with a
   * `domain` (the site the user signs in on), the URI is that site. Keeps and returns the
   * bearer token.
   */
  async login(o: { domain?: string; issuedAt?: string; chainId?: number } = {}): Promise<string> {
    const account = this.wallet();
    if (o.issuedAt === undefined) await this.syncClock();
    const contracts = o.chainId === undefined ? await this.signingDomains() : null;
    const chainId = o.chainId ?? contracts!.chainId;
    const { nonce, statement } = await this.call('POST /api/auth/siwe/nonce', { body: { walletAddress: account.address, chainId, purpose: 'login' } });
    // The venue wants the URI on the domain's host: the site's own address when a domain is given.
    const base = new URL(this.baseUrl);
    const uri = o.domain === undefined ? this.baseUrl : `${base.protocol}//${o.domain}`;
    const message = siweMessage({ domain: o.domain ?? base.host, address: account.address, statement, uri, chainId, nonce, issuedAt: o.issuedAt ?? new Date(this.now()).toISOString() });
    const r = await this.call('POST /api/auth/siwe/verify', { body: { message, signature: await account.signMessage({ message }), walletAddress: account.address, chainId } });
    this.token = r.token;
    return r.token;
  }

  /** Revoke the session and forget the token. */
  async signOut(): Promise<void> {
    await this.call('POST /api/auth/sign-out');
    this.token = undefined;
  }

  /** Create an API key (needs a login session); with `use`, later requests are signed with it. */
  async createApiKey(label: string, scopes: BodyOf<'POST /api/keys'>['scopes'], use = false): Promise<ReplyOf<'POST /api/keys'>> {
    const key = await this.call('POST /api/keys', { body: { label, scopes } });
    if (use) this.apiKey = { keyId: key.keyId, secret: key.secret };
    return key;
  }

  // ---- signing domains and nonces -----------------------------------------------------------

  /** `GET /api/markets/contracts`, read once: the addresses and EIP-712 domains of the deployment. */
  async signingDomains(): Promise<ReplyOf<'GET /api/markets/contracts'>> {
    this.contracts ??= await this.call('GET /api/markets/contracts');
    return this.contracts;
  }

  private async domain(which: 'orderBook' | 'rfq'): Promise<Eip712Domain> {
    const d = (await this.signingDomains()).domains[which];
    return { ...d, verifyingContract: d.verifyingContract as Hex };
  }

  /** The next order nonce for local signing: read from `GET /api/mm/nonce` once, then counted here. */
  async nextOrderNonce(): Promise<bigint> {
    if (this.orderNonce === null) this.orderNonce = BigInt((await this.call('GET /api/mm/nonce')).nextOrderNonce);
    return this.orderNonce++;
  }

  // ---- order entry: two phases ----------------------------------------------------------------

  /**
   * Both phases of a two-phase route: post the unsigned body, sign every typed data of the
   * reply with the wallet, post the signed body built by `signed`. Returns the relay reply.
   */
  private async twoPhase<K extends RouteKey>(key: K, unsigned: unknown, signed: (typed: any) => Promise<unknown>): Promise<Extract<ReplyOf<K>, { mode: 'relay' }>> {
    const typed = await this.call(key, { body: unsigned } as never);
    const relay = await this.call(key, { body: await signed(typed) } as never);
    return relay as Extract<ReplyOf<K>, { mode: 'relay' }>;
  }

  private sign(t: ServedTypedData) {
    return signedMessage(this.wallet(), t);
  }

  /** The instruction fields of an unsigned place body (they ride beside the signed message). */
  private static instructions(p: PlaceRequest) {
    const { seriesId: _s, isBuy: _b, size: _z, price: _p, portfolioId: _f, expiry: _e, deadline: _d, ...instructions } = p;
    return instructions;
  }

  /** Place an order through both phases (the server fills in tick, size, nonce, deadline). */
  place(p: PlaceRequest) {
    return this.twoPhase('POST /api/mm/orders/place', p, async (t) => ({ ...VenueClient.instructions(p), ...(await this.sign(t.typedData)) }));
  }

  placeBatch(orders: PlaceRequest[]) {
    return this.twoPhase('POST /api/mm/orders/place-batch', { orders }, async (t) => ({
      orders: await Promise.all(t.placements.map(async (x: { typedData: ServedTypedData }, i: number) => ({ ...VenueClient.instructions(orders[i]!), ...(await this.sign(x.typedData)) }))),
    }));
  }

  replace(r: ReplaceRequest) {
    return this.twoPhase('POST /api/mm/orders/replace', r, async (t) => ({
      cancel: await this.sign(t.replacement.cancelTypedData),
      place: { ...VenueClient.instructions(r.place), ...(await this.sign(t.replacement.placeTypedData)) },
    }));
  }

  replaceBatch(replacements: ReplaceRequest[]) {
    return this.twoPhase('POST /api/mm/orders/replace-batch', { replacements }, async (t) => ({
      replacements: await Promise.all(
        t.replacements.map(async (x: { cancelTypedData: ServedTypedData; placeTypedData: ServedTypedData }, i: number) => ({
          cancel: await this.sign(x.cancelTypedData),
          place: { ...VenueClient.instructions(replacements[i]!.place), ...(await this.sign(x.placeTypedData)) },
        })),
      ),
    }));
  }

  /** Cancel one order by `orderId` or `clientOrderId`, both phases. */
  cancel(c: CancelRequest) {
    return this.twoPhase('POST /api/mm/orders/cancel', c, async (t) => this.sign(t.cancellations[0].typedData));
  }

  cancelBatch(orderIds: string[]) {
    return this.twoPhase('POST /api/mm/orders/cancel-batch', { cancellations: orderIds.map((orderId) => ({ orderId })) }, async (t) => ({
      cancellations: await Promise.all(t.cancellations.map((x: { typedData: ServedTypedData }) => this.sign(x.typedData))),
    }));
  }

  /**
   * Execute a multi-leg strategy, both phases: every leg's PlaceOrder (the venue makes them
   * fill-or-kill) signed with the wallet; every leg fills in full, or nothing changes.
   */
  executeStrategy(portfolioId: number, legs: BodyOf<'POST /api/strategies/execute'>['legs']) {
    return this.twoPhase('POST /api/strategies/execute', { portfolioId, legs }, async (t) => ({
      portfolioId,
      legs: await Promise.all(t.placements.map((x: { typedData: ServedTypedData }) => this.sign(x.typedData))),
    }));
  }

  /** Fill an RFQ quote as the taker, both phases (FillQuote signed by the wallet). */
  fillQuote(f: { quote: Record<string, unknown>; mmSignature: string; fillSize: string; portfolioId?: number }) {
    return this.twoPhase('POST /api/rfq/fill', f, async (t) => ({ ...f, ...(await this.sign(t.typedData)) }));
  }

  // ---- order entry: one round trip -------------------------------------------------------------

  /**
   * A signed place body built and signed here, for one round trip (REST or `PLACE` on
   * /ws/private): tick from `price` on the pair's grid, WAD size, a nonce counted locally, a
   * deadline `deadlineSec` (default 300) after the venue's clock; `expiry` defaults to the series'.
   */
  async signPlace(p: { seriesId: string; isBuy: boolean; size: string; price: string; portfolioId?: number; expiry?: number; deadlineSec?: number } & ReturnType<typeof VenueClient.instructions>) {
    const { seriesId, isBuy, size, price, portfolioId, expiry, deadlineSec, ...instructions } = p;
    const series = await this.seriesInfo(seriesId);
    const m = {
      seriesId: seriesId as Hex,
      portfolioId: BigInt(portfolioId ?? 0),
      isBuy,
      tick: Number(toUnits(price, series.tickDecimals)),
      size: toUnits(size, 18),
      expiry: expiry ?? series.expiry,
      nonce: await this.nextOrderNonce(),
      deadline: BigInt(Math.floor(this.now() / 1000) + (deadlineSec ?? 300)),
    };
    return { ...instructions, ...(await signPlaceOrder(this.wallet(), await this.domain('orderBook'), m)) };
  }

  /** Place in one round trip: signed locally (`signPlace`), applied at once. */
  async placeSigned(p: Parameters<VenueClient['signPlace']>[0]) {
    return (await this.call('POST /api/mm/orders/place', { body: await this.signPlace(p) })) as Extract<ReplyOf<'POST /api/mm/orders/place'>, { mode: 'relay' }>;
  }

  private readonly seriesCache = new Map<string, { tickDecimals: number; expiry: number }>();
  /** The pair's tick grid and the series' expiry, from its ticker (seriesId or symbol) and the pairs list. */
  private async seriesInfo(seriesId: string): Promise<{ tickDecimals: number; expiry: number }> {
    let s = this.seriesCache.get(seriesId.toLowerCase());
    if (s === undefined) {
      const { symbol } = await this.call('GET /api/markets/ticker/:symbol', { params: { symbol: seriesId } });
      // The canonical symbol: UNDERLYING-STRIKE-TYPE-EXPIRY (Unix seconds).
      const parts = symbol.split('-');
      const pair = (await this.call('GET /api/markets/pairs')).find((p) => p.underlying === parts[0]);
      if (pair === undefined) throw new Error(`no pair for ${symbol}`);
      s = { tickDecimals: pair.tickDecimals, expiry: Number(parts[3]) };
      this.seriesCache.set(seriesId.toLowerCase(), s);
    }
    return s;
  }

  // ---- RFQ: market maker side -------------------------------------------------------------------

  /**
   * An MMM's quote for an open request, signed at its current RFQ nonce; `quoteExpiry` is
   * `ttlSec` (default 20, at most 30) after the venue's clock. Submit it with
   * `POST /api/mm/quotes/submit` (`submitQuote`) or as `rfq_response` on /ws/rfq/mm.
   */
  async signQuote(request: { requestId: string; pairId: string; seriesId: string; strike: string; optionExpiry: number; isCall: boolean; size: string; takerIsBuying: boolean }, price: bigint, o: { taker?: Hex; ttlSec?: number; size?: bigint } = {}) {
    const { nonce } = await this.call('GET /api/mm/nonce');
    const m: RfqQuoteFields = {
      mmm: this.wallet().address,
      taker: o.taker ?? '0x0000000000000000000000000000000000000000',
      seriesId: request.seriesId as Hex,
      takerIsBuying: request.takerIsBuying,
      price,
      size: o.size ?? BigInt(request.size),
      nonce: BigInt(nonce),
      quoteExpiry: BigInt(Math.floor(this.now() / 1000) + (o.ttlSec ?? 20)),
      pairId: request.pairId as Hex,
      strike: BigInt(request.strike),
      optionExpiry: BigInt(request.optionExpiry),
      isCall: request.isCall,
    };
    return signRfqQuote(this.wallet(), await this.domain('rfq'), m);
  }

  /** Sign and submit a quote over REST. */
  async submitQuote(...args: Parameters<VenueClient['signQuote']>) {
    const { quote, signature } = await this.signQuote(...args);
    return { quote, signature, reply: await this.call('POST /api/mm/quotes/submit', { body: { ...quote, signature, requestId: args[0].requestId } }) };
  }
}
