/**
 * Crash recovery: newest usable snapshot, then the journal after it, in order.
 *
 * What can go wrong and what happens (docs/persistence.md, "Recovery"):
 * - A snapshot fails its checksum, cannot be restored, or restores to a different hash than
 *   it recorded: warn and fall back to the next older one (then to `create()`).
 * - A journal entry after the snapshot fails its checksum / decode / key check, or a seq is
 *   missing (a gap): replay stops before it; the entry and everything after it are moved to
 *   the quarantine database (truncated from the journal), with one warning line. The venue
 *   starts at the last good seq. This is never a crash loop: the next start finds a clean journal.
 * - The journal starts after the snapshot because it was pruned (no snapshot that covers the
 *   pruned commands verified): starting would silently lose acknowledged history, so this
 *   throws; the operator restores DATA_DIR from a backup.
 * - `apply` throwing is an engine bug (rejections are values), so it propagates.
 */
import type { Journal, Logger, Replayable, RecoveryResult, SnapshotStore } from './types.ts';

export class RecoveryError extends Error {
  override name = 'RecoveryError';
}

export function recover<E extends Replayable>(opts: {
  journal: Journal;
  snapshots: SnapshotStore;
  create: () => E;
  restore: (bytes: Uint8Array) => E;
  log: Logger;
}): RecoveryResult<E> {
  const { journal, snapshots, log } = opts;
  const warnings: string[] = [];
  const warn = (msg: string, fields?: object): void => {
    warnings.push(msg);
    log.warn(msg, fields);
  };

  let engine: E | null = null;
  let snapshotSeq = 0;
  for (const c of snapshots.candidates()) {
    if (!c.ok) {
      warn(`snapshots: snapshot at seq ${c.seq} failed its check (${c.reason}); falling back to an older one`, { seq: c.seq });
      continue;
    }
    const s = c.snapshot;
    let restored: E;
    try {
      restored = opts.restore(s.state);
    } catch (e) {
      warn(`snapshots: snapshot at seq ${s.seq} could not be restored (${(e as Error).message}); falling back to an older one`, { seq: s.seq });
      continue;
    }
    const hash = restored.stateHash();
    if (hash !== s.hash) {
      warn(`snapshots: snapshot at seq ${s.seq} restored to hash ${hash}, recorded ${s.hash}; falling back to an older one`, { seq: s.seq });
      continue;
    }
    engine = restored;
    snapshotSeq = s.seq;
    break;
  }
  engine ??= opts.create();

  const first = snapshotSeq + 1;
  if (journal.prunedThrough() >= first) {
    throw new RecoveryError(
      `journal: commands ${first}..${journal.prunedThrough()} were pruned and no snapshot covering them verified; ` +
        'refusing to start with lost history (restore DATA_DIR from a backup)',
    );
  }

  let expected = first;
  let replayed = 0;
  for (const entry of journal.scan(first)) {
    if (entry.ok && entry.seq === expected) {
      engine.apply(entry.command);
      replayed++;
      expected++;
      continue;
    }
    const problem = !entry.ok ? `entry ${entry.seq} failed its checksum (${entry.reason})` : `entry ${expected} is missing (next is ${entry.seq})`;
    const removed = journal.truncateFrom(expected);
    warn(`journal: ${problem}; replayed up to ${expected - 1}, truncating ${removed} entries from ${expected} (moved to quarantine)`, {
      lastGoodSeq: expected - 1,
      truncated: removed,
    });
    break;
  }

  const lastSeq = expected - 1;
  if (journal.lastSeq() !== lastSeq) {
    if (journal.lastSeq() < lastSeq) {
      warn(`journal: ends at ${journal.lastSeq()} but the snapshot is at ${snapshotSeq}; continuing from ${lastSeq}`, { snapshotSeq });
    }
    journal.truncateFrom(lastSeq + 1);
  }
  log.info(`recovery: snapshot at seq ${snapshotSeq}, replayed ${replayed} commands, lastSeq ${lastSeq}`, {
    snapshotSeq,
    replayed,
    lastSeq,
    warnings: warnings.length,
  });
  return { engine, snapshotSeq, replayed, lastSeq, warnings };
}
