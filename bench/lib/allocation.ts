/**
 * Bytes allocated on V8's heap by a piece of code (docs/book.md "Allocation per op"), in
 * process: the heap's used size after the run less before, plus what every collection during
 * the run freed (its used size before less after, from `v8.GCProfiler`, which records each
 * collection's heap statistics). Garbage collected during the run is counted, as allocated;
 * objects allocated outside V8's heap (typed arrays' backing stores, buffers) are not.
 *
 * Accuracy: the used size counts objects up to the allocation top of each space, so the sum is
 * exact up to what the measuring itself allocates (a few KB: the profiler's records at stop,
 * the statistics objects) and what collections move without freeing (none: promotion keeps
 * used size). test/bench/allocation.test.ts checks it against a loop of a known allocation.
 * JIT compilation allocates too (code and feedback): measure warmed code.
 */
import { GCProfiler, getHeapStatistics } from 'node:v8';

export type Allocation = {
  /** Bytes allocated on the heap during `run`. */
  bytes: number;
  /** Collections during `run` (scavenges and full ones). */
  collections: number;
};

type GcRecord = { beforeGC: { heapStatistics: { usedHeapSize: number } }; afterGC: { heapStatistics: { usedHeapSize: number } } };

/** Bytes allocated (and collections run) while `run` runs. */
export function measureAllocation(run: () => void): Allocation {
  const profiler = new GCProfiler();
  profiler.start();
  const before = getHeapStatistics().used_heap_size;
  run();
  const after = getHeapStatistics().used_heap_size;
  const data = profiler.stop() as unknown as { statistics: GcRecord[] } | undefined;
  const records = data?.statistics ?? [];
  let freed = 0;
  for (const r of records) freed += r.beforeGC.heapStatistics.usedHeapSize - r.afterGC.heapStatistics.usedHeapSize;
  return { bytes: after - before + freed, collections: records.length };
}
