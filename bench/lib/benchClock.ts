/**
 * An injectable venue clock for a benchmark's server (a child process: bench/lib/benchServer.ts),
 * as the tests inject one (`startApp(config, { clock })`, test/gateway/support/testApp.ts), so
 * that a benchmark can take the venue past a series' expiry (08:00 UTC, docs/domain.md
 * "Expiries") without waiting for it.
 *
 * BENCH_CLOCK_START=<Unix ms> in the child's environment: the venue's clock starts at that
 * instant and runs on at real speed; the generator moves it forward by asking the child over
 * its IPC channel (the child calls `advance`). Unset or empty: no injected clock, the venue
 * runs on the real clock (the default: bench/orders and every other phase keep it).
 *
 * The embedded chain follows: with CHAIN=embedded the relayer sends each batch with the
 * chain's next block at least at the batch's match time (`followVenueClock`, docs/chain.md
 * "The relayer"), so a venue clock ahead of the chain moves the chain on; one behind it (a
 * start in the past, as the tests use) needs nothing.
 */

export const BENCH_CLOCK_START = 'BENCH_CLOCK_START';

export type BenchClock = {
  /** The venue's time (Unix ms, whole): the start, plus the real time since, plus every advance. */
  readonly now: () => number;
  /** Moves the clock `ms` forward from now on (never back). */
  advance(ms: number): void;
};

/** The clock BENCH_CLOCK_START asks for, or null (the real clock). */
export function benchClockFromEnv(env: NodeJS.ProcessEnv = process.env): BenchClock | null {
  const raw = env[BENCH_CLOCK_START];
  if (raw === undefined || raw === '') return null;
  const start = Number(raw);
  if (!Number.isSafeInteger(start) || start < 0) throw new Error(`${BENCH_CLOCK_START} must be Unix milliseconds (a whole number >= 0), got "${raw}"`);
  const realStart = performance.now();
  let offset = 0;
  return {
    now: () => start + offset + Math.floor(performance.now() - realStart),
    advance(ms) {
      if (!Number.isSafeInteger(ms) || ms < 0) throw new RangeError(`advance: ms must be a whole number >= 0, got ${ms}`);
      offset += ms;
    },
  };
}
