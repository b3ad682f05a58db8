/**
 * Replay protection for API-key requests: a (keyId, timestamp) pair is accepted once within
 * the window (30 s by default). `markSeen` is synchronous because it sits on the request
 * path; the set lives in memory, bucketed by expiry second so expiring is O(expired).
 *
 * The LMDB variant writes each pair through (group-committed, not awaited) and reloads the
 * unexpired ones at start, so a request captured just before a restart cannot be replayed
 * just after it. The write is issued before the request's command is journaled, and LMDB
 * commits in order, so a journaled command always has its seen-record on disk too.
 */
import type { RootDatabase } from 'lmdb';
import { openBinaryDb } from '../framedDb.ts';
import type { MaybePromise } from '../types.ts';

export const DEFAULT_REPLAY_WINDOW_MS = 30_000;

export type SeenRequests = {
  /**
   * true the first time (keyId, timestamp) is presented; false when already seen, and also
   * when |now - timestamp| > window (such a request cannot be tracked and must be refused).
   * Times are Unix ms.
   */
  markSeen(keyId: string, timestamp: number, now: number): MaybePromise<boolean>;
  /** Pairs currently remembered (a gauge for metrics; bounded by the request rate times the window). */
  size(): number;
};

/** The in-memory set with its expiry buckets; `load` remembers a pair seen before (at start). Shared with kvStores.ts. */
export type Core = { markSeen(keyId: string, timestamp: number, now: number): boolean; size(): number; load(keyId: string, timestamp: number, now: number): void };

export function core(windowMs: number, onNew: (keyId: string, timestamp: number) => void): Core {
  const seen = new Set<string>();
  const buckets = new Map<number, string[]>(); // expiry second -> ids
  let swept = -Infinity;

  const sweep = (now: number): void => {
    const second = Math.floor(now / 1000);
    if (second === swept) return;
    swept = second;
    for (const [expirySecond, ids] of buckets) {
      if (expirySecond >= second) continue;
      for (const id of ids) seen.delete(id);
      buckets.delete(expirySecond);
    }
  };
  const add = (id: string, timestamp: number): void => {
    seen.add(id);
    // Kept until the window has passed for this timestamp (plus the rest of that second).
    const expirySecond = Math.floor((timestamp + windowMs) / 1000) + 1;
    const bucket = buckets.get(expirySecond);
    if (bucket === undefined) buckets.set(expirySecond, [id]);
    else bucket.push(id);
  };

  return {
    markSeen(keyId, timestamp, now) {
      if (!Number.isFinite(timestamp) || Math.abs(now - timestamp) > windowMs) return false;
      sweep(now);
      const id = `${keyId}\u0000${timestamp}`;
      if (seen.has(id)) return false;
      add(id, timestamp);
      onNew(keyId, timestamp);
      return true;
    },
    load(keyId, timestamp, now) {
      if (Math.abs(now - timestamp) <= windowMs) add(`${keyId}\u0000${timestamp}`, timestamp);
    },
    size: () => seen.size,
  };
}

export function memorySeenRequests(windowMs = DEFAULT_REPLAY_WINDOW_MS): SeenRequests {
  return core(windowMs, () => {});
}

/**
 * `now` is the start time, used to load only the still-relevant pairs. Persisted pairs older
 * than the window are deleted as time moves on (at most once per second, from markSeen).
 */
export function lmdbSeenRequests(env: RootDatabase, now: number, windowMs = DEFAULT_REPLAY_WINDOW_MS): SeenRequests {
  // Key [timestamp, keyId] so that expired pairs are a prefix of the key order.
  const db = openBinaryDb(env, 'api-key-seen');
  const EMPTY = Buffer.alloc(1);
  const c = core(windowMs, (keyId, timestamp) => {
    // Not awaited (markSeen is synchronous). A failed commit is left unhandled on purpose:
    // it stops the process, as a failed journal commit does, because storage is broken.
    void db.put([timestamp, keyId], EMPTY);
  });
  for (const key of db.getKeys({ start: [now - windowMs] })) {
    const [timestamp, keyId] = key as [number, string];
    c.load(keyId, timestamp, now);
  }
  let sweptSecond = -Infinity;
  return {
    markSeen(keyId, timestamp, at) {
      const second = Math.floor(at / 1000);
      if (second !== sweptSecond) {
        sweptSecond = second;
        for (const key of db.getKeys({ end: [at - windowMs - 1000] })) void db.remove(key);
      }
      return c.markSeen(keyId, timestamp, at);
    },
    size: c.size,
  };
}
