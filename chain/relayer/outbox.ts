/**
 * The relayer's durable state (docs/chain.md "The relayer"), an LMDB environment of its own at
 * `DATA_DIR/chain/relayer` (its writes never wait on the journal's group commits, nor the
 * journal's on them):
 *
 * - `batches`: every batch cut, by seq, with its items and where it stands (built, sent,
 *   included, final, failed). A batch is written here, durably, before it is first sent, so a
 *   batch on chain is always one the outbox has. A final batch keeps its items for
 *   `RETAIN_FINAL` more batches (a chain that lost blocks, such as an embedded devnet killed
 *   between two state dumps, is sent them again), then keeps only its record.
 * - `checkpoint`: the relayer's replica of the engine at a seq where no batch was open, and the
 *   fold's running fee total: where a restart resumes (then the journal from its seq on).
 * - `cursor`: where the indexer has read the chain's logs up to.
 *
 * Values are checksummed frames of the journal's codec (persistence/framedDb.ts): a damaged
 * record is refused, never used.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { open, type RootDatabase } from 'lmdb';
import type { Address, Hex } from 'viem';
import { getFramed, openBinaryDb, putFramed, type BinaryDb } from '../../persistence/framedDb.ts';
import { ackTracker } from '../../persistence/lmdbAck.ts';
import type { CutBatch } from './batcher.ts';

export type BatchStatus = 'built' | 'sent' | 'included' | 'final' | 'failed';

export type StoredBatch = CutBatch & {
  /** The batch's hash and the rolling settleHash after it (docs/chain.md). */
  readonly batchHash: Hex;
  readonly settleHash: Hex;
  status: BatchStatus;
  txHash: Hex | null;
  /** The relayer account's nonce it was sent with. */
  nonce: number | null;
  /** The block that included it. */
  block: number | null;
  /** Why the chain refused it (the decoded custom error, naming the item). */
  failure: string | null;
};

export type Checkpoint = {
  /** The replica's seq (the engine state below is the venue's at this seq) and its hash. */
  readonly seq: number;
  readonly hash: Hex;
  readonly state: Uint8Array;
  /** The fees account's cash as the fold counts it (chain/settlementFold.ts `fees`). */
  readonly fees: bigint;
  /** The seq the next batch gets. */
  readonly nextBatch: number;
};

export type IndexerCursor = { readonly block: number; readonly hash: Hex };

/** Final batches that keep their items this many batches more. */
export const RETAIN_FINAL = 2000;

const key = (seq: number) => seq;

export class Outbox {
  private readonly batches: BinaryDb;
  private readonly meta: BinaryDb;
  private readonly acks = ackTracker('flush');
  private lastSeq = 0;

  private constructor(private readonly env: RootDatabase) {
    this.batches = openBinaryDb(env, 'batches');
    this.meta = openBinaryDb(env, 'meta');
    for (const k of this.batches.getKeys({ reverse: true, limit: 1 })) if (typeof k === 'number') this.lastSeq = k;
  }

  static open(dataDir: string): Outbox {
    const dir = join(dataDir, 'chain', 'relayer');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return new Outbox(open({ path: dir, maxDbs: 4, separateFlushed: true }));
  }

  /** The newest batch cut, or null. */
  last(): StoredBatch | null {
    return this.lastSeq === 0 ? null : this.get(this.lastSeq);
  }

  get(seq: number): StoredBatch | null {
    const v = getFramed(this.batches, key(seq), (reason) => {
      throw new Error(`relayer outbox: batch ${seq} is damaged (${reason})`);
    });
    return v === undefined ? null : (v as StoredBatch);
  }

  /** The batches after the last final one, in order (batches become final in seq order). */
  notFinal(): StoredBatch[] {
    const out: StoredBatch[] = [];
    for (let s = this.lastSeq; s >= 1; s--) {
      const b = this.get(s);
      if (b === null || b.status === 'final') break;
      out.push(b);
    }
    return out.reverse();
  }

  /** Write a batch (a new one or its new status); resolves once durable. */
  async put(b: StoredBatch): Promise<void> {
    await this.acks.ack(putFramed(this.batches, key(b.seq), b));
    if (b.seq > this.lastSeq) this.lastSeq = b.seq;
  }

  /** Drop the items of final batches `RETAIN_FINAL` or more before `finalSeq` (their records stay). */
  async trim(finalSeq: number): Promise<void> {
    const upTo = finalSeq - RETAIN_FINAL;
    const from = ((getFramed(this.meta, 'trimmed', () => {}) as number | undefined) ?? 0) + 1;
    if (upTo < from) return;
    for (let s = from; s <= upTo; s++) {
      const b = this.get(s);
      if (b !== null && b.status === 'final' && b.items.length > 0) void putFramed(this.batches, key(s), { ...b, items: new Uint8Array(0) });
    }
    await this.acks.ack(putFramed(this.meta, 'trimmed', upTo));
  }

  checkpoint(): Checkpoint | null {
    const v = getFramed(this.meta, 'checkpoint', (reason) => {
      throw new Error(`relayer outbox: the checkpoint is damaged (${reason})`);
    });
    return v === undefined ? null : (v as Checkpoint);
  }

  saveCheckpoint(c: Checkpoint): Promise<void> {
    return this.acks.ack(putFramed(this.meta, 'checkpoint', c));
  }

  cursor(): IndexerCursor | null {
    return (getFramed(this.meta, 'cursor', () => {}) as IndexerCursor | undefined) ?? null;
  }

  saveCursor(c: IndexerCursor): Promise<void> {
    return this.acks.ack(putFramed(this.meta, 'cursor', c));
  }

  /** The chain this outbox settles to (its order book), written at first use and checked after. */
  chainOf(): { chainId: number; orderBook: Address } | null {
    return (getFramed(this.meta, 'chain', () => {}) as { chainId: number; orderBook: Address } | undefined) ?? null;
  }

  saveChain(c: { chainId: number; orderBook: Address }): Promise<void> {
    return this.acks.ack(putFramed(this.meta, 'chain', c));
  }

  close(): Promise<void> {
    return this.env.close();
  }
}
