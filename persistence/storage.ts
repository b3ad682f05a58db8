/**
 * The one place where storage is chosen (style.md habit 8): `openStorage` for LMDB under
 * DATA_DIR, `memoryStorage` for tests of other layers. Both return the same shape.
 *
 * DATA_DIR layout:
 *   venue.lock        pid of the process using the directory (dataDirLock.ts)
 *   lmdb/data.mdb     the LMDB environment: journal, snapshots and every store
 *   lmdb/lock.mdb     LMDB's reader table (not ours; safe to delete when stopped)
 *   keys/master.key   API-key encryption key, 0600, unless KEY_ENCRYPTION_KEY is set
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { open, type RootDatabase } from 'lmdb';
import type { Durability, Journal, Logger, SnapshotStore } from './types.ts';
import { acquireDataDirLock } from './dataDirLock.ts';
import { checkLmdbFile } from './lmdbFileCheck.ts';
import { makePrivateDir, makePrivateFile, warnIfLoose } from './fileModes.ts';
import { lmdbJournal } from './lmdbJournal.ts';
import { lmdbSnapshotStore } from './lmdbSnapshotStore.ts';
import { memoryJournal, type MemoryJournal } from './memoryJournal.ts';
import { memorySnapshotStore, type MemorySnapshotStore } from './memorySnapshotStore.ts';
import { silentLogger } from './silentLogger.ts';
import { lmdbStores, memoryStores, type Stores } from './stores.ts';
import { loadMasterKey, secretBox } from './stores/secretBox.ts';

export type StorageStats = {
  /** LMDB write transactions committed in this environment since open (all databases). */
  commits: number;
  journalAppends: number;
  /** Distinct transactions the journal's appends went into (appends / this = the group-commit factor). */
  journalTransactions: number;
};

export type Storage = {
  readonly journal: Journal;
  readonly snapshots: SnapshotStore;
  readonly stores: Stores;
  /** Waits for outstanding writes, closes LMDB, releases the DATA_DIR lock. Idempotent. */
  close(): Promise<void>;
  /**
   * A consistent copy of the whole LMDB environment (journal, snapshots, stores), taken while
   * running (LMDB copies from one read transaction), written as `targetDir/data.mdb`. The
   * directory is created; it must not already hold a data.mdb. Restoring: that directory
   * becomes DATA_DIR/lmdb. The master key is not included (docs/persistence.md).
   */
  backup(targetDir: string): Promise<void>;
  stats(): StorageStats;
  /** The master-key file inside DATA_DIR when the key comes from there (no KEY_ENCRYPTION_KEY); null otherwise. */
  readonly masterKeyFile: string | null;
};

export type OpenStorageOptions = {
  dataDir: string;
  log: Logger;
  /** When `append` resolves. Default 'flush' (survives power loss); see docs/persistence.md. */
  durability?: Durability;
  /** Snapshots kept (default 3). */
  keepSnapshots?: number;
  /** Keep the genesis snapshot (seq 0) beside the newest `keepSnapshots` (PUBLIC_JOURNAL: docs/chain.md "The audit"). */
  keepGenesis?: boolean;
  /** 64 hex characters; the gateway passes process.env.KEY_ENCRYPTION_KEY. Absent: DATA_DIR/keys/master.key. */
  keyEncryptionKey?: string | undefined;
  /** API-key replay window in ms (default 30,000). */
  replayWindowMs?: number;
  /** Start time (Unix ms) for loading still-relevant replay records; default the wall clock. */
  now?: number;
};

/**
 * Opens (creating if needed) DATA_DIR. Throws DataDirInUseError when another live process
 * holds it; takes over a lock left by a dead one (logged). Throws LmdbFileError when
 * lmdb/data.mdb is shorter than its meta page records (lmdbFileCheck.ts).
 */
export function openStorage(opts: OpenStorageOptions): Storage {
  const lock = acquireDataDirLock(opts.dataDir, opts.log);
  let env: RootDatabase | undefined;
  try {
    const box = secretBox(loadMasterKey(opts.dataDir, opts.keyEncryptionKey, opts.log));
    const durability = opts.durability ?? 'flush';
    // overlappingSync (lmdb-js default on Linux/macOS) commits first and fdatasyncs after,
    // outside the writer lock; separateFlushed exposes that fdatasync as `.flushed`.
    const lmdbDir = join(opts.dataDir, 'lmdb');
    const files = [join(lmdbDir, 'data.mdb'), join(lmdbDir, 'lock.mdb')];
    // A data.mdb shorter than its meta page says would be a SIGBUS inside LMDB: refuse with a message instead.
    checkLmdbFile(files[0]!);
    makePrivateDir(lmdbDir);
    const fresh = files.filter((f) => !existsSync(f));
    env = open({ path: lmdbDir, maxDbs: 24, separateFlushed: true });
    for (const f of fresh) makePrivateFile(f); // LMDB creates them 0664 less the umask
    warnIfLoose([opts.dataDir, lmdbDir, ...files, lock.path, join(opts.dataDir, 'keys')], opts.log);
    const rootEnv = env;
    let commits = 0;
    rootEnv.on('aftercommit', () => {
      commits++;
    });
    const journal = lmdbJournal(rootEnv, durability);
    const snapshots = lmdbSnapshotStore(rootEnv, { durability, log: opts.log, keepGenesis: opts.keepGenesis === true, ...(opts.keepSnapshots !== undefined ? { keep: opts.keepSnapshots } : {}) });
    const stores = lmdbStores(rootEnv, {
      box,
      log: opts.log,
      now: opts.now ?? Date.now(),
      ...(opts.replayWindowMs !== undefined ? { replayWindowMs: opts.replayWindowMs } : {}),
    });
    let closed: Promise<void> | null = null;
    return {
      journal,
      snapshots,
      stores,
      close(): Promise<void> {
        if (closed === null) {
          journal.flushPending(); // appends made in this very turn must not race the close
          closed = rootEnv.close().finally(() => lock.release());
        }
        return closed;
      },
      backup: async (targetDir: string) => {
        mkdirSync(targetDir, { recursive: true, mode: 0o700 });
        await rootEnv.backup(targetDir, false);
        makePrivateFile(join(targetDir, 'data.mdb')); // a backup is as private as DATA_DIR
      },
      stats: () => {
        const j = journal.stats();
        return { commits, journalAppends: j.appended, journalTransactions: j.transactions };
      },
      masterKeyFile: opts.keyEncryptionKey !== undefined && opts.keyEncryptionKey !== '' ? null : join(opts.dataDir, 'keys', 'master.key'),
    };
  } catch (e) {
    if (env !== undefined) void env.close();
    lock.release();
    throw e;
  }
}

/** What the snapshot worker reads and writes (gateway/snapshot.task.ts): the journal (read only) and the snapshot store. */
export type SnapshotAccess = {
  readonly journal: Journal;
  readonly snapshots: SnapshotStore;
  /** Start a fresh read transaction: reads see every transaction committed until now, by any thread. */
  refresh(): void;
  close(): Promise<void>;
};

/**
 * The LMDB environment of a DATA_DIR that `openStorage` holds open in this process, opened
 * again from a worker thread of the same process (lmdb-js shares one environment among the
 * threads of a process). No lock, no file checks: the opener is the holder's own worker, and
 * it only reads the journal and writes snapshots (LMDB serialises its write transactions with
 * the main thread's, each one atomic).
 */
export function openSnapshotAccess(opts: { dataDir: string; log: Logger; durability?: Durability; keepSnapshots?: number; keepGenesis?: boolean }): SnapshotAccess {
  const env = open({ path: join(opts.dataDir, 'lmdb'), maxDbs: 24, separateFlushed: true });
  const durability = opts.durability ?? 'flush';
  return {
    journal: lmdbJournal(env, durability),
    snapshots: lmdbSnapshotStore(env, { durability, log: opts.log, keepGenesis: opts.keepGenesis === true, ...(opts.keepSnapshots !== undefined ? { keep: opts.keepSnapshots } : {}) }),
    refresh: () => env.resetReadTxn(),
    close: () => env.close(),
  };
}

export type MemoryStorage = Storage & { readonly journal: MemoryJournal; readonly snapshots: MemorySnapshotStore };

/** Everything in memory (nothing survives the process); the journal and snapshot store keep their corruption test hooks. */
export function memoryStorage(opts: { log?: Logger; keepSnapshots?: number; keepGenesis?: boolean; replayWindowMs?: number } = {}): MemoryStorage {
  const journal = memoryJournal();
  const snapshots = memorySnapshotStore({ log: opts.log ?? silentLogger, keepGenesis: opts.keepGenesis === true, ...(opts.keepSnapshots !== undefined ? { keep: opts.keepSnapshots } : {}) });
  return {
    journal,
    snapshots,
    stores: memoryStores(opts.replayWindowMs !== undefined ? { replayWindowMs: opts.replayWindowMs } : {}),
    close: () => Promise.resolve(),
    backup: () => Promise.reject(new Error('memory storage has nothing to back up')),
    stats: () => {
      const j = journal.stats();
      return { commits: j.transactions, journalAppends: j.appended, journalTransactions: j.transactions };
    },
    masterKeyFile: null,
  };
}
