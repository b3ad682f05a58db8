/**
 * The command pipeline, top to bottom (architecture.md "The flow of a command"):
 *
 *   1. sequence   the command gets the next sequence number and the venue clock's timestamp
 *   2. journal    it is appended to the journal (group commit: one LMDB transaction per turn)
 *   3. apply      the engine applies it at once (matching never waits for the disk)
 *   4. durable    the caller's reply waits for the journal commit
 *   5. publish    events go to the read models and streams, in sequence order, after the commit;
 *                 for order entry (`replyFirst`) after every reply of the commit's turn
 *
 * Parsing, authentication and signature recovery happen before `submit` (routes and
 * workers); replying happens after it. Every command is journaled, rejected ones too, so
 * that a replay reproduces the venue exactly (and the journal is an audit trail of attempts).
 */
import { UnavailableError } from '../persistence/unavailable.ts';
import { LatencyWindow } from './monitoring/latencyWindow.ts';
import type { Venue, ApplyResult, Command, CommandBody, VenueEvent } from '../engine/index.ts';
import type { Journal } from '../persistence/types.ts';
import type { Metrics } from './http/metrics.ts';
import type { SlotCounter, SlotFamily, SlotHistogram } from './http/slotMetrics.ts';
import { noteUsedNonces, type NonceSink } from './orders/usedNonces.ts';
import { wireVenueOf, type WireVenue } from './wireVenue.ts';

/**
 * A write this node cannot take: it is a standby or a deposed leader (JOURNAL=nats), or its
 * journal refused the append. The HTTP layer answers 503 `unavailable` with the message.
 */
/** A write this node cannot take now (HTTP 503 `unavailable`); also the shared stores' (persistence/unavailable.ts). */
export { UnavailableError };

export type EventListener = (events: readonly VenueEvent[], command: Command, result: ApplyResult) => void;

/**
 * `replyFirst`: the command's reply does not wait for its publication (step 5). The commit's
 * turn answers every caller first and then folds and publishes its commands in one pass, in
 * sequence order, at the end of the turn (docs/performance.md "Replies before folds"). Any
 * reader in a later callback calls `publishPending()` first (the HTTP server and the
 * WebSocket handlers do), as does every other submit, `follow` and `drain`, so no read sees
 * less than what was answered.
 */
export type SubmitOptions = { readonly replyFirst?: boolean };

type Committed = { readonly events: readonly VenueEvent[]; readonly command: Command; readonly result: ApplyResult };

export class CommandPipeline {
  private lastTs = 0;
  /** Added to the wall clock by `advance` (local devnet time travel). */
  private offsetMs = 0;
  private readonly listeners: EventListener[] = [];
  private readonly journalErrorListeners: ((error: unknown, command: Command) => void)[] = [];
  /** Commit latencies (ms) since the monitoring stream last looked (venue@health). */
  readonly commitLatency = new LatencyWindow();
  private readonly appliedListeners: ((command: Command) => void)[] = [];
  private readonly applied: SlotFamily<'type' | 'outcome', SlotCounter>;
  private readonly applySeconds: SlotFamily<'type', SlotHistogram>;
  private readonly commitSeconds: SlotHistogram;
  /** Bound metric children per command type (and outcome): the hot path does no label lookups. */
  private readonly appliedByType = new Map<string, Map<string, SlotCounter>>();
  private readonly applySecondsByType = new Map<string, SlotHistogram>();
  private inFlight = 0;
  private idleWaiters: (() => void)[] = [];
  /** Null while this node takes writes; else why not (a standby, a deposed leader). */
  private refusal: string | null = null;
  /** An edge (JOURNAL=nats, EDGE=1): where writes go instead (the leader, gateway/cluster/edge.ts). */
  private forward: ((body: CommandBody) => Promise<ApplyResult>) | null = null;
  /** The venue with its events converted to wire form (gateway/wireVenue.ts): every command is applied through it. */
  private readonly wired: WireVenue;
  /** Committed `replyFirst` commands not yet published, in sequence order; `publishing` guards against a re-entrant flush. */
  private pending: Committed[] = [];
  private publishScheduled = false;
  private publishing = false;
  private listenerErrorListeners: ((error: unknown, command: Command) => void)[] = [];
  private readonly publishNow = () => {
    this.publishScheduled = false;
    this.publishPending();
  };

  constructor(
    private readonly venue: Venue,
    private readonly journal: Journal,
    private readonly clock: () => number,
    metrics: Metrics,
    /** Where the order nonces of each command are recorded, before it is journaled (kept apart from the journal). */
    private readonly usedNonces: NonceSink | null = null,
  ) {
    this.lastTs = venue.now;
    this.wired = wireVenueOf(venue);
    this.applied = metrics.slotCounter({ name: 'engine_commands_total', help: 'Commands applied, by type and outcome.', labelNames: ['type', 'outcome'] as const });
    this.applySeconds = metrics.slotHistogram({ name: 'engine_command_apply_seconds', help: 'Time the engine spent applying one command.', labelNames: ['type'] as const, buckets: [0.000005, 0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.001, 0.005, 0.025, 0.1] });
    this.commitSeconds = metrics.slotHistogram({ name: 'journal_commit_seconds', help: 'Time from journal append to durable commit.', buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5] }).child({});
  }

  onEvents(listener: EventListener): void {
    this.listeners.push(listener);
  }

  /** Called when a listener throws while publishing a `replyFirst` command (its reply is out already). */
  onListenerError(listener: (error: unknown, command: Command) => void): void {
    this.listenerErrorListeners.push(listener);
  }

  /** Publishes every committed command not yet published (the read barrier of `replyFirst`). */
  publishPending(): void {
    if (this.publishing || this.pending.length === 0) return;
    this.publishing = true;
    try {
      for (let i = 0; i < this.pending.length; i++) {
        const c = this.pending[i]!;
        for (const l of this.listeners) {
          try {
            l(c.events, c.command, c.result);
          } catch (e) {
            if (this.listenerErrorListeners.length === 0) console.error('command pipeline: a listener failed', e);
            for (const h of this.listenerErrorListeners) h(e, c.command);
          }
        }
      }
    } finally {
      this.pending = [];
      this.publishing = false;
    }
  }

  /** Called when a command's journal append or commit fails (its submitter gets the error too). */
  onJournalError(listener: (error: unknown, command: Command) => void): void {
    this.journalErrorListeners.push(listener);
  }

  /** Called right after the engine applied a command, before it is durable (the engine is at its seq then). */
  onApplied(listener: (command: Command) => void): void {
    this.appliedListeners.push(listener);
  }

  /** Wall time without the local devnet's advance-time offset (authentication windows use it). */
  wallNow(): number {
    return this.clock();
  }

  /** The venue clock for the next command: wall time (plus any `advance`), never behind the last command. */
  now(): number {
    return Math.max(this.clock() + this.offsetMs, this.lastTs);
  }

  /**
   * Move the venue clock forward by `ms` from now on, as a local devnet's time travel does
   * (NETWORK=local's `POST /api/admin/advance-time`). In memory only: after a restart the
   * clock resumes from wall time and holds at the last command's time until wall time passes it.
   */
  advance(ms: number): void {
    if (!Number.isSafeInteger(ms) || ms < 0) throw new RangeError(`advance: ms must be a non-negative integer, got ${ms}`);
    this.offsetMs += ms;
  }

  /** Stop taking writes (`reason` is the reply's message) or, with null, take them again. */
  refuseWrites(reason: string | null): void {
    this.refusal = reason;
  }

  writable(): boolean {
    return this.refusal === null;
  }

  /**
   * An edge's path: `submit` hands each (already verified) command to `forward`, which
   * answers with the result the leader committed; this node's engine only follows.
   */
  forwardWrites(forward: ((body: CommandBody) => Promise<ApplyResult>) | null): void {
    this.forward = forward;
  }

  /**
   * A standby's path: a command another node journaled is applied and published exactly as
   * `submit` would have (steps 3 and 5), so the read models fold the same committed stream.
   */
  follow(command: Command): ApplyResult {
    this.publishPending();
    this.lastTs = Math.max(this.lastTs, command.ts);
    const result = this.wired.apply(command);
    this.appliedOf(command.type, result.ok ? 'ok' : result.rejection.code).inc();
    for (const l of this.listeners) l(result.events, command, result);
    return result;
  }

  async submit(body: CommandBody, options?: SubmitOptions): Promise<ApplyResult> {
    if (this.forward !== null) return this.forward(body);
    if (this.refusal !== null) throw new UnavailableError(this.refusal);
    // 1. sequence
    const ts = this.now();
    this.lastTs = ts;
    const command = { ...body, seq: this.journal.lastSeq() + 1, ts } as Command;
    // 2. journal (its order nonces first: the same or an earlier commit, never a later one)
    const started = performance.now();
    if (this.usedNonces !== null) noteUsedNonces(command, this.usedNonces);
    const durable = this.journal.append(command);
    // 3. apply (and the events' conversion to wire form, gateway/wireVenue.ts)
    const result = this.wired.apply(command);
    for (const l of this.appliedListeners) l(command);
    this.applySecondsOf(command.type).observe((performance.now() - started) / 1000);
    this.appliedOf(command.type, result.ok ? 'ok' : result.rejection.code).inc();
    // 4. durable
    this.inFlight++;
    try {
      await durable;
    } catch (e) {
      for (const l of this.journalErrorListeners) l(e, command);
      // The engine applied a command the journal does not hold: this node must not answer again.
      this.refusal ??= `this node stopped taking writes: ${(e as Error).message}`;
      throw new UnavailableError(this.refusal);
    } finally {
      this.inFlight--;
      if (this.inFlight === 0) for (const w of this.idleWaiters.splice(0)) w();
    }
    const committedMs = performance.now() - started;
    this.commitSeconds.observe(committedMs / 1000);
    this.commitLatency.record(committedMs);
    // 5. publish (after the earlier commands' publication: in sequence order)
    if (options?.replyFirst === true) {
      this.pending.push({ events: result.events, command, result });
      if (!this.publishScheduled) {
        this.publishScheduled = true;
        setImmediate(this.publishNow);
      }
      return result;
    }
    this.publishPending();
    for (const l of this.listeners) l(result.events, command, result);
    return result;
  }

  private applySecondsOf(type: string): SlotHistogram {
    let h = this.applySecondsByType.get(type);
    if (h === undefined) this.applySecondsByType.set(type, (h = this.applySeconds.child({ type })));
    return h;
  }

  private appliedOf(type: string, outcome: string): SlotCounter {
    let byOutcome = this.appliedByType.get(type);
    if (byOutcome === undefined) this.appliedByType.set(type, (byOutcome = new Map()));
    let c = byOutcome.get(outcome);
    if (c === undefined) byOutcome.set(outcome, (c = this.applied.child({ type, outcome })));
    return c;
  }

  /** Commands applied whose journal commit has not yet completed (the `engine_commands_in_flight` gauge). */
  inFlightCount(): number {
    return this.inFlight;
  }

  /** Resolves when every submitted command is durable (graceful shutdown). */
  async drain(): Promise<void> {
    if (this.inFlight !== 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    this.publishPending();
  }
}
