import t from 'tap';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { memoryStorage, openStorage } from '../../persistence/storage.ts';
import { captureLogger } from './fixtures/captureLogger.ts';
import { drive, recoverToy, replayFromScratch, SEED } from './fixtures/drive.ts';
import { tempDir } from './fixtures/tempDir.ts';
import { ToyEngine, toyCommand } from './fixtures/toyEngine.ts';

t.test('DATA_DIR layout', async (t) => {
  const dir = join(tempDir(t), 'data');
  const storage = openStorage({ dataDir: dir, log: captureLogger() });
  t.same(readdirSync(dir).sort(), ['keys', 'lmdb', 'venue.lock']);
  t.same(readdirSync(join(dir, 'lmdb')).sort(), ['data.mdb', 'lock.mdb']);
  await storage.close();
  await storage.close();
  t.pass('close is idempotent');
  t.notOk(existsSync(join(dir, 'venue.lock')));
});

t.test('backup while running is a consistent, openable copy', async (t) => {
  const root = tempDir(t);
  const storage = openStorage({ dataDir: join(root, 'data'), log: captureLogger() });
  t.teardown(() => storage.close());
  await drive(storage, new ToyEngine(), 1, 700);
  const pending = Array.from({ length: 50 }, (_, i) => storage.journal.append(toyCommand(SEED, 701 + i)));
  const copy = join(root, 'restored', 'lmdb');
  await storage.backup(copy);
  await Promise.all(pending);
  t.ok(statSync(join(copy, 'data.mdb')).size > 0);
  // A backup restores by being the lmdb directory of a new DATA_DIR.
  const restored = join(root, 'restored');
  const again = openStorage({ dataDir: restored, log: captureLogger() });
  t.teardown(() => again.close());
  const r = recoverToy(again, captureLogger());
  t.ok(r.lastSeq >= 700 && r.lastSeq <= 750, `the copy holds a prefix of the history (${r.lastSeq})`);
  t.same(r.warnings, []);
  t.equal(r.engine.stateHash(), replayFromScratch(r.lastSeq).stateHash());
});

t.test('appends made in the same turn as close() are written before it closes', async (t) => {
  const dir = tempDir(t);
  const storage = openStorage({ dataDir: dir, log: captureLogger() });
  const acks = [1, 2, 3].map((seq) => storage.journal.append(toyCommand(SEED, seq)));
  await storage.close();
  await Promise.all(acks);
  const again = openStorage({ dataDir: dir, log: captureLogger() });
  t.teardown(() => again.close());
  t.equal(again.journal.lastSeq(), 3);
});

t.test('memoryStorage has the same shape and keeps nothing across instances', async (t) => {
  const a = memoryStorage();
  await drive(a, new ToyEngine(), 1, 10);
  t.equal(a.journal.lastSeq(), 10);
  t.match(a.stats(), { journalAppends: 10 });
  t.equal(memoryStorage().journal.lastSeq(), 0);
  await t.rejects(a.backup('/nowhere'), /nothing to back up/);
  await a.close();
});

