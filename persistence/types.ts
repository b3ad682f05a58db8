/**
 * The contract between the engine's command pipeline and storage. Every interface here
 * has an LMDB implementation (openStorage) and an in-memory one (memoryStorage), chosen
 * in one place at start (style.md habit 8).
 */

/** Commands are plain data: objects, arrays, strings, numbers, booleans, null, and bigint (any size, any sign). */
export type Command = { readonly seq: number; readonly ts: number; readonly type: string; readonly [k: string]: unknown };

/** Structured logger; the gateway owns the implementation. Never pass secrets in `fields`. */
/**
 * A store read that may have to ask the network: the LMDB and memory stores answer at once,
 * the shared JetStream KV stores from their watch-fed cache at once and with a promise only
 * on a cache miss (persistence/kvStores.ts). Callers await it, or test for a promise on hot paths.
 */
export type MaybePromise<T> = T | Promise<T>;

export type Logger = {
  info(msg: string, fields?: object): void;
  warn(msg: string, fields?: object): void;
  error(msg: string, fields?: object): void;
};

/**
 * One journal entry as found on disk: either a command that verified, or the reason it
 * did not. Recovery needs the reason; `read` just stops at the first bad entry.
 */
export type JournalEntry =
  | { readonly ok: true; readonly seq: number; readonly command: Command }
  | { readonly ok: false; readonly seq: number; readonly reason: string };

export type Journal = {
  /** Append a command (its seq must be lastSeq()+1). Resolves once it is durable (committed). Many appends made in
   *  the same event-loop turn share one LMDB transaction/commit (group commit). */
  append(command: Command): Promise<void>;
  /** The seq of the last appended command, durable or still in flight; 0 when empty. */
  lastSeq(): number;
  /**
   * Commands with seq >= fromSeq in order (sync iteration over a read txn), starting at the
   * first one still stored (entries below prunedThrough() are gone). Stops at a corrupt/torn
   * entry or a gap. Sees committed entries only.
   */
  read(fromSeq: number): Iterable<Command>;
  /** Deletes entries with seq < seq, returns how many. Call it for committed entries (after their appends resolved). */
  pruneBefore(seq: number): Promise<number>;
  /** Every stored entry with seq >= fromSeq in key order, each checked (checksum, decode, key = seq). */
  scan(fromSeq: number): Iterable<JournalEntry>;
  /**
   * Makes seq the next seq to append: entries >= seq are removed (the LMDB journal moves
   * their raw bytes to a quarantine database for forensics) and lastSeq() becomes seq-1.
   * Synchronous because recovery runs before anything else. Returns how many were removed.
   */
  truncateFrom(seq: number): number;
  /** Highest seq ever removed by pruneBefore (0 if none): entries up to it are gone on purpose. */
  prunedThrough(): number;
  /**
   * The first seq of the journal's last stored write (LMDB: the last batch, the commands of
   * the last group commit; memory: the last entry); 0 when nothing is stored. Damage at or
   * after it is a torn tail, which recovery may cut; damage before it is not (recover.ts).
   */
  tailStart(): number;
};

/**
 * A snapshot: the engine's state at `seq` and its hash, and, when the venue keeps read models
 * (gateway/readModels/readModels.ts), their state at the same seq (`read`, the codec's bytes),
 * so that a restart resumes the folds without the events before `seq`.
 */
export type Snapshot = { seq: number; hash: string; state: Uint8Array; takenAt: number; read?: Uint8Array };

/** A stored snapshot as found on disk, newest first from `candidates()`. */
export type SnapshotCandidate =
  | { readonly ok: true; readonly snapshot: Snapshot }
  | { readonly ok: false; readonly seq: number; readonly reason: string };

export type SnapshotStore = {
  /** Keeps the last K (configurable, default 3). Resolves once durable. */
  save(s: Snapshot): Promise<void>;
  /** The newest snapshot whose checksum verifies; logs and skips corrupt ones. */
  latestValid(): Snapshot | null;
  /** Every stored snapshot, newest first, each verified lazily (nothing is logged). */
  candidates(): Iterable<SnapshotCandidate>;
  /** Seqs of the stored snapshots, oldest first. */
  seqs(): number[];
};

/** What recovery needs from the engine. */
export type Replayable = {
  apply(command: Command): void;
  stateHash(): string;
  /**
   * Right after a restore: the hash the snapshot should have recorded, when it differs from
   * `stateHash()` (an older snapshot format migrated on restore: the hash as that format
   * computed it). Absent: `stateHash()` is checked.
   */
  restoredHash?(): string;
  serialize(): Uint8Array;
  /** The read models' state at the same seq as `serialize` (absent: the snapshot holds the engine only). */
  serializeRead?(): Uint8Array;
};

export type RecoveryResult<E> = {
  engine: E;
  snapshotSeq: number;
  replayed: number;
  lastSeq: number;
  warnings: string[];
  /** Entries removed from the journal by this recovery (a torn tail, or an operator's --truncate-at): `from` and how many; null when none. */
  truncated: { from: number; removed: number } | null;
};

/** When the journal acknowledges an append (see docs/persistence.md, "Durability"). */
export const Durability = {
  /** After the LMDB commit is visible: survives kill -9 of the process, not necessarily power loss. */
  commit: 'commit',
  /** After the commit's fdatasync returned as well: also survives power loss / kernel crash. */
  flush: 'flush',
} as const;
export type Durability = (typeof Durability)[keyof typeof Durability];
