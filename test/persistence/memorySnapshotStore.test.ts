import t from 'tap';
import { memorySnapshotStore } from '../../persistence/memorySnapshotStore.ts';
import { captureLogger } from './fixtures/captureLogger.ts';
import { snapshotContract } from './fixtures/snapshotContract.ts';

t.test('contract', async (t) => {
  snapshotContract(t, (keep) => {
    const log = captureLogger();
    const store = memorySnapshotStore({ log, ...(keep !== undefined ? { keep } : {}) });
    return {
      store,
      async corrupt(seq, mutate) {
        const good = [...store.candidates()].find((c) => c.ok && c.snapshot.seq === seq);
        if (!good?.ok) throw new Error(`no snapshot ${seq}`);
        // Rebuild the stored bytes through the store's own encoding, then damage them.
        const { encodeSnapshot } = await import('../../persistence/snapshotRecord.ts');
        store.overwriteRaw(seq, mutate(Buffer.from(encodeSnapshot(good.snapshot))));
        return store;
      },
      logged: () => log.lines,
      close: async () => {},
    };
  });
});

t.test('keep must be a positive integer', async (t) => {
  t.throws(() => memorySnapshotStore({ keep: 0 }), RangeError);
});

t.test('keepGenesis: the genesis (seq 0) stays beside the newest K (PUBLIC_JOURNAL)', async (t) => {
  const snap = (seq: number) => ({ seq, hash: `h${seq}`, takenAt: seq, state: new Uint8Array([seq & 255]) });
  const kept = memorySnapshotStore({ keep: 2, keepGenesis: true });
  const plain = memorySnapshotStore({ keep: 2 });
  for (const seq of [0, 10, 20, 30]) {
    await kept.save(snap(seq));
    await plain.save(snap(seq));
  }
  t.same(kept.seqs(), [0, 20, 30], 'the genesis and the newest two');
  t.same(plain.seqs(), [20, 30], 'without it: the newest two only');
});
