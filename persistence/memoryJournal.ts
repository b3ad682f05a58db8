/**
 * In-memory Journal with the LMDB journal's behaviour: entries are stored as checksummed
 * frames (so a command that is not plain data fails here exactly as it would on disk, and
 * later mutation of the caller's object cannot change history), appends made in one event
 * turn resolve together, seq must be lastSeq()+1.
 */
import type { Command, Journal, JournalEntry } from './types.ts';
import { checkEntry, encodeCommand, readChecked } from './journalEntry.ts';

export type MemoryJournal = Journal & {
  stats(): { appended: number; transactions: number };
  /** Test hook: replace the stored bytes of an entry (simulates corruption). */
  overwriteRaw(seq: number, bytes: Uint8Array): void;
  /** Test hook: remove one entry without moving lastSeq (simulates a gap). */
  deleteRaw(seq: number): void;
  /**
   * Test hook: from now on no commit completes (append promises stay pending, as with a
   * stalled disk) until `release()`. `appended()` resolves with the seq of the next append.
   */
  holdCommits(): { appended(): Promise<number>; release(): void };
};

export function memoryJournal(): MemoryJournal {
  const entries = new Map<number, Uint8Array>();
  let last = 0;
  let pruned = 0;
  let pending: Promise<void> | null = null;
  let appended = 0;
  let turns = 0;
  let held: Promise<void> | null = null;
  const onAppend: ((seq: number) => void)[] = [];

  const sortedSeqs = (fromSeq: number): number[] => [...entries.keys()].filter((s) => s >= fromSeq).sort((a, b) => a - b);

  const journal: MemoryJournal = {
    append(command: Command): Promise<void> {
      let bytes: Buffer;
      try {
        bytes = encodeCommand(command, last + 1);
      } catch (e) {
        return Promise.reject(e);
      }
      entries.set(command.seq, bytes);
      last = command.seq;
      appended++;
      for (const f of onAppend.splice(0)) f(command.seq);
      // One shared promise per event turn, like one LMDB commit per turn.
      if (pending === null) {
        turns++;
        const gate = held;
        pending = new Promise<void>((resolve) =>
          setImmediate(() => {
            pending = null;
            if (gate === null) resolve();
            else void gate.then(resolve);
          }),
        );
      }
      return pending;
    },
    lastSeq: () => last,
    *scan(fromSeq: number): Iterable<JournalEntry> {
      for (const seq of sortedSeqs(fromSeq)) yield checkEntry(seq, entries.get(seq)!);
    },
    read(fromSeq: number): Iterable<Command> {
      return readChecked(journal.scan(fromSeq), fromSeq);
    },
    pruneBefore(seq: number): Promise<number> {
      let n = 0;
      for (const s of [...entries.keys()]) {
        if (s < seq) {
          entries.delete(s);
          n++;
        }
      }
      if (seq - 1 > pruned) pruned = Math.min(seq - 1, last);
      return Promise.resolve(n);
    },
    truncateFrom(seq: number): number {
      let n = 0;
      for (const s of [...entries.keys()]) {
        if (s >= seq) {
          entries.delete(s);
          n++;
        }
      }
      last = seq - 1;
      return n;
    },
    prunedThrough: () => pruned,
    tailStart(): number {
      let max = 0;
      for (const s of entries.keys()) if (s > max) max = s;
      return max;
    },
    overwriteRaw(seq: number, bytes: Uint8Array): void {
      entries.set(seq, Uint8Array.from(bytes));
    },
    deleteRaw(seq: number): void {
      entries.delete(seq);
    },
    holdCommits() {
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      held = gate;
      return {
        appended: () => new Promise<number>((r) => onAppend.push(r)),
        release() {
          if (held === gate) held = null;
          release();
        },
      };
    },
    stats: () => ({ appended, transactions: turns }),
  };
  return journal;
}
