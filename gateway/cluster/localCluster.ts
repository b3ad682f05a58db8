/**
 * `npm run cluster`: a local cluster on one machine: three nats-server nodes with JetStream
 * (routes between them; the journal stream is R3), and two engine nodes (`npm start` with
 * JOURNAL=nats): one leads, the other is the hot standby; and two edge gateways (EDGE=1:
 * they follow the stream, serve reads and streams, forward writes to the leader). A process
 * that exits (a deposed leader exits 3) is started again (an engine node as a standby).
 * Everything lives under CLUSTER_DIR (default ./data/cluster); engine nodes listen on
 * PORT_BASE+1 and +2 (default 8081, 8082), edges on PORT_BASE+11 and +12 (8091, 8092).
 *
 * Every node shares the stores (sessions, API keys, users: STORES=shared): their API-key
 * secrets are sealed with KEY_ENCRYPTION_KEY, taken from the environment or else generated
 * once into CLUSTER_DIR/key-encryption.key (a local cluster only; docs/persistence.md).
 *
 * `npm run cluster:stop` (or Ctrl-C) stops it all: the supervisor's pid is in
 * CLUSTER_DIR/cluster.pid.
 *
 * Needs nats-server 2.9+ (Debian/Ubuntu: `sudo apt-get install nats-server`, installed as
 * /usr/sbin/nats-server; or NATS_SERVER=/path/to/nats-server).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startNatsCluster } from './natsServers.ts';

const dir = resolve(process.env.CLUSTER_DIR ?? './data/cluster');
const pidFile = join(dir, 'cluster.pid');
const portBase = Number(process.env.PORT_BASE ?? 8080);

async function stopRunning(): Promise<void> {
  if (!existsSync(pidFile)) {
    process.stdout.write(`no cluster running (no ${pidFile})\n`);
    return;
  }
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    rmSync(pidFile, { force: true });
    process.stdout.write(`cluster supervisor ${pid} was not running\n`);
    return;
  }
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    try {
      process.kill(pid, 0);
    } catch {
      process.stdout.write('cluster stopped\n');
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  process.stdout.write(`cluster supervisor ${pid} did not stop within 30 s\n`);
  process.exitCode = 1;
}

async function start(): Promise<void> {
  mkdirSync(dir, { recursive: true });
  if (existsSync(pidFile)) {
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    try {
      process.kill(pid, 0);
      process.stderr.write(`a cluster is already running (supervisor ${pid}); npm run cluster:stop\n`);
      process.exit(1);
    } catch {
      // stale pid file
    }
  }
  writeFileSync(pidFile, String(process.pid));
  const keyFile = join(dir, 'key-encryption.key');
  if (!existsSync(keyFile)) writeFileSync(keyFile, randomBytes(32).toString('hex') + '\n', { mode: 0o600 });
  const keyEncryptionKey = process.env.KEY_ENCRYPTION_KEY || readFileSync(keyFile, 'utf8').trim();
  const nats = await startNatsCluster(dir, 3, { name: 'venue' });
  const natsUrl = nats.urls.join(',');
  process.stdout.write(`nats: ${natsUrl}\n`);
  const nodes = new Map<string, ChildProcess>();
  let stopping = false;
  const runNode = (id: string, port: number, extra: Record<string, string> = {}): void => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'gateway/main.ts'], {
      stdio: ['ignore', 'inherit', 'inherit'],
      // A lease of 3 s by default here: one machine runs all five processes, and a renewal can wait on a busy event loop.
      env: { LEASE_TTL_MS: '3000', ...process.env, KEY_ENCRYPTION_KEY: keyEncryptionKey, JOURNAL: 'nats', NATS_URL: natsUrl, NODE_ID: id, PORT: String(port), DATA_DIR: join(dir, id), ...extra },
    });
    nodes.set(id, child);
    child.once('exit', (code) => {
      nodes.delete(id);
      if (stopping) return;
      process.stdout.write(`${id} exited (${code}); starting it again${extra.EDGE ? '' : ' as a standby'}\n`);
      setTimeout(() => runNode(id, port, extra), 500);
    });
  };
  runNode('engine-a', portBase + 1);
  runNode('engine-b', portBase + 2);
  runNode('edge-1', portBase + 11, { EDGE: '1' });
  runNode('edge-2', portBase + 12, { EDGE: '1' });
  process.stdout.write(`engine nodes: http://127.0.0.1:${portBase + 1}, http://127.0.0.1:${portBase + 2} (one leads, one stands by); edges: http://127.0.0.1:${portBase + 11}, http://127.0.0.1:${portBase + 12}; stop: npm run cluster:stop\n`);
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    await Promise.all(
      [...nodes.values()].map(
        (c) =>
          new Promise<void>((r) => {
            const timer = setTimeout(() => c.kill('SIGKILL'), 15_000);
            c.once('exit', () => (clearTimeout(timer), r()));
            c.kill('SIGTERM');
          }),
      ),
    );
    await nats.stop();
    rmSync(pidFile, { force: true });
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}

if (process.argv[2] === 'stop') await stopRunning();
else await start();
