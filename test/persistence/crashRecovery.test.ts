/**
 * kill -9 at random moments: every acknowledged command must be in the recovered state, and
 * the recovered state must equal a replay of exactly the recovered commands from scratch.
 * Each run continues in the same DATA_DIR from what the previous run left (recovery, stale
 * lock takeover, snapshots and pruning all exercised), seeded so a failure can be replayed.
 */
import t from 'tap';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { openStorage } from '../../persistence/storage.ts';
import { captureLogger } from './fixtures/captureLogger.ts';
import { recoverToy, replayFromScratch, SEED } from './fixtures/drive.ts';
import { rng } from './fixtures/rng.ts';
import { tempDir } from './fixtures/tempDir.ts';
import { encodeValue } from '../../persistence/codec.ts';
import { toyCommand } from './fixtures/toyEngine.ts';

const child = fileURLToPath(new URL('./fixtures/crashChild.ts', import.meta.url));

/** Runs the child until it has acknowledged at least `ackTarget` (or errors), kills it with SIGKILL; returns the highest ack seen. */
function runAndKill(dir: string, ackTarget: number, maxBurst: number, durability: string): Promise<{ maxAck: number; recoveredAt: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', child, dir, String(maxBurst), durability], { stdio: ['ignore', 'pipe', 'pipe'] });
    let buffered = '';
    let stderr = '';
    let maxAck = 0;
    let recoveredAt = -1;
    let killed = false;
    p.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    p.stdout!.on('data', (d: Buffer) => {
      buffered += d.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        const [word, n] = line.split(' ');
        if (word === 'ack') maxAck = Math.max(maxAck, Number(n));
        if (word === 'recovered') recoveredAt = Number(n);
      }
      if (!killed && maxAck >= ackTarget) {
        killed = true;
        p.kill('SIGKILL');
      }
    });
    p.once('exit', (code, signal) => {
      // Lines written before the kill may still sit in the pipe: read them all before judging.
      const tail = buffered.split('\n');
      for (const line of tail) if (line.startsWith('ack ')) maxAck = Math.max(maxAck, Number(line.slice(4)));
      if (signal !== 'SIGKILL') reject(new Error(`child exited by itself (${code ?? signal}): ${stderr}`));
      else resolve({ maxAck, recoveredAt, stderr });
    });
  });
}

t.test('kill -9 never loses an acknowledged command', async (t) => {
  const dir = tempDir(t, 'crash-');
  const r = rng(0xc0ffee);
  let previous = 0;
  for (let run = 1; run <= 4; run++) {
    const target = previous + 300 + r.int(2_000);
    const maxBurst = 1 + r.int(400);
    // Both acknowledgement points must survive kill -9 (docs/persistence.md): 'flush' (the
    // default) and 'commit'. Runs alternate between them on the same DATA_DIR.
    const durability = run % 2 === 0 ? 'commit' : 'flush';
    const { maxAck, recoveredAt, stderr } = await runAndKill(dir, target, maxBurst, durability);
    t.equal(recoveredAt, previous, `run ${run}: the child recovered where the last run ended (${previous})`);
    t.equal(stderr.match(/^warn .*journal/m), null, `run ${run}: no journal warnings in the child`);

    const log = captureLogger();
    const storage = openStorage({ dataDir: dir, log });
    const rec = recoverToy(storage, log);
    t.ok(rec.lastSeq >= maxAck, `run ${run} (${durability}): recovered lastSeq ${rec.lastSeq} >= highest ack ${maxAck} (target ${target}, bursts up to ${maxBurst})`);
    t.equal(rec.engine.lastSeq, rec.lastSeq);
    t.equal(rec.engine.applied, rec.lastSeq, 'every seq up to lastSeq is in the state, once');
    t.same(rec.warnings, [], 'a kill -9 leaves no corrupt tail (LMDB commits are atomic)');
    t.equal(rec.engine.stateHash(), replayFromScratch(rec.lastSeq).stateHash(), 'state = replay of exactly the recovered commands from scratch');

    // What is still in the journal is byte-for-byte the generated stream.
    let mismatched = 0;
    let count = 0;
    for (const c of storage.journal.read(storage.journal.prunedThrough() + 1)) {
      count++;
      if (!encodeValue(c).equals(encodeValue(toyCommand(SEED, c.seq)))) mismatched++;
    }
    t.equal(mismatched, 0, `run ${run}: ${count} journal entries match the stream`);
    await storage.close();
    previous = rec.lastSeq;
  }
});
