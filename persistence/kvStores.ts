/**
 * The stores shared by every node of a JOURNAL=nats cluster, on NATS JetStream key-value
 * buckets, behind the same interfaces as the LMDB stores (stores.ts): a client that signs
 * in or creates an API key at one edge is known at every other edge and at a new leader,
 * and the HMAC replay window is one window for the whole cluster (docs/persistence.md
 * "Shared stores").
 *
 * Buckets (history 1, R3 with three or more NATS servers, else R1):
 *   <prefix>-sessions       token hash -> session        max_age 24 h (a session's life)
 *   <prefix>-api-keys       key id -> key, secret sealed with KEY_ENCRYPTION_KEY
 *   <prefix>-users          u.<id> -> user, w.<address> -> wallet link, `counter`
 *   <prefix>-siwe-nonces    nonce -> record             max_age the nonce life
 *   <prefix>-seen-requests  <keyId>.<timestamp>         max_age twice the replay window
 *
 * Reads on the authentication path (sessions, API keys, users) answer from a local mirror
 * of the bucket that a KV watch keeps current; a key the mirror does not hold yet (written
 * at another node a moment ago) is read from the bucket, so a key created at edge A
 * authenticates at edge B as soon as its create has returned. Writes go to the bucket and
 * update the mirror when acknowledged. One-time things are decided by the bucket, never by
 * a node: a replay-window pair is a KV create (fails when the key exists), a SIWE nonce is
 * consumed by a delete that expects the revision read (fails when another node consumed it
 * first), a wallet's first user is a KV create of its link. The stores keep their own
 * expiry checks; max_age only bounds what the buckets hold (nats-server 2.9 has no per-key
 * TTL).
 */
import { StorageType, type KV, type KvEntry, type NatsConnection } from 'nats';
import type { Logger, MaybePromise } from './types.ts';
import { decoder, encode, encoder, guarded, isWrongRevision, Mirror, parse, TOKEN } from './kvBucket.ts';
import { retryUntil } from './natsJournal.ts';
import { andThen, type Stores } from './stores.ts';
import { byCreation, info, isStored, unsealed, type ApiKeyRecord, type ApiKeyStore, type Stored } from './stores/apiKeyStore.ts';
import { copy, isNonceRecord, usableBy, type NonceRecord, type NonceStore } from './stores/nonceStore.ts';
import type { OrderNonceStore } from './stores/orderNonceStore.ts';
import { core, DEFAULT_REPLAY_WINDOW_MS, type SeenRequests } from './stores/seenRequests.ts';
import { checkHash, isSession, normal, type SessionRecord, type SessionStore } from './stores/sessionStore.ts';
import { byPrimaryThenTime, isLink, isUser, type LinkResult, type User, type UserStore, type Wallet, type WalletLink } from './stores/userStore.ts';
import type { SecretBox } from './stores/secretBox.ts';

export const SESSION_BUCKET_AGE_MS = 24 * 3600_000;
export const NONCE_BUCKET_AGE_MS = 5 * 60_000;

export type KvStoreOptions = {
  /** The node's NATS connection (the journal's). Not closed by `close()`. */
  connection: NatsConnection;
  /** Bucket names start with it (the gateway passes NATS_STREAM): `<prefix>-sessions`, ... */
  prefix: string;
  /** Bucket replicas: 3 on a three-node NATS cluster, else 1. */
  replicas: number;
  /** Seals API-key secrets: built from KEY_ENCRYPTION_KEY, the same on every node. */
  box: SecretBox;
  log: Logger;
  /** Start time (Unix ms): which remembered replay-window pairs are still relevant. */
  now: number;
  replayWindowMs?: number;
  /** The bucket max_age of sessions (default 24 h) and SIWE nonces (default 5 min). */
  sessionTtlMs?: number;
  nonceTtlMs?: number;
  /** Stays the node's own (docs/persistence.md "Shared stores"). */
  orderNonces: OrderNonceStore;
  /** Bounds each KV request and the initial load of a mirror (default 10 s). */
  timeoutMs?: number;
};

export type KvStores = Stores & {
  /** Stops the watches. The connection stays open (its owner closes it). */
  close(): Promise<void>;
  /** The bucket names, for operators and tests. */
  readonly buckets: readonly string[];
};

function sessionsOn(m: Mirror<SessionRecord>): SessionStore {
  const removeWhere = async (pred: (r: SessionRecord) => boolean): Promise<number> => {
    const keys = [...m.entries()].filter(([, r]) => pred(r)).map(([k]) => k);
    await Promise.all(keys.map((k) => m.remove(k)));
    return keys.length;
  };
  return {
    async put(tokenHash, record) {
      checkHash(tokenHash);
      await m.put(tokenHash, normal(record));
    },
    get(tokenHash, now) {
      if (!TOKEN.test(tokenHash)) return null;
      return andThen(m.get(tokenHash), (r) => (r !== null && now < r.expiresAt ? r : null));
    },
    async revoke(tokenHash) {
      if (!TOKEN.test(tokenHash)) return false;
      const existed = (await m.get(tokenHash)) !== null;
      await m.remove(tokenHash);
      return existed;
    },
    revokeAllFor(address) {
      const a = address.toLowerCase();
      return removeWhere((r) => r.address === a);
    },
    sweep(now) {
      return removeWhere((r) => now >= r.expiresAt);
    },
  };
}

function apiKeysOn(m: Mirror<Stored>, box: SecretBox, log: Logger): ApiKeyStore {
  const secrets = new Map<string, string>();
  return {
    async put(record) {
      secrets.delete(record.keyId);
      const stored: Stored = { ...info(record), sealed: box.seal(record.secret, record.keyId), kek: box.fingerprint };
      await m.put(record.keyId, stored, onWire(stored));
    },
    get(keyId) {
      if (!TOKEN.test(keyId)) return null;
      return andThen(m.get(keyId), (r): ApiKeyRecord | null => (r === null ? null : unsealed(r, box, secrets, log)));
    },
    list(owner) {
      return [...m.entries()].map(([, r]) => r).filter((r) => r.owner === owner).map(info).sort(byCreation);
    },
    async revoke(keyId) {
      if (!TOKEN.test(keyId)) return false;
      secrets.delete(keyId);
      const existed = (await m.get(keyId)) !== null;
      await m.remove(keyId);
      return existed;
    },
    async touch(keyId, lastUsedAt) {
      if (!TOKEN.test(keyId)) return;
      const s = m.peek(keyId) ?? (await m.fetch(keyId));
      if (s === null || s.value === null) return;
      const r = s.value;
      try {
        // Against the revision read: a touch racing a revoke elsewhere cannot bring the key back.
        const touched: Stored = { ...r, lastUsedAt };
        m.apply(keyId, touched, await m.kv.update(keyId, encode(onWire(touched)), s.revision));
      } catch (e) {
        if (!isWrongRevision(e)) throw e;
      }
    },
  };
}

/** A stored key as JSON: the sealed secret in base64. */
const onWire = (r: Stored) => ({ ...info(r), sealed: Buffer.from(r.sealed).toString('base64'), kek: r.kek });

function decodeStored(_key: string, v: unknown): Stored | null {
  const r = v as (Omit<Stored, 'sealed'> & { sealed: unknown }) | null;
  if (typeof r !== 'object' || r === null || typeof r.sealed !== 'string') return null;
  const stored = { ...r, sealed: new Uint8Array(Buffer.from(r.sealed, 'base64')) };
  return isStored(stored) ? stored : null;
}

type UserRow = User | WalletLink;

function usersOn(m: Mirror<UserRow>): UserStore {
  const userKey = (id: string) => `u.${id}`;
  const linkKey = (a: string) => `w.${a}`;
  const user = (id: string): MaybePromise<User | null> => (TOKEN.test(id) ? (m.get(userKey(id)) as MaybePromise<User | null>) : null);
  const link = (a: string): MaybePromise<WalletLink | null> => (TOKEN.test(a) ? (m.get(linkKey(a)) as MaybePromise<WalletLink | null>) : null);
  /** The next id: compare-and-set on `counter`, so two nodes never hand out the same one. */
  const nextId = async (): Promise<string> => {
    for (;;) {
      const e = await m.kv.get('counter');
      const n = e !== null && e.operation === 'PUT' ? Number(decoder.decode(e.value)) : 0;
      const next = String((Number.isSafeInteger(n) ? n : 0) + 1);
      try {
        if (e === null) await m.kv.create('counter', encoder.encode(next));
        else await m.kv.update('counter', encoder.encode(next), e.revision);
        return next;
      } catch (err) {
        if (!isWrongRevision(err)) throw err;
      }
    }
  };
  /** Links `a` to `userId` unless it is linked already; returns the link that holds. */
  const claim = async (a: string, l: WalletLink): Promise<WalletLink> => {
    if (await m.create(linkKey(a), l)) return l;
    const held = await m.fetch(linkKey(a));
    if (held === null || held.value === null) throw new Error(`stores: the wallet link of ${a} exists but cannot be read`);
    return held.value as WalletLink;
  };
  return {
    async getOrCreate(address, now) {
      const a = address.toLowerCase();
      if (!TOKEN.test(a)) throw new TypeError(`users: not an address: ${address}`);
      const existing = await link(a);
      if (existing !== null) {
        const u = await user(existing.userId);
        if (u !== null) return u;
      }
      const created: User = { id: await nextId(), address: a, createdAt: now };
      await m.put(userKey(created.id), created);
      const l: WalletLink = { userId: created.id, isPrimary: true, linkedAt: now };
      // A link whose user is missing is replaced; otherwise the first create wins across nodes.
      const held = existing !== null ? (await m.put(linkKey(a), l), l) : await claim(a, l);
      if (held.userId === created.id) return created;
      await m.remove(userKey(created.id)); // another node's first sign-in won: ours is dropped
      const winner = await user(held.userId);
      if (winner === null) throw new Error(`stores: the user ${held.userId} of ${a} cannot be read`);
      return winner;
    },
    get: user,
    byAddress: (address) => andThen(link(address.toLowerCase()), (l) => (l === null ? null : user(l.userId))),
    async link(userId, address, now): Promise<LinkResult> {
      const a = address.toLowerCase();
      if ((await user(userId)) === null) return { ok: false, reason: 'unknown-user' };
      if (!TOKEN.test(a)) throw new TypeError(`users: not an address: ${address}`);
      const existing = (await link(a)) ?? (await claim(a, { userId, isPrimary: false, linkedAt: now }));
      if (existing.userId !== userId) return { ok: false, reason: 'linked-to-another-user' };
      return { ok: true, wallet: { address: a, isPrimary: existing.isPrimary, linkedAt: existing.linkedAt } };
    },
    wallets(userId) {
      const out: Wallet[] = [];
      for (const [k, r] of m.entries()) {
        if (k.startsWith('w.') && (r as WalletLink).userId === userId) out.push({ address: k.slice(2), isPrimary: (r as WalletLink).isPrimary, linkedAt: (r as WalletLink).linkedAt });
      }
      return out.sort(byPrimaryThenTime);
    },
  };
}

const decodeUserRow = (key: string, v: unknown): UserRow | null => (key.startsWith('u.') ? (isUser(v) ? v : null) : isLink(v) ? v : null);

function noncesOn(kv: KV): NonceStore {
  // The nonces this node issued, for `sweep` (the bucket's max_age removes the rest): a sweep
  // costs no listing of the bucket.
  const issued = new Map<string, { expiresAt: number; revision: number }>();
  const read = (e: KvEntry | null): NonceRecord | null => {
    if (e === null || e.operation !== 'PUT') return null;
    const r = parse(e);
    return isNonceRecord(r) ? r : null;
  };
  return {
    async issue(nonce, record) {
      if (!TOKEN.test(nonce)) throw new TypeError(`nonces: a nonce must be letters, digits, - or _ (got ${JSON.stringify(nonce)})`);
      issued.set(nonce, { expiresAt: record.expiresAt, revision: await kv.put(nonce, encode(copy(record))) });
    },
    async consume(nonce, now, address) {
      if (!TOKEN.test(nonce)) return null;
      issued.delete(nonce);
      const e = await kv.get(nonce);
      const r = read(e);
      if (r === null || !usableBy(r, address)) return null;
      try {
        // Deletes only the revision read: of two nodes consuming it at once, one delete fails.
        await kv.delete(nonce, { previousSeq: e!.revision });
      } catch (err) {
        if (isWrongRevision(err)) return null;
        throw err;
      }
      return now < r.expiresAt ? copy(r) : null;
    },
    async sweep(now) {
      let n = 0;
      for (const [nonce, { expiresAt, revision }] of issued) {
        if (now < expiresAt) continue;
        issued.delete(nonce);
        try {
          // Only the record issued here: a nonce issued again (or consumed) since is left alone.
          await kv.delete(nonce, { previousSeq: revision });
          n++;
        } catch (err) {
          if (!isWrongRevision(err)) throw err;
        }
      }
      return n;
    },
  };
}

async function seenOn(kv: KV, now: number, windowMs: number): Promise<SeenRequests> {
  const c = core(windowMs, () => {});
  // The pairs other nodes (or this one before a restart) saw: refused here without asking the bucket.
  for await (const key of await kv.keys()) {
    const dot = key.lastIndexOf('.');
    c.load(key.slice(0, dot), Number(key.slice(dot + 1)), now);
  }
  const ONE = new Uint8Array([1]);
  return {
    markSeen(keyId, timestamp, at) {
      if (!TOKEN.test(keyId) || !c.markSeen(keyId, timestamp, at)) return false;
      // This node has not seen it; the bucket decides whether any node has.
      return kv.create(`${keyId}.${timestamp}`, ONE).then(
        () => true,
        (err: unknown) => {
          if (isWrongRevision(err)) return false;
          throw err;
        },
      );
    },
    size: () => c.size(),
  };
}

export async function openKvStores(opts: KvStoreOptions): Promise<KvStores> {
  const timeout = opts.timeoutMs ?? 10_000;
  const windowMs = opts.replayWindowMs ?? DEFAULT_REPLAY_WINDOW_MS;
  const js = opts.connection.jetstream({ timeout });
  const name = (n: string): string => `${opts.prefix}-${n}`;
  // Created or bound like the journal's stream: retried while a fresh cluster elects.
  const bucket = async (n: string, ttl = 0): Promise<KV> => guarded(await retryUntil(Date.now() + 20_000, () => js.views.kv(name(n), { history: 1, replicas: opts.replicas, ttl, storage: StorageType.File, timeout })), name(n));
  const [sessionsKv, keysKv, usersKv, noncesKv, seenKv] = await Promise.all([
    bucket('sessions', opts.sessionTtlMs ?? SESSION_BUCKET_AGE_MS),
    bucket('api-keys'),
    bucket('users'),
    bucket('siwe-nonces', opts.nonceTtlMs ?? NONCE_BUCKET_AGE_MS),
    // A pair is refused while |now - timestamp| <= window: it may be presented up to twice the window after it was first seen.
    bucket('seen-requests', 2 * windowMs + 2_000),
  ]);
  const sessions = new Mirror<SessionRecord>(sessionsKv, name('sessions'), (_k, v) => (isSession(v) ? normal(v) : null), opts.log);
  const keys = new Mirror<Stored>(keysKv, name('api-keys'), decodeStored, opts.log);
  const users = new Mirror<UserRow>(usersKv, name('users'), decodeUserRow, opts.log, (k) => k === 'counter');
  const mirrors = [sessions, keys, users];
  try {
    await Promise.all(mirrors.map((m) => m.start(timeout)));
  } catch (e) {
    for (const m of mirrors) m.stop();
    throw e;
  }
  return {
    sessions: sessionsOn(sessions),
    apiKeys: apiKeysOn(keys, opts.box, opts.log),
    users: usersOn(users),
    nonces: noncesOn(noncesKv),
    seenRequests: await seenOn(seenKv, opts.now, windowMs),
    orderNonces: opts.orderNonces,
    buckets: ['sessions', 'api-keys', 'users', 'siwe-nonces', 'seen-requests'].map(name),
    close: async () => {
      for (const m of mirrors) m.stop();
    },
  };
}
