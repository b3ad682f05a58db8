/**
 * API key material (api.md "Auth"): `keyId` is `ok_` + 24 hex characters, the secret 64
 * hex characters, shown once. The HMAC key is the secret string exactly as returned. The
 * check of signed requests lives in authenticator.ts.
 */
import { randomBytes } from 'node:crypto';
import { scopes as allScopes, type Scope } from '../http/route.ts';

export const KEY_ID_PATTERN = '^ok_[0-9a-f]{24}$';
/** Active keys one wallet may hold: enough for a desk's bots, few enough to audit. */
export const MAX_KEYS_PER_WALLET = 20;

export function newKeyId(): string {
  return `ok_${randomBytes(12).toString('hex')}`;
}

export function newSecret(): string {
  return randomBytes(32).toString('hex');
}

/** Scopes in their canonical order, without duplicates. */
export function normaliseScopes(requested: readonly string[]): Scope[] {
  return allScopes.filter((s) => requested.includes(s));
}
