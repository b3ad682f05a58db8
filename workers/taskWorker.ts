/**
 * How every Piscina pool of this project starts its worker threads, in one place, so that a
 * worker loads the same way whenever it starts: at pool start, as the replacement for one
 * that died, or lazily for a task.
 *
 * Each worker loads workers/loadTask.cjs, plain CommonJS that registers tsx's CommonJS hook
 * in its own thread and then requires the `.ts` task. Loader flags of the parent
 * (`--import tsx`, `--loader`, `--require`) are not passed on: the worker needs none, and
 * under Node 20 tsx's `--import` in a worker thread registers ESM hooks that do not apply
 * there anyway. Before, a worker relied on the inherited `--import tsx`, and when Piscina's
 * `require` of the task failed, its ESM fallback reported "Unknown file extension .ts",
 * hiding the real error.
 */
import type { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';

const LOADER_FLAGS = new Set(['--import', '--loader', '--experimental-loader', '--require', '-r']);

/** The parent's execArgv without loader flags (`--import x`, `--import=x`, ...). */
export function workerExecArgv(parent: readonly string[] = process.execArgv): string[] {
  const out: string[] = [];
  for (let i = 0; i < parent.length; i++) {
    const arg = parent[i]!;
    const eq = arg.indexOf('=');
    if (LOADER_FLAGS.has(eq === -1 ? arg : arg.slice(0, eq))) {
      if (eq === -1) i++; // its value is the next argument
      continue;
    }
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
