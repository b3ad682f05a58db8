/**
 * Edge gateways (architecture.md "Scaling out"), JOURNAL=nats with EDGE=1 (or ROLE=edge):
 *
 *   edge     follows the stream like a standby (pipeline.follow: the same engine copy, the
 *            same read models and streams, folded from the committed commands) but never
 *            takes the lease and never appends. Every read and the public streams are served
 *            from its own folds. A write (authenticated and signature-checked here) is sent
 *            to the leader on `<stream>.commands`; the leader replies with the command's seq
 *            once committed, and the edge answers its client with the result of its own fold
 *            of that seq (the same engine, the same result): a read after a write sees it.
 *   leader   while it leads, answers `<stream>.commands` (serveCommands): submits the command
 *            through its pipeline and replies `{ seq }` after the commit, or `{ error, message }`.
 *
 * No leader answering (none subscribed, or none within the timeout) is 503 `unavailable`.
 */
import type { NatsConnection, Subscription } from 'nats';
import type { ApplyResult, CommandBody } from '../../engine/index.ts';
import type { NatsJournal } from '../../persistence/natsJournal.ts';
import type { Command } from '../../persistence/types.ts';
import { decodeValue, encodeValue } from '../../persistence/codec.ts';
import { UnavailableError, type CommandPipeline } from '../commandPipeline.ts';
import type { Logger } from '../http/log.ts';
import { leaseBucket, openLeaderLease, parseLeaseValue } from './leaderLease.ts';
import type { Command as EngineCommand } from '../../engine/index.ts';

/** The request/reply subject the leader answers forwarded commands on. */
export const commandSubject = (stream: string): string => `${stream}.commands`;

type Reply = { seq: number } | { error: 'unavailable' | 'bad_request' | 'internal'; message: string };

/** The leader's side: answer forwarded commands while it leads (stop when it no longer does). */
export function serveCommands(nc: NatsConnection, subject: string, pipeline: CommandPipeline, log: Logger): { stop(): void } {
  // submit resolves with the very result its listeners saw with the command: its seq by identity.
  const seqOf = new WeakMap<ApplyResult, number>();
  pipeline.onEvents((_events, command, result) => seqOf.set(result, command.seq));
  const respond = (reply: (data: Uint8Array) => boolean, r: Reply) => void reply(encodeValue(r));
  const sub: Subscription = nc.subscribe(subject, {
    callback: (err, msg) => {
      if (err !== null) return;
      const reply = (data: Uint8Array) => msg.respond(data);
      let body: CommandBody;
      try {
        body = decodeValue(msg.data) as CommandBody;
        if (typeof body !== 'object' || body === null || typeof (body as { type?: unknown }).type !== 'string') throw new Error('not a command');
      } catch (e) {
        respond(reply, { error: 'bad_request', message: `forwarded command unreadable: ${(e as Error).message}` });
        return;
      }
      pipeline.submit(body).then(
        (result) => respond(reply, { seq: seqOf.get(result) ?? 0 }),
        (e: unknown) => {
          if (!(e instanceof UnavailableError)) log.error('forwarded command failed', { type: body.type, error: (e as Error).message });
          respond(reply, { error: e instanceof UnavailableError ? 'unavailable' : 'internal', message: (e as Error).message });
        },
      );
    },
  });
  return { stop: () => sub.unsubscribe() };
}

export type EdgeOptions = {
  journal: NatsJournal;
  pipeline: CommandPipeline;
  /** The engine copy's last applied seq. */
  appliedSeq(): number;
  stream: string;
  nodeId: string;
  leaseTtlMs: number;
  replicas: number;
  log: Logger;
  /** How long a write waits for the leader's reply, then for this edge's fold of it (default 10 s). */
  timeoutMs?: number;
};

export type Edge = {
  stats(): { forwarded: number; leaderSeq: number };
  stop(): Promise<void>;
};

/** Results of the last commands folded here, kept for the writes whose reply comes after the fold. */
const RECENT = 8_192;

export async function startEdge(opts: EdgeOptions): Promise<Edge> {
  const { journal, pipeline, log } = opts;
  const nc = journal.connection;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const subject = commandSubject(opts.stream);
  const recent = new Map<number, ApplyResult>();
  const waiters = new Map<number, ((r: ApplyResult) => void)[]>();
  let forwarded = 0;
  let leaderSeq = 0;

  // Registered after the read models' listener (app.ts): a write is answered after its fold.
  pipeline.onEvents((_events, command, result) => {
    recent.set(command.seq, result);
    if (recent.size > RECENT) recent.delete(recent.keys().next().value!);
    leaderSeq = Math.max(leaderSeq, command.seq);
    const w = waiters.get(command.seq);
    if (w !== undefined) {
      waiters.delete(command.seq);
      for (const resolve of w) resolve(result);
    }
  });
  journal.follow(
    (c: Command) => void pipeline.follow(c as unknown as EngineCommand),
    (from) => log.error('edge: the leader truncated commands this edge folded; restart it', { from }),
  );

  const folded = (seq: number): Promise<ApplyResult> => {
    const have = recent.get(seq);
    if (have !== undefined) return Promise.resolve(have);
    if (opts.appliedSeq() >= seq) return Promise.reject(new UnavailableError(`the command committed at seq ${seq}, too far behind this edge's fold to answer with its result`));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new UnavailableError(`the command committed at seq ${seq}; this edge has not folded it within ${timeoutMs} ms`)), timeoutMs);
      const list = waiters.get(seq) ?? [];
      list.push((r) => (clearTimeout(timer), resolve(r)));
      waiters.set(seq, list);
    });
  };

  pipeline.forwardWrites(async (body) => {
    let data: Uint8Array;
    try {
      data = (await nc.request(subject, encodeValue(body), { timeout: timeoutMs })).data;
    } catch (e) {
      throw new UnavailableError(`no leader answered (${(e as Error).message}); try again`);
    }
    const reply = decodeValue(data) as Reply;
    if ('error' in reply) {
      if (reply.error === 'unavailable') throw new UnavailableError(reply.message);
      throw new Error(reply.message);
    }
    forwarded++;
    leaderSeq = Math.max(leaderSeq, reply.seq);
    return folded(reply.seq);
  });

  // The leader writes its last seq beside its id at every lease renewal: the fold lag is measured against it.
  const lease = await openLeaderLease(nc, { nodeId: opts.nodeId, ttlMs: opts.leaseTtlMs, bucket: leaseBucket(opts.stream), replicas: opts.replicas });
  const watch = await lease.kv.watch({ key: 'leader' });
  void (async () => {
    for await (const e of watch) if (e.operation === 'PUT') leaderSeq = Math.max(leaderSeq, parseLeaseValue(e.string()).seq);
  })().catch(() => {});

  log.info('edge: following the stream', { node: opts.nodeId, seq: opts.appliedSeq() });

  return {
    stats: () => ({ forwarded, leaderSeq }),
    async stop() {
      watch.stop();
      pipeline.forwardWrites(null);
      pipeline.refuseWrites('this edge is stopping');
    },
  };
}
