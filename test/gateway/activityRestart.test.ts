/**
 * The platform, leaderboard, points and user-analytics reads are rebuilt exactly after a crash:
 * a venue in a child process trades and is killed with SIGKILL (no final snapshot); the venue
 * restarted on its DATA_DIR answers every read of those groups exactly as the killed one did,
 * - replaying the whole journal (no snapshot at all), and
 * - from an older snapshot (a clean close after a first round of fills) plus the journal of a
 *   second round after it;
 * and in both, the chain webhook round 1 took is a duplicate when sent again (no second credit).
 */
import t from 'tap';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestApp, TEST_START_AT } from './support/testApp.ts';
import { wallet } from './routes/ordersFixture.ts';
import { allReads, chainDeposit, WEBHOOK_SECRET } from './routes/activityFixture.ts';

const child = fileURLToPath(new URL('./support/activityCrashChild.ts', import.meta.url));
const HOUR = 3_600_000;
const CHILD_TIMEOUT_MS = 120_000;

/** Run one round in a child; unless `close`, SIGKILL it once it printed its reads. */
function runChild(dir: string, startAt: number, round: 1 | 2, close: boolean): Promise<{ now: number; reads?: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', child, dir, String(startAt), String(round), close ? 'close' : 'kill'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let result: { now: number; reads?: Record<string, unknown> } | null = null;
    const timer = setTimeout(() => {
      p.kill('SIGKILL');
      reject(new Error(`the child did not finish round ${round} in ${CHILD_TIMEOUT_MS} ms: ${err.slice(0, 2000)}`));
    }, CHILD_TIMEOUT_MS);
    p.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    p.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf('\n');
      if (nl < 0 || result !== null) return;
      result = JSON.parse(out.slice(0, nl));
      if (!close) p.kill('SIGKILL');
    });
    p.once('exit', (_code, signal) => {
      clearTimeout(timer);
      if (result === null) reject(new Error(`the child ended without a result (${signal ?? _code}): ${err.slice(0, 2000)}`));
      else if (!close && signal !== 'SIGKILL') reject(new Error('the child was not killed'));
      else resolve(result);
    });
  });
}

const pair = { alice: { address: wallet('restart-alice').address }, bob: { address: wallet('restart-bob').address } } as const;

/** Every read of the restarted venue; then round 1's chain webhook sent again: its reply and whether alice's cash moved. */
async function readsAfterRestart(dir: string, now: number): Promise<{ reads: Record<string, unknown>; repeat: unknown; cashMoved: boolean }> {
  const app = await startTestApp({ dataDir: dir, startAt: now, env: { WEBHOOK_SECRET } });
  try {
    const reads = await allReads(app, pair as never, TEST_START_AT - 26 * HOUR, now);
    const cash = () => {
      const p = app.app.engine.state.accounts.portfolio(pair.alice.address, 1);
      return p === undefined ? undefined : app.app.engine.state.accounts.depositOf(p);
    };
    const before = cash();
    if (before === undefined || before === 0n) throw new Error("alice's portfolio 1 holds no cash: the repeat would prove nothing");
    const repeat = await chainDeposit(app, pair.alice.address, 1);
    return { reads, repeat: [repeat.status, repeat.body], cashMoved: cash() !== before };
  } finally {
    await app.close();
  }
}

const DUPLICATE = [200, { id: 'evt-restart-deposit', duplicate: true }];

t.test('killed after its fills: the restarted venue replays the journal and answers the same reads', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'activity-kill-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const killed = await runChild(dir, TEST_START_AT, 1, false);
  const reads = killed.reads!;
  t.equal((reads['/api/leaderboard?metric=points&period=all'] as { body: { entries: unknown[] } }).body.entries.length, 2, 'the killed venue ranked both wallets');
  const after = await readsAfterRestart(dir, killed.now);
  t.same(after.reads, reads, 'every read, the same after the restart');
  t.same([after.repeat, after.cashMoved], [DUPLICATE, false], "round 1's chain webhook sent again: a duplicate that credits nothing (its id is durable)");
});

t.test('restarted from an older snapshot plus the journal after it: the same reads', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'activity-snapshot-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const first = await runChild(dir, TEST_START_AT, 1, true); // a clean close: the snapshot
  const killed = await runChild(dir, first.now + 20 * HOUR, 2, false);
  const reads = killed.reads!;
  const history = reads['/api/user/me/analytics?interval=1h&from=' + String(TEST_START_AT - 26 * HOUR) + '&to=' + String(killed.now) + ' as alice'] as { body: { points: { trades: number }[] } };
  t.equal(history.body.points.reduce((n, p) => n + p.trades, 0), 4, 'both rounds are in the killed venue\'s history');
  const after = await readsAfterRestart(dir, killed.now);
  t.same(after.reads, reads, 'every read, the same after the restart');
  t.same([after.repeat, after.cashMoved], [DUPLICATE, false], "round 1's chain webhook (in the snapshot) sent again: a duplicate");
});
