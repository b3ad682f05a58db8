/**
 * The HTTP load generator of bench/orders: raw HTTP/1.1 keep-alive connections that match
 * replies to requests in order, and closed-loop and open-loop drivers over pre-serialised
 * requests. Latencies are in microseconds; an open loop counts them from each request's due
 * time (so queueing is measured, not hidden) and also from its write.
 */
import { connect, type Socket } from 'node:net';

let firstError: string | null = null;

/** The body of the first non-200 reply any connection read (for the benchmark's error message). */
export function firstErrorBody(): string | null {
  return firstError;
}

/** One keep-alive connection (pipelining-capable: replies are matched to requests in order). */
export class Conn {
  private buf: Buffer = Buffer.alloc(0);
  private readonly pending: { sentNs: bigint; done: (status: number, ns: bigint) => void }[] = [];
  constructor(private readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
  }
  static open(port: number): Promise<Conn> {
    return new Promise((resolve, reject) => {
      const s = connect(port, '127.0.0.1', () => resolve(new Conn(s)));
      s.once('error', reject);
    });
  }
  get inFlight(): number {
    return this.pending.length;
  }
  /** `sentNs`: when the request was due (open loop), so that time queued for a free connection counts. */
  send(req: Buffer, done: (status: number, ns: bigint) => void, sentNs = process.hrtime.bigint()): void {
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
      const p = this.pending.shift()!;
      p.done(status, process.hrtime.bigint() - p.sentNs);
    }
  }
  close(): void {
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
  return new Promise((resolve) => {
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
    conns.forEach(pump);
  });
}

/**
 * Open loop: `rate` requests per second for `ms`, each due at its scheduled time. A due
 * request waits for a free connection (one in flight per connection, see CONNS) and its
 * latency counts from when it was due, so queueing is measured, not hidden.
 */
export function openLoop(conns: Conn[], reqs: Buffer[], cursor: { i: number }, rate: number, ms: number): Promise<Round> {
  return new Promise((resolve) => {
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
    const finish = () => resolve({ rate: done / ((performance.now() - start) / 1000), latenciesUs, errors, firstError, sendLagUs, sentUs });
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
  });
}
