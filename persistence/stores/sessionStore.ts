/**
 * Login sessions (bearer tokens of the current form, `session` cookies of the earlier form).
 * Keyed by the SHA-256 of the token, never the token: a copy of DATA_DIR cannot be used to
 * sign in. The key is checked to look like a SHA-256 hex digest so that a raw token passed
 * by mistake is refused instead of stored.
 */
import crypto from 'node:crypto';
import type { RootDatabase } from 'lmdb';
import type { Logger, MaybePromise } from '../types.ts';
import { getFramed, openBinaryDb, putFramed } from '../framedDb.ts';

export type SessionForm = 'current' | 'earlier';
export type SessionRecord = {
  readonly userId: string;
  /** Lowercased by the store. */
  readonly address: string;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly form: SessionForm;
};

export type SessionStore = {
  put(tokenHash: string, record: SessionRecord): Promise<void>;
  /** null when unknown, revoked or expired (now >= expiresAt). */
  get(tokenHash: string, now: number): MaybePromise<SessionRecord | null>;
  /** true when there was a session to revoke. */
  revoke(tokenHash: string): Promise<boolean>;
  /** Revokes every session of the wallet; returns how many. */
  revokeAllFor(address: string): Promise<number>;
  /** Deletes expired sessions; returns how many. */
  sweep(now: number): Promise<number>;
};

/** The store key for a token: lowercase hex SHA-256 of its UTF-8 bytes. */
export function hashToken(token: string): string {
  // Every authenticated request hashes its token: the one-shot crypto.hash (Node 20.12+) costs
  // less than half of a Hash object.
  return oneShotHash !== undefined ? oneShotHash('sha256', token, 'hex') : crypto.createHash('sha256').update(token, 'utf8').digest('hex');
}

const oneShotHash = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

const HASH = /^[0-9a-f]{64}$/;
export function checkHash(tokenHash: string): void {
  if (!HASH.test(tokenHash)) throw new TypeError('sessions: the key must be hashToken(token), 64 lowercase hex characters');
}

export function normal(r: SessionRecord): SessionRecord {
  return { userId: r.userId, address: r.address.toLowerCase(), createdAt: r.createdAt, expiresAt: r.expiresAt, form: r.form };
}

export function isSession(v: unknown): v is SessionRecord {
  const r = v as SessionRecord | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.userId === 'string' &&
    typeof r.address === 'string' &&
    typeof r.createdAt === 'number' &&
    typeof r.expiresAt === 'number' &&
    (r.form === 'current' || r.form === 'earlier')
  );
}

export function memorySessionStore(): SessionStore {
  const sessions = new Map<string, SessionRecord>();
  const revokeWhere = (pred: (r: SessionRecord) => boolean): number => {
    let n = 0;
    for (const [k, r] of sessions) if (pred(r) && sessions.delete(k)) n++;
    return n;
  };
  return {
    async put(tokenHash, record) {
      checkHash(tokenHash);
      sessions.set(tokenHash, normal(record));
    },
    get(tokenHash, now) {
      const r = sessions.get(tokenHash);
      return r !== undefined && now < r.expiresAt ? { ...r } : null;
    },
    revoke(tokenHash) {
      return Promise.resolve(sessions.delete(tokenHash));
    },
    revokeAllFor(address) {
      const a = address.toLowerCase();
      return Promise.resolve(revokeWhere((r) => r.address === a));
    },
    sweep(now) {
      return Promise.resolve(revokeWhere((r) => now >= r.expiresAt));
    },
  };
}

/** Sessions kept decoded in memory by the LMDB store; beyond it the cache starts over. */
const CACHED_SESSIONS = 10_000;

export function lmdbSessionStore(env: RootDatabase, log: Logger): SessionStore {
  const db = openBinaryDb(env, 'sessions');
  // [address, tokenHash] -> empty: finds a wallet's sessions without scanning all of them.
  const byAddress = openBinaryDb(env, 'sessions-by-address');
  const EMPTY = Buffer.alloc(1);
  const onCorrupt = (reason: string): void => log.error(`stores: a session record failed its check (${reason}); treated as absent`);
  const read = (tokenHash: string): SessionRecord | null => {
    const v = getFramed(db, tokenHash, onCorrupt);
    return isSession(v) ? v : null;
  };
  /**
   * Checked records by token hash: every authenticated request reads its session, and an
   * LMDB read plus a frame check and decode was most of authentication's cost. Every write
   * to the sessions goes through this store (one process per DATA_DIR), which keeps the
   * cache exact: a write drops the entries it may change when it starts, and nothing is
   * cached while a write is in flight (a read then may still see the state before it).
   */
  const cache = new Map<string, SessionRecord>();
  let writing = 0;
  const write = async <T>(invalidate: () => void, run: () => Promise<T>): Promise<T> => {
    invalidate();
    writing++;
    try {
      return await run();
    } finally {
      writing--;
    }
  };
  const removeIn = (tokenHash: string): boolean => {
    const r = read(tokenHash);
    const existed = db.removeSync(tokenHash);
    if (r !== null) byAddress.removeSync([r.address, tokenHash]);
    return existed;
  };
  return {
    async put(tokenHash, record) {
      checkHash(tokenHash);
      const r = normal(record);
      await write(
        () => cache.delete(tokenHash),
        async () => {
          byAddress.put([r.address, tokenHash], EMPTY);
          await putFramed(db, tokenHash, r);
        },
      );
    },
    get(tokenHash, now) {
      let r = cache.get(tokenHash) ?? null;
      if (r === null) {
        r = read(tokenHash);
        if (r !== null && writing === 0) {
          if (cache.size >= CACHED_SESSIONS) cache.clear();
          cache.set(tokenHash, r);
        }
      }
      return r !== null && now < r.expiresAt ? r : null;
    },
    revoke(tokenHash) {
      return write(() => cache.delete(tokenHash), () => db.transaction(() => removeIn(tokenHash)));
    },
    revokeAllFor(address) {
      const a = address.toLowerCase();
      return write(() => cache.clear(), () => db.transaction(() => {
        const keys = [...byAddress.getKeys({ start: [a], end: [a, '\uffff'] })];
        let n = 0;
        for (const key of keys) {
          const tokenHash = (key as [string, string])[1];
          if (db.removeSync(tokenHash)) n++;
          byAddress.removeSync(key);
        }
        return n;
      }));
    },
    sweep(now) {
      return write(() => cache.clear(), () => db.transaction(() => {
        let n = 0;
        for (const key of [...db.getKeys()]) {
          const r = read(key as string);
          if (r === null || now >= r.expiresAt) {
            if (removeIn(key as string)) n++;
          }
        }
        return n;
      }));
    },
  };
}
