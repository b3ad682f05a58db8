/**
 * The HTTP load generator of bench/orders: raw HTTP/1.1 keep-alive connections that match
 * replies to requests in order, and closed-loop and open-loop drivers over pre-serialised
 * requests. Latencies are in microseconds; an open loop counts them from each request's due
 * time (so queueing is measured, not hidden) and also from its write.
 *
 * A round never waits forever (bench/lib/deadline.ts): a connection that the server closes
 * or resets, or that gets no reply for `stallMs` while requests are in flight, fails the
 * round with a message naming the connection and what it was waiting for.
 */
import { connect, type Socket } from 'node:net';
import { STALL_MS, StallError } from './deadline.ts';

let firstError: string | null = null;

/** The body of the first non-200 reply any connection read (for the benchmark's error message). */
export function firstErrorBody(): string | null {
  return firstError;
}

export type ConnOptions = {
  /** No reply for this long with requests in flight fails the connection (default STALL_MS). */
  readonly stallMs?: number;
};

/** One keep-alive connection (pipelining-capable: replies are matched to requests in order). */
export class Conn {
  private buf: Buffer = Buffer.alloc(0);
  private readonly pending: { sentNs: bigint; done: (status: number, ns: bigint) => void }[] = [];
  private readonly stallMs: number;
  /** Last time a reply arrived or a request was sent on an idle connection (ms, performance.now). */
  private lastProgress = performance.now();
  private readonly watchdog: NodeJS.Timeout;
  private closing = false;
  private failure: Error | null = null;
  private readonly onFail: ((e: Error) => void)[] = [];

  constructor(
    private readonly socket: Socket,
    private readonly name: string,
    options: ConnOptions = {},
  ) {
    this.stallMs = options.stallMs ?? STALL_MS;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (e) => this.fail(new Error(`${this.name}: ${e.message} with ${this.pending.length} requests in flight`)));
    socket.on('close', () => {
      if (!this.closing) this.fail(new Error(`${this.name}: closed by the server with ${this.pending.length} requests in flight`));
    });
    this.watchdog = setInterval(
      () => {
        if (this.pending.length > 0 && performance.now() - this.lastProgress > this.stallMs) {
          this.fail(new StallError(`${this.name}: no reply for ${this.stallMs} ms with ${this.pending.length} requests in flight`));
        }
      },
      Math.max(5, Math.min(1000, Math.floor(this.stallMs / 4))),
    );
    this.watchdog.unref();
  }

  /** Connect to 127.0.0.1:`port`; fails if the connection is refused or not made within `stallMs`. */
  static open(port: number, options: ConnOptions = {}): Promise<Conn> {
    const stallMs = options.stallMs ?? STALL_MS;
    const name = `HTTP load connection to 127.0.0.1:${port}`;
    return new Promise((resolve, reject) => {
      const s = connect(port, '127.0.0.1', () => {
        clearTimeout(timer);
        s.off('error', refused);
        resolve(new Conn(s, name, options));
      });
      const refused = (e: Error) => {
        clearTimeout(timer);
        reject(new Error(`${name}: ${e.message}`));
      };
      const timer = setTimeout(() => {
        s.destroy();
        reject(new StallError(`${name}: not connected within ${stallMs} ms`));
      }, stallMs);
      s.once('error', refused);
    });
  }

  /** The error that ended this connection, if one did. */
  get error(): Error | null {
    return this.failure;
  }

  /** Call `f` once if this connection fails (at once if it already has). */
  whenFailed(f: (e: Error) => void): void {
    if (this.failure !== null) f(this.failure);
    else this.onFail.push(f);
  }

  private fail(e: Error): void {
    if (this.failure !== null) return;
    this.failure = e;
    clearInterval(this.watchdog);
    this.closing = true;
    this.socket.destroy();
    for (const f of this.onFail.splice(0)) f(e);
  }
  get inFlight(): number {
    return this.pending.length;
  }
  /** `sentNs`: when the request was due (open loop), so that time queued for a free connection counts. */
  send(req: Buffer, done: (status: number, ns: bigint) => void, sentNs = process.hrtime.bigint()): void {
    if (this.failure !== null) return;
    if (this.pending.length === 0) this.lastProgress = performance.now();
    this.pending.push({ sentNs, done });
    this.socket.write(req);
  }
  private onData(chunk: Buffer): void {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    for (;;) {
      const head = this.buf.indexOf('\r\n\r\n');
      if (head < 0) return;
      const headers = this.buf.toString('latin1', 0, head);
      const m = /content-length:\s*(\d+)/i.exec(headers);
      const length = m ? Number(m[1]) : 0;
      if (this.buf.length < head + 4 + length) return;
      const status = Number(headers.slice(9, 12));
      if (status !== 200 && firstError === null) firstError = this.buf.toString('utf8', head + 4, head + 4 + length);
      this.buf = this.buf.subarray(head + 4 + length);
      this.lastProgress = performance.now();
      const p = this.pending.shift();
      if (p === undefined) return this.fail(new Error(`${this.name}: a reply to no request (status ${status})`));
      p.done(status, process.hrtime.bigint() - p.sentNs);
    }
  }
  close(): void {
    this.closing = true;
    clearInterval(this.watchdog);
    this.socket.destroy();
  }
}

/**
 * Open loop only: `sendLagUs`, from each request's due time to its write (timer lateness plus
 * any wait for a free connection); `sentUs`, each latency counted from the write instead.
 */
export type Round = { rate: number; latenciesUs: number[]; errors: number; firstError: number | null; sendLagUs?: number[]; sentUs?: number[] };

/** Closed loop: every connection keeps `depth` requests in flight for `ms`. */
export function closedLoop(conns: Conn[], reqs: Buffer[], cursor: { i: number }, ms: number, depth = 1): Promise<Round> {
  return new Promise((resolve, reject) => {
    const latenciesUs: number[] = [];
    let errors = 0;
    let firstError: number | null = null;
    let done = 0;
    const start = performance.now();
    const end = start + ms;
    let finished = false;
    const pump = (c: Conn) => {
      while (!finished && c.inFlight < depth && cursor.i < reqs.length && performance.now() < end) {
        c.send(reqs[cursor.i++]!, (status, ns) => {
          if (status !== 200) {
            errors++;
            firstError ??= status;
          }
          done++;
          latenciesUs.push(Number(ns) / 1000);
          if (performance.now() >= end || cursor.i >= reqs.length) {
            if (!finished && conns.every((x) => x.inFlight === 0)) {
              finished = true;
              resolve({ rate: done / ((performance.now() - start) / 1000), latenciesUs, errors, firstError });
            }
          } else pump(c);
        });
      }
    };
    for (const c of conns) {
      c.whenFailed((e) => {
        if (finished) return;
        finished = true;
        reject(new Error(`closed loop after ${done} replies: ${e.message}`, { cause: e }));
      });
    }
    conns.forEach(pump);
    if (!finished && conns.every((x) => x.inFlight === 0)) {
      finished = true;
      reject(new Error(`closed loop: nothing to send (${reqs.length - cursor.i} requests left)`));
    }
  });
}

/**
 * Open loop: `rate` requests per second for `ms`, each due at its scheduled time. A due
 * request waits for a free connection (one in flight per connection, see CONNS) and its
 * latency counts from when it was due, so queueing is measured, not hidden.
 */
export function openLoop(conns: Conn[], reqs: Buffer[], cursor: { i: number }, rate: number, ms: number): Promise<Round> {
  return new Promise((resolve, reject) => {
    const latenciesUs: number[] = [];
    const sendLagUs: number[] = [];
    const sentUs: number[] = [];
    let errors = 0;
    let firstError: number | null = null;
    let scheduled = 0;
    let done = 0;
    let stopped = false;
    const queue: { req: Buffer; dueNs: bigint }[] = [];
    const free = [...conns];
    const start = performance.now();
    const startNs = process.hrtime.bigint();
    let ended = false;
    const finish = () => {
      if (ended) return;
      ended = true;
      resolve({ rate: done / ((performance.now() - start) / 1000), latenciesUs, errors, firstError, sendLagUs, sentUs });
    };
    const drain = () => {
      while (queue.length > 0 && free.length > 0) {
        const c = free.pop()!;
        const { req, dueNs } = queue.shift()!;
        const lag = Number(process.hrtime.bigint() - dueNs) / 1000;
        sendLagUs.push(lag);
        c.send(
          req,
          (status, ns) => {
            if (status !== 200) {
              errors++;
              firstError ??= status;
            }
            latenciesUs.push(Number(ns) / 1000);
            sentUs.push(Number(ns) / 1000 - lag);
            free.push(c);
            if (++done === scheduled && stopped) finish();
            else drain();
          },
          dueNs,
        );
      }
    };
    const timer = setInterval(() => {
      const elapsed = performance.now() - start;
      const due = Math.min(Math.floor((Math.min(elapsed, ms) / 1000) * rate), reqs.length - cursor.i + scheduled);
      for (; scheduled < due; scheduled++) queue.push({ req: reqs[cursor.i++]!, dueNs: startNs + BigInt(Math.round((scheduled / rate) * 1e9)) });
      drain();
      if (elapsed >= ms) {
        clearInterval(timer);
        stopped = true;
        if (done === scheduled) finish();
      }
    }, 1);
    for (const c of conns) {
      c.whenFailed((e) => {
        if (ended) return;
        ended = true;
        clearInterval(timer);
        reject(new Error(`open loop after ${done} of ${scheduled} replies: ${e.message}`, { cause: e }));
      });
    }
  });
}
