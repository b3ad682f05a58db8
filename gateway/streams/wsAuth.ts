/**
 * AUTH on /ws/private and /ws/rfq/mm (interface.md "WebSocket authentication", api.md
 * "WebSocket"). The credentials are checked by the same authenticator as HTTP, called with
 * the headers an HTTP client would have sent: `{ type: 'AUTH', token }` becomes
 * `Authorization: Bearer <token>`, `{ type: 'AUTH', apiKey, timestamp, signature }` becomes
 * the three X-API-* headers. So a token or key that works on REST works here, with the same
 * expiry, revocation, clock-skew and replay rules.
 */
import type { Authenticator, AuthResult, RouteRef, UserAuth } from '../http/auth.ts';
import type { Scope } from '../http/route.ts';

export type AuthFailure = { readonly code: 'unauthenticated' | 'permission_denied'; readonly message: string };
export type AuthOutcome = { readonly ok: true; readonly user: UserAuth } | { readonly ok: false; readonly failure: AuthFailure };

const MAX_CREDENTIAL = 1024;

const fail = (message: string, code: AuthFailure['code'] = 'unauthenticated'): AuthOutcome => ({ ok: false, failure: { code, message } });

/** The synthetic headers for an AUTH frame, or why the frame is malformed. */
export function authHeaders(msg: Record<string, unknown>): Record<string, string> | string {
  if (msg['type'] !== 'AUTH') return 'AUTH required: the first message must be { "type": "AUTH", "token": ... } or the API-key fields';
  const token = msg['token'];
  if (token !== undefined) {
    if (typeof token !== 'string' || token.length === 0 || token.length > MAX_CREDENTIAL || /\s/.test(token)) return 'token must be a non-empty string without spaces';
    return { authorization: `Bearer ${token}` };
  }
  const apiKey = msg['apiKey'];
  if (apiKey !== undefined) {
    const timestamp = typeof msg['timestamp'] === 'number' && Number.isSafeInteger(msg['timestamp']) ? String(msg['timestamp']) : msg['timestamp'];
    const signature = msg['signature'];
    if (typeof apiKey !== 'string' || apiKey.length === 0 || apiKey.length > MAX_CREDENTIAL) return 'apiKey must be a non-empty string';
    if (typeof timestamp !== 'string' || !/^[0-9]{1,16}$/.test(timestamp)) return 'timestamp must be Unix milliseconds';
    if (typeof signature !== 'string' || signature.length === 0 || signature.length > MAX_CREDENTIAL) return 'signature must be a non-empty string';
    return { 'x-api-key': apiKey, 'x-api-timestamp': timestamp, 'x-api-signature': signature };
  }
  return 'AUTH needs token, or apiKey with timestamp and signature';
}

/** Credential headers taken from the upgrade request (the RFQ stream's `Authorization` at connect). */
export function hasHeaderCredentials(headers: Readonly<Record<string, string>>): boolean {
  return headers['authorization'] !== undefined || headers['x-api-key'] !== undefined;
}

export type AuthPolicy = {
  readonly route: RouteRef;
  readonly scope: Scope;
  /** A further requirement on the user (MMM membership on the RFQ stream); a message when unmet. */
  readonly require?: (user: UserAuth) => string | null;
};

function judge(result: AuthResult, policy: AuthPolicy): AuthOutcome {
  if (result.kind === 'none') return fail('No auth data available');
  if (result.kind === 'invalid') return fail(result.message);
  if (!result.scopes.includes(policy.scope)) return fail(`Missing required scope: ${policy.scope}`, 'permission_denied');
  const unmet = policy.require?.(result);
  if (unmet) return fail(unmet, 'permission_denied');
  return { ok: true, user: result };
}

/** Checks credential headers; the authenticator may answer synchronously or not. */
export function authenticateHeaders(authenticate: Authenticator, headers: Record<string, string>, policy: AuthPolicy): AuthOutcome | Promise<AuthOutcome> {
  let result: AuthResult | Promise<AuthResult>;
  try {
    result = authenticate(headers, {}, policy.route);
  } catch {
    return fail('Authentication failed');
  }
  if (result instanceof Promise) return result.then((r) => judge(r, policy), () => fail('Authentication failed'));
  return judge(result, policy);
}

export const authReplies = {
  success: (user: UserAuth) => JSON.stringify({ type: 'AUTH_SUCCESS', userId: user.userId, address: user.address }),
  failed: (f: AuthFailure) => JSON.stringify({ type: 'AUTH_FAILED', code: f.code, message: f.message }),
};
