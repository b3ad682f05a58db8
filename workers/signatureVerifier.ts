/**
 * The signature verifier: the I/O boundary between the gateway and signature recovery
 * (style.md habit 8), with a real implementation (a Piscina pool of worker threads) and
 * an in-process one running the very same code (tests, and the fallback when no worker
 * thread can be spared). Both verify batches; `createMicroBatcher` (microBatcher.ts)
 * turns one-at-a-time HTTP requests into such batches.
 */
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { assertSecp256k1Ready, type Secp256k1Backend } from './secp256k1.ts';
import type { VerifyTaskResult, VerifyTaskWorkerData } from './verify.task.ts';
import { verifyBatch, type VerifyBatch, type VerifyResult } from './verifyBatch.ts';
import { logWorkerError, onWorkerError, taskWorkerOptions, type WorkerErrorHandler } from './taskWorker.ts';

export type VerifierStats = {
  readonly implementation: 'pool' | 'inline';
  readonly backend: Secp256k1Backend;
  readonly threads: number;
  /** Batches waiting for a free worker. */
  readonly queueSize: number;
  /**
   * Share of the threads' time spent verifying since the verifier started, 0..1. Computed
   * from the workers' own run times (Piscina 5.3's `utilization` is off by a factor of 1000).
   */
  readonly utilization: number;
  /** Total time the threads spent verifying, in seconds: a counter, for rate() in Prometheus. */
  readonly busySeconds: number;
  /** Batches (tasks) completed. */
  readonly completedBatches: number;
  /** Signatures verified (items of completed batches). */
  readonly verifiedItems: number;
};

export type SignatureVerifier = {
  /** Results in item order; rejects only when the batch itself is malformed or a worker died. */
  verify(batch: VerifyBatch): Promise<VerifyResult[]>;
  stats(): VerifierStats;
  close(): Promise<void>;
};

export type InlineVerifierOptions = {
  /** Accept the pure-JS secp256k1 when the native binding is missing (slow; default false: throw). */
  readonly allowJsFallback?: boolean;
};

export type PoolVerifierOptions = InlineVerifierOptions & {
  /** Worker threads (config WORKERS; default availableParallelism() - 1, at least 1). */
  readonly threads?: number;
  /**
   * Largest batch sent to one worker task (default 256). A larger `verify` batch is split
   * so that every thread gets a share; smaller ones are never split below `minTaskItems`.
   */
  readonly maxTaskItems?: number;
  /** A worker's failure outside any task (default: a JSON line on stderr); never a crash. */
  readonly onWorkerError?: WorkerErrorHandler;
  /** Smallest share worth a task of its own when splitting (default 64). */
  readonly minTaskItems?: number;
  /**
   * Tasks posted to a worker at once (default 2). With 1, a worker that finishes a batch
   * idles until the main thread gets CPU to send it the next one, which on a busy
   * machine was most of the time; with 2 the next batch is already in its port.
   */
  readonly tasksPerWorker?: number;
};

/** The same work as the pool, on the calling thread. */
export function createInlineVerifier(options: InlineVerifierOptions = {}): SignatureVerifier {
  const backend = assertSecp256k1Ready(options.allowJsFallback === true);
  let completedBatches = 0;
  let verifiedItems = 0;
  let busyMs = 0;
  return {
    async verify(batch) {
      const start = performance.now();
      const results = verifyBatch(batch);
      busyMs += performance.now() - start;
      completedBatches++;
      verifiedItems += results.length;
      return results;
    },
    // Inline work runs on the caller's thread: no pool, no queue, no utilisation to speak of.
    stats: () => ({ implementation: 'inline', backend, threads: 0, queueSize: 0, utilization: 0, busySeconds: busyMs / 1000, completedBatches, verifiedItems }),
    close: async () => {},
  };
}

/** Piscina pool of worker threads running verify.task.ts. */
export function createPoolVerifier(options: PoolVerifierOptions = {}): SignatureVerifier {
  const allowJsFallback = options.allowJsFallback === true;
  // The workers load the same node_modules: checking here fails at start, on the caller's stack.
  const backend = assertSecp256k1Ready(allowJsFallback);
  const threads = Math.max(1, Math.floor(options.threads ?? availableParallelism() - 1));
  const maxTaskItems = Math.max(1, options.maxTaskItems ?? 256);
  const minTaskItems = Math.max(1, Math.min(maxTaskItems, options.minTaskItems ?? 64));
  const workerData: VerifyTaskWorkerData = { allowJsFallback };
  const pool = new Piscina<VerifyBatch, VerifyTaskResult>({
    ...taskWorkerOptions(new URL('./verify.task.ts', import.meta.url), workerData),
    minThreads: threads,
    maxThreads: threads,
    // Workers stay up: a cold worker pays the tsx transform and module load again.
    idleTimeout: 60 * 60 * 1000,
    concurrentTasksPerWorker: options.tasksPerWorker ?? 2,
  });
  onWorkerError(pool, options.onWorkerError ?? logWorkerError);
  let verifiedItems = 0;
  let completedBatches = 0;
  let busyMs = 0;
  const startedAt = performance.now();

  // Once closing, nothing may start a worker: Piscina's destroy() resets its own flag when
  // done, after which a run() would spawn a fresh worker into a process that is shutting down.
  let closing: Promise<void> | null = null;
  async function run(batch: VerifyBatch): Promise<VerifyResult[]> {
    if (closing !== null) throw new Error('signature verifier: closed');
    const { results, runMs } = await pool.run(batch);
    verifiedItems += results.length;
    completedBatches++;
    busyMs += runMs;
    return results;
  }

  return {
    async verify(batch) {
      const n = batch.items.length;
      // Split so that all threads share a big batch, but never into tasks too small to amortise messaging.
      const share = Math.min(maxTaskItems, Math.max(minTaskItems, Math.ceil(n / threads)));
      if (n <= share) return run(batch);
      const parts: Promise<VerifyResult[]>[] = [];
      for (let start = 0; start < n; start += share) {
        parts.push(run({ ...batch, items: batch.items.slice(start, start + share) } as VerifyBatch));
      }
      return (await Promise.all(parts)).flat();
    },
    stats: () => ({
      implementation: 'pool',
      backend,
      threads: pool.threads.length,
      queueSize: pool.queueSize,
      utilization: Math.min(1, busyMs / ((performance.now() - startedAt) * threads)),
      busySeconds: busyMs / 1000,
      completedBatches,
      verifiedItems,
    }),
    close: () => (closing ??= pool.destroy()),
  };
}
