/**
 * A WebSocket client of the venue's streams (docs/streams.md): it authenticates (a bearer
 * token or an API key, signed afresh on every connection), matches answers to requests by
 * `id`, keeps its subscriptions and, when the connection drops, reconnects with backoff,
 * authenticates again and re-subscribes. Depth channels are rebuilt into `DepthBook`s from
 * the snapshot and the deltas; a sequence gap re-subscribes the channel for a fresh snapshot.
 * With `alternateUrls` (other gateways of the same venue, e.g. its edges) each reconnect
 * attempt goes to the next URL in turn: a client of a gateway that died fails over.
 */
import WebSocket from 'ws';
import type { Static } from '@sinclair/typebox';
import type { AuthSuccess } from '../gateway/streams/schemas.ts';
import { DepthBook, type DepthDeltaFrame, type DepthSnapshotFrame } from './depthBook.ts';

export type StreamPath = '/ws/public' | '/ws/private' | '/ws/rfq/mm';
export type Frame = Record<string, any>;

export type StreamOptions = {
  /** The venue's base URL (`http://host:port`); ws:// or wss:// is derived. */
  readonly baseUrl: string;
  /**
   * Other base URLs of the same venue (its edge gateways): each reconnect attempt goes to the
   * next URL of `[baseUrl, ...alternateUrls]` in turn (wrapping), so the client of a gateway
   * that died reconnects to another one; none (the default): always `baseUrl`.
   */
  readonly alternateUrls?: readonly string[];
  readonly path: StreamPath;
  /** The AUTH frame, built for each connection (an API-key signature carries a fresh timestamp). */
  readonly auth?: () => Record<string, unknown>;
  /** Reconnect after a drop (default on): backoff from `minMs` (100) doubling to `maxMs` (5000). */
  readonly reconnect?: false | { readonly minMs?: number; readonly maxMs?: number };
  /** Bound on each wait (connect, AUTH, an answer), ms; default 10000. */
  readonly timeoutMs?: number;
};

/** A refusal on the stream: an error frame's code and message. */
export class StreamError extends Error {
  override readonly name = 'StreamError';
  constructor(
    readonly code: number | string,
    message: string,
    readonly frame: Frame,
  ) {
    super(`${code}: ${message}`);
  }
}

type Pending = { resolve: (f: Frame) => void; reject: (e: Error) => void; timer: NodeJS.Timeout; onAnswer?: (f: Frame) => void };

export class VenueStream {
  private ws!: WebSocket;
  private nextId = 1;
  private readonly pending = new Map<string, Pending>();
  /** Channels held, as the server named them (its canonical names). */
  private readonly channels = new Set<string>();
  private readonly books = new Map<string, DepthBook>();
  private closing = false;
  private attempt = 0;
  private readonly dataHandlers: ((channel: string, data: any) => void)[] = [];
  private readonly messageHandlers: ((frame: Frame) => void)[] = [];
  private readonly reconnectHandlers: (() => void)[] = [];
  /** The AUTH answer of the current connection. */
  user: Static<typeof AuthSuccess> | null = null;
  /** Connections made so far (1 after `open`, +1 per reconnect). */
  connections = 0;
  /** Index into `urls` of the gateway connected (or being tried). */
  private at = 0;
  private readonly urls: readonly string[];

  private constructor(private readonly o: StreamOptions) {
    this.urls = [o.baseUrl, ...(o.alternateUrls ?? [])];
  }

  /** The base URL of the gateway this stream is connected to (or trying now). */
  get url(): string {
    return this.urls[this.at]!;
  }

  static async open(o: StreamOptions): Promise<VenueStream> {
    const s = new VenueStream(o);
    await s.connect();
    return s;
  }

  private get timeoutMs(): number {
    return this.o.timeoutMs ?? 10_000;
  }

  private async connect(): Promise<void> {
    const ws = new WebSocket(this.url.replace(/^http/, 'ws') + this.o.path, { perMessageDeflate: false });
    this.ws = ws;
    ws.on('error', () => {});
    await this.bounded(
      new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('close', (code) => reject(new Error(`${this.o.path}: closed before open (${code})`)));
      }),
      'connect',
    );
    this.connections++;
    if (this.o.auth !== undefined) {
      const answer = this.bounded(
        new Promise<Frame>((resolve) => ws.once('message', (raw) => resolve(JSON.parse(raw.toString()) as Frame))),
        'AUTH',
      );
      ws.send(JSON.stringify(this.o.auth()));
      const f = await answer;
      if (f['type'] !== 'AUTH_SUCCESS') throw new StreamError(f['code'] ?? 'unauthenticated', String(f['message'] ?? JSON.stringify(f)), f);
      this.user = f as Static<typeof AuthSuccess>;
    }
    ws.on('message', (raw) => this.onFrame(JSON.parse(raw.toString()) as Frame));
    ws.once('close', () => this.onClose());
  }

  private bounded<T>(p: Promise<T>, what: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.o.path}: no ${what} within ${this.timeoutMs} ms`)), this.timeoutMs);
      p.then(
        (v) => (clearTimeout(timer), resolve(v)),
        (e: unknown) => (clearTimeout(timer), reject(e)),
      );
    });
  }

  /** Handle a frame as if it had been received (replays, tests). */
  handle(f: Frame): void {
    this.onFrame(f);
  }

  private onFrame(f: Frame): void {
    const id = f['id'];
    if (id !== undefined && id !== null && this.pending.has(String(id))) {
      const p = this.pending.get(String(id))!;
      this.pending.delete(String(id));
      clearTimeout(p.timer);
      if (f['error'] !== undefined) p.reject(new StreamError(f['error'].code, f['error'].message ?? f['error'].msg, f));
      else {
        // Before any later frame (a depth snapshot follows its acknowledgement at once).
        p.onAnswer?.(f);
        p.resolve(f);
      }
      return;
    }
    if (typeof f['channel'] === 'string') {
      const book = this.books.get(f['channel']);
      if (book !== undefined && book.apply(f['data'] as DepthSnapshotFrame | DepthDeltaFrame) === 'gap') void this.resync(f['channel']);
      for (const h of this.dataHandlers) h(f['channel'], f['data']);
      return;
    }
    for (const h of this.messageHandlers) h(f);
  }

  private onClose(): void {
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(new Error(`${this.o.path}: connection closed`));
    }
    this.pending.clear();
    for (const b of this.books.values()) b.synced = false;
    if (this.closing || this.o.reconnect === false) return;
    const min = (this.o.reconnect && this.o.reconnect.minMs) ?? 100;
    const max = (this.o.reconnect && this.o.reconnect.maxMs) ?? 5000;
    const delay = Math.min(max, min * 2 ** this.attempt++);
    setTimeout(() => void this.reconnect(), delay).unref();
  }

  private async reconnect(): Promise<void> {
    if (this.closing) return;
    this.at = (this.at + 1) % this.urls.length;
    try {
      await this.connect();
    } catch {
      // A failed attempt (refused, timed out, AUTH refused) schedules the next one: the close
      // listener that would is only added once a connection is up.
      if (this.ws.readyState !== WebSocket.CLOSED) this.ws.terminate();
      this.onClose();
      return;
    }
    this.attempt = 0;
    if (this.channels.size > 0) await this.request('SUBSCRIBE', [...this.channels]).catch(() => this.ws.terminate());
    for (const h of this.reconnectHandlers) h();
  }

  /** Send a method and wait for the frame answering it (by `id`); an error frame rejects with a StreamError. */
  request(method: string, params?: unknown, onAnswer?: (f: Frame) => void): Promise<Frame> {
    const id = `c${this.nextId++}`;
    return new Promise<Frame>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${this.o.path}: no answer to ${method} within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.pending.set(id, { resolve, reject, timer, ...(onAnswer ? { onAnswer } : {}) });
      this.ws.send(JSON.stringify(params === undefined ? { method, id } : { method, params, id }));
    });
  }

  /** A method's `result` (order methods on /ws/private: the REST reply). */
  async call(method: string, params?: unknown): Promise<any> {
    return (await this.request(method, params))['result'];
  }

  /** Send any frame as is (e.g. `rfq_response` on /ws/rfq/mm). */
  send(frame: unknown): void {
    this.ws.send(JSON.stringify(frame));
  }

  /** Subscribe; the channels are kept (under the server's canonical names) and re-subscribed after a reconnect. */
  async subscribe(channels: string[]): Promise<string[]> {
    const ack = await this.request('SUBSCRIBE', channels);
    const names = (ack['channels'] as string[] | undefined) ?? channels;
    for (const c of names) this.channels.add(c);
    return names;
  }

  async unsubscribe(channels: string[]): Promise<void> {
    const ack = await this.request('UNSUBSCRIBE', channels);
    for (const c of (ack['channels'] as string[] | undefined) ?? channels) {
      this.channels.delete(c);
      this.books.delete(c);
    }
  }

  /** The channels held (canonical names). */
  subscriptions(): string[] {
    return [...this.channels];
  }

  /** Subscribe to a series' depth (symbol, user-facing symbol or seriesId) and keep its book. */
  async depth(series: string): Promise<DepthBook> {
    const book = new DepthBook();
    await this.request('SUBSCRIBE', [`${series}@depth`], (ack) => {
      const name = ((ack['channels'] as string[] | undefined) ?? [`${series}@depth`])[0]!;
      this.channels.add(name);
      this.books.set(name, book);
    });
    return book;
  }

  /** Re-subscribe a depth channel after a gap: the server sends a fresh snapshot. */
  private async resync(channel: string): Promise<void> {
    await this.request('SUBSCRIBE', [channel]).catch(() => {});
  }

  onData(h: (channel: string, data: any) => void): void {
    this.dataHandlers.push(h);
  }

  /** Frames that are neither answers nor channel data (`rfq_request`, `rfq_resolved` on /ws/rfq/mm). */
  onMessage(h: (frame: Frame) => void): void {
    this.messageHandlers.push(h);
  }

  /** Called after each reconnect, once authenticated and re-subscribed. */
  onReconnect(h: () => void): void {
    this.reconnectHandlers.push(h);
  }

  /** Drop the connection as a network failure would (it reconnects); for tests and failover drills. */
  drop(): void {
    this.ws.terminate();
  }

  close(): void {
    this.closing = true;
    this.ws.close();
  }
}
