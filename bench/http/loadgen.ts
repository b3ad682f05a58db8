/**
 * A small HTTP/1.1 load generator on raw sockets with pipelining: C connections, each with
 * up to `depth` requests in flight, for a fixed time. It counts responses by their byte
 * length (every reply of a run is the same cached JSON, so the same length) and measures
 * each request's latency from write to the end of its response.
 *
 * Every wait is bounded (bench/lib/deadline.ts): a probe, a connection and a closed-loop run
 * that stall fail with a message saying where; the open loop stops on its own timer.
 */
import { connect, type Socket } from 'node:net';
import { STALL_MS, StallError, within } from '../lib/deadline.ts';

export type LoadResult = { requests: number; seconds: number; perSec: number; latenciesUs: Float64Array; errors: number };

/** Fetch one response to learn its exact size in bytes (headers and body). */
export function probe(port: number, path: string): Promise<{ bytes: number; status: number }> {
  let sock: Socket | null = null;
  const answer = new Promise<{ bytes: number; status: number }>((resolve, reject) => {
    sock = connect(port, '127.0.0.1');
    let buf = Buffer.alloc(0);
    sock.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      const head = buf.indexOf('\r\n\r\n');
      if (head < 0) return;
      const m = /content-length:\s*(\d+)/i.exec(buf.subarray(0, head).toString());
      const total = head + 4 + Number(m?.[1] ?? 0);
      if (buf.length >= total) {
        sock!.destroy();
        resolve({ bytes: total, status: Number(buf.subarray(9, 12).toString()) });
      }
    });
    sock.on('error', reject);
    sock.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
  });
  return within(answer, `http load: the probe reply from 127.0.0.1:${port}${path}`).finally(() => (sock as Socket | null)?.destroy());
}

export async function load(port: number, path: string, opts: { connections: number; depth: number; seconds: number }): Promise<LoadResult> {
  const { bytes } = await probe(port, path);
  const request = Buffer.from(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
  const latencies: number[] = [];
  let done = 0;
  const errors = 0;
  const deadline = process.hrtime.bigint() + BigInt(Math.round(opts.seconds * 1e9));
  const start = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: opts.connections }, () => new Promise<void>((resolve, reject) => {
      const sock: Socket = connect(port, '127.0.0.1');
      sock.setNoDelay(true);
      // The run takes `seconds`; a connection still waiting STALL_MS after that has stalled.
      const bound = opts.seconds * 1000 + STALL_MS;
      const guard = setTimeout(() => {
        sock.destroy();
        reject(new StallError(`http load: a connection to 127.0.0.1:${port}${path} still waiting for replies ${bound} ms after its start (${sent.length} in flight)`));
      }, bound);
      sock.once('close', () => clearTimeout(guard));
      const sent: bigint[] = [];
      let pending = 0; // bytes of the current, incomplete response
      let stopped = false;
      const send = (n: number) => {
        for (let i = 0; i < n; i++) sent.push(process.hrtime.bigint());
        sock.write(n === 1 ? request : Buffer.concat(Array(n).fill(request)));
      };
      sock.on('connect', () => send(opts.depth));
      sock.on('data', (d) => {
        pending += d.length;
        let completed = 0;
        while (pending >= bytes) {
          pending -= bytes;
          completed++;
          const t0 = sent.shift()!;
          const now = process.hrtime.bigint();
          if (latencies.length < 2_000_000) latencies.push(Number(now - t0) / 1000);
        }
        done += completed;
        if (stopped) return;
        if (process.hrtime.bigint() >= deadline) {
          stopped = true;
          sock.destroy();
          resolve();
          return;
        }
        if (completed > 0) send(completed);
      });
      sock.on('error', () => resolve());
      sock.on('close', () => resolve());
    })),
  );
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { requests: done, seconds, perSec: done / seconds, latenciesUs: Float64Array.from(latencies), errors };
}

export type OpenLoadResult = { requests: number; answeredPerSec: number; latenciesUs: Float64Array; fromWriteUs: Float64Array; unanswered: number; closed: number };

/**
 * Open loop: `rate` requests per second for `seconds`, each due at its scheduled time,
 * spread round-robin over `connections`. Every millisecond the requests that fell due are
 * written, those for one connection in one write (pipelined: these replies are answered at
 * once, so uWS keeps the connection), and each latency is counted from the request's due
 * time, so the generator's own lateness counts against the server rather than hiding
 * queueing; `fromWriteUs` counts from the write instead. Replies are counted by their
 * known byte length (probe), so that the generator stays cheap beside the server on 2 cores.
 * (bench/lib/httpLoad.ts's `openLoop`, which parses every reply's headers and keeps one
 * request in flight per connection for the order route, answered only ~13,000 of the
 * 40,000 req/s here: the generator, not the server, was the limit.)
 */
export async function openLoad(port: number, path: string, opts: { connections: number; rate: number; seconds: number }): Promise<OpenLoadResult> {
  const { bytes } = await probe(port, path);
  const one = Buffer.from(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
  const batches: Buffer[] = [one];
  const batch = (k: number): Buffer => (batches[k - 1] ??= Buffer.concat(Array<Buffer>(k).fill(one)));
  const total = Math.round(opts.rate * opts.seconds);
  const dueNs = new Float64Array(total); // since start
  const writeNs = new Float64Array(total);
  const latencies = new Float64Array(total);
  const fromWrite = new Float64Array(total);
  let answered = 0;
  const socks = await Promise.all(
    Array.from({ length: opts.connections }, () => {
      let s: Socket | null = null;
      const connected = new Promise<Socket>((resolve, reject) => {
        s = connect(port, '127.0.0.1', () => resolve(s!));
        s.once('error', reject);
      });
      return within(connected, `http open load: connecting to 127.0.0.1:${port}`).catch((e: unknown) => {
        (s as Socket | null)?.destroy();
        throw e;
      });
    }),
  );
  const start = process.hrtime.bigint();
  const since = (): number => Number(process.hrtime.bigint() - start);
  // Per connection, the indexes of its requests in flight, oldest first.
  const inFlight = socks.map(() => [] as number[]);
  const heads = socks.map(() => 0);
  let lastEnd = 0;
  let closed = 0;
  await new Promise<void>((resolve) => {
    let finished = false;
    const finish = (): void => {
      if (finished) return;
      finished = true;
      clearInterval(timer);
      clearTimeout(stop);
      resolve();
    };
    socks.forEach((s, c) => {
      s.setNoDelay(true);
      let pending = 0;
      s.on('data', (d: Buffer) => {
        pending += d.length;
        const now = since();
        const q = inFlight[c]!;
        while (pending >= bytes) {
          pending -= bytes;
          const i = q[heads[c]!++]!;
          latencies[i] = (now - dueNs[i]!) / 1000;
          fromWrite[i] = (now - writeNs[i]!) / 1000;
          answered++;
        }
        lastEnd = now;
        if (answered === total) finish();
      });
      s.on('error', finish);
      s.on('close', () => {
        if (!finished) closed++;
      });
    });
    let scheduled = 0;
    let next = 0;
    const timer = setInterval(() => {
      const now = since();
      const due = Math.min(total, Math.floor((now / 1e9) * opts.rate));
      if (due <= scheduled) return;
      const n = due - scheduled;
      const per = Math.floor(n / socks.length);
      const extra = n % socks.length;
      for (let k = 0; k < socks.length; k++) {
        const c = (next + k) % socks.length;
        const count = per + (k < extra ? 1 : 0);
        if (count === 0) continue;
        for (let j = 0; j < count; j++) {
          const i = scheduled++;
          dueNs[i] = (i / opts.rate) * 1e9;
          writeNs[i] = now;
          inFlight[c]!.push(i);
        }
        socks[c]!.write(batch(count));
      }
      next = (next + extra) % socks.length;
    }, 1);
    // Replies still missing a second after the last request was due are counted as unanswered.
    const stop = setTimeout(finish, opts.seconds * 1000 + 1000);
  });
  for (const s of socks) s.destroy();
  // Requests are answered in order per connection, not overall: take the answered ones' latencies.
  const answeredIdx = socks.flatMap((_, c) => inFlight[c]!.slice(0, heads[c]!));
  const lat = Float64Array.from(answeredIdx, (i) => latencies[i]!);
  const fw = Float64Array.from(answeredIdx, (i) => fromWrite[i]!);
  return { requests: total, answeredPerSec: answered / (lastEnd / 1e9), latenciesUs: lat, fromWriteUs: fw, unanswered: total - answered, closed };
}
