/**
 * Carries cut batches to the chain, in order (docs/chain.md "The relayer"): one relayer
 * account and its own nonce counter (resynced from the chain after an error), a few
 * transactions in flight, the gas limit from the batch's gas model, EIP-1559 fees raised for a
 * transaction that does not get included, receipts (`included`: the `Settled` log checked
 * against the batch's own settleHash), then `final` after `confirmations` blocks with its block
 * still canonical. A batch the chain refuses stops everything after it: `failed`, with the
 * custom error decoded (naming the item), and nothing more is sent.
 *
 * A chain that lost blocks (an embedded devnet restarted from an older state dump) shows as a
 * `lastSeq` below a batch already included: the batches after it are sent again.
 */
import type { Hex } from 'viem';
import { decodeItems, decodeSettleError, settleCalldata } from '../items.ts';
import { headerOf } from './batcher.ts';
import type { ChainClient, Fees, StreamAnchors } from './chainClient.ts';
import { shortMessage } from './chainClient.ts';
import type { StoredBatch } from './outbox.ts';
import { differences } from './senderDiagnostics.ts';

export type SenderOptions = {
  readonly maxInFlight: number;
  readonly confirmations: number;
  /** A transaction not included after this long is sent again at higher fees (ms). */
  readonly stuckMs: number;
  /** Keep the chain's clock at least at each batch's match time (the embedded chain: its clock follows the venue's). */
  readonly followVenueClock: boolean;
};

export type SenderEvents = {
  /** A batch's status changed (and was written to the outbox). */
  changed(b: StoredBatch): Promise<void>;
  /** A batch was refused: settlement stops here. */
  refused(b: StoredBatch, reason: string, details: Record<string, unknown>): void;
  /** The chain's state went back before included batches. */
  rolledBack(lastSeq: number, highest: number): void;
  /** A transport error, for the log (the sender retries). */
  error(what: string, e: unknown): void;
};

/** Simulations of one batch the node answers without a revert before it is sent unsimulated. */
const UNSIMULATED_TRIES = 3;

/** How often receipts of transactions in flight are asked for (ms). */
const POLL_MS = 50;

type InFlight = { batch: StoredBatch; hashes: Hex[]; raw: Hex | null; sentAt: number; fees: Fees; gas: bigint };

export class Sender {
  /** Batches cut and not yet sent, in seq order. */
  private readonly queue: StoredBatch[] = [];
  private readonly inFlight: InFlight[] = [];
  /** Included, not yet final, in seq order. */
  private readonly included: StoredBatch[] = [];
  private nonce: number | null = null;
  private fees: { at: number; fees: Fees } | null = null;
  /** The seq the chain expects next. */
  private chainNext: number;
  private stopped: string | null = null;
  /**
   * The highest seq seen on chain at a block the anchors read (`anchors` reads the block before
   * the head: chainClient.ts): at start, by a catch-up, or final. Batches included in a later
   * block are in `included` with their block; a chain whose anchors fall below a batch seen at
   * or before the anchors' block lost blocks.
   */
  private highestIncluded = 0;
  /** The latest block's timestamp (s) as the slow step last read it; a chain whose clock the venue does not set. */
  private headTime = 0;

  constructor(
    private readonly chain: ChainClient,
    private readonly opts: SenderOptions,
    private readonly on: SenderEvents,
    private readonly clock: () => number,
    lastSeq: number,
    /** A batch from the outbox (for a chain that lost batches already final). */
    private readonly load: (seq: number) => StoredBatch | null,
  ) {
    this.chainNext = lastSeq + 1;
    this.highestIncluded = lastSeq;
  }

  /** The batch whose simulation the node failed to answer, and how many times in a row. */
  private unsimulated = { seq: 0, times: 0 };
  /** Why the next batch was last held back (see RelayerMetrics.sendWait), or null once sent. */
  waiting: string | null = null;

  /** Why sending stopped (a refused batch), or null. */
  get halted(): string | null {
    return this.stopped;
  }

  /** Batches cut but not yet included (waiting or in flight). */
  get depth(): number {
    return this.queue.length + this.inFlight.length;
  }

  /** The first batch not yet included (the oldest settlement lag), or null. */
  oldestUnsettled(): StoredBatch | null {
    return this.inFlight[0]?.batch ?? this.queue[0] ?? null;
  }

  /** Included batches waiting for their confirmations. */
  get awaitingFinality(): number {
    return this.included.length;
  }

  /** A batch to send (cut now, or found unsent in the outbox at start). */
  enqueue(b: StoredBatch): void {
    this.queue.push(b);
  }

  /** An included batch found in the outbox at start: its finality is still to come. */
  track(b: StoredBatch): void {
    this.included.push(b);
  }

  /**
   * The highest seq the chain must hold at `block` (the anchors' block, the one before the
   * head): those seen there or before, and those included in a block past the head, which the
   * chain no longer has (a node restarted from an older state). A batch in the head block
   * itself is not counted yet.
   */
  private highestAt(block: number): number {
    let h = this.highestIncluded;
    for (const b of this.included) if (b.block !== null && (b.block <= block || b.block > block + 1) && b.seq > h) h = b.seq;
    return h;
  }

  /** Follow what is in flight, then send what may be sent (each turn of the relayer). */
  async step(): Promise<void> {
    if (this.stopped !== null) return;
    const now = this.clock();
    if (this.inFlight.length > 0 && now - this.lastPoll >= POLL_MS) {
      this.lastPoll = now;
      await this.poll();
    }
    await this.send();
  }

  private lastPoll = 0;

  /**
   * What needs the chain's head and anchors, a few times a block: whether the chain lost blocks
   * or holds batches this sender has not seen included (a receipt lost with a restarted node),
   * and finality of included batches.
   */
  async slowStep(): Promise<void> {
    if (this.stopped !== null) return;
    let anchors: StreamAnchors & { block: number };
    let head: number;
    try {
      const a = await this.chain.anchors();
      anchors = a;
      head = a.block;
    } catch (e) {
      this.on.error('reading the chain', e);
      return;
    }
    if (!this.opts.followVenueClock) {
      try {
        this.headTime = (await this.chain.head()).timestamp;
      } catch (e) {
        this.on.error('reading the head block', e);
      }
    }
    if (anchors.lastSeq < this.highestAt(anchors.block)) this.rollBack(anchors.lastSeq);
    else if (anchors.lastSeq >= this.chainNext) await this.catchUp(anchors, head);
    await this.finalize(anchors.lastSeq, head);
  }

  private async currentFees(): Promise<Fees> {
    const now = this.clock();
    if (this.fees === null || now - this.fees.at > 2000) this.fees = { at: now, fees: await this.chain.fees() };
    return this.fees.fees;
  }

  private async send(): Promise<void> {
    while (this.stopped === null && this.queue.length > 0 && this.inFlight.length < this.opts.maxInFlight) {
      const b = this.queue[0]!;
      if (b.seq !== this.chainNext + this.inFlight.length) {
        // A gap would be refused (BadSeq): the earlier batch is still being written or resent.
        this.waiting = `batch ${b.seq} waits for batch ${this.chainNext + this.inFlight.length}`;
        return;
      }
      // A chain whose clock the venue does not set: sent once its head is at the batch's match time, so that
      // whichever later block includes it is too (a block's timestamp may be older than its arrival: a slot's start).
      if (!this.opts.followVenueClock && b.matchTime > this.headTime) {
        this.waiting = `batch ${b.seq}'s match time ${b.matchTime} is ahead of the chain's head (${this.headTime})`;
        return;
      }
      const data = settleCalldata(headerOf(b), b.items);
      const gas = BigInt(b.gas);
      try {
        if (this.opts.followVenueClock) await this.chain.timeAtLeast(b.matchTime);
        if (this.inFlight.length === 0) {
          // Checked once against the chain's state before spending gas (a refusal names its item here).
          const refused = this.unsimulated.seq === b.seq && this.unsimulated.times >= UNSIMULATED_TRIES ? null : await this.chain.simulate(data, gas);
          if (refused !== null && refused.revert === null) {
            // No revert: the node failed to answer, which says nothing of the batch; tried again next turn,
            // and after UNSIMULATED_TRIES sent without (its receipt then says whether the chain took it).
            this.unsimulated = { seq: b.seq, times: this.unsimulated.seq === b.seq ? this.unsimulated.times + 1 : 1 };
            this.waiting = `batch ${b.seq}: the node did not simulate it (${refused.message})`;
            this.on.error(`simulating batch ${b.seq}`, new Error(refused.message));
            return;
          }
          if (refused !== null) {
            // Not the next batch on chain (the chain kept one whose receipt was lost, or lost one): the slow step resyncs.
            const name = refused.revert === null ? null : (decodeSettleError(refused.revert)?.name ?? null);
            if (name === 'BadSeq' || name === 'MatchTimeInFuture') {
              // BadSeq: the slow step resyncs; MatchTimeInFuture: the chain's clock is not yet at the batch's match time (time settles it, not a halt).
              this.waiting = `batch ${b.seq}: the chain answers ${name} (${refused.message})`;
              return;
            }
            this.refuse(b, refused.revert, refused.message);
            return;
          }
        }
        this.nonce ??= await this.chain.nonce();
        const fees = await this.currentFees();
        const hash = await this.chain.send(data, gas, this.nonce, fees);
        this.nonce++;
        this.waiting = null;
        this.queue.shift();
        b.status = 'sent';
        b.txHash = hash;
        b.nonce = this.nonce - 1;
        this.inFlight.push({ batch: b, hashes: [hash], raw: null, sentAt: this.clock(), fees, gas });
        await this.on.changed(b);
      } catch (e) {
        // A nonce the chain no longer agrees with, or a transport failure: resynced and retried later.
        this.nonce = null;
        this.on.error(`sending batch ${b.seq}`, e);
        return;
      }
    }
  }

  private async poll(): Promise<void> {
    while (this.inFlight.length > 0 && this.stopped === null) {
      const f = this.inFlight[0]!;
      let receipt = null;
      try {
        for (const h of f.hashes) {
          receipt = await this.chain.receipt(h);
          if (receipt !== null) break;
        }
      } catch (e) {
        this.on.error(`receipt of batch ${f.batch.seq}`, e);
        return;
      }
      if (receipt === null) {
        if (this.clock() - f.sentAt > this.opts.stuckMs) {
          // A node that forgot the transaction (restarted from an older state, or dropped it) would never include a
          // bump at its nonce either: it and everything sent after it go again from the node's next nonce.
          const known = await Promise.all(f.hashes.map((h) => this.chain.known(h).catch(() => true)));
          if (!known.some(Boolean)) {
            this.resendFrom(0);
            return;
          }
          await this.bump(f);
        }
        return;
      }
      this.inFlight.shift();
      const b = f.batch;
      b.txHash = receipt.transactionHash;
      if (receipt.status !== 'success') {
        const refused = await this.chain.simulate(settleCalldata(headerOf(b), b.items), f.gas).catch(() => null);
        this.refuse(b, refused?.revert ?? null, refused?.message ?? `the transaction ${receipt.transactionHash} reverted`);
        return;
      }
      const settled = this.chain.settledIn(receipt);
      if (settled === null || settled.seq !== b.seq || settled.settleHash !== b.settleHash) {
        this.stop(b, `batch ${b.seq}'s Settled log (seq ${settled?.seq}, settleHash ${settled?.settleHash}) is not the venue's (settleHash ${b.settleHash})`, { txHash: receipt.transactionHash });
        return;
      }
      b.status = 'included';
      b.block = Number(receipt.blockNumber);
      this.chainNext = b.seq + 1;
      this.included.push(b);
      await this.on.changed(b);
    }
  }

  /** Transactions in flight from index `i` on are forgotten: their batches go back to the queue, the nonce is read again. */
  private resendFrom(i: number): void {
    const gone = this.inFlight.splice(i);
    for (const f of gone) {
      f.batch.status = 'built';
      f.batch.txHash = null;
      f.batch.nonce = null;
      this.queue.push(f.batch);
    }
    this.queue.sort((x, y) => x.seq - y.seq);
    this.nonce = null;
  }

  /** The same nonce again at fees a quarter higher (at least 1 wei more): whichever is included first counts. */
  private async bump(f: InFlight): Promise<void> {
    const b = f.batch;
    if (b.nonce === null) return;
    const fees = await this.currentFees().catch(() => f.fees);
    const raise = (x: bigint, floor: bigint) => (x > (floor * 5n) / 4n ? x : (floor * 5n) / 4n + 1n);
    const next: Fees = { maxFeePerGas: raise(fees.maxFeePerGas, f.fees.maxFeePerGas), maxPriorityFeePerGas: raise(fees.maxPriorityFeePerGas, f.fees.maxPriorityFeePerGas) };
    try {
      const hash = await this.chain.send(settleCalldata(headerOf(b), b.items), f.gas, b.nonce, next);
      f.hashes.push(hash);
      f.fees = next;
      f.sentAt = this.clock();
    } catch (e) {
      this.on.error(`raising the fees of batch ${b.seq}`, e);
      f.sentAt = this.clock();
    }
  }

  /**
   * Included batches `confirmations` deep become final while the chain still holds them (its
   * lastSeq at or past them: a chain that lost them shows a lower lastSeq and they go again).
   */
  private async finalize(lastSeq: number, head: number): Promise<void> {
    while (this.included.length > 0) {
      const b = this.included[0]!;
      if (b.seq > lastSeq || b.block === null || head - b.block + 1 < this.opts.confirmations) return;
      this.included.shift();
      if (b.seq > this.highestIncluded) this.highestIncluded = b.seq;
      b.status = 'final';
      await this.on.changed(b);
    }
  }

  /**
   * The chain holds batches up to `lastSeq` that this sender had not seen included (sent, then
   * the node restarted from a state that kept them but not their receipts): they are included,
   * as of the head, once the chain's settleHash is the one this stream computed for `lastSeq`.
   */
  private async catchUp(anchors: StreamAnchors & { block: number }, head: number): Promise<void> {
    const pending = [...this.inFlight.map((f) => f.batch), ...this.queue].filter((b) => b.seq <= anchors.lastSeq).sort((a, b) => a.seq - b.seq);
    const last = pending.at(-1);
    if (last === undefined || last.seq !== anchors.lastSeq) {
      this.stop(pending[0] ?? this.queue[0]!, `the chain holds batch ${anchors.lastSeq}, which this relayer has not sent`, { lastSeq: anchors.lastSeq });
      return;
    }
    if (last.settleHash !== anchors.settleHash) {
      this.stop(last, `the chain's settleHash at batch ${anchors.lastSeq} (${anchors.settleHash}) is not the venue's (${last.settleHash})`, { lastSeq: anchors.lastSeq, block: anchors.block, chainJournalPos: anchors.lastJournalPos.toString(), batchEnd: `${last.endSeq}:${last.endItem}`, ...(await differences(this.chain, pending)) });
      return;
    }
    const done = new Set(pending.map((b) => b.seq));
    this.inFlight.splice(0, this.inFlight.length, ...this.inFlight.filter((f) => !done.has(f.batch.seq)));
    this.queue.splice(0, this.queue.length, ...this.queue.filter((b) => !done.has(b.seq)));
    for (const b of pending) {
      // Its transaction from its Settled log (the one this sender knew may not be the one included).
      const found = await this.chain.settledTx(b.seq).catch(() => null);
      if (found !== null) b.txHash = found.txHash;
      b.status = 'included';
      b.block = found?.block ?? head;
      this.included.push(b);
      this.included.sort((x, y) => x.seq - y.seq);
      await this.on.changed(b);
    }
    this.chainNext = anchors.lastSeq + 1;
    this.highestIncluded = anchors.lastSeq;
    // Transactions still in flight stay so while the node knows them; one it forgot (a restarted node) is sent again.
    const forgotten: InFlight[] = [];
    for (const f of this.inFlight) {
      const known = await Promise.all(f.hashes.map((h) => this.chain.known(h).catch(() => true)));
      if (!known.some(Boolean)) forgotten.push(f);
    }
    if (forgotten.length > 0) {
      // Sent again from the node's next nonce (the first one it forgot); the ones it knows wait behind them.
      const gone = new Set(forgotten);
      this.inFlight.splice(0, this.inFlight.length, ...this.inFlight.filter((f) => !gone.has(f)));
      for (const f of forgotten) this.queue.push(f.batch);
      this.queue.sort((x, y) => x.seq - y.seq);
      this.nonce = null;
    }
  }

  /** A chain whose lastSeq fell below what was included lost blocks: everything after it goes again. */
  private rollBack(lastSeq: number): void {
    let highest = this.highestIncluded;
    for (const b of this.included) if (b.seq > highest) highest = b.seq;
    const held = new Map<number, StoredBatch>();
    for (const b of [...this.included, ...this.inFlight.map((f) => f.batch), ...this.queue]) if (b.seq > lastSeq) held.set(b.seq, b);
    const top = Math.max(highest, ...held.keys());
    const again: StoredBatch[] = [];
    for (let seq = lastSeq + 1; seq <= top; seq++) {
      // Batches already final went out of the sender's lists: from the outbox, with their items.
      const b = held.get(seq) ?? this.load(seq);
      if (b === null || b.items.length === 0) {
        this.on.rolledBack(lastSeq, highest);
        this.stop(b ?? this.queue[0] ?? this.included[0]!, `the chain lost batch ${seq}, whose items the outbox no longer keeps (docs/chain.md "The relayer")`, { lastSeq, highest });
        return;
      }
      again.push(b);
    }
    this.included.splice(0, this.included.length, ...this.included.filter((b) => b.seq <= lastSeq));
    this.inFlight.length = 0;
    this.queue.length = 0;
    for (const b of again) {
      b.status = 'built';
      b.txHash = null;
      b.nonce = null;
      b.block = null;
      this.queue.push(b);
    }
    this.chainNext = lastSeq + 1;
    this.highestIncluded = lastSeq;
    this.nonce = null;
    this.on.rolledBack(lastSeq, highest);
  }

  private refuse(b: StoredBatch, revert: Hex | null, message: string): void {
    const decoded = revert === null ? null : decodeSettleError(revert);
    const item = decoded?.item ?? null;
    const items = item === null ? [] : decodeItems(b.items);
    const named = item === null ? null : (items[item] ?? null);
    const reason = decoded === null ? message : `${decoded.name}${item === null ? '' : ` at item ${item}`}`;
    this.stop(b, `the chain refused batch ${b.seq}: ${reason}`, { error: decoded?.name ?? null, args: decoded?.args ?? null, item, itemDecoded: named, message });
  }

  private stop(b: StoredBatch, reason: string, details: Record<string, unknown>): void {
    b.status = 'failed';
    b.failure = reason;
    this.stopped = reason;
    this.on.refused(b, reason, details);
  }
}

export { shortMessage };
