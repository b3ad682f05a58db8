/**
 * SIWE nonces: issued by the server, consumed once by a sign-in. Survives restarts so a
 * nonce handed out just before a restart still works (and still works only once).
 */
import type { RootDatabase } from 'lmdb';
import type { Logger } from '../types.ts';
import { getFramed, openBinaryDb, putFramed } from '../framedDb.ts';

export type NonceRecord = { readonly address: string | null; readonly chainId: number; readonly expiresAt: number };

export type NonceStore = {
  /** Resolves once durable. Re-issuing a nonce replaces its record. */
  issue(nonce: string, record: NonceRecord): Promise<void>;
  /**
   * The record, removed in the same atomic step (single use); null when unknown, used or
   * expired (now >= expiresAt). With `address` (any case), a nonce issued for another
   * address is left untouched and null is returned: someone else's attempt cannot burn it.
   */
  consume(nonce: string, now: number, address?: string): Promise<NonceRecord | null>;
  /** Deletes expired nonces; returns how many. Call it from time to time (the store has no timers). */
  sweep(now: number): Promise<number>;
};

export function isNonceRecord(v: unknown): v is NonceRecord {
  const r = v as NonceRecord | null;
  return typeof r === 'object' && r !== null && (r.address === null || typeof r.address === 'string') && typeof r.chainId === 'number' && typeof r.expiresAt === 'number';
}

/** Whether `address` may use the record: nonces issued without an address are anyone's. */
export const usableBy = (r: NonceRecord, address: string | undefined): boolean => address === undefined || r.address === null || r.address.toLowerCase() === address.toLowerCase();

export const copy = (r: NonceRecord): NonceRecord => ({ address: r.address, chainId: r.chainId, expiresAt: r.expiresAt });

export function memoryNonceStore(): NonceStore {
  const nonces = new Map<string, NonceRecord>();
  return {
    issue(nonce, record) {
      nonces.set(nonce, copy(record));
      return Promise.resolve();
    },
    consume(nonce, now, address) {
      const r = nonces.get(nonce);
      if (r !== undefined && !usableBy(r, address)) return Promise.resolve(null);
      nonces.delete(nonce);
      return Promise.resolve(r !== undefined && now < r.expiresAt ? copy(r) : null);
    },
    sweep(now) {
      let n = 0;
      for (const [k, r] of nonces) if (now >= r.expiresAt && nonces.delete(k)) n++;
      return Promise.resolve(n);
    },
  };
}

export function lmdbNonceStore(env: RootDatabase, log: Logger): NonceStore {
  const db = openBinaryDb(env, 'siwe-nonces');
  const onCorrupt = (reason: string): void => log.error(`stores: a SIWE nonce record failed its check (${reason}); treated as absent`);
  const read = (nonce: string): NonceRecord | null => {
    const v = getFramed(db, nonce, onCorrupt);
    return isNonceRecord(v) ? v : null;
  };
  return {
    async issue(nonce, record) {
      await putFramed(db, nonce, copy(record));
    },
    consume(nonce, now, address) {
      // get + remove inside one write transaction: two consumes of one nonce cannot both see it.
      return db.transaction(() => {
        const r = read(nonce);
        if (r === null || !usableBy(r, address)) return null;
        db.removeSync(nonce);
        return now < r.expiresAt ? r : null;
      });
    },
    sweep(now) {
      return db.transaction(() => {
        let n = 0;
        for (const key of [...db.getKeys()]) {
          const r = read(key as string);
          // Corrupt records go too: they can never be consumed.
          if (r === null || now >= r.expiresAt) {
            db.removeSync(key);
            n++;
          }
        }
        return n;
      });
    },
  };
}
