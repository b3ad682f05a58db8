/**
 * Decides when to snapshot and prunes the journal behind the snapshots. No timers: the
 * pipeline calls `afterApply(seq)` after each command and the clock is passed in, so the
 * decision is as testable as the engine.
 *
 * Retention: after a snapshot is durable, journal entries up to the OLDEST kept snapshot
 * are deleted (minus `retainCommands` extra entries kept for audit). Keeping entries back
 * to the oldest snapshot, not the newest, is what lets recovery fall back to an older
 * snapshot when the newest fails its checksum and still replay forward.
 * A snapshot, the prune after it and journal appends all go through one LMDB write queue,
 * committed in order, so a prune is never durable without the snapshot behind it.
 */
import type { Journal, Logger, Replayable, SnapshotStore } from './types.ts';

export type SnapshotterOptions = {
  snapshots: SnapshotStore;
  journal: Journal;
  /** The live engine (serialized synchronously, between two commands). */
  source: Pick<Replayable, 'serialize' | 'stateHash' | 'serializeRead'>;
  /** Unix ms. */
  clock: () => number;
  log: Logger;
  /** Snapshot after this many commands since the last one (default 100,000). */
  everyCommands?: number;
  /** ...or after this many ms since the last one, if at least one command arrived (default 10 minutes). */
  everyMs?: number;
  /** Delete journal entries behind the oldest kept snapshot (default true). */
  pruneJournal?: boolean;
  /** Entries to keep before the oldest kept snapshot anyway (default 0). */
  retainCommands?: number;
  /**
   * Another reader of the journal that needs it after a seq of its own (the relayer, from its
   * checkpoint: docs/chain.md): entries after `hold()` are kept whatever the snapshots.
   */
  hold?: () => number;
  /** Seq the engine is at when the snapshotter starts (the recovered lastSeq). */
  startSeq: number;
  /**
   * Writes the periodic snapshots elsewhere (the gateway's snapshot worker,
   * gateway/snapshotWorker.ts): at the journal's last committed command, durable when it
   * resolves, with the seq it was taken at. Absent, or for `takeNow` (shutdown, first start):
   * `source` is serialised here, synchronously, and saved to `snapshots`.
   */
  produce?: (takenAt: number) => Promise<{ seq: number; bytes: number; warnings?: readonly string[] }>;
};

export type SnapshotOutcome = { ok: true; seq: number; bytes: number; pruned: number } | { ok: false; seq: number; error: string };

export class Snapshotter {
  private lastSeq: number;
  private lastAt: number;
  private inFlight: Promise<SnapshotOutcome> | null = null;
  private readonly everyCommands: number;
  private readonly everyMs: number;

  constructor(private readonly opts: SnapshotterOptions) {
    this.everyCommands = opts.everyCommands ?? 100_000;
    this.everyMs = opts.everyMs ?? 10 * 60_000;
    if (!(this.everyCommands >= 1)) throw new RangeError('everyCommands must be >= 1');
    if (!(this.everyMs > 0)) throw new RangeError('everyMs must be > 0');
    this.lastSeq = opts.startSeq;
    this.lastAt = opts.clock();
  }

  /** Whether a snapshot at `seq` is due at time `now`. */
  due(seq: number, now: number): boolean {
    if (seq <= this.lastSeq) return false;
    return seq - this.lastSeq >= this.everyCommands || now - this.lastAt >= this.everyMs;
  }

  /**
   * Call after the command `seq` was applied. Takes a snapshot when one is due and none is
   * in flight; returns its outcome (never rejects; failures are logged and returned) or null.
   */
  afterApply(seq: number): Promise<SnapshotOutcome> | null {
    if (this.inFlight !== null || !this.due(seq, this.opts.clock())) return null;
    return this.take(seq, this.opts.produce);
  }

  /** Snapshot now at `seq` (the seq the source is at), on this thread. Waits for one already in flight first. */
  takeNow(seq: number): Promise<SnapshotOutcome> {
    if (this.inFlight !== null) return this.inFlight.then(() => this.takeNow(seq));
    return this.take(seq, undefined);
  }

  /** With `produce`, the snapshot is written elsewhere at the last committed command (`seq` or later). */
  private take(seq: number, produce: SnapshotterOptions['produce']): Promise<SnapshotOutcome> {
    const { source, snapshots, log, clock } = this.opts;
    const takenAt = clock();
    this.lastSeq = seq;
    this.lastAt = takenAt;
    let write: () => Promise<{ seq: number; bytes: number }>;
    if (produce !== undefined) {
      write = async () => {
        const made = await produce(takenAt);
        for (const w of made.warnings ?? []) log.warn(w, { seq: made.seq });
        this.lastSeq = Math.max(this.lastSeq, made.seq);
        return made;
      };
    } else {
      // Serialize and hash now, synchronously: the state must be the state at exactly `seq`.
      const state = source.serialize();
      const hash = source.stateHash();
      const read = source.serializeRead?.();
      write = async () => {
        await snapshots.save(read === undefined ? { seq, hash, state, takenAt } : { seq, hash, state, takenAt, read });
        return { seq, bytes: state.length + (read?.length ?? 0) };
      };
    }
    const run = async (): Promise<SnapshotOutcome> => {
      try {
        const saved = await write();
        const pruned = await this.prune(saved.seq);
        log.info(`snapshots: saved seq ${saved.seq} (${saved.bytes} bytes), pruned ${pruned} journal entries`, { seq: saved.seq, bytes: saved.bytes, pruned });
        return { ok: true, seq: saved.seq, bytes: saved.bytes, pruned };
      } catch (e) {
        const error = (e as Error).message;
        log.error(`snapshots: saving seq ${seq} failed: ${error}`, { seq });
        return { ok: false, seq, error };
      } finally {
        this.inFlight = null;
      }
    };
    this.inFlight = run();
    return this.inFlight;
  }

  /** Delete journal entries behind the oldest kept snapshot (after a snapshot at `seq` is durable). */
  private async prune(seq: number): Promise<number> {
    if (!(this.opts.pruneJournal ?? true)) return 0;
    const oldest = this.opts.snapshots.seqs()[0] ?? seq;
    const held = this.opts.hold === undefined ? Number.MAX_SAFE_INTEGER : this.opts.hold() + 1;
    const before = Math.min(oldest + 1 - (this.opts.retainCommands ?? 0), held);
    return before > 1 ? this.opts.journal.pruneBefore(before) : 0;
  }
}
