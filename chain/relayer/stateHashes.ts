/**
 * The state hash each batch posts (docs/chain.md "The audit"): the relayer's replica's at the
 * seq it has reached when the batch is cut, computed afresh when the last one is at least
 * `budget` times as old as it took to compute, else the last one again. Hashing serialises the
 * whole engine state (33 ms at a fresh venue, 0.7 s with 20,000 resting orders, 23 MB), so this
 * keeps it to about 1/`budget` of the relayer's thread whatever the state's size; a small venue
 * posts a fresh hash in nearly every batch, a large one every few seconds.
 */
import type { Hex } from 'viem';
import { hashBytes, type Venue } from '../../engine/index.ts';

/** A fresh hash once the last is 20 times as old as it took: ~5% of the thread. */
export const HASH_BUDGET = 20;

export class BatchStateHashes {
  private last: { seq: number; hash: Hex; at: number; took: number } | null = null;

  constructor(private readonly budget = HASH_BUDGET) {}

  /** The hash a batch cut now posts, and the seq it is of. */
  at(replica: Pick<Venue, 'seq' | 'stateHash'>): { readonly seq: number; readonly hash: Hex } {
    const c = this.last;
    if (c !== null && c.seq === replica.seq) return c;
    const started = performance.now();
    if (c !== null && started - c.at < this.budget * c.took) return c;
    const hash = replica.stateHash();
    this.computed(replica.seq, hash, started);
    return this.last!;
  }

  /** The replica's state and its hash (the relayer's checkpoint), which batches cut next may post. */
  serialize(replica: Pick<Venue, 'seq' | 'serialize'>): { readonly state: Uint8Array; readonly hash: Hex } {
    const started = performance.now();
    const state = replica.serialize();
    const hash = hashBytes(state);
    this.computed(replica.seq, hash, started);
    return { state, hash };
  }

  private computed(seq: number, hash: Hex, started: number): void {
    const now = performance.now();
    this.last = { seq, hash, at: now, took: now - started };
  }
}
