/**
 * SIGTERM while the venue is still starting (signals were only handled once startApp had
 * returned, so one arriving during recovery or right at "listening" killed the process with
 * Node's default action): the venue finishes starting, then stops gracefully, exit 0, with
 * its final snapshot.
 */
import t from 'tap';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('../../gateway/main.ts', import.meta.url));

t.test('SIGTERM during start-up: a graceful stop once started, exit 0', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'venue-sigterm-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const child = spawn(process.execPath, ['--import', 'tsx', main], { env: { ...process.env, CHAIN: 'none', PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, WORKERS: '1' }, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  let sent = false;
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
    // "recovered" is logged inside startApp, before the pools, the server and the listen.
    if (!sent && err.includes('"msg":"recovered"')) {
      sent = true;
      child.kill('SIGTERM');
    }
  });
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((r) => child.once('exit', (c, s) => r([c, s])));
  t.ok(sent, 'SIGTERM was sent during start-up');
  t.same([code, signal], [0, null], 'exit 0, not killed by the signal');
  t.match(err, /"msg":"listening"/, 'it finished starting');
  t.match(err, /"msg":"stopping","signal":"SIGTERM"/);
  t.match(err, /"msg":"snapshots: saved seq \d+/, 'the final snapshot');
  t.match(err, /"msg":"stopped"/);
});
