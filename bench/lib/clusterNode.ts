/**
 * bench/cluster's venue processes: each a child forked from this file (`--node`), the real
 * venue (bench/lib/benchServer.ts) answering the generator over IPC (fund, feed, cpu, status,
 * stop); `VenueNode` is the generator's handle on one (start, ask, kill -9, stop), and the
 * nats-servers and children of a run are tracked so that a failed run removes them all.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { getAddress } from 'viem';
import { within } from './deadline.ts';
import { fundBenchVenue, startBenchApp, type BenchVenueSetup } from './benchServer.ts';
import { startNatsCluster, type NatsCluster } from '../../gateway/cluster/natsServers.ts';

const log = (line: string) => process.stderr.write(`# ${line}\n`);
export const SESSION_ADDRESS = getAddress('0x00000000000000000000000000000000000c1a57');

export type ToNode = { type: 'fund'; owners: string[] } | { type: 'feedSetup' } | { type: 'feed'; n: number } | { type: 'cpu' } | { type: 'status' } | { type: 'stop' };
export type FromNode =
  | { type: 'ready'; port: number; role: string }
  | { type: 'setup'; setup: BenchVenueSetup }
  | { type: 'feedReady'; channel: string }
  | { type: 'fed'; ok: number }
  | { type: 'cpu'; micros: number }
  | { type: 'status'; role: string; seq: number }
  | { type: 'failed'; message: string };

// ---------------------------------------------------------------- a venue node (child)

export async function node(): Promise<void> {
  process.on('disconnect', () => process.exit(1));
  const send = (m: FromNode) => process.send!(m);
  // A deposed leader exits, as under `npm start` (gateway/main.ts).
  const { app, config } = await startBenchApp(process.env.BENCH_NODE_NAME ?? 'node', { onDeposed: () => process.exit(3) });
  const s = app.services;
  const roleOf = () => app.role?.role() ?? (app.edge !== null ? 'edge' : 'single');
  if (process.env.BENCH_SESSION_TOKEN) {
    const { hashToken } = await import('../../persistence/stores.ts');
    const now = Date.now();
    const user = await s.stores.users.getOrCreate(SESSION_ADDRESS, now);
    await s.stores.sessions.put(hashToken(process.env.BENCH_SESSION_TOKEN), { userId: user.id, address: SESSION_ADDRESS, createdAt: now, expiresAt: now + 24 * 3600_000, form: 'current' });
  }
  // The fan-out feed (bench/fanout.ts's): buy orders below the mark on one series, placed and cancelled, one level each.
  const feed = { owner: getAddress('0x00000000000000000000000000000000000fa170'), nonce: 0n, k: 0, open: [] as `0x${string}`[], seriesId: '' as `0x${string}`, expiry: 0, baseTick: 0 };
  const next = () => {
    const nowSec = Math.floor(s.pipeline.now() / 1000);
    feed.nonce++;
    if (feed.open.length >= 64) return { type: 'cancel' as const, cancels: [{ orderId: feed.open.shift()!, owner: feed.owner, nonce: feed.nonce, deadline: nowSec + 300 }] };
    const orderId = `0x${randomBytes(32).toString('hex')}` as `0x${string}`;
    feed.open.push(orderId);
    feed.k++;
    return { type: 'place' as const, orders: [{ orderId, owner: feed.owner, portfolioId: 1, seriesId: feed.seriesId, isBuy: true, tick: feed.baseTick + (feed.k % 40), size: 10n ** 16n, expiry: feed.expiry, nonce: feed.nonce, deadline: nowSec + 300 }] };
  };
  process.on('message', (m: ToNode) => {
    const run = async (): Promise<FromNode> => {
      if (m.type === 'fund') return { type: 'setup', setup: await fundBenchVenue(app, config, m.owners) };
      if (m.type === 'feedSetup') {
        await s.pipeline.submit({ type: 'create_portfolio', owner: feed.owner });
        await s.pipeline.submit({ type: 'deposit', owner: feed.owner, portfolioId: 1, amount: 10n ** 15n });
        const series = [...s.reads.catalog.series.values()].find((x) => x.isCall && !x.settled && x.expiry > s.pipeline.now() / 1000 + 86_400)!;
        const tickDecimals = s.reads.catalog.pairs.get(series.pairId)!.tickDecimals;
        Object.assign(feed, { seriesId: series.seriesId, expiry: series.expiry, baseTick: Math.max(100, Math.floor(Number(series.marks.mark / 10n ** BigInt(18 - tickDecimals)) / 2)) });
        return { type: 'feedReady', channel: `${series.symbol}@depth` };
      }
      if (m.type === 'feed') {
        const results = await Promise.all(Array.from({ length: m.n }, () => s.pipeline.submit(next())));
        return { type: 'fed', ok: results.filter((r) => r.ok).length };
      }
      if (m.type === 'cpu') {
        const u = process.cpuUsage();
        return { type: 'cpu', micros: u.user + u.system };
      }
      if (m.type === 'status') return { type: 'status', role: roleOf(), seq: app.engine.seq };
      await app.close();
      process.exit(0);
    };
    run().then(send, (e: unknown) => send({ type: 'failed', message: e instanceof Error ? e.message : String(e) }));
  });
  send({ type: 'ready', port: app.port, role: roleOf() });
}

// ---------------------------------------------------------------- the generator's side

/** Every venue child running, killed if the benchmark fails. */
export const children = new Set<ChildProcess>();
export const natsClusters = new Set<NatsCluster>();

/** Environment for a venue child: this process's, without any cluster settings, plus `extra`. */
export function nodeEnv(root: string, name: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of ['JOURNAL', 'NATS_URL', 'NATS_STREAM', 'NODE_ID', 'EDGE', 'ROLE', 'LEASE_TTL_MS', 'PORT', 'DATA_DIR', 'BENCH_SESSION_TOKEN']) delete env[k];
  return { ...env, TMPDIR: root, BENCH_NODE_NAME: name, WS_CONNECTIONS_PER_MINUTE: '1000000', WS_MESSAGES_PER_MINUTE: '1000000', ...extra };
}

/** One key for the run: the shared stores seal API-key secrets with it, the same on every node. */
const KEY_ENCRYPTION_KEY = randomBytes(32).toString('hex');
export const natsEnv = (nats: NatsCluster, nodeId: string, extra: Record<string, string> = {}): Record<string, string> => ({ JOURNAL: 'nats', NATS_URL: nats.urls.join(','), NATS_STREAM: 'BENCH', NODE_ID: nodeId, KEY_ENCRYPTION_KEY, ...extra });

export class VenueNode {
  private readonly waiters: { resolve: (m: FromNode) => void; reject: (e: Error) => void }[] = [];
  readonly exited: Promise<void>;
  port = 0;
  private constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    children.add(child);
    child.on('message', (m: FromNode) => {
      const w = this.waiters.shift();
      if (m.type === 'failed') w?.reject(new Error(`${name}: ${m.message}`));
      else w?.resolve(m);
    });
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        children.delete(child);
        for (const w of this.waiters.splice(0)) w.reject(new Error(`${name}: the venue process exited (${code ?? signal})`));
        resolve();
      }),
    );
  }

  /** Fork a node with `env` and wait for it to listen. */
  static async start(name: string, env: NodeJS.ProcessEnv): Promise<VenueNode> {
    // BENCH_PROFILE_DIR=dir: V8 CPU profiles of every venue process's threads there (CPU.<date>.<pid>.<thread>...),
    // written when it stops (not after kill -9); `# <name>: pid` on stderr says which process is which.
    const profile = process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [];
    const child = fork(fileURLToPath(import.meta.url), ['--node'], { execArgv: ['--import', 'tsx', ...profile], env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const n = new VenueNode(name, child);
    if (profile.length > 0) log(`${name}: pid ${child.pid}`);
    const ready = (await n.ask(null)) as { port: number };
    n.port = ready.port;
    return n;
  }

  ask(m: ToNode | null): Promise<FromNode> {
    return within(
      new Promise<FromNode>((resolve, reject) => {
        this.waiters.push({ resolve, reject });
        if (m !== null) this.child.send(m);
      }),
      `cluster: ${this.name}'s answer to ${m === null ? 'start-up (ready)' : m.type}`,
    );
  }

  async cpu(): Promise<number> {
    return ((await this.ask({ type: 'cpu' })) as { micros: number }).micros;
  }

  async status(): Promise<{ role: string; seq: number }> {
    return (await this.ask({ type: 'status' })) as { role: string; seq: number };
  }

  /** kill -9. */
  async kill(): Promise<void> {
    this.child.kill('SIGKILL');
    await within(this.exited, `cluster: ${this.name} exiting after kill -9`);
  }

  /** A graceful stop (the app's close), kill -9 if it does not exit within STALL_MS. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.send({ type: 'stop' } satisfies ToNode);
    await within(this.exited, `cluster: ${this.name} exiting after stop`).catch(() => this.kill());
  }
}

export async function startNats(root: string, name: string, size: 1 | 3): Promise<NatsCluster> {
  const c = await startNatsCluster(join(root, name), size, { name });
  natsClusters.add(c);
  return c;
}

export async function stopNats(c: NatsCluster): Promise<void> {
  natsClusters.delete(c);
  await c.stop();
}

/** CPU time (us) of a process that is not ours to ask (a nats-server): /proc/<pid>/stat, in 10 ms clock ticks; 0 elsewhere. */
export function procCpuUs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000; // utime, stime (fields 14 and 15 of stat)
  } catch {
    return 0;
  }
}


if (process.argv.includes('--node')) await node();
