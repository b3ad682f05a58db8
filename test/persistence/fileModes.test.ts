/**
 * DATA_DIR is private: directories created 0700, files 0600 (LMDB's own files included),
 * a backup too; modes found looser at start are named in a warning and left as they are.
 */
import t from 'tap';
import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { openStorage } from '../../persistence/storage.ts';
import { captureLogger } from './fixtures/captureLogger.ts';
import { tempDir } from './fixtures/tempDir.ts';

const modeOf = (p: string): string => (statSync(p).mode & 0o777).toString(8).padStart(4, '0');

t.test('a new DATA_DIR: directories 0700, files 0600, no warning', async (t) => {
  const dataDir = join(tempDir(t), 'data', 'venue'); // parents created too
  const log = captureLogger();
  const storage = openStorage({ dataDir, log, now: 0 });
  const modes = {
    dataDir: modeOf(dataDir),
    lmdb: modeOf(join(dataDir, 'lmdb')),
    'data.mdb': modeOf(join(dataDir, 'lmdb', 'data.mdb')),
    'lock.mdb': modeOf(join(dataDir, 'lmdb', 'lock.mdb')),
    'venue.lock': modeOf(join(dataDir, 'venue.lock')),
    keys: modeOf(join(dataDir, 'keys')),
    'master.key': modeOf(join(dataDir, 'keys', 'master.key')),
  };
  t.same(modes, { dataDir: '0700', lmdb: '0700', 'data.mdb': '0600', 'lock.mdb': '0600', 'venue.lock': '0600', keys: '0700', 'master.key': '0600' });
  t.equal(storage.masterKeyFile, join(dataDir, 'keys', 'master.key'));
  const backup = join(tempDir(t), 'backup');
  await storage.backup(backup);
  t.same([modeOf(backup), modeOf(join(backup, 'data.mdb'))], ['0700', '0600'], 'the backup copy is private too');
  await storage.close();
  t.equal(log.lines.filter((l) => l.level === 'warn').length, 0, log.text('warn'));

  const again = captureLogger();
  const reopened = openStorage({ dataDir, log: again, now: 0 });
  await reopened.close();
  t.equal(again.lines.filter((l) => l.level === 'warn').length, 0, 'a restart finds nothing to warn about');
});

t.test('looser modes found at start: one warning per path, modes left as they are', async (t) => {
  const dataDir = tempDir(t);
  const first = openStorage({ dataDir, log: captureLogger(), now: 0 });
  await first.close();
  chmodSync(dataDir, 0o755);
  chmodSync(join(dataDir, 'lmdb', 'data.mdb'), 0o640);
  const log = captureLogger();
  const storage = openStorage({ dataDir, log, now: 0 });
  t.teardown(() => storage.close());
  const warnings = log.lines.filter((l) => l.level === 'warn').map((l) => l.msg);
  t.same(warnings, [
    `DATA_DIR: ${dataDir} has mode 0755: group or others can get at it; the venue creates directories 0700 (chmod 700 ${dataDir})`,
    `DATA_DIR: ${join(dataDir, 'lmdb', 'data.mdb')} has mode 0640: group or others can get at it; the venue creates files 0600 (chmod 600 ${join(dataDir, 'lmdb', 'data.mdb')})`,
  ]);
  t.equal(modeOf(dataDir), '0755', 'not changed');
});

t.test('with KEY_ENCRYPTION_KEY there is no key file', async (t) => {
  const dataDir = tempDir(t);
  mkdirSync(dataDir, { recursive: true });
  const storage = openStorage({ dataDir, log: captureLogger(), now: 0, keyEncryptionKey: 'ab'.repeat(32) });
  t.teardown(() => storage.close());
  t.equal(storage.masterKeyFile, null);
});
