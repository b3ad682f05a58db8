/**
 * A complete market-making client for this venue (docs/order-entry.md "Quoting safely"):
 * sign in with Ethereum, protect the quotes (market maker protection, cancel on disconnect,
 * the dead-man switch), then quote over the private WebSocket, signing each order locally so
 * that one message places it (no phase one round trip). Node 20, viem and ws.
 *
 *   const mm = await QuotingClient.connect('http://127.0.0.1:8080', privateKeyToAccount(key));
 *   await mm.protect({ pairId, windowMs: 1000, frozenMs: 5000, qtyLimit: '10', deltaLimit: '0', vegaLimit: '0', tradeCountLimit: 20 });
 *   await mm.cancelOnDisconnect('connection');
 *   mm.heartbeat(15_000);                     // re-arms the dead-man switch every 5 s
 *   const { orderId } = await mm.quote({ seriesId, isBuy: true, price: '120.5', size: '0.5' });
 *   ...
 *   mm.close();                               // the socket's quotes go with it
 */
import WebSocket from 'ws';
import type { PrivateKeyAccount } from 'viem/accounts';

type Json = Record<string, any>;

/** EIP-712 types of a PlaceOrder (GET /api/markets/contracts gives the domain). */
const PLACE_ORDER_TYPES = {
  PlaceOrder: [
    { name: 'seriesId', type: 'bytes32' },
    { name: 'portfolioId', type: 'uint256' },
    { name: 'isBuy', type: 'bool' },
    { name: 'tick', type: 'uint32' },
    { name: 'size', type: 'uint128' },
    { name: 'expiry', type: 'uint32' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const;

/** A decimal string in human units to an integer with `decimals` decimals (exact; throws when it does not fit). */
export function toUnits(text: string, decimals: number): bigint {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (m === null) throw new Error(`not a decimal: ${text}`);
  const frac = m[2] ?? '';
  if (frac.length > decimals) throw new Error(`${text} has more than ${decimals} decimals`);
  return BigInt(m[1]!) * 10n ** BigInt(decimals) + BigInt(frac.padEnd(decimals, '0') || '0');
}

export type Mmp = { pairId: string; windowMs: number; frozenMs: number; qtyLimit: string; deltaLimit: string; vegaLimit: string; tradeCountLimit: number };
export type Quote = { seriesId: string; isBuy: boolean; price: string; size: string; portfolioId?: number; postOnly?: boolean };

export class QuotingClient {
  private nextId = 1;
  private readonly pending = new Map<string, { resolve: (f: Json) => void; reject: (e: Error) => void }>();
  private nonce: bigint;
  private beat: NodeJS.Timeout | null = null;
  /** Private channel frames (account@fills, account@orders, account@mmp, ...). */
  onData: (channel: string, data: Json) => void = () => {};

  private constructor(
    readonly baseUrl: string,
    readonly account: PrivateKeyAccount,
    readonly token: string,
    private readonly ws: WebSocket,
    private readonly domain: Json,
    nextNonce: bigint,
  ) {
    this.nonce = nextNonce;
    ws.on('message', (raw) => {
      const f = JSON.parse(raw.toString()) as Json;
      const waiter = f['id'] !== undefined ? this.pending.get(String(f['id'])) : undefined;
      if (waiter !== undefined) {
        this.pending.delete(String(f['id']));
        waiter.resolve(f);
      } else if (typeof f['channel'] === 'string') this.onData(f['channel'], f['data']);
    });
    ws.on('close', () => {
      for (const w of this.pending.values()) w.reject(new Error('socket closed'));
      this.pending.clear();
      this.stopHeartbeat();
    });
  }

  /** Sign in (SIWE, the venue's clock for Issued At), read the signing domain and a fresh order nonce, open and authenticate /ws/private. */
  static async connect(baseUrl: string, account: PrivateKeyAccount): Promise<QuotingClient> {
    const host = new URL(baseUrl).host;
    const { nonce, statement } = await http(baseUrl, 'POST', '/api/auth/siwe/nonce', { walletAddress: account.address, purpose: 'login' });
    const venueNow = (await http(baseUrl, 'GET', '/api/health')).timestamp as string;
    const message = [`${host} wants you to sign in with your Ethereum account:`, account.address, '', statement, '', `URI: ${baseUrl}`, 'Version: 1', 'Chain ID: 10143', `Nonce: ${nonce}`, `Issued At: ${venueNow}`].join('\n');
    const { token } = await http(baseUrl, 'POST', '/api/auth/siwe/verify', { message, signature: await account.signMessage({ message }) });
    const contracts = await http(baseUrl, 'GET', '/api/markets/contracts');
    const { nextOrderNonce } = await http(baseUrl, 'GET', '/api/mm/nonce', undefined, token);
    const ws = new WebSocket(baseUrl.replace(/^http/, 'ws') + '/ws/private', { perMessageDeflate: false });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const authed = new Promise<void>((resolve, reject) => {
      ws.once('message', (raw) => {
        const f = JSON.parse(raw.toString()) as Json;
        if (f['type'] === 'AUTH_SUCCESS') resolve();
        else reject(new Error(`AUTH refused: ${raw.toString()}`));
      });
    });
    ws.send(JSON.stringify({ type: 'AUTH', token }));
    await authed;
    return new QuotingClient(baseUrl, account, token, ws, contracts.domains.orderBook, BigInt(nextOrderNonce));
  }

  /** One method over the socket: its REST reply, or throws with the REST error. */
  async call(method: string, params: unknown): Promise<Json> {
    const id = `c${this.nextId++}`;
    const answer = new Promise<Json>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    this.ws.send(JSON.stringify({ method, params, id }));
    const f = await answer;
    if (f['error'] !== undefined) throw new Error(`${method}: ${JSON.stringify(f['error'])}`);
    return f['result'] as Json;
  }

  /** Market maker protection on a pair (POST /api/mm/mmp). */
  protect(config: Mmp): Promise<Json> {
    return http(this.baseUrl, 'POST', '/api/mm/mmp', config, this.token);
  }

  /** When this socket drops, cancel its quotes (`connection`) or all the wallet's (`wallet`). */
  cancelOnDisconnect(scope: 'connection' | 'wallet'): Promise<Json> {
    return this.call('SET_CANCEL_ON_DISCONNECT', { enabled: true, scope });
  }

  /** Arm (or move) the dead-man switch once: every open order goes `timeoutMs` from now unless re-armed. */
  rearm(timeoutMs: number): Promise<Json> {
    return this.call('CANCEL_AFTER', { timeoutMs });
  }

  /** Keep the dead-man switch armed while this process is healthy: re-arms every third of `timeoutMs`. */
  heartbeat(timeoutMs: number): void {
    this.stopHeartbeat();
    void this.rearm(timeoutMs);
    this.beat = setInterval(() => void this.rearm(timeoutMs).catch(() => {}), Math.floor(timeoutMs / 3));
  }

  stopHeartbeat(): void {
    if (this.beat !== null) clearInterval(this.beat);
    this.beat = null;
  }

  /**
   * Place an `mmp` quote in one message: the PlaceOrder is built and signed here (tick from the
   * price on the pair's grid, WAD size, a local nonce, a deadline a minute out on the venue's
   * clock), so the venue checks and applies it at once. `expiry` is the series' expiry.
   */
  async quote(q: Quote & { tickDecimals: number; expiry: number; nowSec: number }): Promise<{ orderId: string; result: Json }> {
    const message = {
      seriesId: q.seriesId as `0x${string}`,
      portfolioId: BigInt(q.portfolioId ?? 0),
      isBuy: q.isBuy,
      tick: Number(toUnits(q.price, q.tickDecimals)),
      size: toUnits(q.size, 18),
      expiry: q.expiry,
      nonce: this.nonce++,
      deadline: BigInt(q.nowSec + 60),
    };
    const signature = await this.account.signTypedData({ domain: this.domain as never, types: PLACE_ORDER_TYPES, primaryType: 'PlaceOrder', message });
    const body = { ...message, portfolioId: message.portfolioId.toString(), size: message.size.toString(), nonce: message.nonce.toString(), deadline: message.deadline.toString(), signature, mmp: true, ...(q.postOnly ? { postOnly: true } : {}) };
    const result = await this.call('PLACE', body);
    return { orderId: result['orders'][0].orderId as string, result };
  }

  /** Pull every quote at once (one engine command). */
  pullAll(scope: Json = {}): Promise<Json> {
    return this.call('CANCEL_ALL', scope);
  }

  close(): void {
    this.stopHeartbeat();
    this.ws.close();
  }
}

async function http(baseUrl: string, method: 'GET' | 'POST', path: string, body?: unknown, token?: string): Promise<Json> {
  const res = await fetch(baseUrl + path, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await res.json()) as Json;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}
