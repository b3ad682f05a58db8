/** In-memory SnapshotStore with the LMDB store's behaviour (checksummed frames, keep the newest K). */
import type { Logger, Snapshot, SnapshotCandidate, SnapshotStore } from './types.ts';
import { checkSnapshot, DEFAULT_KEEP_SNAPSHOTS, encodeSnapshot, logSkipped } from './snapshotRecord.ts';
import { silentLogger } from './silentLogger.ts';

export type MemorySnapshotStore = SnapshotStore & {
  /** Test hook: replace the stored bytes of a snapshot (simulates corruption). */
  overwriteRaw(seq: number, bytes: Uint8Array): void;
};

export function memorySnapshotStore(opts: { keep?: number; log?: Logger; keepGenesis?: boolean } = {}): MemorySnapshotStore {
  const keep = opts.keep ?? DEFAULT_KEEP_SNAPSHOTS;
  if (!Number.isInteger(keep) || keep < 1) throw new RangeError(`keep must be an integer >= 1, got ${keep}`);
  const log = opts.log ?? silentLogger;
  const stored = new Map<number, Uint8Array>();
  const seqs = (): number[] => [...stored.keys()].sort((a, b) => a - b);

  const store: MemorySnapshotStore = {
    save(s: Snapshot): Promise<void> {
      try {
        stored.set(s.seq, encodeSnapshot(s));
      } catch (e) {
        return Promise.reject(e);
      }
      const all = seqs().filter((q) => !(opts.keepGenesis === true && q === 0));
      for (const old of all.slice(0, Math.max(0, all.length - keep))) stored.delete(old);
      return Promise.resolve();
    },
    *candidates(): Iterable<SnapshotCandidate> {
      for (const seq of seqs().reverse()) {
        const bytes = stored.get(seq);
        if (bytes !== undefined) yield checkSnapshot(seq, bytes);
      }
    },
    latestValid(): Snapshot | null {
      for (const c of store.candidates()) {
        if (c.ok) return c.snapshot;
        logSkipped(log, c);
      }
      return null;
    },
    seqs,
    overwriteRaw(seq: number, bytes: Uint8Array): void {
      stored.set(seq, Uint8Array.from(bytes));
    },
  };
  return store;
}
