/**
 * Sockets, topics and sends for the three streams, with the slow-consumer rule.
 *
 * Fan-out is uWS pub/sub: `app.publish(topic, message)` serialises nothing and copies the
 * one message to every subscriber in C++. The hub keeps, beside uWS, the set of sockets
 * per topic: it skips serialising for topics nobody reads and it knows whose send buffers
 * to check after a publish.
 *
 * Backpressure (api.md "WebSocket"): a socket whose buffered amount passes
 * `maxBufferedBytes` is closed with code 4008. Direct sends are checked at once; after
 * publishes, the subscribers of every topic published in this event-loop turn are checked
 * once, in `setImmediate`, which runs before the loop polls sockets again, so the buffer
 * cannot have drained in between. uWS itself is given twice the bound as its hard
 * `maxBackpressure` with `closeOnBackpressureLimit`: should a single turn ever push a socket
 * past that, uWS drops it (code 1006) rather than skip a message silently. Either way a
 * reader never sees a gap without seeing its connection end, and the server's memory per
 * slow reader is bounded.
 */
import type { TemplatedApp, WebSocket } from 'uWebSockets.js';
import type { UserAuth } from '../http/auth.ts';
import type { RateWindow } from './rateWindow.ts';
import type { StreamLimits } from './config.ts';
import type { StreamMetrics, StreamName } from './streamMetrics.ts';
import type { Logger } from '../http/log.ts';

export type SocketData = {
  readonly id: number;
  readonly stream: StreamName;
  readonly ip: string;
  /** Credential headers sent with the upgrade request (the RFQ stream accepts them). */
  readonly headers: Readonly<Record<string, string>>;
  closed: boolean;
  /** Canonical channel name -> topic, for the client's subscriptions. */
  readonly channels: Map<string, string>;
  /** Every topic the socket is subscribed to (its channels and any implicit ones). */
  readonly topics: Set<string>;
  readonly inbound: RateWindow;
  user: UserAuth | null;
  authPending: boolean;
  authTimer: NodeJS.Timeout | null;
};

export type Ws = WebSocket<SocketData>;

/** Close codes (docs/streams.md). */
export const closeCodes = { unauthenticated: 4001, forbidden: 4003, slowConsumer: 4008 } as const;

export class Hub {
  private readonly topics = new Map<string, Set<Ws>>();
  private readonly published = new Set<string>();
  private turnScheduled: NodeJS.Immediate | null = null;
  private inTurn = false;
  private readonly turnHooks: (() => void)[] = [];
  readonly sockets = new Set<Ws>();
  /** Set by closeAll(true): sockets closing now close because the venue stops (cancel on disconnect ignores them). */
  shuttingDown = false;
  private nextId = 1;

  constructor(
    readonly app: TemplatedApp,
    private readonly limits: StreamLimits,
    private readonly metrics: StreamMetrics,
    private readonly log: Logger,
  ) {}

  newSocketId(): number {
    return this.nextId++;
  }

  /** Run `hook` once at the end of every turn in which something was published or `endTurn` was asked for. */
  onTurnEnd(hook: () => void): void {
    this.turnHooks.push(hook);
  }

  opened(ws: Ws): void {
    this.sockets.add(ws);
    this.metrics.opened(ws.getUserData().stream);
  }

  /** The uWS close handler: the socket is gone, forget it everywhere. */
  closed(ws: Ws): void {
    const d = ws.getUserData();
    if (d.closed) return;
    d.closed = true;
    if (d.authTimer !== null) clearTimeout(d.authTimer);
    for (const topic of d.topics) this.removeFromTopic(ws, topic);
    d.topics.clear();
    d.channels.clear();
    this.sockets.delete(ws);
    this.metrics.closed(d.stream);
  }

  subscribe(ws: Ws, topic: string): void {
    const d = ws.getUserData();
    if (d.closed || d.topics.has(topic)) return;
    ws.subscribe(topic);
    d.topics.add(topic);
    let set = this.topics.get(topic);
    if (!set) this.topics.set(topic, (set = new Set()));
    set.add(ws);
  }

  unsubscribe(ws: Ws, topic: string): void {
    const d = ws.getUserData();
    if (d.closed || !d.topics.delete(topic)) return;
    ws.unsubscribe(topic);
    this.removeFromTopic(ws, topic);
  }

  private removeFromTopic(ws: Ws, topic: string): void {
    const set = this.topics.get(topic);
    if (!set) return;
    set.delete(ws);
    if (set.size === 0) this.topics.delete(topic);
  }

  subscriberCount(topic: string): number {
    return this.topics.get(topic)?.size ?? 0;
  }

  hasSubscribers(topic: string): boolean {
    return this.topics.has(topic);
  }

  /** Sockets subscribed to a topic (live view; do not keep). */
  subscribersOf(topic: string): ReadonlySet<Ws> | undefined {
    return this.topics.get(topic);
  }

  /** Publish a text message to a topic's subscribers; false (and no work) when it has none. */
  publish(topic: string, message: string, stream: StreamName): boolean {
    const set = this.topics.get(topic);
    if (!set) return false;
    this.app.publish(topic, message, false);
    this.metrics.sent(stream, set.size);
    this.published.add(topic);
    this.endTurn();
    return true;
  }

  /** Send to one socket and enforce the bound on its buffer at once. */
  send(ws: Ws, message: string): void {
    const d = ws.getUserData();
    if (d.closed) return;
    ws.send(message, false);
    this.metrics.sent(d.stream, 1);
    this.check(ws);
  }

  /** Close a socket with a code and reason (at most 123 bytes, as a close frame allows). */
  end(ws: Ws, code: number, reason: string): void {
    if (ws.getUserData().closed) return;
    ws.end(code, Buffer.from(reason).subarray(0, 123));
  }

  /** Ask for the end-of-turn hooks and the backpressure check to run once this turn. */
  endTurn(): void {
    // During the pass itself a publish needs no new turn: its topic is checked in this pass.
    if (this.inTurn) return;
    this.turnScheduled ??= setImmediate(() => this.runTurn());
  }

  private runTurn(): void {
    this.turnScheduled = null;
    this.inTurn = true;
    try {
      for (const hook of this.turnHooks) {
        try {
          hook();
        } catch (err) {
          // A broken payload must not take the process down, nor stop the other hooks.
          this.log.error('stream turn hook failed', { error: err instanceof Error ? err.message : String(err), stack: err instanceof Error ? err.stack : undefined });
        }
      }
      for (const topic of this.published) {
        const set = this.topics.get(topic);
        if (set) for (const ws of set) this.check(ws);
      }
    } finally {
      this.published.clear();
      this.inTurn = false;
    }
  }

  private check(ws: Ws): void {
    const d = ws.getUserData();
    if (d.closed) return;
    const buffered = ws.getBufferedAmount();
    if (buffered <= this.limits.maxBufferedBytes) return;
    this.metrics.slowConsumer(d.stream);
    this.end(ws, closeCodes.slowConsumer, `slow consumer: more than ${this.limits.maxBufferedBytes} bytes waiting to be sent`);
  }

  /**
   * Close every socket: the venue's shutdown (`venueStops`, the default), or an edge gateway
   * stopping while the venue runs on, whose closes are drops like any other.
   */
  closeAll(venueStops = true): void {
    this.shuttingDown = venueStops;
    if (this.turnScheduled !== null) clearImmediate(this.turnScheduled);
    this.turnScheduled = null;
    for (const ws of [...this.sockets]) {
      if (!ws.getUserData().closed) ws.end(1001, 'server shutting down');
    }
  }
}
