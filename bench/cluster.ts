/**
 * Scale-out on NATS JetStream (JOURNAL=nats, docs/persistence.md), three parts in one run;
 * every venue process is a child process of its own (so that kill -9 is real), with its own
 * data directory and port (bench/lib/clusterNode.ts). Flags: bench/lib/clusterArgs.ts (`--duration=`, `--kills=` ...).
 *
 * 1. orders: signed `POST /api/mm/orders/place` relays (bench/orders.ts's pre-signed requests
 *    and HTTP generator) to three setups, all running at once, alternating in each round:
 *      lmdb     the single process with the LMDB journal (the default), orders sent to it;
 *      nats_r1  one nats-server, a leader and an edge gateway (EDGE=1), orders sent to the edge;
 *      nats_r3  three nats-servers (the stream and the lease bucket R3), a leader and an edge.
 *    Throughput: closed loop (CONNS connections, one request in flight each), best round.
 *    Latency: open loop at ONE fixed rate for all three (`--rate`, default half the lowest
 *    throughput), due time to reply, all rounds' samples. Budget: R3's p99 <= 2x LMDB's.
 *    CPU per order of each process of a setup in its best throughput round: the single process,
 *    or the edge and the leader (each its own process.cpuUsage), and the nats-servers together
 *    (/proc/<pid>/stat, 10 ms ticks).
 * 2. takeover: a leader and a standby (`--takeover-nats` nodes, default 3), a client writing
 *    continuously to both (a 1-unit deposit every WRITE_GAP_MS per node, one in flight; the
 *    standby answers 503 `unavailable`). kill -9 of the leader; the takeover time is from the
 *    kill to the first write answered 200 by the other node; the killed node is started again
 *    (a standby) before the next kill. `--kills` times (default 10); min/p50/max. Budget: 2 s;
 *    the lease TTL (`--lease-ttl-ms`, LEASE_TTL_MS, default 1,500) sets most of it.
 * 3. fanout: a leader (R1) fed with one-level book changes (bench/fanout.ts's feed, at most
 *    WINDOW updates per subscriber undelivered) and `--subscribers` WebSocket subscribers of the
 *    book's depth channel on /ws/public (bench/lib/fanoutClient.ts, in their own process): all on
 *    one edge, then half on each of two edges, alternating. Messages delivered per second, and
 *    each edge's CPU time per message it delivered and per update (its process.cpuUsage), and
 *    that of an edge with no subscriber (edge 2 in the one-edge rounds: its fold of each update,
 *    the fixed cost every edge pays). On this 2-core host the total is bound by the cores; the
 *    per-edge cost is what predicts scale-out.
 *
 * The load generator and subscribers share the host's 2 cores with every venue and NATS
 * process: the figures say what the cluster costs beside the single process, not its capacity.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { STALL_MS, within } from './lib/deadline.ts';
import { report } from './lib/report.ts';
import { percentile } from './lib/stats.ts';
import { Conn, closedLoop, firstErrorBody, openLoop, type Round } from './lib/httpLoad.ts';
import type { BenchVenueSetup } from './lib/benchServer.ts';
import { freshNonces, presign, walletAddresses } from './lib/signedOrders.ts';
import { startFanoutClient, type FanoutClient } from './lib/fanoutClient.ts';
import { minMedianMax, parseClusterArgs, type ClusterArgs } from './lib/clusterArgs.ts';
import type { NatsCluster } from '../gateway/cluster/natsServers.ts';
import { children, natsClusters, natsEnv, nodeEnv, procCpuUs, startNats, stopNats, VenueNode } from './lib/clusterNode.ts';
import { VenueClient } from '../client/venueClient.ts';

const PREFIX = 'cluster-bench';
const CONNS = 128;
const WARM_MS = 1000;
const WRITE_GAP_MS = 5;
const WINDOW = 32;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (line: string) => process.stderr.write(`# ${line}\n`);
const round1 = (n: number) => Math.round(n * 10) / 10;

// ---------------------------------------------------------------- 1. orders

type OrderSetup = {
  readonly name: 'lmdb' | 'nats_r1' | 'nats_r3';
  /** The process the orders go to (the single process, or the edge) first, then the others (the leader). */
  readonly nodes: VenueNode[];
  /** Its nats-server nodes (none for lmdb): their CPU per order is reported beside the venue's. */
  readonly nats: NatsCluster | null;
  readonly setup: BenchVenueSetup;
  readonly reqs: Buffer[];
  readonly cursor: { i: number };
  readonly nonces: bigint[];
  best: Round | null;
  cpuUsPerOrder: Record<string, number>;
  latencies: number[];
  latencyRates: number[];
  errors: number;
};

async function orderSetup(name: OrderSetup['name'], target: VenueNode, others: VenueNode[], nats: NatsCluster | null): Promise<OrderSetup> {
  const { setup } = (await target.ask({ type: 'fund', owners: walletAddresses(PREFIX) })) as { setup: BenchVenueSetup };
  const nonces = freshNonces();
  return { name, nodes: [target, ...others], nats, setup, reqs: presign(PREFIX, setup, 2000, nonces), cursor: { i: 0 }, nonces, best: null, cpuUsPerOrder: {}, latencies: [], latencyRates: [], errors: 0 };
}

/**
 * Run one round on fresh connections: uWS closes a keep-alive connection idle for 10 s, and a
 * setup's connections wait while the other setups run their rounds.
 */
async function onFreshConns(s: OrderSetup, run: (conns: Conn[]) => Promise<Round>): Promise<Round> {
  const conns = await Promise.all(Array.from({ length: CONNS }, () => Conn.open(s.nodes[0]!.port)));
  try {
    return await run(conns);
  } finally {
    conns.forEach((c) => c.close());
  }
}

/** At least `n` pre-signed orders left to send. */
function ensureOrders(s: OrderSetup, n: number): void {
  const left = s.reqs.length - s.cursor.i;
  if (left < n) s.reqs.push(...presign(PREFIX, s.setup, n - left, s.nonces));
}

async function ordersPart(root: string, args: ClusterArgs): Promise<Record<string, unknown>> {
  const lmdbNode = await VenueNode.start('lmdb', nodeEnv(root, 'lmdb', {}));
  const setups: OrderSetup[] = [await orderSetup('lmdb', lmdbNode, [], null)];
  const natsOf: NatsCluster[] = [];
  for (const [name, size] of [['nats_r1', 1], ['nats_r3', 3]] as const) {
    const nats = await startNats(root, name.replace('_', '-'), size);
    natsOf.push(nats);
    const leader = await VenueNode.start(`${name} leader`, nodeEnv(root, `${name}-leader`, natsEnv(nats, `${name}-leader`)));
    const edge = await VenueNode.start(`${name} edge`, nodeEnv(root, `${name}-edge`, natsEnv(nats, `${name}-edge`, { EDGE: '1' })));
    setups.push(await orderSetup(name, edge, [leader], nats));
  }
  for (const s of setups) {
    const warm = await onFreshConns(s, (conns) => closedLoop(conns, s.reqs, s.cursor, WARM_MS));
    if (warm.errors > 0) throw new Error(`${s.name} warm-up: ${warm.errors} errors, first: ${firstErrorBody()}`);
    ensureOrders(s, Math.min(120_000, Math.ceil((warm.rate * 2 * args.durationMs) / 1000) + 1000));
    log(`${s.name}: warm-up ${Math.round(warm.rate)} orders/s`);
  }
  const processName = (s: OrderSetup, i: number) => (s.name === 'lmdb' ? 'single' : i === 0 ? 'edge' : 'leader');
  const cpuOf = async (s: OrderSetup) => [...(await Promise.all(s.nodes.map((n) => n.cpu()))), (s.nats?.nodes ?? []).reduce((us, n) => us + procCpuUs(n.process.pid), 0)];
  for (let r = 0; r < args.rounds; r++) {
    for (const s of setups) {
      ensureOrders(s, Math.min(120_000, Math.ceil(((s.best?.rate ?? 1000) * 2 * args.durationMs) / 1000) + 1000));
      const cpu0 = await cpuOf(s);
      const round = await onFreshConns(s, (conns) => closedLoop(conns, s.reqs, s.cursor, args.durationMs));
      const cpu1 = await cpuOf(s);
      s.errors += round.errors;
      if (s.best === null || round.rate > s.best.rate) {
        s.best = round;
        const perOrder = (i: number) => round1((cpu1[i]! - cpu0[i]!) / round.latenciesUs.length);
        s.cpuUsPerOrder = Object.fromEntries([...s.nodes.map((_, i) => [processName(s, i), perOrder(i)]), ...(s.nats ? [['natsServers', perOrder(s.nodes.length)]] : [])]);
      }
      log(`round ${r + 1} ${s.name}: ${Math.round(round.rate)} orders/s, p99 ${Math.round(percentile(round.latenciesUs, 99) / 1000)} ms at full load`);
    }
  }
  const rate = args.rate ?? Math.max(1, Math.round(Math.min(...setups.map((s) => s.best!.rate)) / 2));
  for (let r = 0; r < args.rounds; r++) {
    for (const s of setups) {
      ensureOrders(s, Math.ceil((rate * args.durationMs) / 1000) + 500);
      const round = await onFreshConns(s, (conns) => openLoop(conns, s.reqs, s.cursor, rate, args.durationMs));
      s.errors += round.errors;
      s.latencies.push(...round.latenciesUs);
      s.latencyRates.push(round.rate);
      log(`latency round ${r + 1} ${s.name} at ${rate} orders/s: p50 ${Math.round(percentile(round.latenciesUs, 50))} us, p99 ${Math.round(percentile(round.latenciesUs, 99))} us`);
    }
  }
  await Promise.all(setups.flatMap((s) => s.nodes.map((n) => n.stop())));
  await Promise.all(natsOf.map(stopNats));
  const sent = setups.reduce((n, s) => n + s.cursor.i, 0);
  const errors = setups.reduce((n, s) => n + s.errors, 0);
  // A few refusals (a lease renewal late on a busy host) are reported; more is a broken path.
  if (errors > sent / 100) throw new Error(`orders: ${errors} of ${sent} requests failed (first: ${firstErrorBody()})`);
  const bySetup = Object.fromEntries(
    setups.map((s) => [
      s.name,
      {
        ordersPerS: Math.round(s.best!.rate),
        p50Us: Math.round(percentile(s.latencies, 50)),
        p99Us: Math.round(percentile(s.latencies, 99)),
        latencySamples: s.latencies.length,
        achievedRate: Math.round(Math.min(...s.latencyRates)),
        fullLoadP99Us: Math.round(percentile(s.best!.latenciesUs, 99)),
        cpuUsPerOrder: s.cpuUsPerOrder,
        errors: s.errors,
      },
    ]),
  );
  return { rate, setups: bySetup, errors, firstError: errors > 0 ? firstErrorBody() : null };
}

// ---------------------------------------------------------------- 2. takeover

/** One engine node's slot in the takeover part: the node now in it, and the client writing to it. */
type Slot = { readonly id: string; node: VenueNode; lastOkAt: number; onOk: ((at: number) => void) | null; statuses: Record<string, number> };

async function takeoverPart(root: string, args: ClusterArgs): Promise<Record<string, unknown>> {
  const nats = await startNats(root, 'nats-takeover', args.takeoverNats);
  const token = randomBytes(32).toString('hex');
  const start = (id: string) => VenueNode.start(id, nodeEnv(root, id, natsEnv(nats, id, { LEASE_TTL_MS: String(args.leaseTtlMs), BENCH_SESSION_TOKEN: token })));
  const slots: Slot[] = [];
  for (const id of ['engine-a', 'engine-b']) slots.push({ id, node: await start(id), lastOkAt: 0, onOk: null, statuses: {} });
  let writing = true;
  const writer = async (slot: Slot): Promise<void> => {
    while (writing) {
      let status = 'error';
      try {
        // A user's deposit through the typed client, to whichever node is in the slot now.
        const client = new VenueClient({ baseUrl: `http://127.0.0.1:${slot.node.port}`, token, timeoutMs: 2000 });
        status = String((await client.raw('POST /api/portfolio/deposit', { body: { portfolioId: 0, amount: '1' } })).status);
      } catch {
        // refused or reset (a killed node), or no answer within 2 s
      }
      slot.statuses[status] = (slot.statuses[status] ?? 0) + 1;
      if (status === '200') {
        const at = performance.now();
        slot.lastOkAt = at;
        slot.onOk?.(at);
      }
      await sleep(WRITE_GAP_MS);
    }
  };
  const writers = slots.map((s) => writer(s));
  const times: number[] = [];
  const failures: string[] = [];
  const bound = Math.max(30_000, args.leaseTtlMs * 10);
  try {
    for (let k = 0; k < args.kills; k++) {
      // A steady state first: one node leads and its writes are answered, the other stands by.
      const t = performance.now();
      let leader: Slot | undefined;
      for (;;) {
        const roles = await Promise.all(slots.map((s) => s.node.status()));
        leader = slots.find((_, i) => roles[i]!.role === 'leader');
        const other = slots.find((_, i) => roles[i]!.role === 'standby');
        if (leader !== undefined && other !== undefined && leader.lastOkAt > performance.now() - 200) break;
        if (performance.now() - t > bound) throw new Error(`takeover ${k + 1}: no steady leader and standby within ${bound} ms (roles ${roles.map((r) => r.role).join(', ')})`);
        await sleep(50);
      }
      const standby = slots.find((s) => s !== leader)!;
      let killedAt = 0;
      const answered = new Promise<number>((resolve) => {
        standby.onOk = (at) => {
          if (killedAt > 0 && at > killedAt) resolve(at);
        };
      });
      killedAt = performance.now();
      leader.node.child.kill('SIGKILL');
      const at = await within(answered, `takeover ${k + 1}: a write answered by ${standby.id} after ${leader.id} was killed`, bound).catch((e: Error) => (failures.push(e.message), null));
      standby.onOk = null;
      if (at !== null) {
        times.push(at - killedAt);
        log(`kill ${k + 1}: ${leader.id} killed, ${standby.id} answered a write ${Math.round(at - killedAt)} ms later`);
      }
      await within(leader.node.exited, `takeover: ${leader.id} exiting after kill -9`);
      leader.node = await start(leader.id);
      leader.lastOkAt = 0;
    }
  } finally {
    writing = false;
    await within(Promise.all(writers), 'takeover: the writers ending', 10_000).catch(() => {});
    await Promise.all(slots.map((s) => s.node.stop()));
    await stopNats(nats);
  }
  if (failures.length > 0) throw new Error(failures.join('; '));
  return { leaseTtlMs: args.leaseTtlMs, natsNodes: args.takeoverNats, kills: args.kills, ...minMedianMax(times), timesMs: times.map(Math.round), writes: Object.fromEntries(slots.map((s) => [s.id, s.statuses])) };
}

// ---------------------------------------------------------------- 3. fan-out

async function fanoutPart(root: string, args: ClusterArgs): Promise<Record<string, unknown>> {
  const nats = await startNats(root, 'nats-fanout', 1);
  const nodes: VenueNode[] = [];
  const clients: ChildProcess[] = [];
  try {
    const leader = await VenueNode.start('fanout leader', nodeEnv(root, 'fanout-leader', natsEnv(nats, 'fanout-leader')));
    nodes.push(leader);
    const { channel } = (await leader.ask({ type: 'feedSetup' })) as { channel: string };
    const edges: VenueNode[] = [];
    for (const id of ['edge-1', 'edge-2']) edges.push(await VenueNode.start(`fanout ${id}`, nodeEnv(root, `fanout-${id}`, natsEnv(nats, id, { EDGE: '1' }))));
    nodes.push(...edges);
    const N = args.subscribers;
    const half = Math.floor(N / 2);
    // Socket groups: a (half, edge 1), c (the rest, edge 1), b (the rest, edge 2). One edge: a + c; two edges: a + b.
    const groups = { a: { edge: 0, n: half }, c: { edge: 0, n: N - half }, b: { edge: 1, n: N - half } } as const;
    const bulk: FanoutClient = startFanoutClient('cluster', 'bulk', clients);
    const tc = performance.now();
    for (const [g, { edge, n }] of Object.entries(groups)) await bulk.ask({ cmd: 'connect', target: g, port: edges[edge]!.port, path: '/ws/public', n });
    log(`fanout: ${half + 2 * (N - half)} sockets connected in ${Math.round(performance.now() - tc)} ms; ${N} subscribe in each round`);

    const subscribeAll = async (names: (keyof typeof groups)[], method: 'SUBSCRIBE' | 'UNSUBSCRIBE') => {
      // A subscription is answered with an ack and the book's snapshot; an unsubscription with an ack.
      for (const g of names) await bulk.ask({ cmd: 'send', target: g, text: JSON.stringify({ method, params: [channel], id: 1 }), expectFrames: (method === 'SUBSCRIBE' ? 2 : 1) * groups[g].n });
    };
    type FanRound = { rate: number; updatesPerS: number; edgeCpuUsPerMsg: number[]; edgeCpuUsPerUpdate: number[]; leaderCpuUsPerUpdate: number };
    const round = async (names: (keyof typeof groups)[]): Promise<FanRound> => {
      await subscribeAll(names, 'SUBSCRIBE');
      await bulk.ask({ cmd: 'reset' });
      bulk.progress = {};
      const progress = () => names.reduce((n, g) => n + (bulk.progress[g] ?? 0), 0);
      const cpu0 = await Promise.all(nodes.map((n) => n.cpu()));
      let published = 0;
      const t0 = performance.now();
      while (performance.now() - t0 < args.durationMs) {
        const room = WINDOW - Math.ceil(published - progress() / N);
        if (room <= 0) {
          await within(new Promise<void>((r) => (bulk.progressWaiter = r)), `cluster fanout: delivery progress (${published} updates published, ${progress()} messages delivered)`, STALL_MS);
          continue;
        }
        published += ((await leader.ask({ type: 'feed', n: room })) as { ok: number }).ok;
      }
      // Drain: until everything published has arrived, or nothing more arrives for a second.
      let last = -1;
      let lastAt = performance.now();
      while (progress() < published * N && performance.now() - lastAt < 1000) {
        if (progress() !== last) [last, lastAt] = [progress(), performance.now()];
        await new Promise<void>((r) => ((bulk.progressWaiter = r), setTimeout(r, 20)));
      }
      const seconds = (performance.now() - t0) / 1000;
      const cpu1 = await Promise.all(nodes.map((n) => n.cpu()));
      const delivered = progress();
      if (delivered < published * N) log(`fanout: ${published * N - delivered} messages undelivered after the drain`);
      const perEdge = [0, 1].map((e) => names.filter((g) => groups[g].edge === e).reduce((n, g) => n + (bulk.progress[g] ?? 0), 0));
      await subscribeAll(names, 'UNSUBSCRIBE'); // (its acks are counted after the figures are taken)
      return {
        rate: delivered / seconds,
        updatesPerS: published / seconds,
        edgeCpuUsPerMsg: perEdge.map((d, e) => (d === 0 ? 0 : (cpu1[e + 1]! - cpu0[e + 1]!) / d)),
        edgeCpuUsPerUpdate: [0, 1].map((e) => (cpu1[e + 1]! - cpu0[e + 1]!) / Math.max(1, published)),
        leaderCpuUsPerUpdate: (cpu1[0]! - cpu0[0]!) / Math.max(1, published),
      };
    };
    const one: FanRound[] = [];
    const two: FanRound[] = [];
    for (let r = 0; r < args.rounds; r++) {
      one.push(await round(['a', 'c']));
      two.push(await round(['a', 'b']));
      log(`fanout round ${r + 1}: one edge ${Math.round(one[r]!.rate)} msg/s (${one[r]!.edgeCpuUsPerMsg[0]!.toFixed(2)} us cpu/msg), two edges ${Math.round(two[r]!.rate)} msg/s (${two[r]!.edgeCpuUsPerMsg.map((x) => x.toFixed(2)).join(' and ')} us cpu/msg)`);
    }
    bulk.child.send({ cmd: 'exit' });
    const best = (xs: FanRound[]) => xs.reduce((a, b) => (b.rate > a.rate ? b : a));
    // In the one-edge rounds edge 2 has no subscriber but folds every update all the same: that
    // is an edge's fixed cost per update, which each edge pays whatever its share of subscribers.
    const idle = best(one).edgeCpuUsPerUpdate[1]!;
    const shape = (x: FanRound, edgeCount: number) => ({
      msgsPerS: Math.round(x.rate),
      updatesPerS: Math.round(x.updatesPerS),
      edgeCpuUsPerMsg: x.edgeCpuUsPerMsg.slice(0, edgeCount).map((c) => Number(c.toFixed(3))),
      edgeCpuUsPerUpdate: x.edgeCpuUsPerUpdate.slice(0, edgeCount).map(round1),
      leaderCpuUsPerUpdate: round1(x.leaderCpuUsPerUpdate),
    });
    return { subscribers: N, channel, oneEdge: shape(best(one), 1), twoEdges: shape(best(two), 2), edgeWithoutSubscribersCpuUsPerUpdate: round1(idle) };
  } finally {
    for (const c of clients) c.kill('SIGKILL');
    await Promise.all(nodes.map((n) => n.stop()));
    await stopNats(nats);
  }
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const args = parseClusterArgs(process.argv.slice(2));
  const root = mkdtempSync(join(tmpdir(), 'bench-cluster-'));
  const started = performance.now();
  try {
    const orders = args.only.includes('orders') ? await ordersPart(root, args) : null;
    const takeover = args.only.includes('takeover') ? await takeoverPart(root, args) : null;
    const fanout = args.only.includes('fanout') ? await fanoutPart(root, args) : null;
    const o = orders?.setups as Record<string, { ordersPerS: number; p50Us: number; p99Us: number }> | undefined;
    report({
      bench: 'cluster',
      metric: 'signed_orders_per_s_through_an_edge_nats_r3',
      unit: 'orders/s',
      value: o?.nats_r3?.ordersPerS ?? NaN,
      peer: 'the single process, LMDB journal',
      peerValue: o?.lmdb?.ordersPerS ?? null,
      ratio: o ? o.nats_r3!.ordersPerS / o.lmdb!.ordersPerS : null,
      p50_us: o?.nats_r3?.p50Us ?? null,
      p99_us: o?.nats_r3?.p99Us ?? null,
      extra: {
        p99RatioR3OverLmdb: o ? Number((o.nats_r3!.p99Us / o.lmdb!.p99Us).toFixed(2)) : null,
        p99RatioR1OverLmdb: o ? Number((o.nats_r1!.p99Us / o.lmdb!.p99Us).toFixed(2)) : null,
        budget: { p99RatioR3OverLmdb: 2, takeoverMs: 2000 },
        orders,
        takeover,
        fanout,
        parts: args.only,
        args: { durationMs: args.durationMs, rounds: args.rounds },
        what: 'orders: POST /api/mm/orders/place (signed relay) to the single process, and to an edge gateway forwarding to the leader over NATS (R1, R3); latency in an open loop at one fixed rate for all, due time to reply. takeover: kill -9 of the leader to the first write answered by the standby. fanout: depth messages to WebSocket subscribers on one edge, then spread over two.',
        loadGenerator: 'same 2-core host as every venue and nats-server process (this process; the subscribers in a child)',
        seconds: Math.round((performance.now() - started) / 1000),
        cores: availableParallelism(),
        loadAverage1m: Number(loadavg()[0]!.toFixed(2)),
      },
    });
  } finally {
    for (const c of children) c.kill('SIGKILL');
    await Promise.all([...natsClusters].map((c) => c.stop().catch(() => {})));
    rmSync(root, { recursive: true, force: true });
  }
}

// Ends at once when done (the writers' keep-alive sockets would hold it a few seconds more).
await main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`# bench cluster failed: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
