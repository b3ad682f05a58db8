/**
 * Login sessions: the bearer token of the current form and the `session` cookie of the
 * earlier form are the same kind of thing, an opaque random string whose SHA-256 is the
 * key in `stores.sessions` (the token itself is never stored). 24 hours of life.
 */
import { randomBytes } from 'node:crypto';
import { getAddress } from 'viem';
import { hashToken, type SessionForm, type Stores, type User } from '../../persistence/stores.ts';
import { parseCookies, sessionCookie } from '../http/auth.ts';

export const SESSION_TTL_MS = 24 * 3600_000;

export type IssuedSession = {
  readonly token: string;
  /** A public id for the session (not a credential): the first 32 hex characters of the token's hash. */
  readonly id: string;
  readonly expiresAt: number;
};

/** The session id shown to clients for a token. */
export function sessionIdOf(token: string): string {
  return hashToken(token).slice(0, 32);
}

export async function issueSession(stores: Stores, user: User, address: string, form: SessionForm, nowMs: number): Promise<IssuedSession> {
  // 32 random bytes, hex: nothing to guess, and safe in a header and a cookie as is.
  const token = randomBytes(32).toString('hex');
  const expiresAt = nowMs + SESSION_TTL_MS;
  await stores.sessions.put(hashToken(token), { userId: user.id, address: getAddress(address), createdAt: nowMs, expiresAt, form });
  return { token, id: sessionIdOf(token), expiresAt };
}

/** The token a request presented through `via` (what the authenticator accepted). */
export function presentedToken(headers: Readonly<Record<string, string>>, via: 'bearer' | 'cookie'): string | null {
  if (via === 'bearer') {
    const m = /^Bearer\s+(\S+)$/i.exec((headers['authorization'] ?? '').trim());
    return m ? m[1]! : null;
  }
  return parseCookies(headers['cookie'])[sessionCookie] ?? null;
}

/**
 * Set-Cookie for the earlier form's session: HttpOnly (no script can read it), SameSite=Lax
 * (not sent on cross-site POSTs), Path=/ and the session's life. `Secure` everywhere but on
 * NETWORK=local, where the venue is served over plain http.
 */
export function sessionCookieHeader(token: string, maxAgeSeconds: number, secure: boolean): string {
  return `${sessionCookie}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;
}

export function clearedSessionCookie(secure: boolean): string {
  return sessionCookieHeader('', 0, secure);
}
