/**
 * The command journal on LMDB.
 *
 * Layout: key = seq of the first command of a batch (lmdb ordered-binary number, so a read
 * from a seq is one cursor walk); value = the batch (journalBatch.ts): the commands appended
 * in one microtask turn, each its own checksummed frame.
 *
 * Group commit: appends made in the same turn go into one batch, written with one `put` at
 * the end of the turn (a microtask); lmdb-js puts every write of an event turn into one
 * transaction, committed off the main thread. All of those appends share one promise, which
 * resolves when that transaction is durable (see Durability). A burst of 1,000 appends costs
 * one put, one commit and one fdatasync.
 */
import { asBinary, type Database, type DatabaseOptions, type RootDatabase } from 'lmdb';
import type { Command, Durability, Journal, JournalEntry } from './types.ts';
import { ackTracker } from './lmdbAck.ts';
import { checkDecoded, encodeCommand, readChecked } from './journalEntry.ts';
import { batchCount, batchFrames, decodeBatch, encodeBatch, type DecodedBatch } from './journalBatch.ts';
import { getFramed, openBinaryDb, putFramed, putFramedSync } from './framedDb.ts';

export type LmdbJournal = Journal & {
  /** Appends so far and distinct LMDB transactions they went into (for metrics and the group-commit test). */
  stats(): { appended: number; transactions: number };
  /** Writes the batch being collected now instead of at the end of the turn (before closing). */
  flushPending(): void;
};

const PRUNED_KEY = 'journal.prunedThrough';
const QUARANTINE_RUN_KEY = 'journal.quarantineRuns';
/** A batch is cut at this many commands or bytes even within one turn (several batches, still one commit). */
const BATCH_MAX_COMMANDS = 4096;
const BATCH_MAX_BYTES = 4 * 1024 * 1024;
/** Batches deleted per write transaction while pruning, so one prune never holds the writer for long. */
const PRUNE_CHUNK = 2_000;

/**
 * lmdb-js hands a custom decoder its shared read buffer and the value's size; verifying and
 * decoding right there saves a copy per batch. Writes bypass the encoder (`asBinary`).
 */
const batchDecoder = {
  encode(): never {
    throw new Error('journal: values are written pre-encoded with asBinary');
  },
  decode(bytes: Uint8Array, size?: unknown): DecodedBatch {
    return decodeBatch(bytes, typeof size === 'number' ? size : bytes.length);
  },
};

export function lmdbJournal(env: RootDatabase, durability: Durability): LmdbJournal {
  const db: Database<DecodedBatch, number> = env.openDB<DecodedBatch, number>('journal', { encoder: batchDecoder } as DatabaseOptions);
  const quarantine = openBinaryDb(env, 'journal-quarantine');
  const meta = openBinaryDb(env, 'meta');
  const tracker = ackTracker(durability);

  const readMetaNumber = (key: string): number => {
    const v = getFramed(meta, key, () => {});
    return typeof v === 'number' ? v : 0;
  };
  const put = (key: number, value: Buffer): Promise<boolean> => db.put(key, asBinary(value) as unknown as DecodedBatch);
  /** The batch holding `seq` (its key and entry count), if any. */
  const batchHolding = (seq: number): { key: number; count: number } | null => {
    for (const key of db.getKeys({ start: seq, reverse: true, limit: 1 })) {
      const raw = db.getBinary(key);
      const count = raw === undefined ? 0 : batchCount(raw);
      if (key + count > seq) return { key, count };
    }
    return null;
  };

  let pruned = readMetaNumber(PRUNED_KEY);
  let last = pruned;
  for (const key of db.getKeys({ reverse: true, limit: 1 })) {
    const raw = db.getBinary(key);
    last = Math.max(last, key + (raw === undefined ? 0 : batchCount(raw)) - 1);
  }
  let appended = 0;

  // The batch being collected in this turn.
  let frames: Buffer[] = [];
  let firstSeq = 0;
  let bytes = 0;
  let ack: Promise<void> | null = null;
  let settle: { resolve: () => void; reject: (e: unknown) => void } | null = null;

  const flush = (): void => {
    if (frames.length === 0) return;
    const value = encodeBatch(frames);
    const done = settle!;
    const key = firstSeq;
    frames = [];
    bytes = 0;
    ack = null;
    settle = null;
    tracker.ack(put(key, value)).then(done.resolve, done.reject);
  };

  const journal: LmdbJournal = {
    append(command: Command): Promise<void> {
      let frame: Buffer;
      try {
        frame = encodeCommand(command, last + 1);
      } catch (e) {
        return Promise.reject(e);
      }
      if (frames.length === 0) {
        firstSeq = command.seq;
        ack = new Promise<void>((resolve, reject) => {
          settle = { resolve, reject };
        });
        queueMicrotask(flush);
      }
      frames.push(frame);
      bytes += frame.length;
      last = command.seq;
      appended++;
      const mine = ack!;
      if (frames.length >= BATCH_MAX_COMMANDS || bytes >= BATCH_MAX_BYTES) flush();
      return mine;
    },

    lastSeq: () => last,

    *scan(fromSeq: number): Iterable<JournalEntry> {
      const start = batchHolding(fromSeq)?.key ?? fromSeq;
      for (const { key, value } of db.getRange({ start, snapshot: true })) {
        if (typeof key !== 'number') {
          yield { ok: false, seq: Number.NaN, reason: `non-numeric key ${String(key)}` };
          return;
        }
        const n = value.frames.length;
        for (let i = 0; i < n; i++) if (key + i >= fromSeq) yield checkDecoded(key + i, value.frames[i]!);
        if (value.error !== null) {
          yield { ok: false, seq: key + n, reason: value.error };
          return;
        }
      }
    },

    read(fromSeq: number): Iterable<Command> {
      return readChecked(journal.scan(fromSeq), fromSeq);
    },

    async pruneBefore(seq: number): Promise<number> {
      flush();
      let removed = 0;
      for (;;) {
        const keys = [...db.getKeys({ end: seq, limit: PRUNE_CHUNK })];
        if (keys.length === 0) break;
        let done: Promise<boolean> | undefined;
        for (const key of keys) {
          const raw = db.getBinary(key);
          const count = raw === undefined ? 0 : batchCount(raw);
          if (raw !== undefined && key + count > seq) {
            // The batch straddles `seq`: keep its tail as a batch keyed by `seq`.
            put(seq, encodeBatch(batchFrames(raw, seq - key, count)));
            removed += seq - key;
          } else {
            removed += count;
          }
          done = db.remove(key);
        }
        const through = Math.min(seq - 1, last);
        if (through > pruned) {
          pruned = through;
          done = putFramed(meta, PRUNED_KEY, pruned);
        }
        await done;
        if (keys.length < PRUNE_CHUNK) break;
      }
      return removed;
    },

    truncateFrom(seq: number): number {
      // Recovery calls this before anything is appended; with a batch still being collected a
      // later commit could bring truncated entries back, so that is a caller bug.
      if (frames.length > 0) throw new Error('journal: truncateFrom while appends are pending');
      const holding = batchHolding(seq);
      const keys = [...db.getKeys({ start: holding?.key ?? seq })];
      let removed = 0;
      env.transactionSync(() => {
        const run = readMetaNumber(QUARANTINE_RUN_KEY) + 1;
        for (const key of keys) {
          const raw = db.getBinary(key);
          if (raw === undefined) continue;
          // The raw batch goes to quarantine whole, for forensics; the journal keeps what precedes `seq`.
          quarantine.putSync([run, key], Buffer.from(raw));
          const count = batchCount(raw);
          if (key < seq) {
            db.putSync(key, asBinary(encodeBatch(batchFrames(raw, 0, seq - key))) as unknown as DecodedBatch);
            removed += Math.max(0, count - (seq - key));
          } else {
            db.removeSync(key);
            removed += Math.max(count, 1);
          }
        }
        if (keys.length > 0) putFramedSync(meta, QUARANTINE_RUN_KEY, run);
      });
      last = seq - 1;
      return removed;
    },

    prunedThrough: () => pruned,

    tailStart(): number {
      for (const key of db.getKeys({ reverse: true, limit: 1 })) return typeof key === 'number' ? key : 0;
      return 0;
    },

    stats: () => ({ appended, transactions: tracker.transactions() }),
    flushPending: flush,
  };
  return journal;
}
