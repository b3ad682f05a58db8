/**
 * One leader at a time (architecture.md "Scaling out"): leadership is a key in a JetStream
 * key-value bucket whose entries live `ttlMs`. A node takes the lease with `create` (fails
 * while another node's entry lives) and keeps it with `update` at the revision it last wrote
 * (fails once the entry expired and another node created it). The journal's
 * expected-last-sequence check is the fence: a leader that lost its lease without noticing
 * still cannot append.
 */
import type { KV, NatsConnection } from 'nats';
import { retryUntil } from '../../persistence/natsJournal.ts';

export type RenewResult = 'held' | 'lost' | 'unknown';

export type LeaderLease = {
  /** True when this node now holds the lease (taken or renewed). */
  tryAcquire(): Promise<boolean>;
  /**
   * `held` when the renewal was stored; `lost` when the bucket refused it (the entry expired
   * and another node created it, or it was deleted); `unknown` when no answer came (the
   * bucket's stream electing its leader, a NATS node lost): the caller keeps the lease only
   * until its TTL, counted from the last renewal sent that was stored. `seq`: the leader's
   * last command, written beside its id (standbys measure their lag by it).
   */
  renew(seq?: number): Promise<RenewResult>;
  /**
   * After `renew` answered `lost`: takes the lease again when nobody holds it (the entry
   * lapsed) or when the entry is this node's own (a renewal stored whose answer was lost).
   * False when another node holds it.
   */
  reclaim(): Promise<boolean>;
  /** The node holding the lease now and the seq it last wrote, or null. */
  holder(): Promise<{ node: string; seq: number } | null>;
  /** Gives the lease up (a graceful stop), so a standby takes over without waiting for the TTL. */
  release(): Promise<void>;
  readonly kv: KV;
};

/** The lease bucket of a journal stream: one per stream, so two venues may share one NATS cluster. */
export const leaseBucket = (stream: string): string => `${stream}_LEADER`;

export async function openLeaderLease(nc: NatsConnection, opts: { nodeId: string; ttlMs: number; bucket: string; replicas?: number; timeoutMs?: number }): Promise<LeaderLease> {
  // A request slower than the TTL is as good as lost: the lease would have lapsed meanwhile.
  const js = nc.jetstream({ timeout: opts.timeoutMs ?? Math.min(5_000, Math.max(500, opts.ttlMs)) });
  // The bucket is created or bound like the journal's stream: retried while the cluster elects.
  const kv = await retryUntil(Date.now() + 20_000, () => js.views.kv(opts.bucket, { ttl: opts.ttlMs, history: 1, replicas: opts.replicas ?? 1 }));
  const key = 'leader';
  let revision = 0;
  const enc = new TextEncoder();
  return {
    kv,
    async tryAcquire() {
      try {
        revision = await kv.create(key, enc.encode(opts.nodeId));
        return true;
      } catch {
        return false;
      }
    },
    async renew(seq = 0) {
      if (revision === 0) return 'lost';
      try {
        revision = await kv.update(key, enc.encode(`${opts.nodeId}|${seq}`), revision);
        return 'held';
      } catch (e) {
        // The server's answer to an update at a stale revision: the lease is someone else's (or nobody's).
        if (/wrong last sequence|key exists|not found/i.test((e as Error).message)) {
          revision = 0;
          return 'lost';
        }
        return 'unknown';
      }
    },
    async reclaim() {
      try {
        const e = await kv.get(key);
        if (e !== null && e.operation === 'PUT') {
          if (parseLeaseValue(e.string()).node !== opts.nodeId) return false;
          revision = e.revision;
          return true;
        }
        revision = await kv.create(key, enc.encode(opts.nodeId));
        return true;
      } catch {
        return false;
      }
    },
    async holder() {
      const e = await kv.get(key);
      return e === null || e.operation !== 'PUT' ? null : parseLeaseValue(e.string());
    },
    async release() {
      if (revision === 0) return;
      const at = revision;
      revision = 0;
      await kv.delete(key, { previousSeq: at }).catch(() => {});
    },
  };
}

/** The lease value: `<nodeId>` or `<nodeId>|<seq>`. */
export function parseLeaseValue(v: string): { node: string; seq: number } {
  const at = v.lastIndexOf('|');
  if (at < 0) return { node: v, seq: 0 };
  const seq = Number(v.slice(at + 1));
  return { node: v.slice(0, at), seq: Number.isSafeInteger(seq) ? seq : 0 };
}
