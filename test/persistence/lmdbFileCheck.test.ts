/**
 * A truncated lmdb/data.mdb stops start-up with a message naming the file instead of a
 * bare `Bus error` (SIGBUS inside LMDB's memory map). Each open runs in a child process, so
 * a SIGBUS fails the test instead of killing tap.
 */
import t from 'tap';
import { spawn } from 'node:child_process';
import { statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStorage } from '../../persistence/storage.ts';
import { captureLogger } from './fixtures/captureLogger.ts';
import { drive } from './fixtures/drive.ts';
import { tempDir } from './fixtures/tempDir.ts';
import { ToyEngine } from './fixtures/toyEngine.ts';

const child = fileURLToPath(new URL('./fixtures/openChild.ts', import.meta.url));

function openInChild(dir: string): Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['--import', 'tsx', child, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    p.once('exit', (code, signal) => resolve({ code, signal, out }));
  });
}

async function closedEnvironment(t: { teardown(fn: () => void | Promise<void>): void }): Promise<{ dir: string; file: string }> {
  const dir = tempDir(t);
  const storage = openStorage({ dataDir: dir, log: captureLogger(), now: 0 });
  await drive(storage, new ToyEngine(), 1, 3_000, { burst: 100 });
  await storage.close();
  return { dir, file: join(dir, 'lmdb', 'data.mdb') };
}

t.test('an intact environment opens', async (t) => {
  const { dir } = await closedEnvironment(t);
  const r = await openInChild(dir);
  t.same([r.code, r.signal], [0, null], r.out);
  t.match(r.out, /^opened 3000$/m);
});

for (const [name, cut] of [
  ['by whole pages', (size: number) => size - 4096 * 8],
  ['in the middle of a page', (size: number) => size - 4096 * 8 - 1000],
  ['to two pages (the meta pages only)', () => 8192],
] as const) {
  t.test(`data.mdb truncated ${name}: refused with a message naming the file, no SIGBUS`, async (t) => {
    const { dir, file } = await closedEnvironment(t);
    const size = statSync(file).size;
    truncateSync(file, cut(size));
    const r = await openInChild(dir);
    t.equal(r.signal, null, 'the process was not killed by a signal');
    t.equal(r.code, 1, r.out);
    t.match(r.out, `refused: ${file} is truncated: `);
    t.match(r.out, /restore DATA_DIR\/lmdb from a backup/);
  });
}

t.test('an empty data.mdb is refused rather than silently started as a new venue', async (t) => {
  const { dir, file } = await closedEnvironment(t);
  truncateSync(file, 0);
  const r = await openInChild(dir);
  t.equal(r.code, 1, r.out);
  t.match(r.out, `refused: ${file} is empty (0 bytes)`);
});

t.test('a data.mdb that is not LMDB is refused', async (t) => {
  const { dir, file } = await closedEnvironment(t);
  writeFileSync(file, Buffer.alloc(3 * 4096, 7));
  const r = await openInChild(dir);
  t.equal(r.code, 1, r.out);
  t.match(r.out, `refused: ${file} (12288 bytes) has no valid LMDB meta page`);
});
