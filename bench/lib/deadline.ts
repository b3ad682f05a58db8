/**
 * Benchmarks end by themselves: every wait (a reply, a child's message or exit, a server
 * starting, a WebSocket handshake, delivery progress) is bounded. A wait that passes its
 * bound fails the run with a message saying where it stalled, instead of hanging a busy host
 * for minutes. The bounds are generous (a slow, shared machine is not a stall):
 * BENCH_STALL_MS (default 120 s) for any one wait, BENCH_TIMEOUT_MS (default 30 min) for a
 * whole benchmark process under `npm run bench`.
 */

function positiveMs(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a whole number of milliseconds >= 1, got "${raw}"`);
  return n;
}

/** The bound of any one wait inside a benchmark (ms). */
export const STALL_MS = positiveMs('BENCH_STALL_MS', 120_000);
/** The bound of one whole benchmark process (ms). */
export const BENCH_TIMEOUT_MS = positiveMs('BENCH_TIMEOUT_MS', 30 * 60_000);

/** A benchmark wait that passed its bound. */
export class StallError extends Error {
  override readonly name = 'StallError';
}

/** Settles like `p`, or rejects with a StallError naming `where` once `ms` pass first. */
export function within<T>(p: Promise<T>, where: string, ms = STALL_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StallError(`stalled: ${where} did not happen within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
