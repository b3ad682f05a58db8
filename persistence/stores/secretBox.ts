/**
 * Encryption at rest for API-key secrets. They cannot be hashed like session tokens: the
 * HMAC check needs the secret itself. AES-256-GCM with a random 96-bit IV per record and
 * the record's id as associated data, so a ciphertext copied onto another record fails.
 *
 * The master key comes from KEY_ENCRYPTION_KEY (64 hex) when given, else from
 * DATA_DIR/keys/master.key, generated once (mode 0600). Losing that key loses every stored
 * API-key secret (users rotate their keys); it is deliberately not part of `backup()`.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../types.ts';

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_HEX = /^[0-9a-fA-F]{64}$/;

export type SecretBox = {
  /** Short public id of the key (first 8 bytes of its SHA-256), stored beside ciphertexts to name a key mismatch. */
  readonly fingerprint: string;
  seal(plaintext: string, aad: string): Uint8Array;
  /** null when the ciphertext does not authenticate (wrong key, tampered, other record's data). */
  open(sealed: Uint8Array, aad: string): string | null;
};

export function secretBox(key: Uint8Array): SecretBox {
  if (key.length !== 32) throw new RangeError('secretBox: the key must be 32 bytes');
  const k = Buffer.from(key);
  return {
    fingerprint: createHash('sha256').update(k).digest('hex').slice(0, 16),
    seal(plaintext: string, aad: string): Uint8Array {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', k, iv);
      cipher.setAAD(Buffer.from(aad, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]);
    },
    open(sealed: Uint8Array, aad: string): string | null {
      if (sealed.length < 1 + IV_BYTES + TAG_BYTES || sealed[0] !== VERSION) return null;
      const buf = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
      try {
        const decipher = createDecipheriv('aes-256-gcm', k, buf.subarray(1, 1 + IV_BYTES));
        decipher.setAAD(Buffer.from(aad, 'utf8'));
        decipher.setAuthTag(buf.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES));
        return Buffer.concat([decipher.update(buf.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
      } catch {
        return null;
      }
    },
  };
}

/**
 * The master key: `fromEnv` (the KEY_ENCRYPTION_KEY value) when set, else DATA_DIR/keys/master.key,
 * created with 32 random bytes on first start. Throws on a malformed key: starting with a key
 * that cannot decrypt what is stored would lock every API key out.
 */
export function loadMasterKey(dataDir: string, fromEnv: string | undefined, log: Logger): Buffer {
  if (fromEnv !== undefined && fromEnv !== '') {
    if (!KEY_HEX.test(fromEnv.trim())) throw new Error('KEY_ENCRYPTION_KEY must be 64 hex characters (32 bytes)');
    return Buffer.from(fromEnv.trim(), 'hex');
  }
  const dir = join(dataDir, 'keys');
  const path = join(dir, 'master.key');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  let text: string | null = null;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  if (text === null) {
    const hex = randomBytes(32).toString('hex');
    // 'wx': never overwrite a key that appeared meanwhile; fsync file and directory so a
    // power cut cannot lose the key while keeping records encrypted with it.
    const fd = openSync(path, 'wx', 0o600);
    try {
      writeSync(fd, hex + '\n');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    const dirFd = openSync(dir, 'r');
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
    log.info(`keys: generated a new master key at ${path}`, { path });
    return Buffer.from(hex, 'hex');
  }
  if (!KEY_HEX.test(text.trim())) throw new Error(`${path} must hold 64 hex characters (32 bytes)`);
  if ((statSync(path).mode & 0o077) !== 0) log.warn(`keys: ${path} is readable by group or others; chmod 600 it`, { path });
  return Buffer.from(text.trim(), 'hex');
}
