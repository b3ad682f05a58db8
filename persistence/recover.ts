/**
 * Crash recovery: newest usable snapshot, then the journal after it, in order.
 *
 * What can go wrong and what happens (docs/persistence.md, "Recovery"):
 * - A snapshot fails its checksum, cannot be restored, or restores to a different hash than
 *   it recorded: warn and fall back to the next older one (then to `create()`). The hash
 *   compared is the engine's `restoredHash()` when it has one (a snapshot of an older format,
 *   migrated on restore: the hash as that format computed it), else its `stateHash()`.
 * - A journal entry of the journal's LAST write (its last batch: a torn tail) fails its
 *   checksum / decode / key check: replay stops before it; it and the rest of that write are
 *   moved to the quarantine database with one warning line, and the venue starts at the last
 *   good seq. The next start finds a clean journal.
 * - Any other damage (a bad entry with later writes after it, or a missing seq: a gap)
 *   throws JournalDamageError: starting would silently forget acknowledged commands (orders,
 *   deposits, used nonces). The message names the entry, the check and the way out: restore
 *   a backup, or the operator's explicit `npm run recover -- --truncate-at <seq>`, which
 *   calls this with `truncateAt`.
 * - The journal starts after the snapshot because it was pruned (no snapshot that covers the
 *   pruned commands verified): starting would silently lose acknowledged history, so this
 *   throws; the operator restores DATA_DIR from a backup.
 * - `apply` throwing is an engine bug (rejections are values), so it propagates.
 *
 * Every truncation first calls `beforeTruncate(from)` (synchronously, before anything is
 * removed): the gateway marks every order nonce ever used as used there, so a signed order
 * in the dropped part cannot be submitted again.
 */
import type { Journal, JournalEntry, Logger, Replayable, RecoveryResult, SnapshotStore } from './types.ts';

export class RecoveryError extends Error {
  override name = 'RecoveryError';
}

/** Damage before the journal's last write: start-up stops (see the module comment). */
export class JournalDamageError extends RecoveryError {
  override name = 'JournalDamageError';
  constructor(
    message: string,
    /** The first entry that cannot be replayed: what `--truncate-at` would name. */
    readonly seq: number,
  ) {
    super(message);
  }
}

export type RecoverOptions<E> = {
  journal: Journal;
  snapshots: SnapshotStore;
  create: () => E;
  /** `read`: the read models' state stored with the snapshot, null when it holds none. */
  restore: (bytes: Uint8Array, read: Uint8Array | null) => E;
  /**
   * Snapshots must hold the read models' state too (the gateway's): one without it (taken by
   * a version that kept none) is passed over like a damaged one, and recovery falls back to
   * an older snapshot or to the journal from its start.
   */
  requireRead?: boolean;
  log: Logger;
  /**
   * The operator's explicit truncation (`npm run recover -- --truncate-at <seq>`): replay up
   * to seq-1 and move seq and everything after it to quarantine, damaged or not. Refused
   * when damage comes before it, when a snapshot in use already includes it, or when there
   * is nothing at or after it.
   */
  truncateAt?: number;
  /** Called with the first seq to be removed, before any truncation. */
  beforeTruncate?: (from: number) => void;
};

function describe(entry: JournalEntry, expected: number): string {
  return entry.ok ? `entry ${expected} is missing (next is ${entry.seq})` : `entry ${entry.seq} failed its check (${entry.reason})`;
}

export function recover<E extends Replayable>(opts: RecoverOptions<E>): RecoveryResult<E> {
  const { journal, snapshots, log, truncateAt } = opts;
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
    if (opts.requireRead === true && s.read === undefined) {
      warn(`snapshots: snapshot at seq ${s.seq} holds no read-model state (taken by an earlier version); falling back to an older one`, { seq: s.seq });
      continue;
    }
    let restored: E;
    try {
      restored = opts.restore(s.state, s.read ?? null);
    } catch (e) {
      warn(`snapshots: snapshot at seq ${s.seq} could not be restored (${(e as Error).message}); falling back to an older one`, { seq: s.seq });
      continue;
    }
    const hash = restored.restoredHash?.() ?? restored.stateHash();
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
  const storedLast = journal.lastSeq();
  if (truncateAt !== undefined) {
    if (!Number.isSafeInteger(truncateAt) || truncateAt < 1) throw new RecoveryError(`recover: --truncate-at must be a whole number >= 1, got ${truncateAt}`);
    if (truncateAt <= snapshotSeq) {
      throw new RecoveryError(`recover: the snapshot in use (seq ${snapshotSeq}) already includes entry ${truncateAt}; truncating there would not remove it from the state (choose a seq above ${snapshotSeq})`);
    }
    if (truncateAt > storedLast) throw new RecoveryError(`recover: the journal ends at ${storedLast}; there is nothing at or after ${truncateAt} to drop`);
  }

  let truncated: RecoveryResult<E>['truncated'] = null;
  const cut = (from: number, message: string, fields: object): void => {
    opts.beforeTruncate?.(from);
    const removed = journal.truncateFrom(from);
    truncated = { from, removed };
    warn(message.replace('{removed}', String(removed)), { ...fields, truncatedFrom: from, truncated: removed });
  };

  let expected = first;
  let replayed = 0;
  const tail = journal.tailStart();
  for (const entry of journal.scan(first)) {
    if (entry.ok && entry.seq === expected && (truncateAt === undefined || expected < truncateAt)) {
      engine.apply(entry.command);
      replayed++;
      expected++;
      continue;
    }
    if (truncateAt !== undefined && expected === truncateAt) {
      const found = entry.ok && entry.seq === expected ? '' : ` (${describe(entry, expected)})`;
      cut(expected, `journal: recover --truncate-at ${truncateAt}: replayed up to ${expected - 1}, dropped {removed} entries from ${expected}${found} (moved to quarantine)`, { lastGoodSeq: expected - 1 });
      break;
    }
    const problem = describe(entry, expected);
    const torn = !entry.ok && entry.seq >= tail && truncateAt === undefined;
    if (!torn) {
      const after = storedLast > expected ? `; entries up to ${storedLast} follow it` : '';
      const how =
        truncateAt !== undefined
          ? `--truncate-at ${truncateAt} is after it; choose ${expected} or lower`
          : `to start anyway, stop nothing else and run \`npm run recover -- --truncate-at ${expected}\`: it drops entries ${expected}..${storedLast} (moved to the journal-quarantine database; ` +
            'every order nonce ever used stays used), or restore DATA_DIR from a backup';
      throw new JournalDamageError(
        `journal: ${problem}${after}. This is damage inside the journal, not a torn last write: starting would forget acknowledged commands ${expected}..${storedLast} ` +
          `(replay reached ${expected - 1}). Refusing to start; ${how}`,
        expected,
      );
    }
    cut(expected, `journal: ${problem} in the last write (a torn tail); replayed up to ${expected - 1}, truncating {removed} entries from ${expected} (moved to quarantine)`, { lastGoodSeq: expected - 1 });
    break;
  }

  const lastSeq = expected - 1;
  if (journal.lastSeq() > lastSeq && truncated === null) {
    // The entries ran out before the journal's recorded end (its last write claims more than it holds): a torn tail too.
    cut(expected, `journal: entries end at ${lastSeq} but the last write claims up to ${journal.lastSeq()} (a torn tail); truncating {removed} entries from ${expected}`, { lastGoodSeq: lastSeq });
  } else if (journal.lastSeq() < lastSeq) {
    warn(`journal: ends at ${journal.lastSeq()} but the snapshot is at ${snapshotSeq}; continuing from ${lastSeq}`, { snapshotSeq });
    journal.truncateFrom(lastSeq + 1);
  }
  log.info(`recovery: snapshot at seq ${snapshotSeq}, replayed ${replayed} commands, lastSeq ${lastSeq}`, {
    snapshotSeq,
    replayed,
    lastSeq,
    warnings: warnings.length,
  });
  return { engine, snapshotSeq, replayed, lastSeq, warnings, truncated };
}
