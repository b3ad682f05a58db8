/**
 * Typed access to an LMDB database whose values are checksummed frames (frame.ts). Every
 * database persistence opens uses `encoding: 'binary'` and goes through here, so nothing is
 * stored without a checksum and nothing is decoded without checking it.
 */
import type { Database, Key, RootDatabase } from 'lmdb';
import { decodeFrame, encodeFrame } from './frame.ts';

export type BinaryDb = Database<Buffer, Key>;

export function openBinaryDb(env: RootDatabase, name: string): BinaryDb {
  return env.openDB<Buffer, Key>(name, { encoding: 'binary' });
}

/**
 * The decoded value at `key`, or undefined when absent. A value that fails its checksum is
 * reported through `onCorrupt` and treated as absent: a store record that cannot be trusted
 * must not be used (a session, a key, a nonce), and the caller logs it.
 */
export function getFramed(db: BinaryDb, key: Key, onCorrupt: (reason: string) => void): unknown {
  const raw = db.getBinary(key);
  if (raw === undefined) return undefined;
  const frame = decodeFrame(raw);
  if (!frame.ok) {
    onCorrupt(frame.reason);
    return undefined;
  }
  return frame.value;
}

export function putFramed(db: BinaryDb, key: Key, value: unknown): Promise<boolean> {
  return db.put(key, encodeFrame(value));
}

/** Inside a write transaction (transaction/transactionSync callback): write now, in that transaction. */
export function putFramedSync(db: BinaryDb, key: Key, value: unknown): void {
  db.putSync(key, encodeFrame(value));
}
