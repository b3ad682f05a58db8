/**
 * Start the real venue on a free port with a temporary data directory, a controllable
 * clock and no timers, for gateway tests; and small request helpers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { getAddress } from 'viem';
import { loadConfig } from '../../../gateway/config.ts';
import { startApp, type App, type Every } from '../../../gateway/app.ts';
import { jsonLogger, silentLogger, type Logger } from '../../../gateway/http/log.ts';
import { hashToken } from '../../../persistence/stores.ts';
import { json, readReply } from '../../../client/venueClient.ts';

export type TestClock = { now: number; advance(ms: number): void };

export type TestApp = {
  readonly url: string;
  readonly app: App;
  readonly clock: TestClock;
  readonly dataDir: string;
  /** A login session issued directly (for tests of other layers; test/gateway/auth does real SIWE logins). */
  session(address: string, form?: 'current' | 'earlier'): Promise<string>;
  close(): Promise<void>;
};

/**
 * The instant a test app starts at unless a test passes its own: fixed, so that no test
 * depends on the day it runs (the listed expiries, and so strikes, deltas and times to
 * expiry, follow the venue's clock). A Monday, 12:00 UTC.
 */
export const TEST_START_AT = Date.UTC(2026, 0, 5, 12, 0, 0);

/** KEY_ENCRYPTION_KEY of the test nodes that run with JOURNAL=nats (startTestApp sets it unless env names one). */
export const TEST_SHARED_KEY = '5a'.repeat(32);

export type TestAppOptions = {
  env?: Record<string, string>;
  log?: Logger;
  memory?: boolean;
  dataDir?: string;
  /** The venue clock's start (Unix ms); TEST_START_AT by default. Never derive it from the real clock. */
  startAt?: number;
  /** The app's scheduler of venue@health (AppOptions.every); none by default (tests call app.monitor.tick()). */
  every?: Every;
  /** AppOptions.snapshotInThread: periodic snapshots on the main thread instead of the snapshot worker. */
  snapshotInThread?: boolean;
};

/** TEST_CHAIN=embedded: every test app settles on an embedded chain (fast blocks). */
function testChainEnv(): Record<string, string> {
  const mode = process.env['TEST_CHAIN'];
  return mode === 'embedded' ? { CHAIN: 'embedded', CHAIN_BLOCK_TIME_MS: '200' } : {};
}

export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'venue-test-'));
  // JOURNAL=nats shares the stores, sealed with a key every node must have: one for all tests.
  const sharedKey = options.env?.['JOURNAL'] === 'nats' ? { KEY_ENCRYPTION_KEY: TEST_SHARED_KEY } : {};
  // Tests that do not test the chain run without one (CHAIN=none), unless TEST_CHAIN names one
  // (test/chain/suites.test.ts runs suites again with the embedded chain); a test of settlement names CHAIN itself.
  const chain = options.env?.['JOURNAL'] === 'nats' ? {} : testChainEnv();
  // The relayer follows the LMDB journal: under TEST_CHAIN an in-memory app keeps its data in a temporary DATA_DIR instead.
  const memory = (options.memory ?? false) && chain['CHAIN'] === undefined;
  const loaded = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, WORKERS: '1', CHAIN: 'none', ...chain, ...sharedKey, ...options.env });
  if (!loaded.ok) throw new Error(loaded.errors.join('; '));
  const clock: TestClock = {
    now: options.startAt ?? TEST_START_AT,
    advance(ms) {
      this.now += ms;
    },
  };
  // TEST_LOG=1: the app's log lines on stderr (to look into a failing test); silent otherwise.
  const log = options.log ?? (process.env['TEST_LOG'] === '1' ? jsonLogger('info') : silentLogger);
  const app = await startApp(loaded.config, { log, clock: () => clock.now, inlineWorkers: true, drivers: false, memory, ...(options.every !== undefined ? { every: options.every } : {}), ...(options.snapshotInThread === true ? { snapshotInThread: true } : {}) });
  return {
    url: `http://127.0.0.1:${app.port}`,
    app,
    clock,
    dataDir,
    async session(address, form = 'current') {
      const token = randomBytes(32).toString('hex');
      const user = await app.services.stores.users.getOrCreate(getAddress(address), clock.now);
      await app.services.stores.sessions.put(hashToken(token), { userId: user.id, address, createdAt: clock.now, expiresAt: clock.now + 24 * 3600_000, form });
      return token;
    },
    async close() {
      if (process.env['TEST_CHAIN'] !== undefined && app.chain !== null) await settledBeforeClose(app);
      await app.close();
      if (options.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export type JsonResponse = { status: number; body: any; headers: Headers };

export async function request(url: string, init: { method?: string; body?: unknown; token?: string; headers?: Record<string, string> } = {}): Promise<JsonResponse> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (init.token !== undefined) headers['authorization'] = `Bearer ${init.token}`;
  return readReply(await fetch(url, { method: init.method ?? (init.body === undefined ? 'GET' : 'POST'), headers, ...(init.body !== undefined ? { body: typeof init.body === 'string' ? init.body : json(init.body) } : {}) }));
}

/**
 * Under TEST_CHAIN, a suite's app settles everything it committed before it closes, and a halt
 * fails the test: every scenario of the suite is then also a settlement test (test/chain/suites.test.ts).
 */
async function settledBeforeClose(app: App): Promise<void> {
  await app.services.pipeline.drain();
  // The relayer thread's start (its replica of the venue from genesis) takes 15 s alone on a
  // 2-core host and several times that beside other test files: a generous bound.
  const deadline = Date.now() + 150_000;
  for (;;) {
    const m = app.chain!.metrics();
    if (m?.halted) throw new Error(`settlement halted: ${m.halted}`);
    const last = app.storage.journal.lastSeq();
    const lastTrade = app.engine.state.nextTradeId - 1;
    const tradesFinal = lastTrade === 0 || app.services.reads.settlement.trade(String(lastTrade)).relayStatus === 'final';
    if (m !== null && m.replicaSeq >= last && m.openItems === 0 && m.outboxBatches === 0 && app.services.reads.settlement.settledBatch === m.chainSeq && m.lastReconciledBatch === m.chainSeq && tradesFinal) return;
    if (Date.now() > deadline) throw new Error(`settlement did not finish before close: ${JSON.stringify(m)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
