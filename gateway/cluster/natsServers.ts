/**
 * Local nats-server processes with JetStream, for `npm run cluster`, the cluster tests and
 * bench/cluster: one node, or three joined by cluster routes (R3 streams need three). Each
 * node gets free client and route ports and its own store directory. Debian/Ubuntu ship
 * nats-server 2.9 (`apt-get install nats-server`, installed as /usr/sbin/nats-server);
 * NATS_SERVER overrides the binary.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer, connect as tcpConnect } from 'node:net';
import { join } from 'node:path';

export type NatsNode = {
  readonly name: string;
  readonly url: string;
  readonly clientPort: number;
  readonly routePort: number;
  readonly storeDir: string;
  process: ChildProcess;
};

export type NatsCluster = {
  readonly nodes: NatsNode[];
  /** Client URLs of every node (NATS_URL as a list). */
  readonly urls: string[];
  /** kill -9 one node. */
  kill(i: number): void;
  /** Start a killed node again on the same ports and store. */
  restart(i: number): Promise<void>;
  stop(): Promise<void>;
};

export function natsServerBinary(): string {
  if (process.env.NATS_SERVER) return process.env.NATS_SERVER;
  for (const p of ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server']) if (existsSync(p)) return p;
  return 'nats-server';
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const c = tcpConnect(port, '127.0.0.1');
    c.once('connect', () => {
      c.destroy();
      resolve(true);
    });
    c.once('error', () => resolve(false));
  });
}

async function waitForPort(port: number, timeoutMs: number, what: string): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await portOpen(port))) {
    if (Date.now() > until) throw new Error(`${what}: port ${port} did not open within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function startNode(node: Omit<NatsNode, 'process'>, routes: string[], clusterName: string): ChildProcess {
  const args = ['-js', '-sd', node.storeDir, '-a', '127.0.0.1', '-p', String(node.clientPort), '-n', node.name];
  if (routes.length > 0) args.push('--cluster_name', clusterName, '--cluster', `nats://127.0.0.1:${node.routePort}`, '--routes', routes.join(','));
  const child = spawn(natsServerBinary(), args, { stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr?.resume();
  return child;
}

/**
 * Starts `size` nodes (1, or 3 for a cluster) under `dir`, waits for their client ports and,
 * for a cluster, for JetStream to have a meta leader (checked by the caller's first JetStream
 * request, which the client retries). `timeoutMs` bounds each wait.
 */
export async function startNatsCluster(dir: string, size: number, opts: { timeoutMs?: number; name?: string } = {}): Promise<NatsCluster> {
  const timeoutMs = opts.timeoutMs ?? 20_000;
  const clusterName = opts.name ?? 'venue';
  const nodes: NatsNode[] = [];
  const specs: Omit<NatsNode, 'process'>[] = [];
  for (let i = 0; i < size; i++) {
    const clientPort = await freePort();
    const routePort = await freePort();
    const storeDir = join(dir, `nats-${i}`);
    mkdirSync(storeDir, { recursive: true });
    specs.push({ name: `${clusterName}-n${i}`, url: `nats://127.0.0.1:${clientPort}`, clientPort, routePort, storeDir });
  }
  const routesOf = (i: number): string[] => (size === 1 ? [] : specs.filter((_, j) => j !== i).map((s) => `nats://127.0.0.1:${s.routePort}`));
  for (let i = 0; i < size; i++) nodes.push({ ...specs[i]!, process: startNode(specs[i]!, routesOf(i), clusterName) });
  const stopped = new Set<number>();
  // A caller killed by a timeout (a test runner) must not leave servers behind.
  const reap = () => nodes.forEach((n) => n.process.kill('SIGKILL'));
  process.once('exit', reap);
  const cluster: NatsCluster = {
    nodes,
    urls: specs.map((s) => s.url),
    kill(i) {
      stopped.add(i);
      nodes[i]!.process.kill('SIGKILL');
    },
    async restart(i) {
      const n = nodes[i]!;
      if (n.process.exitCode === null && n.process.signalCode === null) await new Promise((r) => n.process.once('exit', r));
      stopped.delete(i);
      n.process = startNode(n, routesOf(i), clusterName);
      await waitForPort(n.clientPort, timeoutMs, n.name);
    },
    async stop() {
      process.off('exit', reap);
      await Promise.all(
        nodes.map(
          (n) =>
            new Promise<void>((resolve) => {
              if (n.process.exitCode !== null || n.process.signalCode !== null) return resolve();
              const timer = setTimeout(() => n.process.kill('SIGKILL'), 5_000);
              n.process.once('exit', () => {
                clearTimeout(timer);
                resolve();
              });
              n.process.kill('SIGTERM');
            }),
        ),
      );
    },
  };
  try {
    for (const n of nodes) {
      const failed = new Promise<never>((_, reject) => n.process.once('error', (e) => reject(new Error(`nats-server (${natsServerBinary()}) failed to start: ${e.message}; install it with apt-get install nats-server`))));
      await Promise.race([waitForPort(n.clientPort, timeoutMs, n.name), failed]);
    }
  } catch (e) {
    await cluster.stop();
    throw e;
  }
  return cluster;
}
