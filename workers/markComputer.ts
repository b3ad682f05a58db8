/**
 * The pricing boundary (style.md habit 8): recomputing every series' marks when the oracle
 * moves runs off the event loop in a worker thread; an inline implementation runs the same
 * code in process (tests, benchmarks).
 */
import { Piscina } from 'piscina';
import type { MarkInput } from '../engine/flows/marks.ts';
import type { SeriesMarks } from '../engine/commands.ts';
import marksTask from './marks.task.ts';
import { logWorkerError, onWorkerError, taskWorkerOptions, type WorkerErrorHandler } from './taskWorker.ts';

export type MarkComputer = {
  compute(inputs: readonly MarkInput[]): Promise<SeriesMarks[]>;
  stats(): { readonly queueSize: number; readonly completed: number };
  close(): Promise<void>;
};

export function createInlineMarkComputer(): MarkComputer {
  let completed = 0;
  return {
    compute: async (inputs) => {
      completed++;
      return marksTask(inputs);
    },
    stats: () => ({ queueSize: 0, completed }),
    close: async () => {},
  };
}

/** A one-thread pool: the oracle moves every few seconds and a full recomputation takes milliseconds. */
export function createPoolMarkComputer(threads = 1, onError: WorkerErrorHandler = logWorkerError): MarkComputer {
  const pool = new Piscina<readonly MarkInput[], SeriesMarks[]>({
    ...taskWorkerOptions(new URL('./marks.task.ts', import.meta.url), {}),
    minThreads: threads,
    maxThreads: threads,
    idleTimeout: 60 * 60 * 1000,
  });
  onWorkerError(pool, onError);
  // Once closing, nothing may start a worker (see signatureVerifier.ts).
  let closing: Promise<void> | null = null;
  return {
    compute: (inputs) => (closing !== null ? Promise.reject(new Error('mark computer: closed')) : pool.run(inputs)),
    stats: () => ({ queueSize: pool.queueSize, completed: pool.completed }),
    close: () => (closing ??= pool.destroy()),
  };
}
