/**
 * The port is exclusive: a second venue on a port a running venue holds refuses to start
 * (exit 1, a message naming the port) instead of binding too and splitting connections
 * with the first (uWebSockets.js listens with SO_REUSEPORT unless told otherwise).
 */
import t from 'tap';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:net';
import { startTestApp } from './support/testApp.ts';

const START_AT = Date.UTC(2026, 0, 5, 12, 0, 0);
/**
 * A port the kernel just handed out, then released. The first venue must bind a fixed port:
 * one the kernel picks for port 0 is never shared through SO_REUSEPORT, so it would not
 * show the problem.
 */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

const main = fileURLToPath(new URL('../../gateway/main.ts', import.meta.url));

t.test('a second venue on a port in use refuses to start and names the port', async (t) => {
  const first = await startTestApp({ startAt: START_AT, env: { PORT: String(await freePort()) } });
  t.teardown(() => first.close());
  const port = first.app.port;
  const dataDir = mkdtempSync(join(tmpdir(), 'venue-port-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));

  const child = spawn(process.execPath, ['--import', 'tsx', main], { env: { ...process.env, CHAIN: 'none', PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, WORKERS: '1' }, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
    // Without an exclusive bind the second venue starts: stop it so the test fails instead of hanging.
    if (err.includes('"msg":"listening"')) child.kill('SIGKILL');
  });
  const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
  t.notMatch(err, /"msg":"listening"/, 'the second venue never listened');
  t.equal(code, 1, 'exit 1');
  t.match(err, new RegExp(`"msg":"failed to start","error":"cannot listen on 127\\.0\\.0\\.1:${port}: port ${port} is in use by another process`));

  // The refused start released its DATA_DIR: the same directory starts on a free port.
  const again = await startTestApp({ dataDir, startAt: START_AT });
  t.ok(again.app.port > 0);
  await again.close();
});

t.test('in process: a refused listen releases DATA_DIR and rejects with the port', async (t) => {
  const first = await startTestApp({ startAt: START_AT, env: { PORT: String(await freePort()) } });
  t.teardown(() => first.close());
  const dataDir = mkdtempSync(join(tmpdir(), 'venue-port-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  await t.rejects(startTestApp({ dataDir, startAt: START_AT, env: { PORT: String(first.app.port) } }), new RegExp(`port ${first.app.port} is in use`));
  const again = await startTestApp({ dataDir, startAt: START_AT });
  t.ok(again.app.port > 0, 'DATA_DIR was released');
  await again.close();
});
