/**
 * The snapshot worker's thread (gateway/snapshotWorker.ts): a replica of the engine and its
 * read models that follows the committed journal and writes the periodic snapshots, so that
 * the main thread never serialises, hashes, encodes or writes one (docs/persistence.md
 * "Snapshots off the main thread").
 *
 * The replica starts from the newest valid snapshot in DATA_DIR (checked as recovery checks
 * it) and applies the journal's committed commands in order, exactly as recovery replays them:
 * the engine is deterministic, so the replica at seq N is the venue at seq N. Between
 * snapshots it follows the journal every FOLLOW_MS, so a snapshot only has a few commands to
 * catch up on. It reads the journal and writes only snapshots: any failure (a damaged entry, a
 * gap, a snapshot that does not restore) fails the task, drops the replica (rebuilt at the
 * next task) and writes nothing.
 *
 * Loaded through workers/loadTask.cjs (tsx's CommonJS hook): no top-level await here or in
 * anything imported.
 */
import { Venue } from '../engine/index.ts';
import { openSnapshotAccess, type SnapshotAccess } from '../persistence/storage.ts';
import type { Durability } from '../persistence/types.ts';
import { readsFor, replayable } from './replayable.ts';
import type { Logger } from './http/log.ts';

export type SnapshotTask =
  | {
      readonly op: 'take';
      readonly dataDir: string;
      readonly durability: Durability;
      readonly keepSnapshots?: number;
      readonly keepGenesis?: boolean;
      /** The snapshot's takenAt (the venue clock's Unix ms when it was asked for). */
      readonly takenAt: number;
      /** Tests: the thread dies right before writing (a crash in the middle of a snapshot). */
      readonly crashBeforeSave?: boolean;
    }
  | { readonly op: 'close' };

export type SnapshotTaskResult = {
  /** The seq the snapshot was taken at (the last committed command when it was taken), or null after `close`. */
  readonly seq: number | null;
  /** Engine state plus read-model state, in bytes. */
  readonly bytes: number;
  /** Commands the replica applied to catch up in this task. */
  readonly caughtUp: number;
  /** Warnings while (re)building the replica (a snapshot that failed its check, read models folded from the image). */
  readonly warnings: string[];
};

/** How often the replica follows the journal between snapshots, and the most commands it applies in one go. */
const FOLLOW_MS = 200;
const FOLLOW_MAX = 50_000;

type Replica = ReturnType<typeof replayable> & { seq: number };

let access: SnapshotAccess | null = null;
let replica: Replica | null = null;
let follower: NodeJS.Timeout | null = null;
/** Why following the journal last failed (reported with the next snapshot, which rebuilds the replica). */
let followFailure: string | null = null;

function collectingLogger(into: string[]): Logger {
  const note = (msg: string) => void into.push(msg);
  return { info: () => {}, warn: note, error: note } as unknown as Logger;
}

/** The newest valid snapshot, restored and checked against its recorded hash (as recovery does). */
function build(store: SnapshotAccess, warnings: string[]): Replica {
  const log = collectingLogger(warnings);
  for (const c of store.snapshots.candidates()) {
    if (!c.ok) {
      warnings.push(`snapshots: snapshot at seq ${c.seq} failed its check (${c.reason})`);
      continue;
    }
    const s = c.snapshot;
    try {
      const venue = Venue.restore(s.state);
      const r = replayable(venue, readsFor(venue, s.read ?? null, log));
      const hash = r.restoredHash();
      if (hash === s.hash) return Object.assign(r, { seq: s.seq });
      warnings.push(`snapshots: snapshot at seq ${s.seq} restored to hash ${hash}, recorded ${s.hash}`);
    } catch (e) {
      warnings.push(`snapshots: snapshot at seq ${s.seq} could not be restored: ${(e as Error).message}`);
    }
  }
  throw new Error('snapshot worker: no usable snapshot in DATA_DIR to start the replica from');
}

/** Apply the committed commands after the replica's seq (at most `max`); returns how many. */
function catchUp(store: SnapshotAccess, r: Replica, max: number): number {
  store.refresh();
  let n = 0;
  for (const command of store.journal.read(r.seq + 1)) {
    if (command.seq !== r.seq + 1) throw new Error(`snapshot worker: the journal goes from seq ${r.seq} to ${command.seq}`);
    r.apply(command);
    r.seq = command.seq;
    if (++n >= max) break;
  }
  return n;
}

function follow(): void {
  if (access === null || replica === null) return;
  try {
    catchUp(access, replica, FOLLOW_MAX);
  } catch (e) {
    replica = null; // rebuilt by the next snapshot task, which reports this
    followFailure = (e as Error).message;
  }
}

export default async function snapshotTask(task: SnapshotTask): Promise<SnapshotTaskResult> {
  if (task.op === 'close') {
    if (follower !== null) clearInterval(follower);
    follower = null;
    replica = null;
    const closing = access;
    access = null;
    await closing?.close();
    return { seq: null, bytes: 0, caughtUp: 0, warnings: [] };
  }
  const warnings: string[] = [];
  if (followFailure !== null) warnings.push(`snapshot worker: following the journal failed (${followFailure}); the replica was rebuilt from the newest snapshot`);
  followFailure = null;
  try {
    access ??= openSnapshotAccess({ dataDir: task.dataDir, log: collectingLogger(warnings), durability: task.durability, keepGenesis: task.keepGenesis === true, ...(task.keepSnapshots !== undefined ? { keepSnapshots: task.keepSnapshots } : {}) });
    access.refresh();
    replica ??= build(access, warnings);
    const r = replica;
    let caughtUp = 0;
    for (let n = catchUp(access, r, Infinity); n > 0; n = catchUp(access, r, Infinity)) caughtUp += n;
    if (task.crashBeforeSave === true) process.exit(1);
    const state = r.serialize();
    const hash = r.stateHash();
    const read = r.serializeRead();
    await access.snapshots.save({ seq: r.seq, hash, state, takenAt: task.takenAt, read });
    follower ??= setInterval(follow, FOLLOW_MS);
    return { seq: r.seq, bytes: state.length + read.length, caughtUp, warnings };
  } catch (e) {
    replica = null;
    throw e;
  }
}
