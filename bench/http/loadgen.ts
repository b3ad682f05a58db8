/**
 * A small HTTP/1.1 load generator on raw sockets with pipelining: C connections, each with
 * up to `depth` requests in flight, for a fixed time. It counts responses by their byte
 * length (every reply of a run is the same cached JSON, so the same length) and measures
 * each request's latency from write to the end of its response.
 */
import { connect, type Socket } from 'node:net';

export type LoadResult = { requests: number; seconds: number; perSec: number; latenciesUs: Float64Array; errors: number };

/** Fetch one response to learn its exact size in bytes (headers and body). */
export function probe(port: number, path: string): Promise<{ bytes: number; status: number }> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, '127.0.0.1');
    let buf = Buffer.alloc(0);
    sock.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      const head = buf.indexOf('\r\n\r\n');
      if (head < 0) return;
      const m = /content-length:\s*(\d+)/i.exec(buf.subarray(0, head).toString());
      const total = head + 4 + Number(m?.[1] ?? 0);
      if (buf.length >= total) {
        sock.destroy();
        resolve({ bytes: total, status: Number(buf.subarray(9, 12).toString()) });
      }
    });
    sock.on('error', reject);
    sock.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
  });
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
    Array.from({ length: opts.connections }, () => new Promise<void>((resolve) => {
      const sock: Socket = connect(port, '127.0.0.1');
      sock.setNoDelay(true);
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
