/**
 * Snapshots in the same LMDB environment as the journal, so that one copy of the
 * environment is a consistent backup of both, and so that LMDB's commit order guarantees
 * a journal prune is never durable without the snapshot that justified it.
 * Key: the snapshot's seq; value: a checksummed frame of { seq, hash, takenAt, state }.
 */
import type { RootDatabase } from 'lmdb';
import type { Durability, Logger, Snapshot, SnapshotCandidate, SnapshotStore } from './types.ts';
import { ackTracker } from './lmdbAck.ts';
import { openBinaryDb } from './framedDb.ts';
import { checkSnapshot, DEFAULT_KEEP_SNAPSHOTS, encodeSnapshot, logSkipped } from './snapshotRecord.ts';

export function lmdbSnapshotStore(env: RootDatabase, opts: { durability: Durability; log: Logger; keep?: number; keepGenesis?: boolean }): SnapshotStore {
  const db = openBinaryDb(env, 'snapshots');
  const keep = opts.keep ?? DEFAULT_KEEP_SNAPSHOTS;
  if (!Number.isInteger(keep) || keep < 1) throw new RangeError(`keep must be an integer >= 1, got ${keep}`);
  const tracker = ackTracker(opts.durability);
  const seqs = (): number[] => [...db.getKeys()].filter((k): k is number => typeof k === 'number');

  const store: SnapshotStore = {
    save(s: Snapshot): Promise<void> {
      let bytes: Buffer;
      try {
        bytes = encodeSnapshot(s);
      } catch (e) {
        return Promise.reject(e);
      }
      const written = db.put(s.seq, bytes);
      // Removals queued in the same turn land in the same transaction as the new snapshot.
      // The genesis (seq 0) stays beside the newest K when asked (PUBLIC_JOURNAL: an audit starts from it).
      const all = [...new Set([...seqs(), s.seq])].filter((q) => !(opts.keepGenesis === true && q === 0)).sort((a, b) => a - b);
      for (const old of all.slice(0, Math.max(0, all.length - keep))) db.remove(old);
      return tracker.ack(written);
    },
    *candidates(): Iterable<SnapshotCandidate> {
      for (const { key, value } of db.getRange({ reverse: true, snapshot: true })) {
        yield typeof key === 'number' ? checkSnapshot(key, value) : { ok: false, seq: Number.NaN, reason: `non-numeric key ${String(key)}` };
      }
    },
    latestValid(): Snapshot | null {
      for (const c of store.candidates()) {
        if (c.ok) return c.snapshot;
        logSkipped(opts.log, c);
      }
      return null;
    },
    seqs,
  };
  return store;
}
