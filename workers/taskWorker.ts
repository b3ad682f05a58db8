/**
 * How every Piscina pool of this project starts its worker threads, in one place, so that a
 * worker loads the same way whenever it starts: at pool start, as the replacement for one
 * that died, or lazily for a task.
 *
 * Each worker loads workers/loadTask.cjs, plain CommonJS that registers tsx's CommonJS hook
 * in its own thread and then requires the `.ts` task. Loader flags of the parent
 * (`--import tsx`, `--loader`, `--require`) are not passed on: the worker needs none, and
 * under Node 20 tsx's `--import` in a worker thread registers ESM hooks that do not apply
 * there anyway. Nor are V8's flags (`--trace-gc`, `--max-semi-space-size`: a worker refuses
 * them, and they are the whole process's already). Before, a worker relied on the inherited
 * `--import tsx`, and when Piscina's `require` of the task failed, its ESM fallback reported
 * "Unknown file extension .ts", hiding the real error.
 */
import type { EventEmitter } from 'node:events';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const LOADER_FLAGS = new Set(['--import', '--loader', '--experimental-loader', '--require', '-r']);

let v8Flags: ReadonlySet<string> | null = null;

/**
 * The names of V8's own flags (`--trace-gc`, `--max-semi-space-size`, ...), from
 * `node --v8-options`, read once and only when a parent flag has to be told apart. A worker
 * thread refuses every one of them (ERR_WORKER_INVALID_EXEC_ARGV: V8's flags are the
 * process's, so the worker runs with them anyway), and a pool whose workers cannot start
 * would fail every task.
 */
function isV8Flag(arg: string): boolean {
  if (v8Flags === null) {
    const listed = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' });
    v8Flags = new Set([...listed.matchAll(/^ {2}--([a-z0-9][a-z0-9_-]*) \(/gm)].map((m) => m[1]!.replaceAll('_', '-')));
  }
  const eq = arg.indexOf('=');
  const name = (eq === -1 ? arg : arg.slice(0, eq)).replace(/^--(no-)?/, '').replaceAll('_', '-');
  return v8Flags.has(name);
}

/** The parent's execArgv without loader flags (`--import x`, `--import=x`, ...) and without V8's flags (isV8Flag). */
export function workerExecArgv(parent: readonly string[] = process.execArgv): string[] {
  const out: string[] = [];
  for (let i = 0; i < parent.length; i++) {
    const arg = parent[i]!;
    const eq = arg.indexOf('=');
    if (LOADER_FLAGS.has(eq === -1 ? arg : arg.slice(0, eq))) {
      if (eq === -1) i++; // its value is the next argument
      continue;
    }
    if (arg.startsWith('--') && isV8Flag(arg)) continue;
    out.push(arg);
  }
  return out;
}

export type TaskWorkerOptions<D extends object> = { filename: string; execArgv: string[]; workerData: D & { taskFile: string }; recordTiming: false };

/** Piscina options for a pool running the `.ts` task at `taskUrl`. */
export function taskWorkerOptions<D extends object>(taskUrl: URL, workerData: D): TaskWorkerOptions<D> {
  return {
    filename: fileURLToPath(new URL('./loadTask.cjs', import.meta.url)),
    execArgv: workerExecArgv(),
    workerData: { ...workerData, taskFile: fileURLToPath(taskUrl) },
    // Piscina's wait and run histograms record every task on the main thread (~2% of an order's
    // time there, docs/performance.md); the pools keep their own counts (`stats()`).
    recordTiming: false,
  };
}

/** What a pool does with a worker's failure outside any task (e.g. a worker that cannot load). */
export type WorkerErrorHandler = (error: Error) => void;

/**
 * Piscina reports a worker that fails outside a task (while loading, before its first task)
 * as the pool's 'error' event; an EventEmitter with no listener for it throws, and the whole
 * venue would exit. Every pool hands it to `onError` instead (the venue logs it; the tasks
 * waiting on that worker fail with their own error and their callers get a reply).
 */
export function onWorkerError(pool: EventEmitter, onError: WorkerErrorHandler): void {
  pool.on('error', (error: unknown) => onError(error instanceof Error ? error : new Error(String(error))));
}

/** The default handler when a caller names none: one JSON line on stderr, like the venue's log. */
export const logWorkerError: WorkerErrorHandler = (error) => {
  process.stderr.write(`${JSON.stringify({ level: 'error', msg: 'worker thread failed outside a task', error: error.message })}\n`);
};
