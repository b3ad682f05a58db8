/**
 * The command journal on a NATS JetStream stream (architecture.md "Scaling out"): the same
 * Journal contract as the LMDB journal, replicated (R1 on one node, R3 on a cluster).
 *
 * The stream is a log of records, each one message on one subject:
 *   record := [kind u8][a f64be][b f64be][body]
 *   kind 1  batch     a = seq of its first command, body = journalBatch.ts batch (group commit:
 *                     the appends of one turn are one message, acknowledged together)
 *   kind 2  prune     a = prunedThrough, b = lastSeq at the time (the messages before are purged)
 *   kind 3  truncate  a = the next seq: commands >= a recorded earlier are void
 * Reading folds the records in stream order, so a standby following the stream sees exactly
 * what a reopen would.
 *
 * Fencing: every record is published with JetStream's expected-last-sequence set to the
 * stream sequence this journal last saw. If any other writer (a new leader) appended in
 * between, the publish fails, this journal becomes `fenced`, and every later append is
 * refused: a deposed leader can never add to the stream, so it never acknowledges a write
 * the stream does not hold.
 *
 * The contract's reads are synchronous (recovery runs before anything else), so the journal
 * keeps the stored frames in memory, loaded from the stream on open; pruning after a
 * snapshot bounds it (docs/persistence.md, "The JetStream journal").
 */
import { connect, StorageType, RetentionPolicy, DiscardPolicy, type JetStreamClient, type JetStreamManager, type NatsConnection, type StreamInfo, AckPolicy, DeliverPolicy, nanos } from 'nats';
import type { Command, Journal, JournalEntry } from './types.ts';
import { checkEntry, encodeCommand, readChecked } from './journalEntry.ts';
import { batchFrames, batchLayout, encodeBatch } from './journalBatch.ts';

const KIND_BATCH = 1;
const KIND_PRUNE = 2;
const KIND_TRUNCATE = 3;
const HEADER = 17;
/** Under JetStream's default 1 MB message limit. */
const BATCH_MAX_BYTES = 512 * 1024;
const BATCH_MAX_COMMANDS = 4096;

export type NatsJournalOptions = {
  /** NATS_URL as a list. */
  servers: string[];
  /** Stream name (default VENUE_JOURNAL); its subject is `<stream>.log`. */
  stream?: string;
  /** Replicas (1 on one node, 3 on a three-node cluster). Default: 3 when three or more servers are given, else 1. */
  replicas?: number;
  /** Bounds the wait for the initial read and for each JetStream request (default 10 s). */
  timeoutMs?: number;
  /** Connection name shown by the server. */
  name?: string;
  /**
   * How long a record whose publish failed for a reason other than the fence (a NATS node
   * lost, the stream electing its leader) is retried before the journal gives up and fences
   * itself (default 20 s: a stream leader election takes 4-9 s on nats-server 2.9, longer on
   * a loaded host). Retrying is safe: the retry carries the same message id and expected
   * sequence, so it is stored once or refused by the fence.
   */
  writeRetryMs?: number;
};

export type NatsJournal = Journal & {
  stats(): { appended: number; transactions: number };
  /** Null while this journal may write; the reason once a publish failed (another writer, or the stream unreachable). */
  fenced(): string | null;
  /** The stream sequence of the last record this journal saw (its own or read). */
  streamSeq(): number;
  /**
   * Tails the stream: `onCommand` is called for each command appended by another writer,
   * in order, after it is stored locally (a standby applies it to its engine). `onVoid`
   * when another writer truncated commands this journal already delivered.
   */
  follow(onCommand: (c: Command) => void, onVoid: (fromSeq: number) => void): void;
  /** Stops following once every record the stream holds now has been read; then appends fence on it. */
  catchUp(): Promise<void>;
  /** Stops following and closes the connection after the records in flight settle. */
  close(): Promise<void>;
  readonly connection: NatsConnection;
  /** The stream's name. */
  readonly stream: string;
};

type Batch = { first: number; count: number };

export async function openNatsJournal(opts: NatsJournalOptions): Promise<NatsJournal> {
  const stream = opts.stream ?? 'VENUE_JOURNAL';
  const subject = `${stream}.log`;
  const timeout = opts.timeoutMs ?? 10_000;
  const nc = await connect({ servers: opts.servers, name: opts.name ?? 'venue-journal', timeout, maxReconnectAttempts: -1, reconnectTimeWait: 250 });
  try {
    // A fresh cluster, or one that just lost a node, answers JetStream requests with "no
    // responders" or not at all until its meta leader is elected (4-9 s on 2.9): retry the
    // setup until a deadline, never indefinitely.
    const deadline = Date.now() + Math.max(2 * timeout, 20_000);
    const jsm = await retryUntil(deadline, () => nc.jetstreamManager({ timeout }));
    const replicas = opts.replicas ?? (opts.servers.length >= 3 ? 3 : 1);
    const info = await retryUntil(deadline, () => ensureStream(jsm, stream, subject, replicas));
    const js = nc.jetstream({ timeout });
    return await natsJournal(nc, js, jsm, info, stream, subject, timeout, opts.writeRetryMs ?? 20_000);
  } catch (e) {
    await nc.close().catch(() => {});
    throw e;
  }
}

/** `attempt()` until it resolves; its last error once `deadline` (ms since the epoch) has passed. */
export async function retryUntil<T>(deadline: number, attempt: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await attempt();
    } catch (e) {
      if (Date.now() >= deadline) throw e;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/** The stream's info, the stream created first when it does not exist. */
async function ensureStream(jsm: JetStreamManager, name: string, subject: string, replicas: number): Promise<StreamInfo> {
  const info = await jsm.streams.info(name).catch((e: Error) => (/stream not found/i.test(e.message) ? null : Promise.reject(e)));
  if (info !== null) return info;
  return jsm.streams.add({ name, subjects: [subject], storage: StorageType.File, retention: RetentionPolicy.Limits, discard: DiscardPolicy.New, num_replicas: replicas, max_msg_size: 1024 * 1024 });
}

function record(kind: number, a: number, b: number, body: Uint8Array | null): Uint8Array {
  const out = Buffer.allocUnsafe(HEADER + (body?.length ?? 0));
  out[0] = kind;
  out.writeDoubleBE(a, 1);
  out.writeDoubleBE(b, 9);
  if (body !== null) out.set(body, HEADER);
  return out;
}

async function natsJournal(nc: NatsConnection, js: JetStreamClient, jsm: JetStreamManager, info: StreamInfo, stream: string, subject: string, timeout: number, retryMs: number): Promise<NatsJournal> {
  const frames = new Map<number, Uint8Array>();
  /** Batches by stream sequence, for purging and tailStart. */
  const batches = new Map<number, Batch>();
  let last = 0;
  let pruned = 0;
  let tail = 0;
  let seen = 0; // stream sequence of the last record seen
  let fence: string | null = null;
  let appended = 0;
  let transactions = 0;
  let listener: { onCommand(c: Command): void; onVoid(from: number): void } | null = null;

  /** Folds one record read from the stream into the local image (records already seen are skipped). */
  const fold = (streamSeq: number, data: Uint8Array, deliver: boolean): void => {
    if (streamSeq <= seen) return;
    seen = streamSeq;
    const bytes = Buffer.from(data.buffer, data.byteOffset, data.length);
    if (bytes.length < HEADER) return;
    const a = bytes.readDoubleBE(1);
    const b = bytes.readDoubleBE(9);
    switch (bytes[0]) {
      case KIND_BATCH: {
        const body = Buffer.from(bytes.subarray(HEADER)); // copied: the client reuses its buffers
        const layout = batchLayout(body, body.length);
        const parts = batchFrames(body, 0, layout.count);
        for (let i = 0; i < parts.length; i++) frames.set(a + i, parts[i]!);
        batches.set(streamSeq, { first: a, count: parts.length });
        last = Math.max(last, a + parts.length - 1);
        tail = a;
        if (deliver && listener !== null) {
          for (let i = 0; i < parts.length; i++) {
            const e = checkEntry(a + i, parts[i]!);
            if (e.ok) listener.onCommand(e.command);
          }
        }
        break;
      }
      case KIND_PRUNE:
        dropBelow(a + 1);
        pruned = Math.max(pruned, a);
        last = Math.max(last, b, pruned);
        break;
      case KIND_TRUNCATE: {
        const had = last;
        dropFrom(a);
        last = a - 1;
        if (deliver && listener !== null && had >= a) listener.onVoid(a);
        break;
      }
    }
  };
  const dropBelow = (seq: number): number => {
    let n = 0;
    for (const s of [...frames.keys()]) if (s < seq && frames.delete(s)) n++;
    for (const [k, b] of [...batches]) if (b.first + b.count <= seq) batches.delete(k);
    return n;
  };
  const dropFrom = (seq: number): number => {
    let n = 0;
    for (const s of [...frames.keys()]) if (s >= seq && frames.delete(s)) n++;
    for (const [k, b] of [...batches]) {
      if (b.first >= seq) batches.delete(k);
      else if (b.first + b.count > seq) b.count = seq - b.first;
    }
    tail = 0;
    for (const b of batches.values()) tail = Math.max(tail, b.first);
    return n;
  };

  /**
   * The write queue: one record in flight at a time (its stream sequence must be known before
   * the next one can be fenced on it); appends made meanwhile collect into the next batch, as
   * an LMDB group commit collects while the previous commit syncs. A failure that is not the
   * fence (a NATS node down, a stream leader election) is retried with the same message id and
   * expected sequence for up to `retryMs`: JetStream's duplicate detection answers a retry of
   * a record that was in fact stored with its sequence.
   */
  type Queued = { data: Uint8Array | null; frames: Uint8Array[]; first: number; resolve(seq: number): void; reject(e: unknown): void; done: Promise<number> };
  const queue: Queued[] = [];
  let open: Queued | null = null; // the batch collecting appends
  let openBytes = 0;
  let openAck: Promise<void> | null = null;
  let pumping = false;
  const instance = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  const enqueue = (data: Uint8Array | null, first = 0): Queued => {
    let resolve!: (seq: number) => void;
    let reject!: (e: unknown) => void;
    const done = new Promise<number>((res, rej) => ((resolve = res), (reject = rej)));
    done.catch(() => {});
    const q: Queued = { data, frames: [], first, resolve, reject, done };
    queue.push(q);
    if (!pumping) queueMicrotask(() => void pump());
    return q;
  };
  const failAll = (reason: string): void => {
    fence ??= reason;
    open = null;
    for (const q of queue.splice(0)) q.reject(new Error(fence));
  };
  const publishOnce = async (q: Queued): Promise<number> => {
    if (q.data === null) {
      if (open === q) open = null;
      q.data = record(KIND_BATCH, q.first, 0, encodeBatch(q.frames));
      transactions++;
    }
    const expected = seen;
    const started = Date.now();
    for (;;) {
      try {
        const ack = await js.publish(subject, q.data, { expect: { lastSequence: expected }, msgID: `${instance}-${expected + 1}`, timeout });
        if (ack.seq !== expected + 1) throw new Error(`wrong last sequence: stored at ${ack.seq}, expected ${expected + 1}`);
        return ack.seq;
      } catch (e) {
        const message = (e as Error).message;
        if (/wrong last sequence/i.test(message) || nc.isClosed() || Date.now() - started > retryMs) {
          throw new Error(`journal: this node may no longer write to ${stream} (${message}); another leader appended, or the stream is unreachable`);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  const pump = async (): Promise<void> => {
    if (pumping) return;
    pumping = true;
    try {
      while (queue.length > 0 && fence === null) {
        const q = queue[0]!;
        let at: number;
        try {
          at = await publishOnce(q);
        } catch (e) {
          failAll((e as Error).message);
          break;
        }
        queue.shift();
        seen = Math.max(seen, at);
        if (q.frames.length > 0) batches.set(at, { first: q.first, count: q.frames.length });
        q.resolve(at);
      }
    } finally {
      pumping = false;
    }
  };
  const publish = (data: Uint8Array): Promise<number> => (fence !== null ? Promise.reject(new Error(fence)) : enqueue(data).done);
  /** The next append starts a new batch. */
  const flush = (): void => {
    open = null;
  };

  /** The fetch in progress, stopped when following stops. */
  let pulling: { stop(): void } | null = null;
  /**
   * Reads the records after `seen`, in stream order, into the image until `done()` holds or
   * the time `until` passes. It reads through a consumer of its own: an ephemeral pull
   * consumer without acknowledgements, deleted afterwards (and by the server after `timeout`
   * idle, should this process die), fetched 1,000 records at a time. A record beyond
   * `seen + 1` that the stream's purged head does not explain is a lost delivery: the
   * consumer is made again from `seen + 1`, as an ordered consumer would be. (nats.js's own
   * ordered consumer is not used: its reset loop retries forever, also once the connection
   * is closed, and keeps the process alive.)
   */
  const pull = async (deliver: boolean, done: () => boolean, until: number): Promise<void> => {
    while (!done() && Date.now() < until && !nc.isClosed()) {
      const head = (await jsm.streams.info(stream)).state.first_seq;
      const ci = await jsm.consumers.add(stream, { ack_policy: AckPolicy.None, deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: seen + 1, inactive_threshold: nanos(Math.max(timeout, 5_000)), mem_storage: true, num_replicas: 1 });
      try {
        const consumer = await js.consumers.get(stream, ci.name);
        let gap = false;
        while (!gap && !done() && Date.now() < until && !nc.isClosed()) {
          const batch = await consumer.fetch({ max_messages: 1000, expires: Math.max(1_000, Math.min(5_000, until - Date.now())) });
          pulling = batch;
          try {
            for await (const m of batch) {
              if (m.seq > seen + 1 && seen + 1 >= head) {
                gap = true;
                break;
              }
              fold(m.seq, m.data, deliver);
              if (done()) break;
            }
          } finally {
            pulling = null;
            batch.stop();
          }
        }
      } finally {
        void jsm.consumers.delete(stream, ci.name).catch(() => {});
      }
    }
  };

  /** Reads the stream through `target` by `until` (ms since the epoch), or throws; a failed request (a slow cluster) is made again. */
  const readUntil = async (target: number, deliver: boolean, until = Date.now() + timeout): Promise<void> => {
    while (seen < target) {
      try {
        await pull(deliver, () => seen >= target, until);
        break;
      } catch (e) {
        if (Date.now() >= until || nc.isClosed()) throw e;
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    if (seen < target) throw new Error(`journal: read ${stream} up to ${seen} of ${target} by its deadline (timed out)`);
  };

  /** Following (a standby, an edge): the loop, and whether it should go on. */
  let following: Promise<void> | null = null;
  let followOn = false;
  const stopFollowing = async (): Promise<void> => {
    followOn = false;
    pulling?.stop();
    await following;
    following = null;
  };

  let firstKept = Math.max(1, info.state.first_seq);
  // The first read has the setup's time (openNatsJournal: a cluster that just lost a node answers slowly).
  await readUntil(info.state.last_seq, false, Date.now() + Math.max(2 * timeout, 20_000));
  seen = Math.max(seen, info.state.last_seq);

  const journal: NatsJournal = {
    append(command: Command): Promise<void> {
      if (fence !== null) return Promise.reject(new Error(fence));
      let frame: Buffer;
      try {
        frame = encodeCommand(command, last + 1);
      } catch (e) {
        return Promise.reject(e);
      }
      if (open === null || open.frames.length >= BATCH_MAX_COMMANDS || openBytes >= BATCH_MAX_BYTES) {
        open = enqueue(null, command.seq);
        openBytes = 0;
        tail = command.seq;
        openAck = open.done.then(() => {});
        openAck.catch(() => {});
      }
      open.frames.push(frame);
      openBytes += frame.length;
      frames.set(command.seq, frame);
      last = command.seq;
      appended++;
      return openAck!;
    },
    lastSeq: () => last,
    *scan(fromSeq: number): Iterable<JournalEntry> {
      const seqs = [...frames.keys()].filter((s) => s >= fromSeq).sort((x, y) => x - y);
      for (const seq of seqs) yield checkEntry(seq, frames.get(seq)!);
    },
    read(fromSeq: number): Iterable<Command> {
      return readChecked(journal.scan(fromSeq), fromSeq);
    },
    async pruneBefore(seq: number): Promise<number> {
      flush();
      const removed = dropBelow(seq);
      const through = Math.min(seq - 1, last);
      if (through <= pruned) return removed;
      pruned = through;
      const at = await publish(record(KIND_PRUNE, pruned, last, null));
      // Keep the batches still holding commands >= seq, and the prune record itself.
      let keepFrom = at;
      for (const k of batches.keys()) keepFrom = Math.min(keepFrom, k);
      // Nothing below keepFrom left: no purge (nats-server 2.9 purges everything for a seq at or below the first).
      if (keepFrom > firstKept) {
        await jsm.streams.purge(stream, { seq: keepFrom });
        firstKept = keepFrom;
      }
      return removed;
    },
    truncateFrom(seq: number): number {
      if (queue.some((q) => q.data === null)) throw new Error('journal: truncateFrom while appends are pending');
      const removed = dropFrom(seq);
      last = seq - 1;
      if (fence === null) enqueue(record(KIND_TRUNCATE, seq, 0, null));
      return removed;
    },
    prunedThrough: () => pruned,
    tailStart: () => tail,
    stats: () => ({ appended, transactions }),
    fenced: () => fence,
    streamSeq: () => seen,
    follow(onCommand, onVoid) {
      listener = { onCommand, onVoid };
      followOn = true;
      following = (async () => {
        while (followOn && !nc.isClosed()) {
          try {
            await pull(true, () => !followOn, Number.POSITIVE_INFINITY);
          } catch {
            // The stream unreachable for now (a node lost, an election): ask again shortly.
            if (followOn) await new Promise((r) => setTimeout(r, 250));
          }
        }
      })();
    },
    async catchUp() {
      const was = listener;
      await stopFollowing();
      try {
        const now = await jsm.streams.info(stream);
        await readUntil(now.state.last_seq, true);
        listener = null;
      } catch (e) {
        // Not caught up: keep following, as before the attempt.
        if (was !== null) journal.follow(was.onCommand, was.onVoid);
        throw e;
      }
    },
    async close() {
      flush();
      await stopFollowing();
      await Promise.all(queue.map((q) => q.done.catch(() => {})));
      await nc.close().catch(() => {});
    },
    connection: nc,
    stream,
  };
  return journal;
}
