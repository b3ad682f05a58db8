/**
 * Piscina task module: verifies one batch (verifyBatch.ts) in a worker thread. Loaded by
 * `createPoolVerifier` from its `.ts` source through workers/loadTask.cjs, which registers
 * tsx's CommonJS hook in the worker and `require`s this file (tsx's ESM hooks do not reach
 * worker threads on Node 20; see taskWorker.ts). So: no top-level `await` in this module
 * or anything it imports.
 *
 * The backend check runs when the worker loads the module, so a thread without the
 * native binding fails its tasks with NativeSecp256k1MissingError instead of quietly
 * recovering on the slow JS path (unless the pool was created with allowJsFallback).
 */
import { workerData } from 'piscina';
import { assertSecp256k1Ready } from './secp256k1.ts';
import { verifyBatch, type VerifyBatch, type VerifyResult } from './verifyBatch.ts';

export type VerifyTaskWorkerData = { readonly allowJsFallback?: boolean };

export type VerifyTaskResult = {
  readonly results: VerifyResult[];
  /** Time the worker spent on the batch: the pool's busy time for the utilisation metric. */
  readonly runMs: number;
};

assertSecp256k1Ready((workerData as VerifyTaskWorkerData | undefined)?.allowJsFallback === true);

export default function verifyTask(batch: VerifyBatch): VerifyTaskResult {
  const start = performance.now();
  const results = verifyBatch(batch);
  return { results, runMs: performance.now() - start };
}
