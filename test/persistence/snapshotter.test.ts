import t from 'tap';
import { memoryStorage } from '../../persistence/storage.ts';
import { Snapshotter } from '../../persistence/snapshotter.ts';
import type { SnapshotStore } from '../../persistence/types.ts';
import { captureLogger } from './fixtures/captureLogger.ts';
import { drive } from './fixtures/drive.ts';
import { ToyEngine } from './fixtures/toyEngine.ts';

function setup(opts: { everyCommands?: number; everyMs?: number; retainCommands?: number; pruneJournal?: boolean; keep?: number } = {}) {
  const storage = memoryStorage(opts.keep !== undefined ? { keepSnapshots: opts.keep } : {});
  const engine = new ToyEngine();
  let now = 1_000_000;
  const log = captureLogger();
  const snapshotter = new Snapshotter({
    snapshots: storage.snapshots,
    journal: storage.journal,
    source: engine,
    clock: () => now,
    log,
    startSeq: 0,
    ...opts,
  });
  return { storage, engine, snapshotter, log, advance: (ms: number) => (now += ms), now: () => now };
}

t.test('every N commands', async (t) => {
  const { storage, engine, snapshotter } = setup({ everyCommands: 100, everyMs: 1e12 });
  await drive(storage, engine, 1, 450, { snapshotter });
  t.same(storage.snapshots.seqs(), [200, 300, 400]);
  const s = storage.snapshots.latestValid()!;
  t.equal(s.hash, ToyEngine.restore(s.state).stateHash(), 'state and hash are taken together');
});

t.test('every T ms, only when commands arrived', async (t) => {
  const { storage, engine, snapshotter, advance, now } = setup({ everyCommands: 1e9, everyMs: 60_000 });
  await drive(storage, engine, 1, 10, { snapshotter });
  t.same(storage.snapshots.seqs(), [], 'not yet');
  advance(60_000);
  t.ok(snapshotter.due(10, now()), 'due: commands arrived since the last snapshot and the interval passed');
  await drive(storage, engine, 11, 11, { snapshotter });
  t.same(storage.snapshots.seqs(), [11]);
  t.equal(storage.snapshots.latestValid()!.takenAt, now(), 'takenAt comes from the clock passed in');
  advance(120_000);
  t.notOk(snapshotter.due(11, now()), 'no new command, no snapshot');
  t.ok(snapshotter.due(12, now()));
});

t.test('prunes the journal behind the oldest kept snapshot, with optional extra retention', async (t) => {
  const a = setup({ everyCommands: 100, everyMs: 1e12, keep: 2 });
  await drive(a.storage, a.engine, 1, 350, { snapshotter: a.snapshotter });
  t.same(a.storage.snapshots.seqs(), [200, 300]);
  t.equal(a.storage.journal.prunedThrough(), 200);
  t.equal([...a.storage.journal.read(1)][0]!.seq, 201);

  const b = setup({ everyCommands: 100, everyMs: 1e12, keep: 2, retainCommands: 50 });
  await drive(b.storage, b.engine, 1, 350, { snapshotter: b.snapshotter });
  t.equal([...b.storage.journal.read(1)][0]!.seq, 151, '50 more kept');

  const c = setup({ everyCommands: 100, everyMs: 1e12, pruneJournal: false });
  await drive(c.storage, c.engine, 1, 350, { snapshotter: c.snapshotter });
  t.equal([...c.storage.journal.read(1)][0]!.seq, 1, 'pruning off keeps everything');
});

t.test('one snapshot at a time; a failure is logged and returned, not thrown', async (t) => {
  const { storage, engine, log } = setup();
  let release: () => void = () => {};
  let saves = 0;
  const slow: SnapshotStore = {
    ...storage.snapshots,
    save: () => {
      saves++;
      return new Promise<void>((resolve) => (release = resolve));
    },
  };
  const s = new Snapshotter({ snapshots: slow, journal: storage.journal, source: engine, clock: () => 0, log, everyCommands: 1, startSeq: 0 });
  const first = s.afterApply(1);
  t.ok(first);
  t.equal(s.afterApply(2), null, 'skipped while one is in flight');
  release();
  t.match(await first, { ok: true, seq: 1 });
  t.equal(saves, 1);

  const failing = new Snapshotter({
    snapshots: { ...storage.snapshots, save: () => Promise.reject(new Error('disk full')) },
    journal: storage.journal,
    source: engine,
    clock: () => 0,
    log,
    everyCommands: 1,
    startSeq: 0,
  });
  t.same(await failing.afterApply(1), { ok: false, seq: 1, error: 'disk full' });
  t.match(log.text('error'), /snapshots: saving seq 1 failed: disk full/);
});

t.test('bad settings are refused', async (t) => {
  const { storage, engine } = setup();
  const base = { snapshots: storage.snapshots, journal: storage.journal, source: engine, clock: () => 0, log: captureLogger(), startSeq: 0 };
  t.throws(() => new Snapshotter({ ...base, everyCommands: 0 }), RangeError);
  t.throws(() => new Snapshotter({ ...base, everyMs: 0 }), RangeError);
});
