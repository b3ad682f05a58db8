/**
 * Order nonces kept apart from the journal, so that dropping part of the journal (a torn
 * tail cut at start, or the operator's `npm run recover -- --truncate-at <seq>`) never makes
 * a used nonce usable again: a signed order in the dropped part could otherwise be
 * submitted a second time.
 *
 * Per wallet: the highest nonce any journaled command of it carried (`noteUsed`, written
 * through before the command is journaled; LMDB commits in order, so a journaled command
 * always has its nonce on disk too), and a floor. A truncation calls `burnAll`: each
 * wallet's floor becomes its highest nonce, and the gateway then refuses every nonce at or
 * below the floor (nonce_used), on top of the engine's own check. That is conservative: a
 * nonce below the highest that was never used (handed out, not signed) is given up too;
 * server-assigned nonces only go up, so nothing a client holds is lost but unsigned
 * handouts. The engine's nonce windows come from the journal; this record does not depend
 * on it.
 */
import type { RootDatabase } from 'lmdb';
import type { Logger } from '../types.ts';
import { encodeFrame } from '../frame.ts';
import { getFramed, openBinaryDb } from '../framedDb.ts';

export type OrderNonceRecord = { readonly highest: bigint; readonly floor: bigint | null };

export type OrderNonceStore = {
  /** A command carrying `nonce` for `owner` is about to be journaled. Synchronous; the write is group-committed, not awaited. */
  noteUsed(owner: string, nonce: bigint): void;
  /** Nonces <= this count as used for `owner` (set by `burnAll`); null when no truncation ever touched the wallet. */
  floor(owner: string): bigint | null;
  /** A journal truncation is about to happen: every wallet's floor becomes its highest used nonce. Synchronous, durable when it returns; returns how many wallets. */
  burnAll(): number;
};

/** Cached wallets; past this the cache starts over (LMDB still has them). */
const MAX_CACHED = 100_000;
const ABSENT: OrderNonceRecord = { highest: -1n, floor: null };

function isRecord(v: unknown): v is OrderNonceRecord {
  const r = v as OrderNonceRecord | null;
  return typeof r === 'object' && r !== null && typeof r.highest === 'bigint' && (r.floor === null || typeof r.floor === 'bigint');
}

export function memoryOrderNonceStore(): OrderNonceStore {
  const records = new Map<string, OrderNonceRecord>();
  return {
    noteUsed(owner, nonce) {
      const key = owner.toLowerCase();
      const r = records.get(key) ?? ABSENT;
      if (nonce > r.highest) records.set(key, { highest: nonce, floor: r.floor });
    },
    floor: (owner) => records.get(owner.toLowerCase())?.floor ?? null,
    burnAll() {
      for (const [k, r] of records) records.set(k, { highest: r.highest, floor: r.highest });
      return records.size;
    },
  };
}

export function lmdbOrderNonceStore(env: RootDatabase, log: Logger): OrderNonceStore {
  const db = openBinaryDb(env, 'order-nonces');
  const cache = new Map<string, OrderNonceRecord>();
  // Records written but not yet committed: never dropped with the cache, so a read never sees an older committed value.
  const pending = new Map<string, OrderNonceRecord>();
  const read = (key: string): OrderNonceRecord => {
    let r = pending.get(key) ?? cache.get(key);
    if (r !== undefined) return r;
    const v = getFramed(db, key, (reason) => log.error(`stores: the order-nonce record of ${key} failed its check (${reason}); treated as absent`));
    r = isRecord(v) ? v : ABSENT;
    if (cache.size >= MAX_CACHED) cache.clear();
    cache.set(key, r);
    return r;
  };
  const write = (key: string, r: OrderNonceRecord): void => {
    pending.set(key, r);
    cache.set(key, r);
    db.put(key, encodeFrame(r)).then(
      () => void (pending.get(key) === r && pending.delete(key)),
      (e: unknown) => log.error(`stores: recording the order nonce of ${key} failed (${String(e)})`),
    );
  };
  return {
    noteUsed(owner, nonce) {
      const key = owner.toLowerCase();
      const r = read(key);
      if (nonce > r.highest) write(key, { highest: nonce, floor: r.floor });
    },
    floor: (owner) => read(owner.toLowerCase()).floor,
    burnAll() {
      const keys = new Set<string>(pending.keys());
      for (const key of db.getKeys()) keys.add(key as string);
      const burned = new Map<string, OrderNonceRecord>();
      for (const key of keys) {
        const r = read(key);
        if (r !== ABSENT) burned.set(key, { highest: r.highest, floor: r.highest });
      }
      // Durable before returning (the truncation that follows is synchronous too).
      db.transactionSync(() => {
        for (const [key, r] of burned) db.putSync(key, encodeFrame(r));
      });
      // A write still queued from before would commit after this and undo the floor: queue the burned value behind it.
      for (const [key, r] of burned) {
        if (pending.has(key)) write(key, r);
        else cache.set(key, r);
      }
      return burned.size;
    },
  };
}
