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
