/**
 * Snapshots carry the read models' state beside the engine's (persistence/types.ts
 * `Snapshot.read`): stored and restored byte for byte, in memory and in LMDB, and recovery
 * that requires it passes over a snapshot without it (one taken by an earlier version).
 */
import t from 'tap';
import { memoryStorage, openStorage } from '../../persistence/storage.ts';
import { Snapshotter } from '../../persistence/snapshotter.ts';
import { recover } from '../../persistence/recover.ts';
import { encodeValue, decodeValue } from '../../persistence/codec.ts';
import { captureLogger } from './fixtures/captureLogger.ts';
import { drive } from './fixtures/drive.ts';
import { ToyEngine } from './fixtures/toyEngine.ts';
import { tempDir } from './fixtures/tempDir.ts';

/** The toy engine with a "read model": the seqs it saw, as a fold would keep them. */
class ToyWithRead extends ToyEngine {
  seen: number[] = [];
  override apply(c: Parameters<ToyEngine['apply']>[0]): void {
    super.apply(c);
    this.seen.push(c.seq);
  }
  serializeRead(): Uint8Array {
    return encodeValue({ seen: this.seen });
  }
  static restoreWith(state: Uint8Array, read: Uint8Array | null): ToyWithRead {
    const e = Object.assign(new ToyWithRead(), ToyEngine.restore(state));
    e.seen = read === null ? [] : ((decodeValue(read) as { seen: number[] }).seen ?? []);
    return e;
  }
}

t.test('the read state is saved with the snapshot and given back to restore', async (t) => {
  for (const kind of ['memory', 'lmdb'] as const) {
    const dir = kind === 'lmdb' ? tempDir(t) : null;
    const storage = dir === null ? memoryStorage() : openStorage({ dataDir: dir, log: captureLogger() });
    const engine = new ToyWithRead();
    const snapshotter = new Snapshotter({ snapshots: storage.snapshots, journal: storage.journal, source: engine, clock: () => 0, log: captureLogger(), everyCommands: 50, everyMs: 1e12, startSeq: 0, pruneJournal: false });
    await drive(storage, engine, 1, 120, { snapshotter });
    const s = storage.snapshots.latestValid()!;
    t.ok(s.seq >= 100 && s.seq < 120, `${kind}: a snapshot after 100 commands`);
    t.same(decodeValue(s.read!), { seen: Array.from({ length: s.seq }, (_, i) => i + 1) }, `${kind}: the read state at the snapshot's seq`);
    const r = recover({ journal: storage.journal, snapshots: storage.snapshots, create: () => new ToyWithRead(), restore: ToyWithRead.restoreWith, log: captureLogger(), requireRead: true });
    t.equal(r.snapshotSeq, s.seq);
    t.same(r.engine.seen, engine.seen, `${kind}: restored read state plus the replayed tail equals the live one`);
    await storage.close();
  }
});

t.test('a snapshot without read state is passed over when recovery requires it', async (t) => {
  const storage = memoryStorage();
  const engine = new ToyWithRead();
  await drive(storage, engine, 1, 80, {});
  // An earlier version's snapshot: the engine only.
  await storage.snapshots.save({ seq: 80, hash: engine.stateHash(), state: engine.serialize(), takenAt: 0 });
  await drive(storage, engine, 81, 90, {});
  const log = captureLogger();
  const r = recover({ journal: storage.journal, snapshots: storage.snapshots, create: () => new ToyWithRead(), restore: ToyWithRead.restoreWith, log, requireRead: true });
  t.equal(r.snapshotSeq, 0, 'fell back to the journal from its start');
  t.same(r.engine.seen, engine.seen, 'the fold from the start equals the live one');
  t.match(r.warnings.join('\n'), /snapshot at seq 80 holds no read-model state/);
  const plain = recover({ journal: storage.journal, snapshots: storage.snapshots, create: () => new ToyWithRead(), restore: ToyWithRead.restoreWith, log: captureLogger() });
  t.equal(plain.snapshotSeq, 80, 'without requireRead the engine-only snapshot is used');
});

t.test('a damaged read field fails the snapshot check', async (t) => {
  const { checkSnapshot, encodeSnapshot } = await import('../../persistence/snapshotRecord.ts');
  const ok = encodeSnapshot({ seq: 3, hash: 'h', state: new Uint8Array([1]), takenAt: 0, read: new Uint8Array([2, 3]) });
  const back = checkSnapshot(3, ok);
  t.ok(back.ok && back.snapshot.read !== undefined && Buffer.from(back.snapshot.read).equals(Buffer.from([2, 3])));
  const { encodeFrame } = await import('../../persistence/frame.ts');
  const bad = checkSnapshot(3, encodeFrame({ seq: 3, hash: 'h', takenAt: 0, state: new Uint8Array([1]), read: 'not bytes' }));
  t.same(bad, { ok: false, seq: 3, reason: 'not a snapshot record' });
});
