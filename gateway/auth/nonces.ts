/**
 * SIWE nonces (api.md "Auth"): single use, valid 5 minutes, stored in
 * `stores.nonces` so that one handed out just before a restart still works once.
 * The current form hands out 16 hex characters, the earlier form 32 alphanumeric ones;
 * both are 64 bits or more of randomness from the OS generator.
 */
import { randomBytes } from 'node:crypto';

export const NONCE_TTL_MS = 5 * 60_000;

/** Current form: 16 lowercase hex characters (64 random bits). */
export function hexNonce(): string {
  return randomBytes(8).toString('hex');
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Earlier form: 32 characters of [A-Za-z0-9] (about 190 random bits), unbiased by rejection sampling. */
export function alphanumericNonce(length = 32): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 x 62: bytes at or above it would favour the first characters.
      if (byte < 248) out += ALNUM[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}
