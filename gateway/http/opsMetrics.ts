/**
 * Metrics the operators' alerts and dashboard need (ops/, docs/operations.md) that no
 * other layer produces on its own: how the last start's recovery went, the journal's
 * commits (fdatasyncs), commands waiting for their commit, each pair's last oracle update
 * and rate-limit refusals. All but the last are read at scrape time (`collect`), so they
 * cost nothing on the hot path.
 */
import type client from 'prom-client';
import type { Metrics } from './metrics.ts';
import type { RateIdentity } from './auth.ts';
import { rateLimitGroups, type RateLimitGroup } from './route.ts';

export type OpsSources = {
  /** Problems the start-up recovery worked around (a damaged snapshot passed over, a torn tail cut). */
  readonly recoveryWarnings: number;
  /** Durable journal commits so far (one LMDB transaction, one fdatasync each). */
  journalCommits(): number;
  /** Commands applied whose journal commit is still pending. */
  inFlight(): number;
  /** Each pair's symbol and the venue time (Unix seconds) of its last oracle update. */
  oracleUpdates(): Iterable<{ readonly pair: string; readonly lastUpdate: number }>;
};

export function registerOpsMetrics(metrics: Metrics, sources: OpsSources): void {
  metrics.gauge({
    name: 'recovery_warnings',
    help: 'Problems the start-up recovery of this process worked around (damaged snapshot passed over, torn journal tail cut); see the log.',
    collect() {
      this.set(sources.recoveryWarnings);
    },
  });
  metrics.counter({
    name: 'journal_fsyncs_total',
    help: 'Journal group commits made durable, one LMDB transaction and one fdatasync each.',
    collect() {
      this.reset();
      this.inc(sources.journalCommits());
    },
  });
  metrics.gauge({
    name: 'engine_commands_in_flight',
    help: 'Commands applied by the engine whose journal commit is still pending (the queue before the replies).',
    collect() {
      this.set(sources.inFlight());
    },
  });
  metrics.gauge({
    name: 'oracle_last_update_timestamp_seconds',
    help: 'Venue time (Unix seconds) of the last committed oracle update, by pair.',
    labelNames: ['pair'] as const,
    collect() {
      this.reset();
      for (const o of sources.oracleUpdates()) this.set({ pair: o.pair }, o.lastUpdate);
    },
  });
}

/** The rate limiter's `onRefused`: counts refused requests by group and caller kind (`wallet` or `ip`). */
export function rateLimitHits(metrics: Metrics): (group: RateLimitGroup, identity: RateIdentity) => void {
  // One counter per registry, however many route tables are built over it (tests build several).
  const existing = metrics.registry.getSingleMetric('rate_limit_hits_total') as client.Counter<'group' | 'caller'> | undefined;
  const hits = existing ?? metrics.counter({ name: 'rate_limit_hits_total', help: 'Requests refused by a rate limit (429, or the WebSocket order error), by group and caller kind (wallet, ip).', labelNames: ['group', 'caller'] as const });
  for (const group of rateLimitGroups) for (const caller of ['wallet', 'ip']) hits.labels(group, caller).inc(0);
  return (group, identity) => hits.inc({ group, caller: identity.kind });
}
