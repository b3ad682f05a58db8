/**
 * API keys. The secret is stored sealed with AES-256-GCM (secretBox.ts): the HMAC check
 * needs the secret itself, so it cannot be hashed, and a copy of DATA_DIR without the master
 * key must not yield usable secrets. Decrypted secrets are cached in memory by keyId because
 * every signed request needs one; revoke and put drop the cache entry.
 */
import type { RootDatabase } from 'lmdb';
import type { Logger, MaybePromise } from '../types.ts';
import type { SecretBox } from './secretBox.ts';
import { getFramed, openBinaryDb, putFramed, putFramedSync } from '../framedDb.ts';

export type ApiKeyRecord = {
  readonly keyId: string;
  readonly owner: string;
  readonly label: string;
  readonly scopes: readonly string[];
  readonly createdAt: number;
  readonly lastUsedAt: number | null;
  readonly secret: string;
};
/** What listing shows: everything but the secret. */
export type ApiKeyInfo = Omit<ApiKeyRecord, 'secret'>;

export type ApiKeyStore = {
  put(record: ApiKeyRecord): Promise<void>;
  /** The key with its decrypted secret; null when unknown, revoked, or undecryptable (logged). */
  get(keyId: string): MaybePromise<ApiKeyRecord | null>;
  /** The owner's keys, oldest first, without secrets. */
  list(owner: string): ApiKeyInfo[];
  revoke(keyId: string): Promise<boolean>;
  /** Records a use; unknown keys are ignored. */
  touch(keyId: string, lastUsedAt: number): Promise<void>;
};

/** How a key is kept: the secret sealed with the master key (`kek` names it). */
export type Stored = ApiKeyInfo & { readonly sealed: Uint8Array; readonly kek: string };

export const info = (r: ApiKeyInfo): ApiKeyInfo => ({
  keyId: r.keyId,
  owner: r.owner,
  label: r.label,
  scopes: [...r.scopes],
  createdAt: r.createdAt,
  lastUsedAt: r.lastUsedAt,
});

export const byCreation = (a: ApiKeyInfo, b: ApiKeyInfo): number => a.createdAt - b.createdAt || (a.keyId < b.keyId ? -1 : a.keyId > b.keyId ? 1 : 0);

export function memoryApiKeyStore(): ApiKeyStore {
  const keys = new Map<string, ApiKeyRecord>();
  return {
    put(record) {
      keys.set(record.keyId, { ...info(record), secret: record.secret });
      return Promise.resolve();
    },
    get(keyId) {
      const r = keys.get(keyId);
      return r === undefined ? null : { ...info(r), secret: r.secret };
    },
    list(owner) {
      return [...keys.values()].filter((r) => r.owner === owner).map(info).sort(byCreation);
    },
    revoke(keyId) {
      return Promise.resolve(keys.delete(keyId));
    },
    touch(keyId, lastUsedAt) {
      const r = keys.get(keyId);
      if (r !== undefined) keys.set(keyId, { ...r, lastUsedAt });
      return Promise.resolve();
    },
  };
}

export function isStored(v: unknown): v is Stored {
  const r = v as Stored | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.keyId === 'string' &&
    typeof r.owner === 'string' &&
    typeof r.label === 'string' &&
    Array.isArray(r.scopes) &&
    typeof r.createdAt === 'number' &&
    (r.lastUsedAt === null || typeof r.lastUsedAt === 'number') &&
    r.sealed instanceof Uint8Array &&
    typeof r.kek === 'string'
  );
}

/**
 * The record with its secret opened (and cached in `secrets` by key id); null, logged, when
 * it does not decrypt. Shared by the LMDB and the JetStream KV stores.
 */
export function unsealed(r: Stored, box: SecretBox, secrets: Map<string, string>, log: Logger): ApiKeyRecord | null {
  let secret = secrets.get(r.keyId);
  if (secret === undefined) {
    const opened = box.open(r.sealed, r.keyId);
    if (opened === null) {
      // Never log the ciphertext or anything derived from the secret: key ids only.
      const why = r.kek === box.fingerprint ? 'the ciphertext does not authenticate' : `it was sealed with master key ${r.kek}, the current one is ${box.fingerprint}`;
      log.error(`stores: API key ${r.keyId} cannot be decrypted: ${why}`, { keyId: r.keyId });
      return null;
    }
    secret = opened;
    secrets.set(r.keyId, secret);
  }
  return { ...info(r), secret };
}

export function lmdbApiKeyStore(env: RootDatabase, box: SecretBox, log: Logger): ApiKeyStore {
  const db = openBinaryDb(env, 'api-keys');
  // [owner, keyId] -> empty, for list(owner).
  const byOwner = openBinaryDb(env, 'api-keys-by-owner');
  const EMPTY = Buffer.alloc(1);
  const secrets = new Map<string, string>();
  const read = (keyId: string): Stored | null => {
    const v = getFramed(db, keyId, (reason) => log.error(`stores: API key ${keyId} failed its check (${reason}); treated as absent`, { keyId }));
    return isStored(v) ? v : null;
  };

  return {
    async put(record) {
      const stored: Stored = { ...info(record), sealed: box.seal(record.secret, record.keyId), kek: box.fingerprint };
      secrets.delete(record.keyId);
      byOwner.put([record.owner, record.keyId], EMPTY);
      await putFramed(db, record.keyId, stored);
    },
    get(keyId) {
      const r = read(keyId);
      return r === null || r.keyId !== keyId ? null : unsealed(r, box, secrets, log);
    },
    list(owner) {
      const out: ApiKeyInfo[] = [];
      for (const key of byOwner.getKeys({ start: [owner], end: [owner, '\uffff'] })) {
        const r = read((key as [string, string])[1]);
        if (r !== null) out.push(info(r));
      }
      return out.sort(byCreation);
    },
    revoke(keyId) {
      secrets.delete(keyId);
      return db.transaction(() => {
        const r = read(keyId);
        if (r !== null) byOwner.removeSync([r.owner, keyId]);
        return db.removeSync(keyId);
      });
    },
    async touch(keyId, lastUsedAt) {
      await db.transaction(() => {
        const r = read(keyId);
        if (r !== null) putFramedSync(db, keyId, { ...r, lastUsedAt });
      });
    },
  };
}
