/**
 * The venue as a child process of an end-to-end benchmark (bench/orders.ts, bench/wsorders.ts):
 * the generator forks its own file with `--server`, asks it questions over IPC (each answer
 * bounded: a server that stops answering fails the run), and stops it at the end; a
 * generator that fails kills it, so a failed run ends.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { within } from './deadline.ts';

export type BenchServer<To extends { type: string }, From> = {
  readonly child: ChildProcess;
  /** Send `m` (null: only wait, for the start-up message) and wait for the next message from the server. */
  ask(m: To | null): Promise<From>;
  /** Ask the server to stop and wait for it to exit. */
  stop(): Promise<void>;
};

/** The running server, killed when the generator fails. */
let running: ChildProcess | null = null;

export function forkBenchServer<To extends { type: string }, From>(name: string, file: string, execArgv: readonly string[], env: Record<string, string> = {}): BenchServer<To, From> {
  const child = fork(file, ['--server'], { execArgv: ['--import', 'tsx', ...execArgv], stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: { ...process.env, ...env } });
  running = child;
  const waiters: { resolve: (m: From) => void; reject: (e: Error) => void }[] = [];
  child.on('message', (m: From) => waiters.shift()?.resolve(m));
  let stopping = false;
  child.once('exit', (code, signal) => {
    if (stopping) return;
    const e = new Error(`${name}: the server process exited (${code ?? signal}) while the generator was running`);
    for (const w of waiters.splice(0)) w.reject(e);
  });
  return {
    child,
    ask: (m) =>
      within(
        new Promise<From>((resolve, reject) => {
          waiters.push({ resolve, reject });
          if (m) child.send(m);
        }),
        `${name}: the server's answer to ${m === null ? 'start-up (ready)' : m.type}`,
      ),
    async stop() {
      stopping = true;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send({ type: 'stop' });
      await within(exited, `${name}: the server process exiting after stop`);
      running = null;
    },
  };
}

/** Run a benchmark file: its server when forked with `--server` (never outliving the generator), else its generator, killing the server if it fails. */
export async function runBenchFile(name: string, main: () => Promise<void>, server: () => Promise<void>): Promise<void> {
  if (process.argv.includes('--server')) {
    process.on('disconnect', () => process.exit(1));
    await server();
    return;
  }
  await main().catch((e: unknown) => {
    running?.kill('SIGKILL');
    process.stderr.write(`# bench ${name} failed: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
}

/** What a load generator needs from the venue it started: sessions of the funded wallets, live series to quote, the signing domain. */
export type BenchVenueSetup = {
  readonly tokens: string[];
  readonly series: { seriesId: `0x${string}`; expiry: number; markTick: number }[];
  readonly domain: import('../../workers/eip712/types.ts').Eip712Domain;
  readonly now: number;
};

/**
 * The venue of an end-to-end benchmark, in the child: a fresh data directory, the orders rate
 * limit off, no periodic snapshot in the run unless BENCH_SNAPSHOT_EVERY_COMMANDS asks for
 * them (written in the main thread, before the snapshot worker, one of the grown state held it
 * for a second or more and landed on whichever subject ran at command 100,000;
 * BENCH_SNAPSHOT_IN_THREAD=1 writes them there again, for comparison), no drivers; each owner a funded market maker with a session; eight call series a day or more out.
 * `options` go to startApp as startBenchApp's do (bench/settlement's timed venue passes its injected `clock`).
 */
export async function startBenchVenue(name: string, owners: readonly string[], options: Omit<import('../../gateway/app.ts').AppOptions, 'log' | 'drivers'> = {}) {
  const { app, dataDir, config } = await startBenchApp(name, options);
  return { app, dataDir, setup: await fundBenchVenue(app, config, owners, options.clock) };
}

/**
 * The venue of startBenchVenue without its owners: a fresh data directory under os.tmpdir()
 * (TMPDIR), the rest of the configuration from the environment (bench/cluster passes
 * JOURNAL=nats, NATS_URL, EDGE ... there), `options` passed to startApp beside the log (silent;
 * BENCH_LOG_FILE=file appends its JSON lines there).
 */
export async function startBenchApp(name: string, options: Omit<import('../../gateway/app.ts').AppOptions, 'log' | 'drivers'> = {}) {
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { loadConfig } = await import('../../gateway/config.ts');
  const { startApp } = await import('../../gateway/app.ts');
  const { silentLogger, jsonLogger } = await import('../../gateway/http/log.ts');
  const { appendFileSync } = await import('node:fs');
  // BENCH_LOG_FILE=file: the venue's log lines there (JSON), to look into a failed run.
  const logFile = process.env.BENCH_LOG_FILE;
  const log = logFile ? jsonLogger('info', (line) => appendFileSync(logFile, line)) : silentLogger;
  const dataDir = mkdtempSync(join(tmpdir(), `bench-${name}-`));
  const unlimited = { anonymous: null, tier1: null, tier2: null, tier3: null };
  // CHAIN=none unless the caller names one: the order route's own benches compare with a floor
  // that runs no chain; bench/settlement sets CHAIN=embedded and measures the relayer's cost.
  const loaded = loadConfig({ ...process.env, CHAIN: process.env.CHAIN || 'none', PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, RATE_LIMITS: JSON.stringify({ orders: unlimited }), SNAPSHOT_EVERY_COMMANDS: process.env.BENCH_SNAPSHOT_EVERY_COMMANDS ?? String(2 ** 31 - 1) });
  if (!loaded.ok) throw new Error(loaded.errors.join('; '));
  const config = loaded.config;
  const app = await startApp(config, { snapshotInThread: process.env.BENCH_SNAPSHOT_IN_THREAD === '1', ...options, log, drivers: false });
  return { app, dataDir, config };
}

/**
 * Each owner a funded market maker with a session in this venue's stores; eight call series a
 * day or more out. On an edge (EDGE=1) the commands are forwarded to the leader and the
 * sessions are the edge's own. `clock`: the venue's clock when one was injected
 * (bench/lib/benchClock.ts), so that sessions, series and order deadlines are of its time.
 */
export async function fundBenchVenue(app: import('../../gateway/app.ts').App, config: import('../../gateway/config.ts').AppConfig, owners: readonly string[], clock: () => number = Date.now): Promise<BenchVenueSetup> {
  const { randomBytes } = await import('node:crypto');
  const { hashToken } = await import('../../persistence/stores.ts');
  const { orderBookDomain } = await import('../../workers/eip712/types.ts');
  const { pipeline, stores, reads } = app.services;
  const now = clock();
  const tokens: string[] = [];
  for (const owner of owners) {
    await pipeline.submit({ type: 'set_mmm', address: owner, isMmm: true });
    await pipeline.submit({ type: 'deposit', owner, portfolioId: 0, amount: 10n ** 15n });
    const token = randomBytes(32).toString('hex');
    const user = await stores.users.getOrCreate(owner, now);
    await stores.sessions.put(hashToken(token), { userId: user.id, address: owner, createdAt: now, expiresAt: now + 3600_000, form: 'current' });
    tokens.push(token);
  }
  const live = [...reads.catalog.series.values()].filter((s) => !s.settled && s.expiry > now / 1000 + 86_400 && s.isCall);
  const series = live.slice(0, 8).map((s) => {
    const tickDecimals = reads.catalog.pairs.get(s.pairId)!.tickDecimals;
    return { seriesId: s.seriesId, expiry: s.expiry, markTick: Math.max(1, Number(s.marks.mark / 10n ** BigInt(18 - tickDecimals))) };
  });
  return { tokens, series, domain: orderBookDomain(config.serviceName, config.chainId, config.contracts.orderBook), now };
}
