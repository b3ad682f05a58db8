/**
 * lmdb-js returns one shared promise for every write queued in the same transaction; it
 * resolves when that transaction is committed (visible, in the OS page cache). With
 * `separateFlushed` the promise also carries `.flushed`, which resolves once the commit's
 * fdatasync has returned. This turns either into the acknowledgement the caller waits for,
 * once per transaction rather than once per write.
 */
import type { Durability } from './types.ts';

type CommitPromise = Promise<boolean> & { flushed?: Promise<unknown> };

const noop = (): void => {};

export type AckTracker = {
  /** The acknowledgement for a write that returned `commit`; the same object for every write of one transaction. */
  ack(commit: Promise<boolean>): Promise<void>;
  /** How many distinct transactions this tracker has seen (group commit makes this far below the write count). */
  transactions(): number;
};

export function ackTracker(durability: Durability): AckTracker {
  let lastCommit: Promise<boolean> | null = null;
  let lastAck: Promise<void> = Promise.resolve();
  let count = 0;
  return {
    ack(commit: Promise<boolean>): Promise<void> {
      if (commit !== lastCommit) {
        lastCommit = commit;
        count++;
        const flushed = (commit as CommitPromise).flushed;
        // A failed commit never resolves `flushed`, so wait on the commit too: the ack must reject, not hang.
        lastAck = durability === 'flush' && flushed !== undefined ? Promise.all([commit, flushed]).then(noop) : commit.then(noop);
      }
      return lastAck;
    },
    transactions: () => count,
  };
}
