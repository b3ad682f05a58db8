/**
 * Metrics of an engine node on JOURNAL=nats (docs/metrics.md, "Cluster"): its role, its
 * takeovers, the state-hash checks of the hot standby and its lag behind the leader. On the
 * embedded default (no role) the one process is the leader and the rest stay 0.
 */
import type { Metrics } from '../http/metrics.ts';
import type { EngineRole } from './engineRole.ts';
import type { Edge } from './edge.ts';

/** `edge`: this process is an edge gateway (EDGE=1): never the leader; its fold lag and forwarded writes (0 on engine nodes). */
export function clusterMetrics(metrics: Metrics, role: EngineRole | null, appliedSeq: () => number, edge: Edge | null = null): void {
  const stats = () => role?.stats() ?? { hashChecks: 0, hashMismatches: 0, takeovers: 0, leaderSeq: appliedSeq() };
  metrics.gauge({ name: 'cluster_leader', help: 'Whether this engine node is the leader (1) or not (0: a standby or deposed).', collect() { this.set(edge === null && (role?.role() ?? 'leader') === 'leader' ? 1 : 0); } });
  metrics.gauge({ name: 'cluster_deposed', help: 'Whether this engine node lost its leadership and takes no more writes (1) until restarted.', collect() { this.set(role?.role() === 'deposed' ? 1 : 0); } });
  metrics.counter({ name: 'cluster_takeovers_total', help: 'Times this engine node became the leader.', collect() { this.reset(); this.inc(stats().takeovers); } });
  metrics.gauge({ name: 'cluster_standby_lag_commands', help: "Commands the leader has journaled that this node has not applied yet (by the leader's last lease renewal; 0 on the leader).", collect() { this.set(Math.max(0, stats().leaderSeq - appliedSeq())); } });
  metrics.counter({ name: 'cluster_hash_checks_total', help: "State-hash comparisons of this standby with the leader's at the same seq.", collect() { this.reset(); this.inc(stats().hashChecks); } });
  metrics.counter({ name: 'cluster_hash_mismatches_total', help: "State-hash comparisons that differed (the standby then refuses to take over).", collect() { this.reset(); this.inc(stats().hashMismatches); } });
  metrics.gauge({ name: 'cluster_edge_fold_lag_commands', help: "Commands the leader committed (by its last lease renewal, or a forwarded write's seq) that this edge has not folded yet (0 on engine nodes).", collect() { this.set(edge === null ? 0 : Math.max(0, edge.stats().leaderSeq - appliedSeq())); } });
  metrics.counter({ name: 'cluster_edge_forwarded_total', help: 'Writes this edge forwarded to the leader that the leader committed (0 on engine nodes).', collect() { this.reset(); this.inc(edge?.stats().forwarded ?? 0); } });
}
