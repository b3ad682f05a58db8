/**
 * The committed command journal as the public reads it (PUBLIC_JOURNAL=1, docs/chain.md "The
 * audit"): pages of commands from a seq on, the venue's stored snapshots (its genesis, seq 0,
 * always among them), and each committed command as it commits for `global@journal`. Read-only
 * views of the journal and the snapshot store the venue writes; nothing here changes them.
 *
 * A command travels in two forms: `frame`, the journal codec's bytes (persistence/codec.ts) in
 * base64, which an auditor decodes and replays exactly; and `command`, the same in JSON (bigints
 * as decimal strings), for reading.
 */
import type { Command, Journal, SnapshotStore } from '../persistence/index.ts';
import { encodeValue } from '../persistence/index.ts';

export type JournalEntryJson = { readonly seq: number; readonly ts: number; readonly type: string; readonly frame: string; readonly command: Command };

export type JournalPage = {
  readonly commands: JournalEntryJson[];
  /** The seq a next page starts at. */
  readonly nextSeq: number;
  /** The last committed seq. */
  readonly lastSeq: number;
};

export type SnapshotInfo = { readonly seq: number; readonly hash: string; readonly takenAt: number; readonly bytes: number };

export type PublicJournal = {
  /** Commands from `fromSeq` on, at most `limit`; `pruned` when commands before the first stored one were asked for. */
  page(fromSeq: number, limit: number): JournalPage | { readonly pruned: number };
  /** The stored snapshots that verify, newest first. */
  snapshots(): SnapshotInfo[];
  /** One stored snapshot's engine state (the engine's serialisation, which `stateHash` hashes), or null. */
  snapshot(seq: number): { readonly info: SnapshotInfo; readonly state: Uint8Array } | null;
};

/** The JSON entry of one committed command. */
export function journalEntryJson(command: Command): JournalEntryJson {
  return { seq: command.seq, ts: command.ts, type: command.type, frame: encodeValue(command).toString('base64'), command };
}

export function publicJournal(journal: Journal, snapshots: SnapshotStore, committedSeq: () => number): PublicJournal {
  return {
    page(fromSeq, limit) {
      const pruned = journal.prunedThrough();
      if (fromSeq <= pruned) return { pruned };
      const last = committedSeq();
      const commands: JournalEntryJson[] = [];
      if (fromSeq <= last) {
        for (const c of journal.read(fromSeq)) {
          if (c.seq > last || commands.length >= limit) break;
          commands.push(journalEntryJson(c));
        }
      }
      const nextSeq = commands.length > 0 ? commands[commands.length - 1]!.seq + 1 : Math.min(fromSeq, last + 1);
      return { commands, nextSeq, lastSeq: last };
    },
    snapshots() {
      const out: SnapshotInfo[] = [];
      for (const c of snapshots.candidates()) if (c.ok) out.push({ seq: c.snapshot.seq, hash: c.snapshot.hash, takenAt: c.snapshot.takenAt, bytes: c.snapshot.state.length });
      return out;
    },
    snapshot(seq) {
      for (const c of snapshots.candidates()) {
        if (!c.ok || c.snapshot.seq !== seq) continue;
        const s = c.snapshot;
        return { info: { seq: s.seq, hash: s.hash, takenAt: s.takenAt, bytes: s.state.length }, state: s.state };
      }
      return null;
    },
  };
}
