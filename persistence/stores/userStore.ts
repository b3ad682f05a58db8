/**
 * Users and their linked wallets. A user is created by the first sign-in of a wallet (its
 * primary wallet); more wallets can be linked, and signing in with any of them finds the
 * same user. Ids are decimal strings of an increasing counter. Addresses are lowercased.
 */
import type { RootDatabase } from 'lmdb';
import type { Logger, MaybePromise } from '../types.ts';
import { getFramed, openBinaryDb, putFramedSync } from '../framedDb.ts';

export type User = { readonly id: string; readonly address: string; readonly createdAt: number };
export type Wallet = { readonly address: string; readonly isPrimary: boolean; readonly linkedAt: number };
export type LinkResult = { ok: true; wallet: Wallet } | { ok: false; reason: 'unknown-user' | 'linked-to-another-user' };

export type UserStore = {
  /** The user owning this wallet, created (with it as primary wallet) when there is none. */
  getOrCreate(address: string, now: number): Promise<User>;
  get(id: string): MaybePromise<User | null>;
  /** The user owning this wallet (primary or linked). */
  byAddress(address: string): MaybePromise<User | null>;
  /** Links a wallet to a user; linking one already linked to the same user returns it unchanged. */
  link(userId: string, address: string, now: number): Promise<LinkResult>;
  /** The user's wallets, primary first, then by link time. */
  wallets(userId: string): Wallet[];
};

export type WalletLink = { userId: string; isPrimary: boolean; linkedAt: number };

export const byPrimaryThenTime = (a: Wallet, b: Wallet): number =>
  Number(b.isPrimary) - Number(a.isPrimary) || a.linkedAt - b.linkedAt || (a.address < b.address ? -1 : 1);

/** The store logic over a tiny key-value interface, shared by the memory and LMDB variants. */
type Tables = {
  user(id: string): User | null;
  putUser(u: User): void;
  link(address: string): WalletLink | null;
  putLink(address: string, l: WalletLink): void;
  walletsOf(userId: string): Wallet[];
  nextId(): string;
};

function getOrCreateIn(t: Tables, address: string, now: number): User {
  const a = address.toLowerCase();
  const existing = t.link(a);
  if (existing !== null) {
    const u = t.user(existing.userId);
    if (u !== null) return u;
  }
  const user: User = { id: t.nextId(), address: a, createdAt: now };
  t.putUser(user);
  t.putLink(a, { userId: user.id, isPrimary: true, linkedAt: now });
  return user;
}

function linkIn(t: Tables, userId: string, address: string, now: number): LinkResult {
  const a = address.toLowerCase();
  if (t.user(userId) === null) return { ok: false, reason: 'unknown-user' };
  const existing = t.link(a);
  if (existing !== null) {
    if (existing.userId !== userId) return { ok: false, reason: 'linked-to-another-user' };
    return { ok: true, wallet: { address: a, isPrimary: existing.isPrimary, linkedAt: existing.linkedAt } };
  }
  t.putLink(a, { userId, isPrimary: false, linkedAt: now });
  return { ok: true, wallet: { address: a, isPrimary: false, linkedAt: now } };
}

function byAddressIn(t: Tables, address: string): User | null {
  const l = t.link(address.toLowerCase());
  return l === null ? null : t.user(l.userId);
}

export function memoryUserStore(): UserStore {
  const users = new Map<string, User>();
  const links = new Map<string, WalletLink>();
  let counter = 0;
  const t: Tables = {
    user: (id) => users.get(id) ?? null,
    putUser: (u) => void users.set(u.id, u),
    link: (a) => links.get(a) ?? null,
    putLink: (a, l) => void links.set(a, l),
    walletsOf: (userId) =>
      [...links]
        .filter(([, l]) => l.userId === userId)
        .map(([address, l]) => ({ address, isPrimary: l.isPrimary, linkedAt: l.linkedAt }))
        .sort(byPrimaryThenTime),
    nextId: () => String(++counter),
  };
  return {
    getOrCreate: (address, now) => Promise.resolve(getOrCreateIn(t, address, now)),
    get: t.user,
    byAddress: (address) => byAddressIn(t, address),
    link: (userId, address, now) => Promise.resolve(linkIn(t, userId, address, now)),
    wallets: t.walletsOf,
  };
}

export function isUser(v: unknown): v is User {
  const u = v as User | null;
  return typeof u === 'object' && u !== null && typeof u.id === 'string' && typeof u.address === 'string' && typeof u.createdAt === 'number';
}
export function isLink(v: unknown): v is WalletLink {
  const l = v as WalletLink | null;
  return typeof l === 'object' && l !== null && typeof l.userId === 'string' && typeof l.isPrimary === 'boolean' && typeof l.linkedAt === 'number';
}

export function lmdbUserStore(env: RootDatabase, log: Logger): UserStore {
  const users = openBinaryDb(env, 'users');
  const links = openBinaryDb(env, 'wallets'); // address -> WalletLink
  const byUser = openBinaryDb(env, 'wallets-by-user'); // [userId, address] -> empty
  const meta = openBinaryDb(env, 'meta');
  const EMPTY = Buffer.alloc(1);
  const corrupt = (what: string) => (reason: string) => log.error(`stores: ${what} failed its check (${reason}); treated as absent`);
  const t: Tables = {
    user: (id) => {
      const v = getFramed(users, id, corrupt(`user ${id}`));
      return isUser(v) ? v : null;
    },
    putUser: (u) => putFramedSync(users, u.id, u),
    link: (a) => {
      const v = getFramed(links, a, corrupt(`wallet link ${a}`));
      return isLink(v) ? v : null;
    },
    putLink: (a, l) => {
      putFramedSync(links, a, l);
      byUser.putSync([l.userId, a], EMPTY);
    },
    walletsOf: (userId) => {
      const out: Wallet[] = [];
      for (const key of byUser.getKeys({ start: [userId], end: [userId, '\uffff'] })) {
        const address = (key as [string, string])[1];
        const l = t.link(address);
        if (l !== null && l.userId === userId) out.push({ address, isPrimary: l.isPrimary, linkedAt: l.linkedAt });
      }
      return out.sort(byPrimaryThenTime);
    },
    nextId: () => {
      const v = getFramed(meta, 'users.counter', corrupt('the user counter'));
      let next = (typeof v === 'number' ? v : 0) + 1;
      // A lost or corrupt counter must never hand out an id that exists: skip past them.
      while (users.getBinary(String(next)) !== undefined) next++;
      putFramedSync(meta, 'users.counter', next);
      return String(next);
    },
  };
  return {
    // Check-then-create runs inside one write transaction, so two first sign-ins of one
    // wallet in the same moment cannot create two users.
    getOrCreate: (address, now) => users.transaction(() => getOrCreateIn(t, address, now)),
    get: t.user,
    byAddress: (address) => byAddressIn(t, address),
    link: (userId, address, now) => users.transaction(() => linkIn(t, userId, address, now)),
    wallets: t.walletsOf,
  };
}
