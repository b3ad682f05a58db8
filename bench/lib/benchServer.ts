/**
 * The venue as a child process of an end-to-end benchmark (bench/orders.ts, bench/wsorders.ts):
 * the generator forks its own file with `--server`, asks it questions over IPC (each answer
 * bounded: a server that stops answering fails the run), and stops it at the end; a
 * generator that fails kills it, so a failed run ends.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { within } from './deadline.ts';

export type BenchServer<To extends { type: string }, From> = {
  readonly child: ChildProcess;
  /** Send `m` (null: only wait, for the start-up message) and wait for the next message from the server. */
  ask(m: To | null): Promise<From>;
  /** Ask the server to stop and wait for it to exit. */
  stop(): Promise<void>;
};

/** The running server, killed when the generator fails. */
let running: ChildProcess | null = null;

export function forkBenchServer<To extends { type: string }, From>(name: string, file: string, execArgv: readonly string[]): BenchServer<To, From> {
  const child = fork(file, ['--server'], { execArgv: ['--import', 'tsx', ...execArgv], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  running = child;
  const waiters: { resolve: (m: From) => void; reject: (e: Error) => void }[] = [];
  child.on('message', (m: From) => waiters.shift()?.resolve(m));
  let stopping = false;
  child.once('exit', (code, signal) => {
    if (stopping) return;
    const e = new Error(`${name}: the server process exited (${code ?? signal}) while the generator was running`);
    for (const w of waiters.splice(0)) w.reject(e);
  });
  return {
    child,
    ask: (m) =>
      within(
        new Promise<From>((resolve, reject) => {
          waiters.push({ resolve, reject });
          if (m) child.send(m);
        }),
        `${name}: the server's answer to ${m === null ? 'start-up (ready)' : m.type}`,
      ),
    async stop() {
      stopping = true;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send({ type: 'stop' });
      await within(exited, `${name}: the server process exiting after stop`);
      running = null;
    },
  };
}

/** Run a benchmark file: its server when forked with `--server` (never outliving the generator), else its generator, killing the server if it fails. */
export async function runBenchFile(name: string, main: () => Promise<void>, server: () => Promise<void>): Promise<void> {
  if (process.argv.includes('--server')) {
    process.on('disconnect', () => process.exit(1));
    await server();
    return;
  }
  await main().catch((e: unknown) => {
    running?.kill('SIGKILL');
    process.stderr.write(`# bench ${name} failed: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
}
