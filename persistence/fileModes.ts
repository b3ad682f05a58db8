/**
 * DATA_DIR holds the journal, sessions, sealed API-key secrets and (without
 * KEY_ENCRYPTION_KEY) the key that opens them: it is private to the venue's user.
 * Directories are created 0700 and files 0600. LMDB creates its files 0664 (less the
 * umask); those are tightened to 0600 right after LMDB creates them, inside a DATA_DIR that
 * is already 0700. Modes an operator set looser on purpose (a backup agent's group, say)
 * are not changed: each such path is named in one warning line at start.
 */
import { chmodSync, mkdirSync, statSync } from 'node:fs';
import type { Logger } from './types.ts';

export const PRIVATE_DIR = 0o700;
export const PRIVATE_FILE = 0o600;

/** Creates `dir` (and missing parents) with mode 0700; an existing directory is left as it is. */
export function makePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR });
}

/** Sets a file just created by someone else (LMDB) to 0600. */
export function makePrivateFile(file: string): void {
  chmodSync(file, PRIVATE_FILE);
}

/** One warning per existing path that group or others may read, write or enter. Returns the paths. */
export function warnIfLoose(paths: readonly string[], log: Logger): string[] {
  const loose: string[] = [];
  for (const path of paths) {
    let mode: number;
    try {
      mode = statSync(path).mode;
    } catch {
      continue; // absent (e.g. no master.key when KEY_ENCRYPTION_KEY is set)
    }
    if ((mode & 0o077) === 0) continue;
    loose.push(path);
    const dir = (mode & 0o170000) === 0o040000;
    const octal = (mode & 0o777).toString(8).padStart(4, '0');
    log.warn(`DATA_DIR: ${path} has mode ${octal}: group or others can get at it; the venue creates ${dir ? 'directories 0700' : 'files 0600'} (chmod ${dir ? '700' : '600'} ${path})`, { path, mode: octal });
  }
  return loose;
}
