import t from 'tap';
import { join } from 'node:path';
import { open } from 'lmdb';
import { memoryStorage, openStorage, type Storage } from '../../persistence/storage.ts';
import { JournalDamageError, recover, RecoveryError } from '../../persistence/recover.ts';
import { Snapshotter } from '../../persistence/snapshotter.ts';
import { captureLogger } from './fixtures/captureLogger.ts';
import { drive, recoverToy, replayFromScratch, SEED } from './fixtures/drive.ts';
import { encodeFrame } from '../../persistence/frame.ts';
import { tempDir } from './fixtures/tempDir.ts';
import { ToyEngine, toyCommand } from './fixtures/toyEngine.ts';

const fixedClock = (): number => 0;

function snapshotterFor(storage: Storage, engine: ToyEngine, everyCommands: number, startSeq = 0): Snapshotter {
  return new Snapshotter({ snapshots: storage.snapshots, journal: storage.journal, source: engine, clock: fixedClock, log: captureLogger(), everyCommands, startSeq });
}

/** Rewrite raw journal values through lmdb directly, with the venue stopped. */
async function withRawJournal(dir: string, fn: (db: ReturnType<ReturnType<typeof open>['openDB']>) => Promise<void>): Promise<void> {
  const env = open({ path: join(dir, 'lmdb'), maxDbs: 24 });
  await fn(env.openDB('journal', { encoding: 'binary' }));
  await env.close();
}

t.test('a clean restart gives the identical state hash (no snapshot)', async (t) => {
  const dir = tempDir(t);
  const storage = openStorage({ dataDir: dir, log: captureLogger() });
  const live = new ToyEngine();
  await drive(storage, live, 1, 2_000);
  await storage.close();
  const again = openStorage({ dataDir: dir, log: captureLogger() });
  t.teardown(() => again.close());
  const log = captureLogger();
  const r = recoverToy(again, log);
  t.equal(r.engine.stateHash(), live.stateHash());
  t.same([r.snapshotSeq, r.replayed, r.lastSeq, r.warnings], [0, 2_000, 2_000, []]);
  t.match(log.text('info'), /recovery: snapshot at seq 0, replayed 2000 commands, lastSeq 2000/);
});

t.test('snapshot + journal tail equals a full replay, after pruning', async (t) => {
  const dir = tempDir(t);
  const storage = openStorage({ dataDir: dir, log: captureLogger() });
  const live = new ToyEngine();
  await drive(storage, live, 1, 3_350, { snapshotter: snapshotterFor(storage, live, 500) });
  t.same(storage.snapshots.seqs(), [2_000, 2_500, 3_000], 'three newest snapshots kept');
  t.equal(storage.journal.prunedThrough(), 2_000, 'journal pruned up to the oldest kept snapshot');
  await storage.close();
  const again = openStorage({ dataDir: dir, log: captureLogger() });
  t.teardown(() => again.close());
  const r = recoverToy(again, captureLogger());
  t.equal(r.snapshotSeq, 3_000);
  t.equal(r.replayed, 350);
  t.equal(r.lastSeq, 3_350);
  t.equal(r.engine.stateHash(), replayFromScratch(3_350).stateHash(), 'same as replaying 1..3350 from scratch');
  t.equal(r.engine.stateHash(), live.stateHash());
});

t.test('a corrupt newest snapshot: recovery falls back to the previous one and still replays to the end', async (t) => {
  const dir = tempDir(t);
  const storage = openStorage({ dataDir: dir, log: captureLogger() });
  const live = new ToyEngine();
  await drive(storage, live, 1, 1_700, { snapshotter: snapshotterFor(storage, live, 500) });
  await storage.close();
  const env = open({ path: join(dir, 'lmdb'), maxDbs: 24 });
  const snaps = env.openDB('snapshots', { encoding: 'binary' });
  const bytes = Buffer.from(snaps.getBinary(1_500)!);
  bytes[bytes.length >> 1]! ^= 0x10;
  await snaps.put(1_500, bytes);
  await env.close();
  const again = openStorage({ dataDir: dir, log: captureLogger() });
  t.teardown(() => again.close());
  const log = captureLogger();
  const r = recoverToy(again, log);
  t.equal(r.snapshotSeq, 1_000);
  t.equal(r.replayed, 700);
  t.equal(r.engine.stateHash(), live.stateHash());
  t.match(r.warnings, [/snapshot at seq 1500 failed its check \(checksum mismatch\); falling back/]);
  t.equal(log.lines.filter((l) => l.level === 'warn').length, 1, 'logged once');
});

for (const [name, damage] of [
  ['garbage', (_b: Buffer) => Buffer.from('this is not a batch')],
  ['a truncated value', (b: Buffer) => b.subarray(0, b.length - 37)],
  ['a flipped byte', (b: Buffer) => ((b[b.length - 5]! ^= 0x01), b)],
] as const) {
  t.test(`corrupt tail (${name} at the last key): warning, truncation, no throw, no crash loop`, async (t) => {
    const dir = tempDir(t);
    const storage = openStorage({ dataDir: dir, log: captureLogger() });
    await drive(storage, new ToyEngine(), 1, 1_000, { burst: 100 });
    await storage.close();
    await withRawJournal(dir, async (db) => {
      t.equal([...db.getKeys({ reverse: true, limit: 1 })][0], 901, 'the last batch starts at 901');
      await db.put(901, damage(Buffer.from(db.getBinary(901) as Buffer)));
    });

    const log = captureLogger();
    const first = openStorage({ dataDir: dir, log });
    const r = recoverToy(first, log);
    const lost = r.lastSeq;
    t.ok(lost >= 900 && lost < 1_000, `recovered up to ${lost}`);
    t.equal(r.engine.stateHash(), replayFromScratch(lost).stateHash(), 'state equals a replay of exactly the kept commands');
    t.equal(r.warnings.length, 1);
    t.match(r.warnings[0], new RegExp(`^journal: entry ${lost + 1} failed its check \\(.+\\) in the last write \\(a torn tail\\); replayed up to ${lost}, truncating \\d+ entries from ${lost + 1}`));
    t.equal(log.lines.filter((l) => l.level === 'warn').length, 1, 'one log line');
    t.equal(first.journal.lastSeq(), lost, 'the journal now ends at the last good entry');
    await drive(first, r.engine, lost + 1, lost + 50);
    await first.close();

    const log2 = captureLogger();
    const second = openStorage({ dataDir: dir, log: log2 });
    t.teardown(() => second.close());
    const r2 = recoverToy(second, log2);
    t.same(r2.warnings, [], 'the next start is clean');
    t.equal(r2.lastSeq, lost + 50);
    t.equal(r2.engine.stateHash(), replayFromScratch(lost + 50).stateHash());
  });
}

t.test('a gap in seq (a missing batch in the middle) stops recovery; nothing is removed', async (t) => {
  const dir = tempDir(t);
  const storage = openStorage({ dataDir: dir, log: captureLogger() });
  await drive(storage, new ToyEngine(), 1, 500, { burst: 100 });
  await storage.close();
  await withRawJournal(dir, async (db) => {
    await db.remove(201);
  });
  const again = openStorage({ dataDir: dir, log: captureLogger() });
  t.teardown(() => again.close());
  t.throws(() => recoverToy(again, captureLogger()), JournalDamageError);
  t.throws(() => recoverToy(again, captureLogger()), /journal: entry 201 is missing \(next is 301\); entries up to 500 follow it\..*--truncate-at 201/);
  t.equal(again.journal.lastSeq(), 500, 'nothing was removed');
});

t.test('a flipped bit in a middle batch stops recovery with the entry, the check and the way out', async (t) => {
  const dir = tempDir(t);
  const storage = openStorage({ dataDir: dir, log: captureLogger() });
  await drive(storage, new ToyEngine(), 1, 1_000, { burst: 100 });
  await storage.close();
  // Flip one bit in the 31st entry of the batch 401..500 (its length prefix and frame sit after the 9-byte header).
  await withRawJournal(dir, async (db) => {
    const b = Buffer.from(db.getBinary(401) as Buffer);
    let pos = 9;
    for (let i = 0; i < 30; i++) pos += 4 + b.readUInt32BE(pos);
    b[pos + 4 + 12]! ^= 0x04;
    await db.put(401, b);
  });
  const log = captureLogger();
  const again = openStorage({ dataDir: dir, log });
  let burned: number[] = [];
  const attempt = () => recover({ journal: again.journal, snapshots: again.snapshots, create: () => new ToyEngine(), restore: ToyEngine.restore, log, beforeTruncate: (from) => burned.push(from) });
  const err = t.throws(attempt, JournalDamageError) as JournalDamageError;
  t.equal(err.seq, 431, 'names the damaged entry');
  t.match(err.message, /^journal: entry 431 failed its check \(checksum mismatch\); entries up to 1000 follow it\. This is damage inside the journal, not a torn last write: starting would forget acknowledged commands 431\.\.1000 \(replay reached 430\)\. Refusing to start; .*npm run recover -- --truncate-at 431/);
  t.equal(again.journal.lastSeq(), 1_000, 'nothing was removed');
  t.same(burned, []);
  // The same start again refuses again (no half-done state).
  t.throws(attempt, JournalDamageError);

  // --truncate-at after the damage cannot replay through it.
  t.throws(() => recover({ journal: again.journal, snapshots: again.snapshots, create: () => new ToyEngine(), restore: ToyEngine.restore, log, truncateAt: 500 }), /entry 431 failed its check.*--truncate-at 500 is after it; choose 431 or lower/);
  t.throws(() => recover({ journal: again.journal, snapshots: again.snapshots, create: () => new ToyEngine(), restore: ToyEngine.restore, log, truncateAt: 1_001 }), /journal ends at 1000; there is nothing at or after 1001/);

  burned = [];
  const r = recover({ journal: again.journal, snapshots: again.snapshots, create: () => new ToyEngine(), restore: ToyEngine.restore, log, truncateAt: 431, beforeTruncate: (from) => burned.push(from) });
  t.same(burned, [431], 'told before truncating');
  t.same(r.truncated, { from: 431, removed: 570 });
  t.equal(r.lastSeq, 430);
  t.equal(r.engine.stateHash(), replayFromScratch(430).stateHash());
  t.match(r.warnings, [/^journal: recover --truncate-at 431: replayed up to 430, dropped 570 entries from 431 \(entry 431 failed its check \(checksum mismatch\)\) \(moved to quarantine\)/]);
  t.equal(again.journal.lastSeq(), 430);
  await again.close();

  const third = openStorage({ dataDir: dir, log: captureLogger() });
  t.teardown(() => third.close());
  const r3 = recoverToy(third, captureLogger());
  t.same([r3.lastSeq, r3.warnings, r3.truncated], [430, [], null], 'the next start is clean');
});

t.test('--truncate-at below the snapshot in use is refused', async (t) => {
  const storage = memoryStorage();
  const live = new ToyEngine();
  await drive(storage, live, 1, 250, { snapshotter: snapshotterFor(storage, live, 100) });
  t.throws(() => recover({ journal: storage.journal, snapshots: storage.snapshots, create: () => new ToyEngine(), restore: ToyEngine.restore, log: captureLogger(), truncateAt: 150 }), /snapshot in use \(seq 200\) already includes entry 150/);
  t.equal(storage.journal.lastSeq(), 250);
});

t.test('memory storage: a corrupt last entry is a torn tail, a corrupt earlier one stops recovery', async (t) => {
  const storage = memoryStorage();
  const live = new ToyEngine();
  await drive(storage, live, 1, 350, { snapshotter: snapshotterFor(storage, live, 100) });
  storage.journal.overwriteRaw(340, Buffer.from('x'));
  t.throws(() => recoverToy(storage, captureLogger()), /journal: entry 340 failed its check \(frame too short \(1 bytes\)\); entries up to 350 follow it/);
  storage.journal.overwriteRaw(340, encodeFrame(toyCommand(SEED, 340))); // repaired
  storage.journal.overwriteRaw(350, Buffer.from('x'));
  const r = recoverToy(storage, captureLogger());
  t.equal(r.snapshotSeq, 300);
  t.equal(r.lastSeq, 349);
  t.match(r.warnings, [/entry 350 failed its check \(frame too short \(1 bytes\)\) in the last write \(a torn tail\)/]);
  t.same(r.truncated, { from: 350, removed: 1 });
  t.equal(r.engine.stateHash(), replayFromScratch(349).stateHash());
});

t.test('a snapshot that restores to a different hash than it recorded is skipped', async (t) => {
  const storage = memoryStorage();
  const live = new ToyEngine();
  await drive(storage, live, 1, 50);
  const good = new ToyEngine();
  for (const c of storage.journal.read(1)) if (c.seq <= 40) good.apply(c);
  await storage.snapshots.save({ seq: 40, hash: good.stateHash(), state: good.serialize(), takenAt: 1 });
  await storage.snapshots.save({ seq: 45, hash: 'not-the-hash', state: good.serialize(), takenAt: 2 });
  const r = recoverToy(storage, captureLogger());
  t.equal(r.snapshotSeq, 40);
  t.match(r.warnings, [/snapshot at seq 45 restored to hash [0-9a-f]+, recorded not-the-hash/]);
  t.equal(r.engine.stateHash(), live.stateHash());
});

t.test('a snapshot that cannot be restored is skipped', async (t) => {
  const storage = memoryStorage();
  await drive(storage, new ToyEngine(), 1, 10);
  await storage.snapshots.save({ seq: 5, hash: 'h', state: Uint8Array.of(1, 2, 3), takenAt: 1 });
  const r = recoverToy(storage, captureLogger());
  t.equal(r.snapshotSeq, 0);
  t.match(r.warnings, [/snapshot at seq 5 could not be restored/]);
  t.equal(r.engine.stateHash(), replayFromScratch(10).stateHash());
});

t.test('pruned history with no verifiable snapshot: refuse to start rather than lose it', async (t) => {
  const storage = memoryStorage();
  const live = new ToyEngine();
  await drive(storage, live, 1, 300, { snapshotter: snapshotterFor(storage, live, 100) });
  for (const seq of storage.snapshots.seqs()) storage.snapshots.overwriteRaw(seq, Buffer.from('junk'));
  t.throws(() => recoverToy(storage, captureLogger()), RecoveryError);
  t.throws(() => recoverToy(storage, captureLogger()), /commands 1\.\.100 were pruned/);
});

t.test('a snapshot newer than the journal: continue after the snapshot', async (t) => {
  const storage = memoryStorage();
  const live = new ToyEngine();
  await drive(storage, live, 1, 20);
  storage.journal.truncateFrom(16); // the journal lost 16..20, the snapshot has them
  await storage.snapshots.save({ seq: 20, hash: live.stateHash(), state: live.serialize(), takenAt: 1 });
  const r = recoverToy(storage, captureLogger());
  t.equal(r.lastSeq, 20);
  t.equal(storage.journal.lastSeq(), 20, 'the next append is 21');
  t.match(r.warnings, [/journal: ends at 15 but the snapshot is at 20/]);
  t.equal(r.engine.stateHash(), live.stateHash());
});
