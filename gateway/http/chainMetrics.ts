/**
 * Metrics of settlement on chain (docs/chain.md, docs/metrics.md), read from the relayer's
 * latest report (its thread sends one a second) and from reconciliation results:
 *
 * - `settlement_lag_seconds`: how long the oldest committed fill not yet included on chain has
 *   waited (0 when none waits);
 * - `settlement_outbox_batches`, `settlement_open_items`: batches cut and not yet included, items
 *   in the batch being filled;
 * - `settlement_batches_total{status}` (included, final), `settlement_fills_total`,
 *   `settlement_gas_per_fill` (the last included batch's gas model bound over its fills);
 * - `settlement_reconciliations_total{result}` (ok, mismatch), `settlement_halted` (1 while the
 *   relayer has stopped: a refused batch or a mismatch);
 * - `settlement_chain_batch` (the chain's lastSeq as the relayer saw it), `settlement_replica_seq`
 *   (the journal seq the relayer has folded), `chain_indexed_block`.
 *
 * With CHAIN=none they are all served at 0.
 */
import type { RelayerMetrics } from '../../chain/relayer/relayer.ts';
import type { ReconcileResult } from '../../chain/relayer/reconciler.ts';
import type { Metrics } from './metrics.ts';

export type ChainObserved = { reconciled(r: ReconcileResult): void };

export function chainMetrics(metrics: Metrics, latest: () => RelayerMetrics | null): ChainObserved {
  const get = <K extends keyof RelayerMetrics>(k: K, dflt: RelayerMetrics[K]): RelayerMetrics[K] => latest()?.[k] ?? dflt;
  metrics.gauge({ name: 'settlement_lag_seconds', help: 'Seconds the oldest committed fill not yet included on chain has waited (0: none waits).', collect() { this.set(get('lagSeconds', 0)); } });
  metrics.gauge({ name: 'settlement_outbox_batches', help: 'Settlement batches cut and not yet included on chain.', collect() { this.set(get('outboxBatches', 0)); } });
  metrics.gauge({ name: 'settlement_open_items', help: 'Settlement items in the batch being filled.', collect() { this.set(get('openItems', 0)); } });
  metrics.counter({
    name: 'settlement_batches_total',
    help: 'Settlement batches included on chain, and final (CONFIRMATIONS deep), since the relayer started.',
    labelNames: ['status'] as const,
    collect() {
      this.reset();
      this.inc({ status: 'included' }, get('batchesIncluded', 0));
      this.inc({ status: 'final' }, get('batchesFinal', 0));
    },
  });
  metrics.counter({ name: 'settlement_fills_total', help: 'Fills included on chain since the relayer started.', collect() { this.reset(); this.inc(get('fillsSettled', 0)); } });
  metrics.gauge({ name: 'settlement_gas_per_fill', help: "The last included batch's gas (the gas model's bound) per fill in it.", collect() { this.set(get('lastGasPerFill', 0)); } });
  const reconciliations = metrics.counter({ name: 'settlement_reconciliations_total', help: 'Reconciliations of the chain against the venue, by result.', labelNames: ['result'] as const });
  for (const r of ['ok', 'mismatch']) reconciliations.labels(r).inc(0);
  metrics.gauge({ name: 'settlement_halted', help: '1 while settlement is halted (a batch the chain refused, or a reconciliation mismatch), else 0.', collect() { this.set(get('halted', null) === null ? 0 : 1); } });
  metrics.gauge({ name: 'settlement_chain_batch', help: "The settlement stream's last batch on chain (orderBook.lastSeq), as the relayer saw it.", collect() { this.set(get('chainSeq', 0)); } });
  metrics.gauge({ name: 'settlement_replica_seq', help: "The journal seq the relayer's replica has folded.", collect() { this.set(get('replicaSeq', 0)); } });
  metrics.gauge({ name: 'chain_indexed_block', help: 'The block the indexer has read the contracts\' logs up to.', collect() { this.set(get('indexedBlock', 0)); } });
  return {
    reconciled(r) {
      reconciliations.inc({ result: r.mismatches.length === 0 ? 'ok' : 'mismatch' });
    },
  };
}
