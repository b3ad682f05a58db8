/**
 * Snapshots off the main thread (docs/persistence.md "Snapshots off the main thread"): one
 * worker thread (gateway/snapshot.task.ts) keeps a replica of the venue that follows the
 * committed journal and writes each periodic snapshot itself. The main thread only asks for
 * one; before, it serialised the engine, hashed it, encoded the read models and framed the
 * record synchronously, between two commands (about half a second after 40,000 orders, a
 * stall of every request in flight).
 *
 * Only for the LMDB journal in DATA_DIR (the worker reads it there); the memory storage of
 * tests and the JetStream journal keep the in-thread snapshot.
 */
import { Piscina } from 'piscina';
import { taskWorkerOptions, onWorkerError, type WorkerErrorHandler } from '../workers/taskWorker.ts';
import type { Durability } from '../persistence/types.ts';
import type { SnapshotTask, SnapshotTaskResult } from './snapshot.task.ts';

export type SnapshotWorkerOptions = {
  readonly dataDir: string;
  readonly durability?: Durability;
  readonly keepSnapshots?: number;
  /** Keep the genesis snapshot (seq 0) beside the newest ones (PUBLIC_JOURNAL). */
  readonly keepGenesis?: boolean;
  readonly onWorkerError: WorkerErrorHandler;
};

export type WorkerSnapshot = { readonly seq: number; readonly bytes: number; readonly caughtUp: number; readonly warnings: string[] };

export type SnapshotWorker = {
  /** Write a snapshot at the journal's last committed command; resolves once it is durable. Rejects if the worker failed or died (nothing written then). */
  take(takenAt: number, test?: { crashBeforeSave?: boolean }): Promise<WorkerSnapshot>;
  /** Close the worker's handle on DATA_DIR and stop the thread (before the storage closes). */
  close(): Promise<void>;
};

export function createSnapshotWorker(opts: SnapshotWorkerOptions): SnapshotWorker {
  // Started at the first snapshot: a venue that never reaches one (most tests) never loads the thread.
  let started: Piscina<SnapshotTask, SnapshotTaskResult> | null = null;
  const pool = (): Piscina<SnapshotTask, SnapshotTaskResult> => {
    if (started === null) {
      started = new Piscina<SnapshotTask, SnapshotTaskResult>({
        ...taskWorkerOptions(new URL('./snapshot.task.ts', import.meta.url), {}),
        minThreads: 1,
        maxThreads: 1,
        concurrentTasksPerWorker: 1,
        // The replica lives in the thread: it must not be retired between snapshots.
        idleTimeout: 2 ** 31 - 1,
        // The replica follows the journal on a timer between tasks: the thread must not sleep in Atomics.wait.
        atomics: 'disabled',
      });
      onWorkerError(started, opts.onWorkerError);
    }
    return started;
  };
  let closing: Promise<void> | null = null;
  return {
    async take(takenAt, test = {}) {
      if (closing !== null) throw new Error('snapshot worker: closed');
      const task: SnapshotTask = {
        op: 'take',
        dataDir: opts.dataDir,
        durability: opts.durability ?? 'flush',
        takenAt,
        ...(opts.keepSnapshots !== undefined ? { keepSnapshots: opts.keepSnapshots } : {}),
        ...(opts.keepGenesis === true ? { keepGenesis: true } : {}),
        ...(test.crashBeforeSave === true ? { crashBeforeSave: true } : {}),
      };
      const r = await pool().run(task);
      if (r.seq === null) throw new Error('snapshot worker: no snapshot taken');
      return { seq: r.seq, bytes: r.bytes, caughtUp: r.caughtUp, warnings: r.warnings };
    },
    close() {
      closing ??= (async () => {
        if (started === null) return;
        try {
          await started.run({ op: 'close' });
        } finally {
          await started.destroy();
        }
      })();
      return closing;
    },
  };
}
