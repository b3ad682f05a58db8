/** Shared by both snapshot stores: a snapshot's stored form and its check on the way back. */
import type { Snapshot, SnapshotCandidate } from './types.ts';
import { decodeFrame, encodeFrame } from './frame.ts';

export const DEFAULT_KEEP_SNAPSHOTS = 3;

export function encodeSnapshot(s: Snapshot): Buffer {
  if (!Number.isSafeInteger(s.seq) || s.seq < 0) throw new RangeError(`snapshot seq must be an integer >= 0, got ${s.seq}`);
  return encodeFrame(s.read === undefined ? { seq: s.seq, hash: s.hash, takenAt: s.takenAt, state: s.state } : { seq: s.seq, hash: s.hash, takenAt: s.takenAt, state: s.state, read: s.read });
}

export function checkSnapshot(seq: number, bytes: Uint8Array): SnapshotCandidate {
  const frame = decodeFrame(bytes);
  if (!frame.ok) return { ok: false, seq, reason: frame.reason };
  const v = frame.value as Record<string, unknown> | null;
  if (
    typeof v !== 'object' ||
    v === null ||
    v.seq !== seq ||
    typeof v.hash !== 'string' ||
    typeof v.takenAt !== 'number' ||
    !(v.state instanceof Uint8Array) ||
    (v.read !== undefined && !(v.read instanceof Uint8Array))
  ) {
    return { ok: false, seq, reason: 'not a snapshot record' };
  }
  const snapshot: Snapshot = { seq, hash: v.hash, takenAt: v.takenAt, state: v.state };
  if (v.read instanceof Uint8Array) snapshot.read = v.read;
  return { ok: true, snapshot };
}

export function logSkipped(log: { warn(msg: string, fields?: object): void }, c: { seq: number; reason: string }): void {
  log.warn(`snapshots: snapshot at seq ${c.seq} failed its check (${c.reason}); falling back to an older one`, { seq: c.seq, reason: c.reason });
}
