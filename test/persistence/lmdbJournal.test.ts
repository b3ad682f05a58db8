import t from 'tap';
import { join } from 'node:path';
import { open } from 'lmdb';
import { openStorage, type Storage } from '../../persistence/storage.ts';
import type { Command } from '../../persistence/types.ts';
import { batchLayout } from '../../persistence/journalBatch.ts';
import { journalContract } from './fixtures/journalContract.ts';
import { captureLogger } from './fixtures/captureLogger.ts';
import { tempDir } from './fixtures/tempDir.ts';
import { toyCommand } from './fixtures/toyEngine.ts';

const cmd = (seq: number): Command => toyCommand(11, seq);

t.test('contract', async (t) => {
  journalContract(t, () => {
    const dir = tempDir(t);
    let storage: Storage = openStorage({ dataDir: dir, log: captureLogger() });
    const h = {
      journal: storage.journal,
      async reopen() {
        await storage.close();
        storage = openStorage({ dataDir: dir, log: captureLogger() });
        h.journal = storage.journal;
        return storage.journal;
      },
      close: () => storage.close(),
    };
    return h;
  });
});

t.test('group commit: 1,000 appends in one turn are one transaction and one commit', async (t) => {
  const storage = openStorage({ dataDir: tempDir(t), log: captureLogger() });
  t.teardown(() => storage.close());
  let seq = 0;
  const burst = async (n: number): Promise<void> => {
    const acks: Promise<void>[] = [];
    for (let i = 0; i < n; i++) acks.push(storage.journal.append(cmd(++seq)));
    await Promise.all(acks);
  };
  await burst(10); // the first write of a fresh environment also creates its databases
  for (let round = 0; round < 3; round++) {
    const before = storage.stats();
    await burst(1000);
    const after = storage.stats();
    t.equal(after.journalAppends - before.journalAppends, 1000);
    t.equal(after.journalTransactions - before.journalTransactions, 1, `round ${round}: one journal transaction`);
    t.equal(after.commits - before.commits, 1, `round ${round}: one LMDB commit (aftercommit events)`);
  }
  t.equal([...storage.journal.read(1)].length, seq);
});

t.test('a burst larger than one batch still reads back in order', async (t) => {
  const storage = openStorage({ dataDir: tempDir(t), log: captureLogger() });
  t.teardown(() => storage.close());
  const acks: Promise<void>[] = [];
  for (let s = 1; s <= 9000; s++) acks.push(storage.journal.append(cmd(s)));
  await Promise.all(acks);
  const seqs = [...storage.journal.read(4000)].map((c) => c.seq);
  t.equal(seqs.length, 5001);
  t.ok(seqs.every((s, i) => s === 4000 + i));
});

async function storeBatchWith(dir: string, damage: (batch: Buffer) => void): Promise<void> {
  const storage = openStorage({ dataDir: dir, log: captureLogger() });
  await Promise.all(Array.from({ length: 10 }, (_, i) => storage.journal.append(cmd(i + 1))));
  await storage.close();
  // Bit rot, simulated through lmdb directly: the stored batch with some bytes changed.
  const env = open({ path: join(dir, 'lmdb'), maxDbs: 24 });
  const raw = env.openDB('journal', { encoding: 'binary' });
  const batch = Buffer.from(raw.getBinary(1)!);
  damage(batch);
  await raw.put(1, batch);
  await env.close();
}

t.test('a flipped byte inside one entry of a batch: scan reports that entry, read stops before it', async (t) => {
  const dir = tempDir(t);
  await storeBatchWith(dir, (batch) => {
    const layout = batchLayout(batch, batch.length);
    batch[layout.ends[6]! - 3]! ^= 0x40; // inside entry 7's frame
  });
  const storage = openStorage({ dataDir: dir, log: captureLogger() });
  t.teardown(() => storage.close());
  const entries = [...storage.journal.scan(1)];
  t.same(entries.slice(0, 6).map((e) => e.ok), [true, true, true, true, true, true], 'entries before the damage are kept');
  t.match(entries[6], { ok: false, seq: 7, reason: 'checksum mismatch' });
  t.same([...storage.journal.read(1)].map((c) => c.seq), [1, 2, 3, 4, 5, 6]);
});

t.test('damage confined to the batch checksum loses nothing', async (t) => {
  const dir = tempDir(t);
  await storeBatchWith(dir, (batch) => {
    batch[2]! ^= 0xff;
  });
  const storage = openStorage({ dataDir: dir, log: captureLogger() });
  t.teardown(() => storage.close());
  t.same([...storage.journal.read(1)].map((c) => c.seq), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 'every entry verified on its own checksum');
});

t.test('a truncated batch: the complete entries before the cut are kept', async (t) => {
  const dir = tempDir(t);
  const storage0 = openStorage({ dataDir: dir, log: captureLogger() });
  await Promise.all(Array.from({ length: 10 }, (_, i) => storage0.journal.append(cmd(i + 1))));
  await storage0.close();
  const env = open({ path: join(dir, 'lmdb'), maxDbs: 24 });
  const raw = env.openDB('journal', { encoding: 'binary' });
  const batch = raw.getBinary(1)!;
  const layout = batchLayout(batch, batch.length);
  await raw.put(1, batch.subarray(0, layout.ends[3]! + 10)); // cut inside entry 5
  await env.close();
  const storage = openStorage({ dataDir: dir, log: captureLogger() });
  t.teardown(() => storage.close());
  const entries = [...storage.journal.scan(1)];
  t.same(entries.map((e) => [e.seq, e.ok]), [
    [1, true],
    [2, true],
    [3, true],
    [4, true],
    [5, false],
  ]);
  t.match(entries[4], { reason: /truncated inside entry 5 of 10/ });
});

t.test('truncateFrom keeps the removed bytes in quarantine', async (t) => {
  const dir = tempDir(t);
  let storage = openStorage({ dataDir: dir, log: captureLogger() });
  await Promise.all(Array.from({ length: 5 }, (_, i) => storage.journal.append(cmd(i + 1))));
  await Promise.all(Array.from({ length: 5 }, (_, i) => storage.journal.append(cmd(i + 6))));
  t.equal(storage.journal.truncateFrom(4), 7);
  await storage.close();
  const env = open({ path: join(dir, 'lmdb'), maxDbs: 24 });
  const q = env.openDB('journal-quarantine', { encoding: 'binary' });
  t.same([...q.getKeys()], [
    [1, 1],
    [1, 6],
  ], 'both affected batches are kept whole under run 1');
  await env.close();
  storage = openStorage({ dataDir: dir, log: captureLogger() });
  t.teardown(() => storage.close());
  t.equal(storage.journal.lastSeq(), 3);
  t.same([...storage.journal.read(1)].map((c) => c.seq), [1, 2, 3]);
});

t.test('truncateFrom refuses while a batch is being collected', async (t) => {
  const storage = openStorage({ dataDir: tempDir(t), log: captureLogger() });
  t.teardown(() => storage.close());
  const ack = storage.journal.append(cmd(1));
  t.throws(() => storage.journal.truncateFrom(1), /pending/);
  await ack;
});
