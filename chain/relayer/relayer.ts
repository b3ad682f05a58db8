/**
 * The relayer (docs/chain.md "The relayer"), everything but its thread: a replica of the engine
 * that follows the committed journal (as an edge gateway does), the settlement fold over the
 * replica's events (chain/settlementFold.ts), the batcher, the durable outbox, the sender, the
 * indexer and reconciliation. The thread (chain/relayer/relayerThread.ts) calls `step` on a
 * timer and forwards what `post` says to the main thread.
 *
 * Restart: the replica resumes from the outbox's checkpoint (the engine at a seq where no batch
 * was open) or, the first time, from the venue's genesis snapshot (seq 0); the journal after
 * it is folded again, its items up to the end of the last batch cut discarded (those batches
 * are in the outbox), and cutting goes on from there. Against the chain: batches at or below its
 * `lastSeq` are included (their settleHash must be the chain's), the rest is sent again.
 */
import type { Hex } from 'viem';
import { Venue, WireEvents } from '../../engine/index.ts';
import type { JournalSource, RelayerMessage, RelayerMetrics, RelayerOptions } from './relayerTypes.ts';
import { batchHash, journalPosOf, nextSettleHash } from '../items.ts';
import { SettlementFold, SettlementGap, emptyExpectations, type Expectations } from '../settlementFold.ts';
import { Batcher, headerOf, type CutBatch } from './batcher.ts';
import type { ChainClient } from './chainClient.ts';
import { shortMessage } from './chainClient.ts';
import { Indexer } from './indexer.ts';
import type { Outbox, StoredBatch } from './outbox.ts';
import { mergeExpectations, reconcile, type BatchExpectation, type BatchTotals as Totals } from './reconciler.ts';
import { Sender } from './sender.ts';
import { BatchStateHashes } from './stateHashes.ts';

const ZERO_HASH = `0x${'0'.repeat(64)}` as Hex;
/** How often the relayer reads the chain's head: finality, lost blocks, new logs (ms). */
const SLOW_MS = 400;

export type { JournalSource, RelayerMessage, RelayerMetrics, RelayerOptions, RelayerStatus } from './relayerTypes.ts';

export class Relayer {
  private replica!: Venue;
  private readonly wire = new WireEvents();
  private readonly stateHashes = new BatchStateHashes();
  private fold = new SettlementFold();
  private batcher!: Batcher;
  private sender!: Sender;
  private indexer!: Indexer;
  /** Skip items up to here when replaying after a restart (the end of the last batch cut). */
  private resume: { seq: number; item: number } | null = null;
  private settleHash: Hex = ZERO_HASH;
  /** Expectations gathered since the last batch that was given some. */
  private acc: Expectations = emptyExpectations();
  private readonly expect = new Map<number, BatchExpectation>();
  /** Touched since the last reconciliation, and the batch it ran at. */
  private sinceReconcile: Expectations = emptyExpectations();
  private lastReconciled = 0;
  private includedSinceReconcile = 0;
  private reconciling: Promise<void> | null = null;
  /** Wall time (ms) each batch's first command was folded; and of the open batch. */
  private readonly firstSeen = new Map<number, number>();
  private openSince: number | null = null;
  private lastCheckpoint: { seq: number; at: number } = { seq: -1, at: 0 };
  private lastSlow = 0;
  private lastCompare = 0;
  private stoppedFor: string | null = null;
  readonly metrics: RelayerMetrics = { lagSeconds: 0, outboxBatches: 0, openItems: 0, batchesIncluded: 0, batchesFinal: 0, fillsSettled: 0, gasUsed: 0, lastGasPerFill: 0, reconciliations: 0, reconciliationMismatches: 0, lastReconciledBatch: 0, replicaSeq: 0, chainSeq: 0, indexedBlock: 0, halted: null, sendWait: null };

  constructor(
    private readonly journal: JournalSource,
    private readonly outbox: Outbox,
    private readonly chain: ChainClient,
    private readonly opts: RelayerOptions,
    private readonly post: (m: RelayerMessage) => void,
    private readonly clock: () => number = Date.now,
  ) {}

  get halted(): string | null {
    return this.stoppedFor ?? this.sender?.halted ?? null;
  }

  /** Rebuild from the outbox and the chain; false (with an alert) when settlement cannot start. */
  async start(): Promise<boolean> {
    const cp = this.outbox.checkpoint();
    let state: Uint8Array | null;
    let nextBatch: number;
    if (cp !== null) {
      state = cp.state;
      nextBatch = cp.nextBatch;
    } else {
      state = this.journal.genesis();
      nextBatch = 1;
      if (state === null) return this.halt('the venue has no genesis snapshot (seq 0) and the relayer no checkpoint: settlement starts at a venue\'s genesis (docs/chain.md "Attaching a chain")', {});
    }
    this.replica = Venue.restore(state, this.opts.venueOptions);
    if (cp !== null && this.replica.stateHash() !== cp.hash) return this.halt(`the relayer's checkpoint at seq ${cp.seq} does not restore to its recorded hash`, { seq: cp.seq });
    this.fold.seed(this.wire.events(this.replica.imageEvents()), cp?.fees ?? 0n);
    this.lastCheckpoint = { seq: this.replica.seq, at: this.clock() };
    const last = this.outbox.last();
    if (last !== null && last.seq >= nextBatch) {
      this.resume = { seq: last.endSeq, item: last.endItem };
      nextBatch = last.seq + 1;
    }
    this.settleHash = nextBatch === 1 ? ZERO_HASH : (this.outbox.get(nextBatch - 1)?.settleHash ?? ZERO_HASH);
    this.batcher = new Batcher({ maxFills: this.opts.maxFills, maxGas: this.opts.maxGas, signPrice: this.opts.signPrice, nextSeq: nextBatch, state: () => this.stateHashes.at(this.replica) });

    // Where the chain stands.
    const anchors = await this.chain.anchors();
    this.metrics.chainSeq = anchors.lastSeq;
    if (anchors.lastSeq > nextBatch - 1) return this.halt(`the chain holds batch ${anchors.lastSeq}, beyond the last this relayer cut (${nextBatch - 1}): another venue's stream, or a lost outbox`, { chainSeq: anchors.lastSeq, outboxSeq: nextBatch - 1 });
    if (anchors.lastSeq > 0) {
      const mine = this.outbox.get(anchors.lastSeq);
      if (mine === null || mine.settleHash !== anchors.settleHash) return this.halt(`the chain's settleHash at batch ${anchors.lastSeq} (${anchors.settleHash}) is not this relayer's (${mine?.settleHash ?? 'none'})`, { seq: anchors.lastSeq });
    }
    this.sender = new Sender(this.chain, { maxInFlight: this.opts.maxInFlight, confirmations: this.opts.confirmations, stuckMs: this.opts.stuckMs, followVenueClock: this.opts.followVenueClock }, this.senderEvents(), this.clock, anchors.lastSeq, (seq) => this.outbox.get(seq));
    const head = (await this.chain.head()).number;
    this.startHead = head;
    // Every batch after the chain's last is sent again, final ones too (a chain that lost blocks:
    // an embedded devnet stopped before its last state dump); each not final before is followed on.
    const notFinal = this.outbox.notFinal();
    const firstNotFinal = notFinal[0]?.seq ?? nextBatch;
    const lost: StoredBatch[] = [];
    for (let seq = anchors.lastSeq + 1; seq < Math.min(firstNotFinal, nextBatch); seq++) {
      const b = this.outbox.get(seq);
      if (b === null || b.items.length === 0) return this.halt(`the chain lost batch ${seq}, whose items the outbox no longer keeps`, { chainSeq: anchors.lastSeq, batch: seq });
      lost.push(b);
    }
    if (lost.length > 0) this.post({ type: 'alert', kind: 'chain_rolled_back', severity: 'warning', message: `the chain holds batches up to ${anchors.lastSeq}; batches ${lost[0]!.seq}-${lost.at(-1)!.seq}, final before, are sent again`, details: { chainSeq: anchors.lastSeq } });
    for (const b of [...lost, ...notFinal]) {
      if (b.seq <= anchors.lastSeq) {
        if (b.txHash === null || b.block === null) {
          const found = await this.chain.settledTx(b.seq);
          if (found !== null) {
            b.txHash = found.txHash;
            b.block = found.block;
          }
        }
        b.status = 'included';
        b.block ??= head;
        this.sender.track(b);
      } else {
        b.status = 'built';
        b.txHash = null;
        b.nonce = null;
        b.block = null;
        this.sender.enqueue(b);
      }
      this.firstSeen.set(b.seq, this.clock());
    }
    this.indexer = new Indexer(this.chain, this.outbox, this.opts.confirmations, this.opts.deploymentBlock, {
      event: (id, event) => this.post({ type: 'chain_event', id, event }),
      taken: (id) => this.replica.state.chainEvents.has(id),
      stopped: (reason, details) => this.post({ type: 'alert', kind: 'indexer_stopped', severity: 'critical', message: reason, details }),
      error: (what, e) => this.transportError(what, e),
    }, this.opts.followVenueClock, this.clock);
    this.post({ type: 'hold', seq: this.replica.seq });
    // The checkpoint is past the last batch cut: the state there is that batch's.
    if (this.resume === null) this.resumed();
    this.post({ type: 'log', level: 'info', message: 'relayer started', details: { replicaSeq: this.replica.seq, nextBatch, chainSeq: anchors.lastSeq, resume: this.resume } });
    return true;
  }

  /** Batches of this turn cut and not yet stored and queued. */
  private unstored = 0;

  /** One turn: fold what was committed, cut, send, follow receipts, index, checkpoint. */
  async step(): Promise<void> {
    if (this.stoppedFor !== null) return;
    const cut = this.follow();
    if (this.batcher.pending > 0 && this.openSince !== null && this.clock() - this.openSince >= this.opts.windowMs) {
      const b = this.cutOpen();
      if (b !== null) cut.push(b);
    }
    // Cut and not yet in the sender: counted in the outbox's depth (metrics may be read while a store waits).
    this.unstored = cut.length;
    for (const b of cut) {
      await this.store(b);
      this.unstored--;
    }
    if (this.stoppedFor !== null) return;
    await this.sender.step();
    const now = this.clock();
    if (now - this.lastSlow >= SLOW_MS) {
      this.lastSlow = now;
      await this.sender.slowStep();
      await this.indexer.step();
    }
    this.maybeReconcile();
    await this.maybeCheckpoint();
    this.measure();
  }

  /** The committed commands after the replica's seq, folded and cut (at most `foldPerStep`). */
  private follow(): CutBatch[] {
    const out: CutBatch[] = [];
    this.journal.refresh();
    let n = 0;
    for (const command of this.journal.read(this.replica.seq + 1)) {
      if (command.seq !== this.replica.seq + 1) {
        this.halt(`the journal goes from seq ${this.replica.seq} to ${command.seq}`, {});
        return out;
      }
      const before: Totals = this.totals();
      mergeExpectations(this.acc, this.fold.takeExpectations());
      const result = this.wire.result(this.replica.apply(command));
      let items;
      try {
        items = this.fold.apply(command, result);
      } catch (e) {
        if (e instanceof SettlementGap) {
          this.halt(e.message, { seq: e.seq });
          return out;
        }
        throw e;
      }
      let skip = 0;
      if (this.resume !== null) {
        if (command.seq < this.resume.seq) skip = items.length;
        else if (command.seq === this.resume.seq) skip = Math.min(this.resume.item, items.length);
        if (command.seq >= this.resume.seq) {
          this.resume = null;
          if (skip === items.length) this.resumed();
        }
      }
      if (items.length > skip && this.batcher.pending === 0) this.openSince = this.clock();
      let made: CutBatch[];
      try {
        made = this.batcher.add(command, items, skip);
      } catch (e) {
        // A value the stream's format cannot hold (chain/items.ts range checks): never a wrong item.
        this.halt(`settlement cannot carry command ${command.seq}: ${(e as Error).message}`, { seq: command.seq });
        return out;
      }
      for (const b of made) {
        this.give(b, before);
        out.push(b);
        if (this.batcher.pending > 0) this.openSince = this.clock();
      }
      if (++n >= this.opts.foldPerStep) break;
    }
    return out;
  }

  /**
   * The replay after a restart reached the end of the last batch cut, at a command's end: what
   * the engine says there (everything since the checkpoint, the image's accounts included) is
   * that batch's expectation, compared once it is on chain (at once when it already is).
   */
  private resumed(): void {
    const last = this.outbox.last();
    if (last === null || !last.endsCommand) return;
    mergeExpectations(this.acc, this.fold.takeExpectations());
    const e: BatchExpectation = { touched: this.acc, ...this.totals() };
    this.acc = emptyExpectations();
    if (last.status === 'final' || last.status === 'included' || last.seq <= this.metrics.chainSeq) {
      mergeExpectations(this.sinceReconcile, e.touched);
      this.pendingReconcile = { batch: last.seq, block: this.startHead, totals: e };
      this.includedSinceReconcile = this.opts.reconcileEvery;
    } else this.expect.set(last.seq, e);
  }

  private startHead = 0;

  private totals(): Totals {
    const t = this.fold.totals();
    return { cashTotal: t.cash, premiumTotal: t.premium, fees: this.fold.fees, badDebt: this.fold.badDebt, forcedExecutions: this.replica.state.forcedExecutions };
  }

  /** A cut batch's expectations: what the engine said at its end, when it ends a command. */
  private give(b: CutBatch, at: Totals): void {
    this.firstSeen.set(b.seq, this.openSince ?? this.clock());
    if (!b.endsCommand) return;
    this.expect.set(b.seq, { touched: this.acc, ...at });
    this.acc = emptyExpectations();
  }

  private cutOpen(): CutBatch | null {
    mergeExpectations(this.acc, this.fold.takeExpectations());
    const at = this.totals();
    const b = this.batcher.cut();
    if (b !== null) this.give(b, at);
    this.openSince = null;
    return b;
  }

  /** Hash, persist (durably, before it can be sent) and queue a cut batch. */
  private async store(b: CutBatch): Promise<void> {
    const h = batchHash(headerOf(b), b.items);
    this.settleHash = nextSettleHash(this.settleHash, h);
    const stored: StoredBatch = { ...b, batchHash: h, settleHash: this.settleHash, status: 'built', txHash: null, nonce: null, block: null, failure: null };
    await this.outbox.put(stored);
    this.sender.enqueue(stored);
  }

  private senderEvents() {
    return {
      changed: async (b: StoredBatch) => {
        await this.outbox.put(b);
        if (b.status === 'included') {
          this.metrics.batchesIncluded++;
          this.metrics.fillsSettled += b.fills;
          this.metrics.chainSeq = b.seq;
          this.onIncluded(b);
        }
        if (b.status === 'final') {
          this.metrics.batchesFinal++;
          this.firstSeen.delete(b.seq);
          void this.outbox.trim(b.seq);
        }
        if (b.status !== 'built') this.post({ type: 'status', batch: b.seq, status: b.status, txHash: b.txHash, block: b.block, tradeIds: b.tradeIds, orderIds: b.orderIds, withdrawals: b.withdrawals, failure: b.failure });
      },
      refused: (b: StoredBatch, reason: string, details: Record<string, unknown>) => {
        void this.outbox.put(b);
        this.post({ type: 'status', batch: b.seq, status: 'failed', txHash: b.txHash, block: b.block, tradeIds: b.tradeIds, orderIds: b.orderIds, withdrawals: b.withdrawals, failure: reason });
        this.post({ type: 'alert', kind: 'settlement_halted', severity: 'critical', message: `settlement halted: ${reason}`, details: { batch: b.seq, ...details } });
        this.metrics.halted = reason;
      },
      rolledBack: (lastSeq: number, highest: number) => {
        this.post({ type: 'alert', kind: 'chain_rolled_back', severity: 'warning', message: `the chain went back to batch ${lastSeq} after batch ${highest} was included (a restarted devnet lost blocks): sending the batches after it again`, details: { lastSeq, highest } });
        this.expect.clear();
        this.sinceReconcile = emptyExpectations();
        this.lastReconciled = Math.min(this.lastReconciled, lastSeq);
      },
      error: (what: string, e: unknown) => this.transportError(what, e),
    };
  }

  private lastTransportLog = 0;
  private transportError(what: string, e: unknown): void {
    // The chain may be down for a while: said at most every 10 s, the lag metric tells the rest.
    const now = this.clock();
    if (now - this.lastTransportLog < 10_000) return;
    this.lastTransportLog = now;
    this.post({ type: 'log', level: 'warn', message: `relayer: ${what} failed: ${shortMessage(e)}`, details: {} });
  }

  /** The gas of an included batch, and its expectations joined to what the next comparison checks. */
  private onIncluded(b: StoredBatch): void {
    this.metrics.lastGasPerFill = b.fills > 0 ? Math.round(b.gas / b.fills) : 0;
    const e = this.expect.get(b.seq);
    if (e === undefined) return;
    this.expect.delete(b.seq);
    mergeExpectations(this.sinceReconcile, e.touched);
    this.pendingReconcile = { batch: b.seq, block: b.block!, totals: e };
    this.includedSinceReconcile++;
  }

  private pendingReconcile: { batch: number; block: number; totals: BatchExpectation } | null = null;

  /**
   * Every `reconcileEvery` included batches, at the last of them (its expectations); and when
   * the stream is idle (every batch cut is on chain, none open): the chain at its head against
   * what the engine says now, for everything touched since the last comparison.
   */
  private maybeReconcile(): void {
    if (this.reconciling !== null || this.resume !== null) return;
    const now = this.clock();
    if (now - this.lastCompare < SLOW_MS) return;
    this.lastCompare = now;
    const lastCut = this.batcher.upcoming - 1;
    if (this.sender.depth === 0 && this.batcher.pending === 0 && lastCut > this.lastReconciled) {
      const touched = this.sinceReconcile;
      for (const e of this.expect.values()) mergeExpectations(touched, e.touched);
      mergeExpectations(touched, this.acc);
      mergeExpectations(touched, this.fold.takeExpectations());
      this.expect.clear();
      this.acc = emptyExpectations();
      this.sinceReconcile = emptyExpectations();
      this.pendingReconcile = null;
      this.includedSinceReconcile = 0;
      this.compare(lastCut, null, { ...this.totals(), touched });
      return;
    }
    const p = this.pendingReconcile;
    if (p === null || this.includedSinceReconcile < this.opts.reconcileEvery) return;
    const touched = this.sinceReconcile;
    this.sinceReconcile = emptyExpectations();
    this.pendingReconcile = null;
    this.includedSinceReconcile = 0;
    this.compare(p.batch, p.block, { ...p.totals, touched });
  }

  /** Compare the chain where batch `batch` is its last (at `block`, or the head) with `expected`; put back what could not be compared. */
  private compare(batch: number, block: number | null, expected: BatchExpectation): void {
    const putBack = () => {
      mergeExpectations(expected.touched, this.sinceReconcile);
      this.sinceReconcile = expected.touched;
    };
    this.reconciling = (async () => {
      try {
        const anchors = await this.chain.anchors(block ?? undefined);
        // Several batches can share a block: the chain there must hold exactly this one as its last.
        // A forced withdrawal executed on chain that the engine had not taken in at this point
        // changed cash the expectation does not know of yet: compare later, not now.
        if (anchors.lastSeq !== batch || (await this.chain.forcedExecutions(anchors.block)) !== expected.forcedExecutions) return putBack();
        const result = await reconcile(this.chain, batch, anchors.block, expected);
        this.metrics.reconciliations++;
        this.metrics.lastReconciledBatch = batch;
        this.lastReconciled = batch;
        this.post({ type: 'reconciled', result });
        if (result.mismatches.length > 0) {
          this.metrics.reconciliationMismatches += result.mismatches.length;
          const first = result.mismatches[0]!;
          this.halt(`reconciliation at batch ${batch}: ${result.mismatches.length} of ${result.checked} figures differ from the venue's (first: ${first.what} of ${first.key}: venue ${first.venue}, chain ${first.chain})`, { batch, block: anchors.block, mismatches: result.mismatches.slice(0, 20) }, 'reconciliation_mismatch');
        }
      } catch (e) {
        this.transportError(`reconciliation at batch ${batch}`, e);
        putBack();
      } finally {
        this.reconciling = null;
      }
    })();
  }

  /** A checkpoint when due, where no batch is open and none is being skipped. */
  private async maybeCheckpoint(): Promise<void> {
    if (this.batcher.pending > 0 || this.resume !== null) return;
    const seq = this.replica.seq;
    const now = this.clock();
    if (seq === this.lastCheckpoint.seq) return;
    if (seq - this.lastCheckpoint.seq < this.opts.checkpointCommands && now - this.lastCheckpoint.at < this.opts.checkpointMs) return;
    const { state, hash } = this.stateHashes.serialize(this.replica);
    await this.outbox.saveCheckpoint({ seq, hash, state, fees: this.fold.fees, nextBatch: this.batcher.upcoming });
    this.lastCheckpoint = { seq, at: now };
    this.post({ type: 'hold', seq });
  }

  /** Update the metrics (the thread also calls it on a timer: a step can wait on an unanswering chain). */
  measure(): void {
    const m = this.metrics;
    if (this.sender === undefined || this.indexer === undefined) return;
    const oldest = this.sender.oldestUnsettled();
    const since = oldest !== null ? this.firstSeen.get(oldest.seq) : (this.openSince ?? undefined);
    m.lagSeconds = since === undefined ? 0 : Math.max(0, (this.clock() - since) / 1000);
    m.outboxBatches = this.sender.depth + this.unstored;
    m.openItems = this.batcher.pending;
    m.replicaSeq = this.replica.seq;
    m.indexedBlock = this.indexer.cursor;
    m.halted = this.halted;
    m.sendWait = this.sender.waiting;
  }

  private halt(reason: string, details: Record<string, unknown>, kind: 'settlement_halted' | 'reconciliation_mismatch' = 'settlement_halted'): false {
    if (this.stoppedFor === null) {
      this.stoppedFor = reason;
      this.metrics.halted = reason;
      this.post({ type: 'alert', kind, severity: 'critical', message: `settlement halted: ${reason}`, details });
    }
    return false;
  }

  /** For tests and the thread's shutdown: the seq the replica is at, and the journal position the next batch starts at. */
  position(): { replicaSeq: number; nextBatch: number; journalPos: bigint | null } {
    const last = this.outbox.last();
    return { replicaSeq: this.replica?.seq ?? 0, nextBatch: this.batcher?.upcoming ?? 0, journalPos: last === null ? null : journalPosOf(last.endSeq, last.endItem) };
  }
}
