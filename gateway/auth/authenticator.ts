/**
 * Who is calling: a bearer token (current form) or `session` cookie (earlier form) from a
 * SIWE login, or an API key signed with HMAC-SHA256 (interface.md "API keys (HMAC)").
 *
 * Tokens are stored hashed; a login has every scope. An API key's signature is the
 * lowercase hex HMAC-SHA256 of the X-API-Timestamp string keyed with the secret, the
 * timestamp within 30 s of server time either way, compared in constant time. A signed
 * timestamp is accepted once per key: a replay inside the window is refused
 * (docs/auth.md). Wallet addresses are returned EIP-55 checksummed, as the engine keys them.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { checksumAddress } from '../../workers/secp256k1.ts';
import type { Authenticator, AuthResult } from '../http/auth.ts';
import { sessionCookie } from '../http/auth.ts';
import { scopes } from '../http/route.ts';
import { andThen, hashToken, type ApiKeyRecord, type MaybePromise, type Stores } from '../../persistence/stores.ts';

/** A login session has every scope, `admin` included (admin routes still check the wallet). */
export const ALL_SCOPES = scopes;
export const API_KEY_SKEW_MS = 30_000;
const KEY_ID = /^ok_[0-9a-f]{24}$/;
/** lastUsedAt is written at most this often per key, so that a busy key is not an LMDB write per request. */
const TOUCH_EVERY_MS = 60_000;

export function hmacHex(secret: string, message: string): string {
  return createHmac('sha256', secret).update(message).digest('hex');
}

function sameHex(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

const invalid = (message: string): AuthResult => ({ kind: 'invalid', message });

/** EIP-55 form of a stored (lowercase) address, memoised: checksumming hashes, and this runs on every request. */
const eip55 = (address: string): string => checksumAddress(address.slice(2).toLowerCase());

export function createAuthenticator(stores: Stores, clock: () => number): Authenticator {
  // Every store read may be a promise (the shared JetStream KV stores on a cache miss,
  // docs/persistence.md "Shared stores"); a hit answers synchronously, as LMDB always does.
  const session = (token: string, via: 'bearer' | 'cookie'): MaybePromise<AuthResult> =>
    andThen(stores.sessions.get(hashToken(token), clock()), (record): AuthResult => {
      if (!record) return invalid('Invalid or expired token');
      return { kind: 'user', userId: record.userId, address: eip55(record.address), scopes: ALL_SCOPES, via };
    });
  const signed = (keyId: string, key: ApiKeyRecord | null, timestamp: string, signature: string, ts: number, now: number): MaybePromise<AuthResult> => {
    if (!key) return invalid('Invalid API key');
    if (!sameHex(hmacHex(key.secret, timestamp), signature)) return invalid('Invalid API key signature');
    return andThen(stores.seenRequests.markSeen(keyId, ts, now), (fresh) => {
      if (!fresh) return invalid('API key signature already used (send a new timestamp)');
      if (key.lastUsedAt === null || now - key.lastUsedAt >= TOUCH_EVERY_MS) void stores.apiKeys.touch(keyId, now);
      const owner = eip55(key.owner);
      return andThen(stores.users.byAddress(owner), (user): AuthResult => ({ kind: 'user', userId: user?.id ?? owner, address: owner, scopes: key.scopes, via: 'apikey', keyId }));
    });
  };

  return (headers, cookies) => {
    const authorization = headers['authorization'];
    if (authorization !== undefined) {
      const m = /^Bearer\s+(\S+)$/i.exec(authorization.trim());
      if (!m) return invalid('Authorization header must be "Bearer <token>"');
      return session(m[1]!, 'bearer');
    }
    const keyId = headers['x-api-key'];
    if (keyId !== undefined) {
      const timestamp = headers['x-api-timestamp'];
      const signature = headers['x-api-signature'];
      if (timestamp === undefined || signature === undefined) return invalid('X-API-Key needs X-API-Timestamp and X-API-Signature');
      if (!/^[0-9]{1,16}$/.test(timestamp)) return invalid('X-API-Timestamp must be Unix milliseconds');
      const now = clock();
      const ts = Number(timestamp);
      if (Math.abs(now - ts) > API_KEY_SKEW_MS) return invalid('X-API-Timestamp is more than 30 seconds from server time');
      // Only ids of our own shape reach the store: junk in X-API-Key costs no lookup.
      if (!KEY_ID.test(keyId)) return invalid('Invalid API key');
      return andThen(stores.apiKeys.get(keyId), (key) => signed(keyId, key, timestamp, signature, ts, now));
    }
    const cookie = cookies[sessionCookie];
    if (cookie !== undefined) return session(cookie, 'cookie');
    return { kind: 'none' };
  };
}
