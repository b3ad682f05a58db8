/**
 * The sequence that crashed at SIGTERM in about 2 of 21 runs (issue "1/8 Hardening"): a
 * venue killed with SIGKILL, restarted on the same DATA_DIR, then sent SIGTERM. A worker
 * thread could not load its task ("Unknown file extension .ts") and the process died before
 * its final snapshot. Every worker now loads through workers/loadTask.cjs, a worker failing
 * outside a task is logged instead of ending the process, and nothing starts a worker after
 * close. Repeated here with the real process and its real worker pools: every restart stops
 * gracefully, exit 0, with its final snapshot, and no worker ever fails to load.
 */
import t from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('../../gateway/main.ts', import.meta.url));
const fakeToday = fileURLToPath(new URL('../support/fakeToday.mjs', import.meta.url));
const START_AT = Date.UTC(2026, 0, 5, 12, 0, 0);
const ROUNDS = 3;
/** A safety net only: each wait fails the test with a message instead of hanging. */
const WAIT_MS = 60_000;

type Venue = { child: ChildProcess; stderr: () => string; exited: Promise<[number | null, NodeJS.Signals | null]> };

function startVenue(dataDir: string, startAt: number): Venue {
  const child = spawn(process.execPath, ['--import', fakeToday, '--import', 'tsx', main], {
    env: { ...process.env, CHAIN: 'none', FAKE_TODAY: String(startAt), PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, WORKERS: '2', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((r) => child.once('exit', (c, s) => r([c, s])));
  return { child, stderr: () => err, exited };
}

async function waitFor(v: Venue, pattern: RegExp, what: string): Promise<void> {
  const deadline = setTimeout(() => v.child.kill('SIGKILL'), WAIT_MS);
  try {
    while (!pattern.test(v.stderr())) {
      const more = new Promise<void>((r) => v.child.stderr!.once('data', () => r()));
      const ended = v.exited.then(() => 'exit' as const);
      if ((await Promise.race([more, ended])) === 'exit' && !pattern.test(v.stderr())) throw new Error(`the venue exited before ${what}:\n${v.stderr()}`);
    }
  } finally {
    clearTimeout(deadline);
  }
}

t.test(`kill -9, restart, SIGTERM, ${ROUNDS} times: every stop is graceful`, async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'venue-sigterm-kill-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  for (let round = 1; round <= ROUNDS; round++) {
    const startAt = START_AT + round * 3_600_000;
    const killed = startVenue(dataDir, startAt);
    await waitFor(killed, /"msg":"listening"/, `listening (round ${round}, before the kill)`);
    killed.child.kill('SIGKILL');
    t.same((await killed.exited)[1], 'SIGKILL', `round ${round}: killed`);

    const restarted = startVenue(dataDir, startAt + 60_000);
    await waitFor(restarted, /"msg":"listening"/, `listening (round ${round}, after the restart)`);
    restarted.child.kill('SIGTERM');
    const [code, signal] = await restarted.exited;
    const err = restarted.stderr();
    t.same([code, signal], [0, null], `round ${round}: exit 0 after SIGTERM`);
    t.match(err, /"msg":"snapshots: saved seq \d+/, `round ${round}: the final snapshot`);
    t.match(err, /"msg":"stopped"/, `round ${round}: stopped`);
    t.notMatch(err, /Unknown file extension|worker thread failed/, `round ${round}: every worker loaded`);
  }
});
