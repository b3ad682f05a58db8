/**
 * Engine-node child processes for the cluster tests (support/engineNodeChild.ts): their
 * output lines, and waits on them that each end with a timeout naming what was awaited.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const child = fileURLToPath(new URL('./engineNodeChild.ts', import.meta.url));

export type Node = {
  readonly process: ChildProcess;
  readonly lines: string[];
  /** Highest `ack <seq>` seen. */
  maxAck(): number;
  /** Resolves with the first line matching `re` (already seen or to come). */
  waitFor(re: RegExp, timeoutMs: number, what: string): Promise<string>;
  kill(): Promise<void>;
};

export function startNode(urls: string[], stream: string, nodeId: string, seed: number): Node {
  const p = spawn(process.execPath, ['--import', 'tsx', child, urls.join(','), stream, nodeId, String(seed)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let maxAck = 0;
  let buf = '';
  let err = '';
  const waiters: { re: RegExp; resolve(l: string): void }[] = [];
  p.stderr!.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
  p.stdout!.on('data', (d: Buffer) => {
    buf += d.toString();
    const parts = buf.split('\n');
    buf = parts.pop()!;
    for (const l of parts) {
      if (l.startsWith('ack ')) maxAck = Math.max(maxAck, Number(l.slice(4)));
      else lines.push(l);
      for (const w of waiters.splice(0)) (w.re.test(l) ? w.resolve(l) : waiters.push(w));
    }
  });
  const exited = new Promise<void>((r) => p.once('exit', () => r()));
  // Nothing of the child keeps the test process alive: the tests await what they need, and a
  // grandchild (tsx's esbuild service) could otherwise hold the pipes open after the child died.
  p.unref();
  (p.stdout as unknown as { unref(): void }).unref();
  (p.stderr as unknown as { unref(): void }).unref();
  // A test killed by its timeout must not leave engine nodes behind.
  const reap = () => p.kill('SIGKILL');
  process.once('exit', reap);
  void exited.then(() => process.off('exit', reap));
  return {
    process: p,
    lines,
    maxAck: () => maxAck,
    waitFor(re, timeoutMs, what) {
      const seen = re.source.startsWith('^ack') ? undefined : lines.find((l) => re.test(l));
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${nodeId}: no "${what}" within ${timeoutMs} ms; lines: ${lines.slice(-5).join(' | ')}; stderr: ${err}`)), timeoutMs);
        waiters.push({ re, resolve: (l) => (clearTimeout(timer), resolve(l)) });
      });
    },
    async kill() {
      if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
      await exited;
      // A grandchild (tsx's esbuild service) can hold the pipes open after the node died: the
      // test process must not wait on them.
      p.stdout?.destroy();
      p.stderr?.destroy();
    },
  };
}

/** Resolves once `node` has acknowledged `n` commands. */
export async function acksReach(node: Node, n: number, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (node.maxAck() < n) {
    if (Date.now() > until) throw new Error(`acks stalled at ${node.maxAck()} (waiting for ${n}); lines: ${node.lines.slice(-5).join(' | ')}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
