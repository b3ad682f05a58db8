/**
 * WebSocket test helpers: a client (the `ws` package) that queues every frame and lets a
 * test wait for the one it expects; venue helpers that price a pair, fund wallets and
 * build orders as engine commands (like test/engine/support/venueFixture.ts); and a
 * validator that checks frames against the message schemas of the served AsyncAPI document.
 */
import WebSocket from 'ws';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { getAddress, keccak256, toHex } from 'viem';
import { signOrder, testAccount } from '../../support/signedOrders.ts';
import type { TestApp } from '../support/testApp.ts';
import { VenueClient } from '../../../client/venueClient.ts';
import type { Hex } from '../../../engine/domain/hex.ts';
import type { PlaceOrder } from '../../../engine/commands.ts';
import type { SeriesActor } from '../../../engine/actors/series.ts';
import { WAD } from '../../../engine/domain/fixed.ts';
import { pairIdOf } from '../../../engine/domain/ids.ts';
import { submitOracle } from '../../../gateway/drivers.ts';

export type Frame = Record<string, any>;

export type Client = {
  readonly ws: WebSocket;
  readonly frames: Frame[];
  send(msg: unknown): void;
  /** The first frame (from the start of the connection) matching `pred` not yet taken; waits up to `ms`. */
  next(pred: (f: Frame) => boolean, what?: string, ms?: number): Promise<Frame>;
  /** Resolves with the close code and reason. */
  readonly closed: Promise<{ code: number; reason: string }>;
  /** True once the client saw the socket close. */
  isClosed(): boolean;
  close(): void;
};

/** Opens a client; rejects if the server refuses or drops the connection before it opens. */
export async function connect(app: TestApp, path: string, headers: Record<string, string> = {}): Promise<Client> {
  const ws = new WebSocket(app.url.replace('http://', 'ws://') + path, { headers, perMessageDeflate: false });
  const frames: Frame[] = [];
  const taken = new Set<number>();
  const waiters: { pred: (f: Frame) => boolean; resolve: (f: Frame) => void }[] = [];
  let isClosed = false;
  ws.on('message', (data) => {
    const f = JSON.parse(data.toString()) as Frame;
    const index = frames.push(f) - 1;
    const w = waiters.findIndex((x) => x.pred(f));
    if (w >= 0) {
      taken.add(index);
      waiters.splice(w, 1)[0]!.resolve(f);
    }
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => {
      isClosed = true;
      resolve({ code, reason: reason.toString() });
    }),
  );
  ws.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('close', (code) => reject(new Error(`closed before open (${code})`)));
    ws.once('unexpected-response', () => reject(new Error('unexpected response')));
  });
  return {
    ws,
    frames,
    send: (msg) => ws.send(typeof msg === 'string' ? msg : JSON.stringify(msg)),
    next(pred, what = 'frame', ms = 10_000) {
      for (let i = 0; i < frames.length; i++) {
        if (!taken.has(i) && pred(frames[i]!)) {
          taken.add(i);
          return Promise.resolve(frames[i]!);
        }
      }
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; last frames: ${JSON.stringify(frames.slice(-3)).slice(0, 600)}`)), ms);
        waiters.push({ pred, resolve: (f) => (clearTimeout(timer), resolve(f)) });
      });
    },
    closed,
    isClosed: () => isClosed,
    close: () => ws.close(),
  };
}

export const wsEnv = (extra: Record<string, string> = {}) => {
  // Tests open many sockets from one IP; the connection-rate test sets its own value.
  process.env['WS_CONNECTIONS_PER_MINUTE'] = extra['WS_CONNECTIONS_PER_MINUTE'] ?? '100000';
  for (const [k, v] of Object.entries(extra)) process.env[k] = v;
};

export const BTC = pairIdOf('BTC-USDC');
export const usdc = (n: number | bigint) => BigInt(n) * 1_000_000n;
export const wad = (n: number) => (BigInt(Math.round(n * 1e6)) * WAD) / 1_000_000n;
/** A test wallet by number: an address whose key is known (keccak256 of the number), so orders placed for it straight through the engine are signed. */
export const wallet = (n: number) => testAccount(`stream-wallet-${n}`).address;

/** Recompute the marks of every series of the pair (the bootstrap lists series without them) so that orders can enter. */
export async function priceMarks(app: TestApp, pairId: Hex = BTC): Promise<void> {
  const s = app.app.services;
  const o = s.reads.catalog.oracles.get(pairId)!;
  const r = await submitOracle(s.pipeline, s.reads, s.marks, pairId, o.spot, o.volatility, o.riskFreeRate);
  if (!r.ok) throw new Error(`oracle: ${r.rejection.code}`);
}

export async function fund(app: TestApp, owner: string, amount = usdc(100_000_000)): Promise<void> {
  const p = app.app.services.pipeline;
  if (app.app.engine.state.accounts.portfolio(owner, 1) === undefined) {
    const c = await p.submit({ type: 'create_portfolio', owner });
    if (!c.ok) throw new Error(c.rejection.code);
  }
  const d = await p.submit({ type: 'deposit', owner, portfolioId: 1, amount });
  if (!d.ok) throw new Error(d.rejection.code);
}

/** A live BTC call near the money with a mark, nearest expiry. */
export function atmSeries(app: TestApp, isCall = true): SeriesActor {
  const state = app.app.engine.state;
  const spot = state.oracles.get(BTC)!.spot;
  let best: SeriesActor | null = null;
  let dist = 0n;
  for (const s of state.series.values()) {
    if (s.spec.pairId !== BTC || s.spec.isCall !== isCall || s.settled || !s.marks) continue;
    const d = s.spec.strike > spot ? s.spec.strike - spot : spot - s.spec.strike;
    if (!best || s.spec.expiry < best.spec.expiry || (s.spec.expiry === best.spec.expiry && d < dist)) {
      best = s;
      dist = d;
    }
  }
  if (!best) throw new Error('no priced series');
  return best;
}

let orderCounter = 0;
const nonces = new Map<string, bigint>();

/** A place entry at a price in BTC tick units (2 decimals) and a size in contracts. */
export function order(app: TestApp, owner: string, series: SeriesActor, isBuy: boolean, price: number, size: number): PlaceOrder {
  const nowSec = Math.floor(app.app.services.pipeline.now() / 1000);
  const nonce = (nonces.get(owner) ?? 0n) + 1n;
  nonces.set(owner, nonce);
  const fields = { portfolioId: 1, seriesId: series.spec.seriesId, isBuy, tick: Math.round(price * 100), size: wad(size), expiry: series.spec.expiry, nonce, deadline: nowSec + 300 };
  const config = app.app.services.config;
  const signed = signOrder({ serviceName: config.serviceName, chainId: config.chainId, orderBook: config.contracts.orderBook }, owner, fields);
  return { orderId: signed?.orderId ?? keccak256(toHex(`ws-order-${process.pid}-${++orderCounter}`)), owner, ...fields, ...(signed !== null ? { signature: signed.signature } : {}) };
}

export function cancel(app: TestApp, owner: string, orderId: Hex) {
  const nonce = (nonces.get(owner) ?? 0n) + 1n;
  nonces.set(owner, nonce);
  return { orderId, owner, nonce, deadline: Math.floor(app.app.services.pipeline.now() / 1000) + 300 };
}

/** Validators for the messages of the served AsyncAPI document: `check('depth.depthDelta', frame)` -> null or the errors. */
export async function asyncApiValidator(app: TestApp): Promise<{ doc: Record<string, any>; check(message: string, frame: unknown): string | null }> {
  const doc = (await (await fetch(app.url + '/asyncapi/json')).json()) as Record<string, any>;
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: 'asyncapi', components: doc['components'] }, 'asyncapi');
  const cache = new Map<string, ValidateFunction>();
  const rewrite = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(rewrite);
    if (v === null || typeof v !== 'object') return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = k === '$ref' && typeof x === 'string' && x.startsWith('#/') ? `asyncapi${x}` : rewrite(x);
    return out;
  };
  return {
    doc,
    check(message, frame) {
      let v = cache.get(message);
      if (!v) {
        const m = doc['components']['messages'][message];
        if (!m) return `no message ${message} in the document`;
        v = ajv.compile(rewrite(m.payload) as object);
        cache.set(message, v);
      }
      return v(frame) ? null : ajv.errorsText(v.errors);
    },
  };
}

let methodIds = 0;
/** Sends one method on a socket and waits for the frame answering it (matched by id). */
export async function callMethod(c: Client, method: string, params: unknown): Promise<Frame> {
  const id = `m${++methodIds}`;
  c.send({ method, params, id });
  return c.next((f) => f['id'] === id, `${method} ${id}`);
}

/** A /ws/private socket authenticated with a bearer token (the AUTH frame the client sends). */
export async function privateSocket(app: TestApp, token: string): Promise<Client> {
  const c = await connect(app, '/ws/private');
  c.send(new VenueClient({ baseUrl: app.url, token }).authFrame());
  await c.next((f) => f['type'] === 'AUTH_SUCCESS', 'AUTH_SUCCESS');
  return c;
}
