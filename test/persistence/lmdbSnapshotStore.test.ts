import t from 'tap';
import { join } from 'node:path';
import { open } from 'lmdb';
import { openStorage, type Storage } from '../../persistence/storage.ts';
import { captureLogger } from './fixtures/captureLogger.ts';
import { snapshotContract } from './fixtures/snapshotContract.ts';
import { tempDir } from './fixtures/tempDir.ts';

t.test('contract', async (t) => {
  snapshotContract(t, (keep) => {
    const dir = tempDir(t);
    const log = captureLogger();
    const openIt = (): Storage => openStorage({ dataDir: dir, log, ...(keep !== undefined ? { keepSnapshots: keep } : {}) });
    let storage = openIt();
    return {
      store: storage.snapshots,
      async corrupt(seq, mutate) {
        // Damage the stored value through lmdb directly, with the venue stopped.
        await storage.close();
        const env = open({ path: join(dir, 'lmdb'), maxDbs: 24 });
        const db = env.openDB('snapshots', { encoding: 'binary' });
        await db.put(seq, mutate(Buffer.from(db.getBinary(seq)!)));
        await env.close();
        storage = openIt();
        return storage.snapshots;
      },
      logged: () => log.lines,
      close: () => storage.close(),
    };
  });
});

t.test('snapshots survive a restart', async (t) => {
  const dir = tempDir(t);
  let storage = openStorage({ dataDir: dir, log: captureLogger() });
  const state = Uint8Array.from({ length: 200_000 }, (_, i) => (i * 7) & 255);
  await storage.snapshots.save({ seq: 42, hash: 'abc', takenAt: 5, state });
  await storage.close();
  storage = openStorage({ dataDir: dir, log: captureLogger() });
  t.teardown(() => storage.close());
  t.same(storage.snapshots.latestValid(), { seq: 42, hash: 'abc', takenAt: 5, state });
});

t.test('keepGenesis: the genesis (seq 0) stays beside the newest K, across a restart', async (t) => {
  const dir = tempDir(t);
  const snap = (seq: number) => ({ seq, hash: `h${seq}`, takenAt: seq, state: new Uint8Array([seq & 255]) });
  let storage = openStorage({ dataDir: dir, log: captureLogger(), keepSnapshots: 2, keepGenesis: true });
  for (const seq of [0, 10, 20]) await storage.snapshots.save(snap(seq));
  await storage.close();
  storage = openStorage({ dataDir: dir, log: captureLogger(), keepSnapshots: 2, keepGenesis: true });
  t.teardown(() => storage.close());
  await storage.snapshots.save(snap(30));
  t.same(storage.snapshots.seqs(), [0, 20, 30]);
});
