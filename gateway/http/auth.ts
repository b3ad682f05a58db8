/**
 * Authentication plumbing. The framework does not know how a token, session cookie or
 * HMAC signature is checked: an injected `Authenticator` does (SIWE sessions and API
 * keys live elsewhere). The framework decides when to call it, what a route's `auth`
 * and `scope` demand, and which identity the rate limiter keys on (the wallet).
 */
import type { AuthMode, CredentialKind, Form, HttpMethod, RateLimitGroup, Scope } from './route.ts';
import { errorReply, type ErrorReply } from './errors.ts';

export type UserAuth = {
  readonly kind: 'user';
  readonly userId: string;
  /** Wallet address as the authenticator gives it (compare lowercased). */
  readonly address: string;
  readonly scopes: readonly string[];
  readonly via: CredentialKind;
  /** Present when `via` is `apikey`. */
  readonly keyId?: string;
};

export type AuthResult = { readonly kind: 'none' } | UserAuth | { readonly kind: 'invalid'; readonly message: string };

/** What the authenticator learns about the route being called. */
export type RouteRef = {
  readonly method: HttpMethod;
  /** The declared pattern for this form, e.g. `/api/markets/ticker/:symbol`. */
  readonly path: string;
  readonly form: Form;
  readonly group: RateLimitGroup;
  readonly auth: AuthMode;
  readonly scope?: Scope;
};

/**
 * Checks the credentials of a request. `headers` holds the lowercased headers the
 * framework read (`authorization`, `x-api-key`, `x-api-timestamp`, `x-api-signature`,
 * `cookie`, plus the route's own); `cookies` is the parsed Cookie header. Only called
 * when some credential is present. Expected failures are `{ kind: 'invalid', message }`,
 * never exceptions (an exception answers 500).
 */
export type Authenticator = (headers: Readonly<Record<string, string>>, cookies: Readonly<Record<string, string>>, route: RouteRef) => Promise<AuthResult> | AuthResult;

export type IsAdmin = (address: string) => boolean;

/** The earlier form's session cookie name. */
export const sessionCookie = 'session';

/** Headers the framework always reads for authentication (`x-api-timestamp` and `x-api-signature` too when `x-api-key` is sent). */
export const authHeaders = ['authorization', 'x-api-key', 'cookie'] as const;

/** The result for a request without credentials. */
export const anonymous: AuthResult = { kind: 'none' };

/** Parses a Cookie header (RFC 6265 pairs). Malformed pairs are skipped; the first of a repeated name wins. */
const noCookies: Readonly<Record<string, string>> = Object.freeze(Object.create(null) as Record<string, string>);

export function parseCookies(header: string | undefined): Readonly<Record<string, string>> {
  if (header === undefined || header === '') return noCookies;
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  let count = 0;
  for (const part of header.split(';')) {
    // Bound the work a hostile header can cause; real clients send a handful.
    if (++count > 64) break;
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (name === '' || name in out) continue;
    let value = part.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    try {
      out[name] = decodeURIComponent(value);
    } catch {
      out[name] = value;
    }
  }
  return out;
}

/** True when the request carries any credential worth asking the authenticator about. */
export function hasCredentials(headers: Readonly<Record<string, string>>, cookies: Readonly<Record<string, string>>): boolean {
  return headers['authorization'] !== undefined || headers['x-api-key'] !== undefined || cookies[sessionCookie] !== undefined;
}

/**
 * What a route's `auth` and `scope` demand of an authentication result: null when the
 * request may proceed, else the 401/403 reply. Admin routes need an admin wallet and the
 * `admin` scope (a read key of an admin wallet gets 403). On `none` and `optional` routes invalid
 * credentials are ignored (interface.md: they fall back to IP limits, never 401).
 */
export function authorize(
  route: { readonly auth: AuthMode; readonly scope?: Scope; readonly accepts?: readonly CredentialKind[] },
  auth: AuthResult,
  isAdmin: IsAdmin,
): ErrorReply | null {
  if (route.auth === 'none' || route.auth === 'optional') return null;
  if (auth.kind === 'none') return errorReply('unauthenticated', 'No auth data available');
  if (auth.kind === 'invalid') return errorReply('unauthenticated', auth.message);
  if (route.accepts !== undefined && !route.accepts.includes(auth.via)) {
    return errorReply('permission_denied', `This endpoint does not accept ${auth.via === 'apikey' ? 'API keys' : `${auth.via} credentials`}`);
  }
  if (route.auth === 'admin' && !isAdmin(auth.address)) return errorReply('permission_denied', 'Admin access required');
  // An admin action always needs the `admin` scope (a login has it; an API key only if created with it).
  const scope = route.auth === 'admin' ? 'admin' : route.scope;
  if (scope !== undefined && !auth.scopes.includes(scope)) return errorReply('permission_denied', `Missing required scope: ${scope}`);
  return null;
}

/**
 * What the rate limiter keys on: the wallet, else the IP (docs/rate-limits.md). Every
 * credential of a wallet (its sessions, cookie and each of its API keys) draws on the
 * wallet's one budget per group, so more keys never buy more requests.
 */
export type RateIdentity = { readonly kind: 'wallet'; readonly address: string } | { readonly kind: 'ip'; readonly ip: string };

/** The address comes from `source.ip()` because reading it from uWS is not free: only anonymous callers need it. */
export function rateIdentity(auth: AuthResult, source: { ip(): string }): RateIdentity {
  if (auth.kind !== 'user') return { kind: 'ip', ip: source.ip() };
  return { kind: 'wallet', address: auth.address };
}
