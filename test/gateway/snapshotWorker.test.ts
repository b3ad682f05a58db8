/**
 * The snapshot worker (gateway/snapshotWorker.ts, docs/persistence.md "Snapshots off the main
 * thread"): its replica follows the committed journal, and a snapshot it writes at seq N is
 * byte for byte the snapshot the main thread would have taken at N (engine state, hash and
 * read models). A worker that dies in the middle of a snapshot writes nothing; the next one
 * starts a fresh replica from the newest snapshot, and a restart recovers the venue exactly.
 */
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Venue } from '../../engine/index.ts';
import { ReadModels } from '../../gateway/readModels/readModels.ts';
import { replayable } from '../../gateway/replayable.ts';
import { createSnapshotWorker } from '../../gateway/snapshotWorker.ts';
import { openStorage } from '../../persistence/storage.ts';
import { recover } from '../../persistence/recover.ts';
import { Snapshotter } from '../../persistence/snapshotter.ts';
import { silentLogger } from '../../persistence/silentLogger.ts';
import { Harness } from '../engine/support/venueFixture.ts';
import { fullBodies } from './readModels/support/fullStream.ts';

t.setTimeout(600_000);

const same = (a: Uint8Array, b: Uint8Array | undefined): boolean => b !== undefined && Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0;

t.test('worker snapshots equal main-thread snapshots at the same seq; a crash mid-snapshot writes nothing and recovers', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'snapshot-worker-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  let storage = openStorage({ dataDir, log: silentLogger });
  const h = new Harness();
  const live = new ReadModels();
  const here = replayable(h.venue, live);
  // The venue's first snapshot, at seq 0, as the app writes it on a first start (the replica starts from it).
  const first = await new Snapshotter({ snapshots: storage.snapshots, journal: storage.journal, source: here, clock: () => h.ts, log: silentLogger, startSeq: 0 }).takeNow(0);
  t.ok(first.ok, 'the seq-0 snapshot is written');

  const worker = createSnapshotWorker({ dataDir, onWorkerError: (e) => t.fail(`worker error: ${e.message}`) });
  const stream = fullBodies(h, 23, 1500)[Symbol.iterator]();
  /** Apply `n` commands of the stream, journal them and fold them, as the pipeline does; false once the stream ends. */
  const advance = async (n: number): Promise<void> => {
    const pending: Promise<void>[] = [];
    for (let i = 0; i < n; i++) {
      const next = stream.next();
      if (next.done === true) break;
      const r = h.run(next.value.body, next.value.advance);
      pending.push(storage.journal.append(h.log[h.log.length - 1]! as unknown as Parameters<typeof storage.journal.append>[0]));
      live.apply(h.seq, r.events.length > 0 ? r.events[0]!.ts : h.ts, r.events);
    }
    await Promise.all(pending);
  };
  /** The worker's snapshot of the committed journal against what this thread would write at the same seq. */
  const check = async (label: string): Promise<number> => {
    const made = await worker.take(h.ts);
    t.equal(made.seq, h.seq, `${label}: taken at the last committed command (${h.seq})`);
    const stored = [...storage.snapshots.candidates()].find((c) => c.ok && c.snapshot.seq === made.seq);
    t.ok(stored !== undefined && stored.ok, `${label}: stored and passes its check`);
    if (stored === undefined || !stored.ok) return made.caughtUp;
    t.ok(same(here.serialize(), stored.snapshot.state), `${label}: the engine state, byte for byte`);
    t.equal(stored.snapshot.hash, here.stateHash(), `${label}: the same state hash`);
    t.ok(same(live.serialize(), stored.snapshot.read), `${label}: the read models, byte for byte`);
    t.equal(made.bytes, stored.snapshot.state.length + stored.snapshot.read!.length, `${label}: its size`);
    return made.caughtUp;
  };

  await advance(500);
  t.equal(await check('first snapshot'), 500, 'the new replica replayed the 500 commands after the seq-0 snapshot');
  await advance(400);
  const caughtUp = await check('second snapshot');
  t.ok(caughtUp <= 400, `the replica carried on from seq 500 (${caughtUp} commands to catch up; rebuilt from seq 0 it would replay 900)`);

  // A crash in the middle of a snapshot: the thread dies after catching up, before writing.
  await advance(300);
  const before = storage.snapshots.seqs();
  await t.rejects(worker.take(h.ts, { crashBeforeSave: true }), 'the snapshot fails with the thread');
  t.same(storage.snapshots.seqs(), before, 'nothing was written');
  t.equal(await check('after the crash, a fresh replica from the newest snapshot'), 300, 'the new thread replayed from the seq-900 snapshot');
  const last = h.seq;

  // The rest of the stream after that snapshot; a restart replays it from there.
  await advance(10_000);
  t.ok(h.seq > last, `${h.seq - last} commands after the last snapshot`);
  await worker.close();
  const hash = h.venue.stateHash();
  const read = live.serialize();
  await storage.close();
  storage = openStorage({ dataDir, log: silentLogger });
  const r = recover({
    journal: storage.journal,
    snapshots: storage.snapshots,
    create: () => replayable(Venue.create()),
    restore: (bytes, readBytes) => replayable(Venue.restore(bytes), readBytes === null ? new ReadModels() : ReadModels.restore(readBytes)),
    log: silentLogger,
  });
  t.equal(r.snapshotSeq, last, 'recovery starts from the worker snapshot');
  t.equal(r.engine.venue.stateHash(), hash, 'and reaches the same engine state');
  t.ok(same(read, r.engine.reads.serialize()), 'and the same read models');
  await storage.close();
});

t.test('without a snapshot to start its replica from, the worker refuses and writes nothing', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'snapshot-worker-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const storage = openStorage({ dataDir, log: silentLogger });
  t.teardown(() => storage.close());
  const worker = createSnapshotWorker({ dataDir, onWorkerError: () => {} });
  t.teardown(() => worker.close());
  // No snapshot to start a replica from: the worker refuses.
  await t.rejects(worker.take(0), /no usable snapshot/);
  t.same(storage.snapshots.seqs(), [], 'nothing was written');
});
