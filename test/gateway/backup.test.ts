/**
 * `npm run backup -- <dir>` (gateway/backupMain.ts) copies a RUNNING venue's environment
 * from another process, consistently: restored as DATA_DIR/lmdb of a new directory, the
 * venue starts at the journal seq and state hash it had when the copy was taken, though it
 * kept writing after. It refuses a target that already holds a copy and a DATA_DIR with no
 * environment (docs/operations.md "Back up" and "Restore").
 */
import t from 'tap';
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestApp } from './support/testApp.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

function backup(dataDir: string, target: string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', join(root, 'gateway/backupMain.ts'), target], { env: { ...process.env, DATA_DIR: dataDir }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => p.kill('SIGKILL'), 60_000);
    p.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    p.once('error', reject);
    p.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

t.test('a backup of a running venue restores to the state at the copy', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'venue-backup-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const live = join(dir, 'live');
  const app = await startTestApp({ dataDir: live });
  for (let i = 0; i < 5; i++) await app.app.services.pipeline.submit({ type: 'clock' });
  const atCopy = { seq: app.app.engine.seq, hash: app.app.engine.stateHash() };

  const copy = join(dir, 'copy');
  const r = await backup(live, copy);
  t.equal(r.code, 0, r.err);
  t.match(r.out, /^backup: .* copied to .*data\.mdb \(\d+ bytes\)/);
  t.equal((statSync(join(copy, 'data.mdb')).mode & 0o777).toString(8), '600', 'the copy is private');
  // The venue keeps going after the copy.
  for (let i = 0; i < 3; i++) await app.app.services.pipeline.submit({ type: 'clock' });
  t.equal(app.app.engine.seq, atCopy.seq + 3);

  const again = await backup(live, copy);
  t.equal(again.code, 1, 'a second copy into the same directory is refused');
  t.match(again.err, /exists already/);
  const none = await backup(join(dir, 'nowhere'), join(dir, 'copy2'));
  t.equal(none.code, 1, 'a DATA_DIR without an environment is refused');
  t.match(none.err, /no LMDB environment/);
  await app.close();

  // Restore: the copy becomes DATA_DIR/lmdb of a new directory (the master key travels apart).
  const restored = join(dir, 'restored');
  mkdirSync(restored, { mode: 0o700 });
  cpSync(copy, join(restored, 'lmdb'), { recursive: true });
  cpSync(join(live, 'keys'), join(restored, 'keys'), { recursive: true });
  const back = await startTestApp({ dataDir: restored });
  t.equal(back.app.engine.seq, atCopy.seq, 'the restored venue is at the seq of the copy');
  t.equal(back.app.engine.stateHash(), atCopy.hash, 'with the state hash it had then');
  await back.close();
});
