import t from 'tap';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStorage } from '../../persistence/storage.ts';
import { DataDirInUseError, LOCK_FILE } from '../../persistence/dataDirLock.ts';
import { captureLogger } from './fixtures/captureLogger.ts';
import { tempDir } from './fixtures/tempDir.ts';

const holder = fileURLToPath(new URL('./fixtures/lockHolder.ts', import.meta.url));

function startHolder(dir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', holder, 'hold', dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('ready')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`holder exited early (${code}): ${out}`)));
  });
}

const exited = (child: ChildProcess): Promise<void> => new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));

t.test('a second process on the same DATA_DIR is refused; after kill -9 the stale lock is taken over', async (t) => {
  const dir = tempDir(t);
  const child = await startHolder(dir);
  t.teardown(() => {
    child.kill('SIGKILL');
  });
  t.equal(readFileSync(join(dir, LOCK_FILE), 'utf8'), `${child.pid}\n`, 'the lock file holds the owner pid');

  const log = captureLogger();
  t.throws(() => openStorage({ dataDir: dir, log }), new DataDirInUseError(dir, child.pid!));
  t.throws(() => openStorage({ dataDir: dir, log }), { message: `DATA_DIR ${dir} is in use by pid ${child.pid}` });

  child.kill('SIGKILL');
  await exited(child);
  t.ok(existsSync(join(dir, LOCK_FILE)), 'kill -9 leaves the lock file behind');
  const storage = openStorage({ dataDir: dir, log });
  t.match(log.text('warn'), new RegExp(`taking over a stale lock from pid ${child.pid} \\(not running\\)`));
  t.equal(readFileSync(join(dir, LOCK_FILE), 'utf8'), `${process.pid}\n`);
  await storage.close();
  t.notOk(existsSync(join(dir, LOCK_FILE)), 'close releases the lock');
});

t.test('a process started while this one holds the directory refuses with the message', async (t) => {
  const dir = tempDir(t);
  const storage = openStorage({ dataDir: dir, log: captureLogger() });
  t.teardown(() => storage.close());
  const r = spawnSync(process.execPath, ['--import', 'tsx', holder, 'try', dir], { encoding: 'utf8' });
  t.equal(r.status, 3);
  t.equal(r.stdout.trim(), `refused DATA_DIR ${dir} is in use by pid ${process.pid}`);
});

t.test('the same process cannot open a directory twice', async (t) => {
  const dir = tempDir(t);
  const storage = openStorage({ dataDir: dir, log: captureLogger() });
  t.throws(() => openStorage({ dataDir: dir, log: captureLogger() }), DataDirInUseError);
  await storage.close();
  const again = openStorage({ dataDir: dir, log: captureLogger() });
  await again.close();
  t.pass('and can again once closed');
});

t.test('an unreadable lock file (no pid) is stale', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, LOCK_FILE), 'garbage');
  const log = captureLogger();
  const storage = openStorage({ dataDir: dir, log });
  t.match(log.text('warn'), /taking over a stale lock from pid "garbage"/);
  await storage.close();
});
