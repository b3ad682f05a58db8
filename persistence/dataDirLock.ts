/**
 * One process per DATA_DIR. LMDB itself tolerates several processes, but two venues
 * appending to one journal would interleave two histories; the second one must refuse.
 *
 * The lock is DATA_DIR/venue.lock holding the owner's pid. It is created atomically with
 * link(2) from a fully written temp file (so a reader never sees a half-written pid), and a
 * lock whose pid is not running (kill -9, power loss) is taken over. A takeover moves the
 * stale file aside with rename(2) and checks it moved the file it judged stale; if another
 * starter got there first, it puts that lock back and re-examines, so two starters racing
 * over a stale lock cannot both win.
 */
import { linkSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Logger } from './types.ts';

export const LOCK_FILE = 'venue.lock';

export class DataDirInUseError extends Error {
  override name = 'DataDirInUseError';
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(`DATA_DIR ${dataDir} is in use by pid ${pid}`);
  }
}

export type DataDirLock = { readonly path: string; release(): void };

/** Locks held by this process, so a second openStorage on the same directory in one process also refuses. */
const heldHere = new Set<string>();

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to someone else; it still holds the directory.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readIfExists(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

function unlinkIfExists(path: string): void {
  try {
    unlinkSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

export function acquireDataDirLock(dataDir: string, log: Logger): DataDirLock {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 }); // private: see fileModes.ts
  const path = join(dataDir, LOCK_FILE);
  const key = resolve(path);
  if (heldHere.has(key)) throw new DataDirInUseError(dataDir, process.pid);
  const mine = `${process.pid}\n`;
  const temp = `${path}.${process.pid}.tmp`;

  for (let attempt = 0; attempt < 8; attempt++) {
    writeFileSync(temp, mine, { mode: 0o600 });
    try {
      linkSync(temp, path);
      unlinkSync(temp);
      heldHere.add(key);
      return {
        path,
        release(): void {
          if (!heldHere.delete(key)) return;
          if (readIfExists(path) === mine) unlinkIfExists(path);
        },
      };
    } catch (e) {
      unlinkIfExists(temp);
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }

    const seen = readIfExists(path);
    if (seen === null) continue; // released between our link and our read: try again
    const pid = /^\d+\n?$/.test(seen) ? Number.parseInt(seen, 10) : Number.NaN;
    // Our own pid in the file is a previous life of this pid (containers restart as pid 1): stale.
    if (Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && isRunning(pid)) throw new DataDirInUseError(dataDir, pid);

    log.warn(`DATA_DIR ${dataDir}: taking over a stale lock from pid ${Number.isNaN(pid) ? JSON.stringify(seen) : pid} (not running)`, {
      dataDir,
      stalePid: Number.isNaN(pid) ? null : pid,
    });
    const aside = `${path}.stale.${process.pid}`;
    try {
      renameSync(path, aside);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw e;
    }
    if (readIfExists(aside) !== seen) {
      // Someone else replaced the stale lock with a live one before our rename: give it back.
      try {
        linkSync(aside, path);
      } catch {
        // A third starter holds it now; the next attempt examines that one.
      }
    }
    unlinkIfExists(aside);
  }
  throw new Error(`DATA_DIR ${dataDir}: could not acquire ${LOCK_FILE} (contended); is another venue starting?`);
}
