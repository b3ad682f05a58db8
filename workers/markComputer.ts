/**
 * The pricing boundary (style.md habit 8): recomputing every series' marks when the oracle
 * moves runs off the event loop in a worker thread; an inline implementation runs the same
 * code in process (tests, benchmarks).
 */
import { Piscina } from 'piscina';
import type { MarkInput } from '../engine/flows/marks.ts';
import type { SeriesMarks } from '../engine/commands.ts';
import marksTask from './marks.task.ts';

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
export function createPoolMarkComputer(threads = 1): MarkComputer {
  const taskUrl = new URL('./marks.task.ts', import.meta.url);
  const execArgv = process.execArgv.some((a) => a.includes('tsx')) ? [...process.execArgv] : [...process.execArgv, '--import', import.meta.resolve('tsx')];
  const pool = new Piscina<readonly MarkInput[], SeriesMarks[]>({ filename: taskUrl.href, minThreads: threads, maxThreads: threads, idleTimeout: 60 * 60 * 1000, execArgv });
  return {
    compute: (inputs) => pool.run(inputs),
    stats: () => ({ queueSize: pool.queueSize, completed: pool.completed }),
    close: () => pool.destroy(),
  };
}
