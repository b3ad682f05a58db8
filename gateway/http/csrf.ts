/**
 * Cross-site request forgery on cookie writes (docs/auth.md "Sessions"). A browser sends
 * the earlier form's `session` cookie by itself, and an HTML form or a "simple" fetch can
 * post a JSON-looking body as `text/plain` or a form encoding without a CORS preflight.
 * A request that the cookie authenticates and that carries a body (or names a content
 * type) must therefore say `Content-Type: application/json`, which no cross-site page
 * can send without a preflight. Bearer tokens and API keys are never sent by the browser
 * on its own, so those requests are not checked.
 */
import type { AuthResult } from './auth.ts';
import { errorReply, type ErrorReply } from './errors.ts';

export const CSRF_MESSAGE = 'Content-Type must be application/json for requests authenticated by the session cookie';
export const SIGN_IN_MESSAGE = 'Content-Type must be application/json for a sign-in that sets the session cookie';

/** `application/json`, with any parameters (`; charset=utf-8`), any case. */
export function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  const semicolon = value.indexOf(';');
  return (semicolon === -1 ? value : value.slice(0, semicolon)).trim().toLowerCase() === 'application/json';
}

/**
 * Null when the request may go on, else the 415 reply. `route` is the matched route:
 * public routes (`auth: 'none'`) do not act on the cookie and are not checked, except the
 * earlier form's sign-in, which sets the cookie (`setsSessionCookie`): a cross-site form
 * posting an attacker's signed message there would sign the browser into the attacker's
 * account (login CSRF), so its body must be JSON whatever the credentials. Routes without
 * a body never read one.
 */
export function cookieWriteCheck(
  route: { readonly auth: string; readonly hasBody: boolean; readonly setsSessionCookie?: boolean },
  auth: AuthResult,
  headers: Readonly<Record<string, string>>,
  body: Uint8Array | null,
): ErrorReply | null {
  if (!route.hasBody) return null;
  const signIn = route.setsSessionCookie === true;
  if (!signIn && (route.auth === 'none' || auth.kind !== 'user' || auth.via !== 'cookie')) return null;
  const contentType = headers['content-type'];
  const hasBody = body !== null && body.byteLength > 0;
  if (!hasBody && contentType === undefined) return null;
  return isJsonContentType(contentType) ? null : errorReply('unsupported_media_type', signIn ? SIGN_IN_MESSAGE : CSRF_MESSAGE);
}
