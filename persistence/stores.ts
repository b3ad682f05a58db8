/**
 * The small typed stores the gateway needs beside the journal, all in the same LMDB
 * environment (one backup, one lock) and all surviving restarts. Reads are synchronous
 * (LMDB reads are memory-mapped, a few microseconds); writes return a promise that resolves
 * once committed. Each has an in-memory twin with the same interface for tests.
 */
import type { RootDatabase } from 'lmdb';
import type { Logger, MaybePromise } from './types.ts';
import { lmdbApiKeyStore, memoryApiKeyStore, type ApiKeyStore } from './stores/apiKeyStore.ts';
import { lmdbNonceStore, memoryNonceStore, type NonceStore } from './stores/nonceStore.ts';
import { lmdbOrderNonceStore, memoryOrderNonceStore, type OrderNonceStore } from './stores/orderNonceStore.ts';
import { lmdbSeenRequests, memorySeenRequests, type SeenRequests } from './stores/seenRequests.ts';
import { lmdbSessionStore, memorySessionStore, type SessionStore } from './stores/sessionStore.ts';
import { lmdbUserStore, memoryUserStore, type UserStore } from './stores/userStore.ts';
import type { SecretBox } from './stores/secretBox.ts';

export type { ApiKeyInfo, ApiKeyRecord, ApiKeyStore } from './stores/apiKeyStore.ts';
export type { NonceRecord, NonceStore } from './stores/nonceStore.ts';
export type { OrderNonceRecord, OrderNonceStore } from './stores/orderNonceStore.ts';
export type { SeenRequests } from './stores/seenRequests.ts';
export type { SessionForm, SessionRecord, SessionStore } from './stores/sessionStore.ts';
export type { LinkResult, User, UserStore, Wallet } from './stores/userStore.ts';
export { hashToken } from './stores/sessionStore.ts';
export { DEFAULT_REPLAY_WINDOW_MS } from './stores/seenRequests.ts';
export type { MaybePromise } from './types.ts';

/** `f(v)`, at once when `v` is a value, after it when it is a promise (keeps a cache hit synchronous). */
export function andThen<T, U>(v: MaybePromise<T>, f: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return v instanceof Promise ? v.then(f) : f(v);
}

export type Stores = {
  readonly nonces: NonceStore;
  readonly sessions: SessionStore;
  readonly apiKeys: ApiKeyStore;
  readonly seenRequests: SeenRequests;
  readonly users: UserStore;
  /** Highest order nonce per wallet and the floor a journal truncation set (orderNonceStore.ts). */
  readonly orderNonces: OrderNonceStore;
};

export type StoreOptions = { replayWindowMs?: number };

export function lmdbStores(env: RootDatabase, opts: StoreOptions & { box: SecretBox; log: Logger; now: number }): Stores {
  return {
    nonces: lmdbNonceStore(env, opts.log),
    sessions: lmdbSessionStore(env, opts.log),
    apiKeys: lmdbApiKeyStore(env, opts.box, opts.log),
    seenRequests: lmdbSeenRequests(env, opts.now, opts.replayWindowMs),
    users: lmdbUserStore(env, opts.log),
    orderNonces: lmdbOrderNonceStore(env, opts.log),
  };
}

export function memoryStores(opts: StoreOptions = {}): Stores {
  return {
    nonces: memoryNonceStore(),
    sessions: memorySessionStore(),
    apiKeys: memoryApiKeyStore(),
    seenRequests: memorySeenRequests(opts.replayWindowMs),
    users: memoryUserStore(),
    orderNonces: memoryOrderNonceStore(),
  };
}
