/**
 * A venue scaled out for the edge tests: one NATS node, an engine leader and edge gateways
 * (EDGE=1), each a real app in this process (startTestApp: fixed start time, no timers), and
 * an edge run as a child process (support/edgeChild.ts) for a test that kills it with SIGKILL.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import { until } from './until.ts';
import { startNatsCluster, type NatsCluster } from '../../../gateway/cluster/natsServers.ts';
import { tempDir } from '../../persistence/fixtures/tempDir.ts';
import { startTestApp, type TestApp } from '../../gateway/support/testApp.ts';

export type EdgeCluster = {
  readonly nats: NatsCluster;
  readonly leader: TestApp;
  readonly edges: TestApp[];
  /** The env of a node of this venue (an edge with `edge`). */
  env(node: string, edge?: boolean): Record<string, string>;
  /** Resolves once every edge has folded the leader's last command. */
  caughtUp(): Promise<void>;
};

/** NATS, the leader, then `edges` edges following it; all stopped at the test's end. */
export async function startEdgeCluster(t: Test, stream: string, edges: number): Promise<EdgeCluster> {
  const nats = await startNatsCluster(tempDir(t, 'cluster-'), 1);
  t.teardown(() => nats.stop());
  const env = (node: string, edge = false) => ({ JOURNAL: 'nats', NATS_URL: nats.urls.join(','), NATS_STREAM: stream, NODE_ID: node, LEASE_TTL_MS: '3000', ...(edge ? { EDGE: '1' } : {}) });
  const leader = await startTestApp({ env: env('engine-a'), dataDir: tempDir(t, 'venue-leader-') });
  t.teardown(() => leader.close());
  if (leader.app.role?.role() !== 'leader') throw new Error('the first engine node did not lead');
  const list: TestApp[] = [];
  for (let i = 1; i <= edges; i++) {
    const edge = await startTestApp({ env: env(`edge-${i}`, true), dataDir: tempDir(t, `venue-edge-${i}-`) });
    t.teardown(() => edge.close());
    list.push(edge);
  }
  const caughtUp = () => until('the edges to fold the leader stream', () => list.every((e) => e.app.engine.seq === leader.app.engine.seq));
  await caughtUp();
  return { nats, leader, edges: list, env, caughtUp };
}

/** An API key (scopes read and trade) for `owner`, as a node stores it: keys are kept per node. */
export type TestKey = { readonly keyId: string; readonly secret: string; readonly owner: string };

export async function putKey(node: TestApp, key: TestKey): Promise<void> {
  await node.app.services.stores.apiKeys.put({ ...key, label: 'edge test', scopes: ['read', 'trade'], createdAt: node.clock.now, lastUsedAt: null });
}

export type EdgeProcess = {
  readonly url: string;
  /** SIGKILL: no goodbye to its clients, its NATS connection or its sockets. */
  kill(): Promise<void>;
};

const child = fileURLToPath(new URL('./edgeChild.ts', import.meta.url));

/** An edge gateway in a child process (holding `keys`); resolves with its URL once it serves. */
export async function startEdgeProcess(env: Record<string, string>, dataDir: string, keys: TestKey[] = [], waitMs = 120_000): Promise<EdgeProcess> {
  const p = spawn(process.execPath, ['--import', 'tsx', child, dataDir, JSON.stringify(env), JSON.stringify(keys)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((r) => p.once('exit', () => r()));
  // A test killed by its timeout must not leave the edge behind.
  const reap = () => p.kill('SIGKILL');
  process.once('exit', reap);
  void exited.then(() => process.off('exit', reap));
  let out = '';
  let err = '';
  p.stderr!.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the edge process did not serve within ${waitMs} ms; stderr: ${err}`)), waitMs);
    void exited.then(() => (clearTimeout(timer), reject(new Error(`the edge process exited before serving; stderr: ${err}`))));
    p.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /serving (\S+)\n/.exec(out);
      if (m !== null) (clearTimeout(timer), resolve(m[1]!));
    });
  });
  return {
    url,
    async kill() {
      if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
      await exited;
      // A grandchild (tsx's esbuild service) can hold the pipes open: do not wait on them.
      p.stdout?.destroy();
      p.stderr?.destroy();
    },
  };
}
