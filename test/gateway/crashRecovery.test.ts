/**
 * kill -9 of the real engine behind the real pipeline and LMDB journal (persistence's own
 * test does the same with a toy engine): every acknowledged command is recovered, and the
 * recovered venue's state hash equals that of an in-memory venue that applied exactly the
 * recovered commands.
 */
import t from 'tap';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStorage } from '../../persistence/storage.ts';
import { recover } from '../../persistence/recover.ts';
import { Venue } from '../../engine/venue.ts';
import { replayable } from '../../gateway/app.ts';
import { silentLogger } from '../../gateway/http/log.ts';
import { Harness } from '../engine/support/venueFixture.ts';
import { randomBodies } from '../engine/support/randomStream.ts';

const child = fileURLToPath(new URL('./support/venueCrashChild.ts', import.meta.url));

function runAndKill(dir: string, seed: number, ackTarget: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', child, dir, String(seed)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let maxAck = 0;
    let buf = '';
    let err = '';
    p.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    p.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      const lines = buf.split('\n');
      buf = lines.pop()!;
      for (const l of lines) if (l.startsWith('ack ')) maxAck = Math.max(maxAck, Number(l.slice(4)));
      if (maxAck >= ackTarget) p.kill('SIGKILL');
    });
    p.once('exit', (_code, signal) => (signal === 'SIGKILL' ? resolve(maxAck) : reject(new Error(`child ended by itself: ${err.slice(0, 2000)}`))));
  });
}

for (const [seed, target] of [
  [11, 400],
  [12, 900],
  [13, 1500],
] as const) {
  t.test(`seed ${seed}: killed after ${target} acknowledgements`, async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'venue-crash-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const acked = await runAndKill(dir, seed, target);
    t.ok(acked >= target, `the child acknowledged ${acked} commands`);

    const storage = openStorage({ dataDir: dir, log: silentLogger });
    t.teardown(() => storage.close());
    const recovered = recover({ journal: storage.journal, snapshots: storage.snapshots, create: () => replayable(Venue.create()), restore: (b) => replayable(Venue.restore(b)), log: silentLogger });
    t.ok(recovered.lastSeq >= acked, `every acknowledged command is recovered (${recovered.lastSeq} >= ${acked})`);

    const h = new Harness();
    for (const { body, advance } of randomBodies(h, seed, 1_000_000)) {
      if (h.seq === recovered.lastSeq) break;
      h.run(body, advance);
    }
    t.equal(h.seq, recovered.lastSeq);
    t.equal(recovered.engine.venue.stateHash(), h.venue.stateHash(), 'the recovered state equals a replay of exactly the recovered commands');
  });
}
