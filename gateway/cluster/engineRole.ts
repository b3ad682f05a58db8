/**
 * An engine node on JOURNAL=nats (architecture.md "Scaling out"): a hot standby until it
 * holds the leader lease, then the leader until another node holds the lease or its journal
 * is fenced; after that it is deposed for good (it applied commands the stream may not hold)
 * and takes no more writes. A renewal left unanswered (the bucket electing its leader after a
 * NATS node was lost) does not depose: nobody can take the lease meanwhile, and the journal's
 * expected-last-sequence fence keeps the stream single-writer in any case. A lease that lapsed
 * meanwhile and that nobody took is taken again.
 *
 *   standby   follows the stream, applies every command (pipeline.follow), compares its
 *             state hash with the leader's at every `hashEvery`-th seq, tries the lease
 *   leader    caught up to the stream's end first, then takes writes; renews the lease every
 *             ttl/4 and publishes its state hash at every `hashEvery`-th seq
 *   deposed   refuses writes; `onDeposed` decides what the process does (clusterMain exits,
 *             so a supervisor restarts it as a standby from the stream)
 */
import type { KV } from 'nats';
import type { NatsJournal } from '../../persistence/natsJournal.ts';
import type { Command } from '../../persistence/types.ts';
import type { CommandPipeline } from '../commandPipeline.ts';
import type { Command as EngineCommand } from '../../engine/index.ts';
import type { Logger } from '../http/log.ts';
import { leaseBucket, openLeaderLease, parseLeaseValue, type LeaderLease } from './leaderLease.ts';

export type Role = 'standby' | 'leader' | 'deposed';

export type EngineRoleOptions = {
  journal: NatsJournal;
  pipeline: CommandPipeline;
  /** The engine's state hash now (at the last applied seq). */
  stateHash(): string;
  /** The engine's last applied seq. */
  appliedSeq(): number;
  nodeId: string;
  leaseTtlMs: number;
  /**
   * Compare state hashes at every seq divisible by this (default 100,000). A state hash is
   * one serialization of the whole engine state on the event loop, the cost of a snapshot:
   * at every 1,000th command it stalled the leader's order route for 160-250 ms each time
   * (bench/cluster), so it runs at the snapshots' cadence.
   */
  hashEvery?: number;
  replicas?: number;
  log: Logger;
  /** Called once the node leads (caught up, writes open): start the drivers. */
  onLead(): void | Promise<void>;
  onDeposed(reason: string): void;
};

export type EngineRole = {
  role(): Role;
  stats(): { hashChecks: number; hashMismatches: number; takeovers: number; leaderSeq: number };
  /** Release the lease (graceful stop) and stop the timers. */
  stop(): Promise<void>;
};

const HASH_KEY = 'hash';

export async function startEngineRole(opts: EngineRoleOptions): Promise<EngineRole> {
  const { journal, pipeline, log } = opts;
  const hashEvery = opts.hashEvery ?? 100_000;
  const lease: LeaderLease = await openLeaderLease(journal.connection, { nodeId: opts.nodeId, ttlMs: opts.leaseTtlMs, bucket: leaseBucket(journal.stream), ...(opts.replicas !== undefined ? { replicas: opts.replicas } : {}) });
  const hashes: KV = lease.kv;
  let role: Role = 'standby';
  let hashChecks = 0;
  let hashMismatches = 0;
  let takeovers = 0;
  let diverged = false;
  /** The leader's last command as of its last lease renewal (a standby's lag is measured against it). */
  let leaderSeq = 0;
  /** The standby's own hashes at checkpoint seqs, and the leader's that arrived early. */
  const mine = new Map<number, string>();
  const theirs = new Map<number, string>();
  const compare = (seq: number): void => {
    const a = mine.get(seq);
    const b = theirs.get(seq);
    if (a === undefined || b === undefined) return;
    mine.delete(seq);
    theirs.delete(seq);
    hashChecks++;
    if (a !== b) {
      hashMismatches++;
      diverged = true;
      log.error('standby: state hash differs from the leader; this node will not take over', { seq, leader: b, standby: a });
    }
  };
  const trim = (m: Map<number, string>): void => {
    while (m.size > 64) m.delete(m.keys().next().value!);
  };

  pipeline.refuseWrites(`this node is a standby; writes go to the leader`);
  journal.follow(
    (c: Command) => {
      pipeline.follow(c as unknown as EngineCommand);
      if (c.seq % hashEvery === 0) {
        mine.set(c.seq, opts.stateHash());
        trim(mine);
        compare(c.seq);
      }
    },
    (from) => {
      diverged = true;
      log.error('standby: the leader truncated commands this node applied; restart it', { from });
    },
  );
  void (async () => {
    const watch = await hashes.watch();
    for await (const e of watch) {
      if (role !== 'standby' || e.operation !== 'PUT') continue;
      if (e.key === 'leader') {
        leaderSeq = Math.max(leaderSeq, parseLeaseValue(e.string()).seq);
        continue;
      }
      if (e.key !== HASH_KEY) continue;
      const [seqText, hash] = e.string().split(':');
      const seq = Number(seqText);
      if (!Number.isSafeInteger(seq) || hash === undefined || seq <= 0) continue;
      theirs.set(seq, hash);
      trim(theirs);
      compare(seq);
    }
  })().catch(() => {});

  // The leader takes its hash when it applies a checkpoint command and publishes it once committed.
  const pending = new Map<number, string>();
  pipeline.onApplied((command) => {
    if (role === 'leader' && command.seq % hashEvery === 0) pending.set(command.seq, opts.stateHash());
  });
  pipeline.onEvents((_events, command) => {
    const hash = pending.get(command.seq);
    if (hash === undefined) return;
    pending.delete(command.seq);
    void hashes.put(HASH_KEY, new TextEncoder().encode(`${command.seq}:${hash}`)).catch(() => {});
  });

  const depose = (reason: string): void => {
    if (role === 'deposed') return;
    role = 'deposed';
    pipeline.refuseWrites(`this node is no longer the leader: ${reason}`);
    log.error('deposed', { reason });
    opts.onDeposed(reason);
  };

  let busy = false;
  /** Since when renewals go unanswered (0 while they are answered): for the log. */
  let unanswered = 0;
  const tick = async (): Promise<void> => {
    if (busy || role === 'deposed') return;
    busy = true;
    try {
      if (role === 'leader') {
        if (journal.fenced() !== null) return depose(journal.fenced()!);
        const renewed = await lease.renew(journal.lastSeq());
        if (renewed === 'held') {
          if (unanswered !== 0) log.info('leader lease renewed again', { afterMs: Date.now() - unanswered });
          unanswered = 0;
        } else if (renewed === 'unknown') {
          // The bucket is electing its leader (a NATS node lost: 4-9 s on nats-server 2.9).
          // Nobody can take the lease meanwhile, and the journal's fence keeps the stream
          // single-writer whatever happens: keep leading, keep asking.
          if (unanswered === 0) log.warn('leader lease renewal unanswered; still leading, the journal fence guards the stream');
          unanswered ||= Date.now();
        } else if (await lease.reclaim()) {
          // The entry lapsed while the bucket could not answer, and nobody took it (or a renewal
          // was stored whose answer was lost): this node is still the stream's only writer (its
          // journal is not fenced), so it keeps the lease.
          log.warn('leader lease lapsed and was taken again by this node', { node: opts.nodeId });
          unanswered = 0;
        } else depose('another node holds the leader lease');
        return;
      }
      if (diverged || !(await lease.tryAcquire())) return;
      await journal.catchUp();
      role = 'leader';
      takeovers++;
      pipeline.refuseWrites(null);
      log.info('leading', { node: opts.nodeId, seq: journal.lastSeq() });
      await opts.onLead();
    } catch (e) {
      if (role === 'leader') depose((e as Error).message);
      else log.warn('lease attempt failed', { error: (e as Error).message });
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void tick(), Math.max(50, Math.floor(opts.leaseTtlMs / 4)));
  await tick();

  return {
    role: () => role,
    stats: () => ({ hashChecks, hashMismatches, takeovers, leaderSeq: role === 'leader' ? journal.lastSeq() : leaderSeq }),
    async stop() {
      clearInterval(timer);
      while (busy) await new Promise((r) => setTimeout(r, 10));
      if (role === 'leader') await lease.release();
    },
  };
}
