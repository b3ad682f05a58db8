/**
 * The relayer's contract with its surroundings (chain/relayer/relayer.ts): the journal it
 * follows, its options, what it tells the main thread and what it measures (docs/metrics.md).
 */
import type { Address, Hex } from 'viem';
import type { ChainEventData, Command, VenueOptions } from '../../engine/index.ts';
import type { ReconcileResult } from './reconciler.ts';

/** The journal as the relayer reads it (persistence's LMDB journal in the venue's DATA_DIR). */
export type JournalSource = {
  /** See every commit made until now. */
  refresh(): void;
  /** Committed commands from `fromSeq` on, in order. */
  read(fromSeq: number): Iterable<Command>;
  /** The venue's state at seq 0 (its first snapshot), or null when it is gone. */
  genesis(): Uint8Array | null;
};

export type RelayerOptions = {
  readonly maxFills: number;
  readonly maxGas: number;
  /** An open batch is cut this long after its first item (ms). */
  readonly windowMs: number;
  readonly maxInFlight: number;
  readonly confirmations: number;
  readonly stuckMs: number;
  /** A checkpoint after this many commands or ms, at a point where no batch is open. */
  readonly checkpointCommands: number;
  readonly checkpointMs: number;
  /** Reconcile at least every this many included batches (and when idle). */
  readonly reconcileEvery: number;
  /** Commands folded per step at most (the step also sends and polls). */
  readonly foldPerStep: number;
  readonly followVenueClock: boolean;
  /** The block the contracts were deployed in (where the indexer starts). */
  readonly deploymentBlock: number;
  readonly signPrice: (pairId: Hex, expiry: number, price: bigint) => Hex;
  readonly venueOptions?: VenueOptions;
};

export type RelayerStatus = 'sent' | 'included' | 'final' | 'failed';

/** What the relayer tells the venue (the main thread). */
export type RelayerMessage =
  | { readonly type: 'status'; readonly batch: number; readonly status: RelayerStatus; readonly txHash: Hex | null; readonly block: number | null; readonly tradeIds: readonly string[]; readonly orderIds: readonly Hex[]; readonly withdrawals: readonly { owner: Address; withdrawalId: string }[]; readonly failure: string | null }
  /** A confirmed user log for the engine (a deposit, a nonce floor, a nonce increment asked for), as its `chain_event`. */
  | { readonly type: 'chain_event'; readonly id: string; readonly event: ChainEventData }
  | { readonly type: 'hold'; readonly seq: number }
  | { readonly type: 'alert'; readonly kind: 'settlement_halted' | 'reconciliation_mismatch' | 'chain_rolled_back' | 'indexer_stopped'; readonly severity: 'critical' | 'warning'; readonly message: string; readonly details: Record<string, unknown> }
  | { readonly type: 'reconciled'; readonly result: ReconcileResult }
  | { readonly type: 'log'; readonly level: 'info' | 'warn' | 'error'; readonly message: string; readonly details: Record<string, unknown> };

/** What the relayer measures (the venue's metrics read it: docs/metrics.md). */
export type RelayerMetrics = {
  /** Seconds since the oldest fill not yet included on chain was committed (0: none). */
  lagSeconds: number;
  /** Batches cut and not yet included, and items in the open batch. */
  outboxBatches: number;
  openItems: number;
  batchesIncluded: number;
  batchesFinal: number;
  fillsSettled: number;
  gasUsed: number;
  /** Gas of the last included batch per fill in it. */
  lastGasPerFill: number;
  reconciliations: number;
  reconciliationMismatches: number;
  lastReconciledBatch: number;
  replicaSeq: number;
  chainSeq: number;
  indexedBlock: number;
  halted: string | null;
  /** Why the sender is not sending the next batch, when it waits (the chain not at its seq yet, its clock behind the batch, a gap), or null. */
  sendWait: string | null;
};
