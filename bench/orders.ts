/**
 * Signed `POST /api/mm/orders/place` end to end over HTTP (performance.md budget: >= 5,000
 * relays/s, p99 < 5 ms at half that load; peer: the same route with viem's generic
 * recovery, in the same run).
 *
 * - The venue runs in a child process (`bench/orders.ts --server`): the real app with
 *   LMDB in a temporary DATA_DIR, the Piscina signature pool (WORKERS default, cores - 1),
 *   no timers, rate limits off for the order group. 64 MMM wallets are funded and logged in.
 *   CHAIN=none unless the environment names a chain (`extra.chain`): the floor runs none, and
 *   bench/settlement measures the route with the embedded chain and its relayer against it.
 * - This process is the load generator, ON THE SAME MACHINE (it takes CPU from the
 *   server): raw HTTP/1.1 keep-alive connections (CONNS concurrent requests), requests pre-serialised,
 *   orders pre-signed (native secp256k1 over our digest, which the tests prove equal to
 *   viem's hashTypedData) before anything is measured. Orders come in pairs at the mark (a
 *   sell, then a buy from another wallet): half of them trade, the book stays small.
 * - Throughput: closed loop (CONNS x DEPTH requests in flight), best of ROUNDS rounds,
 *   alternating with the peer. Latency: open loop at half the measured throughput; p50/p99
 *   of send-to-reply time are the reported percentiles.
 * - Peer: the same route with `services.verifier` replaced (in the child) by viem's
 *   `hashTypedData` + `recoverTypedDataAddress` on the server's main thread.
 * - Also reported: server CPU time per order (child process, all threads), which does not
 *   depend on the share of the shared machine the server got; and, for the latency phase,
 *   where the server's time went (means of the venue's own `order_entry_stage_seconds`,
 *   `engine_command_apply_seconds` and `journal_commit_seconds`), the share of requests the
 *   server answered within 5 ms (`http_request_duration_seconds`, request read to reply
 *   written) and how late this generator sent due requests (its 1 ms timer and its share of
 *   the CPU; included in the reported latencies, which count from the due time).
 * - The same breakdown of the server's time for the best throughput round
 *   (`throughputPhaseServer`): at full load requests queue for the pool and the commit.
 * - CPU per order split by thread (`serverCpuUsPerOrderByThread` at full load,
 *   `latencyPhaseServerCpu` at half load: the main thread, the pool worker, V8's and libuv's
 *   helpers) and the generator's own CPU per order: on a shared 2-core machine these say
 *   whether the server ran out of CPU or waited. In the latency phase, the event-loop delay
 *   (p99, max) of the server's main thread and of this generator: stalls on either side
 *   (GC, long turns, losing the CPU) are what the p99 is made of.
 * - The latency phase gets its own pre-signed orders: it never runs out and drops below half load.
 *   Its percentiles count from each request's due time (the reported p50/p99) and, in
 *   `latencyFromSendUs`, from its write (without the generator's own lateness).
 * - The floor (`extra.floor`, bench/lib/floorServer.ts): after the venue has exited, the
 *   same generator at the same rate against a server that makes only the hops the route must
 *   make (uWS, the signature through the same micro-batcher and pool, an LMDB commit and its
 *   fdatasync before the reply) and nothing else: what this machine gives those hops alone.
 *   Where the venue's p99 is near or under the floor's, the machine is the limit, not the venue.
 *   Its CPU time an order by thread (`extra.floor.cpuUsPerOrderByThread`) is what those hops
 *   cost at that rate; `extra.mainThreadOverApplyAtHalfLoad` and `p99OverFloorAtHalfLoad` are
 *   the budget's two ratios.
 * - `--profile`: a CPU profile of the server's main thread over the latency phase (the
 *   inspector's sampler, 200 us), printed as microseconds an order by stage of the route, with
 *   each stage's top functions, and kept in `extra.latencyPhaseStages` (bench/lib/cpuStages.ts).
 * - `BENCH_PROFILE_DIR=dir` writes a CPU profile of the server's main thread there;
 *   `BENCH_SERVER_ARGS` passes other Node or V8 flags to the server (`--trace-gc-nvp`,
 *   `--max-semi-space-size=64`; the pools' workers are started without V8's, which are the
 *   process's: workers/taskWorker.ts).
 * - The server's main-thread stalls of 10 ms or more in the latency phase, and the garbage
 *   collections (`extra.latencyPhaseServerStalls`: count, sum, longest, the collections' time
 *   inside them, collections by kind; bench/lib/stallProbe.ts). `BENCH_STALLS_FILE=file` writes
 *   every stall and collection there, in the time base of the CPU profile, to look each one up.
 * - `--snapshot-every=N`: periodic snapshots every N commands during the run (default none),
 *   written by the snapshot worker; with `--snapshot-in-thread`, on the main thread as before it
 *   (docs/persistence.md "Snapshots off the main thread").
 */
import { availableParallelism, loadavg } from 'node:os';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { hashTypedData, recoverTypedDataAddress, type Hex } from 'viem';
import { report } from './lib/report.ts';
import { freshNonces, presign as presignOrders, walletAddresses } from './lib/signedOrders.ts';
import { percentile } from './lib/stats.ts';
import { orderEntryBreakdown } from './lib/venueMetrics.ts';
import { forkFloor, type ForkedFloor } from './lib/floorServer.ts';
import { Conn, closedLoop, firstErrorBody, openLoop, type Round } from './lib/httpLoad.ts';
import { forkBenchServer, runBenchFile, startBenchVenue, type BenchVenueSetup } from './lib/benchServer.ts';
import { perThreadUsPerItem, threadCpuMicros } from './lib/threadCpu.ts';
import { StallProbe, type StallReport } from './lib/stallProbe.ts';
import { writeFileSync } from 'node:fs';
import { cpuProfiler, formatStages, stageTable, type CpuProfile } from './lib/cpuStages.ts';
import { Session } from 'node:inspector';
import { placeOrderTypes, type PlaceOrderMessage } from '../workers/eip712/types.ts';
import type { SignatureVerifier } from '../workers/signatureVerifier.ts';
import type { VerifyBatch, VerifyResult } from '../workers/verifyBatch.ts';

// One request in flight per connection: pipelined requests whose replies are asynchronous
// get no reply from the HTTP server at present (reported; see docs/order-entry.md).
const CONNS = 128;
const DEPTH = 1;
const ROUND_MS = 2500;
const PEER_ROUND_MS = 2000;
const ROUNDS = 2;
const LATENCY_MS = 3000;
const PREFIX = 'orders-bench';

type Setup = BenchVenueSetup & { port: number };
type ToChild = { type: 'verifier'; which: 'ours' | 'viem' } | { type: 'cpu' } | { type: 'resetMetrics' } | { type: 'metrics' } | { type: 'profile'; on: boolean } | { type: 'stop' };
type FromChild = { type: 'ready'; setup: Setup } | { type: 'ok' } | { type: 'profile'; profile: CpuProfile } | { type: 'cpu'; micros: number; threads: Record<string, number> } | { type: 'metrics'; text: string; loopDelayUs: { p99: number; max: number }; stalls: StallReport };

// ---------------------------------------------------------------- the venue (child)
async function server(): Promise<void> {
  const { app, dataDir, setup } = await startBenchVenue('orders', walletAddresses(PREFIX));
  const ours = app.services.verifier;
  // The server's main-thread stalls in the latency phase (GC, work of other requests, losing the CPU).
  const serverLoopDelay = monitorEventLoopDelay({ resolution: 1 });
  const stallProbe = new StallProbe(10);
  const heapSampling = samplingHeapProfiler(process.env.BENCH_HEAP_PROFILE);
  const profiler = cpuProfiler();
  const viem: SignatureVerifier = {
    async verify(batch: VerifyBatch): Promise<VerifyResult[]> {
      const out: VerifyResult[] = [];
      for (const item of batch.items) {
        const message = item.message as PlaceOrderMessage;
        const typed = { domain: batch.domain!, types: placeOrderTypes, primaryType: 'PlaceOrder', message } as const;
        out.push({ digest: hashTypedData(typed), signer: await recoverTypedDataAddress({ ...typed, signature: item.signature as Hex }) });
      }
      return out;
    },
    stats: () => ours.stats(),
    close: async () => {},
  };
  // The peer runs the very same route; only the verifier differs (gateway/orders reads services.verifier per request).
  const services = app.services as unknown as { verifier: SignatureVerifier };
  process.on('message', (m: ToChild) => {
    if (m.type === 'verifier') {
      services.verifier = m.which === 'viem' ? viem : ours;
      process.send!({ type: 'ok' } satisfies FromChild);
    } else if (m.type === 'cpu') {
      const u = process.cpuUsage();
      process.send!({ type: 'cpu', micros: u.user + u.system, threads: threadCpuMicros() } satisfies FromChild);
    } else if (m.type === 'resetMetrics') {
      app.services.metrics.registry.resetMetrics();
      serverLoopDelay.reset();
      serverLoopDelay.enable();
      stallProbe.start();
      heapSampling.start();
      process.send!({ type: 'ok' } satisfies FromChild);
    } else if (m.type === 'profile') {
      if (m.on) void profiler.start().then(() => process.send!({ type: 'ok' } satisfies FromChild));
      else void profiler.stop().then((profile) => process.send!({ type: 'profile', profile } satisfies FromChild));
    } else if (m.type === 'metrics') {
      serverLoopDelay.disable();
      const stalls = stallProbe.stop();
      heapSampling.stop();
      const loopDelayUs = { p99: Math.round(serverLoopDelay.percentile(99) / 1000), max: Math.round(serverLoopDelay.max / 1000) };
      void app.services.metrics.text().then((text) => process.send!({ type: 'metrics', text, loopDelayUs, stalls } satisfies FromChild));
    } else {
      services.verifier = ours;
      void app.close().then(() => {
        rmSync(dataDir, { recursive: true, force: true });
        process.exit(0);
      });
    }
  });
  process.send!({ type: 'ready', setup: { port: app.port, ...setup } } satisfies FromChild);
}

/**
 * `BENCH_HEAP_PROFILE=file`: V8's sampling heap profiler over each measured phase of the
 * server (what allocated the garbage its collections then sweep), the last phase written to
 * `file` (a .heapprofile for Chrome DevTools); otherwise nothing. With `BENCH_HEAP_LIVE=1` it
 * keeps only what is still alive at the phase's end (what the scavenges copied and promoted:
 * the read models' records), instead of every allocation.
 */
function samplingHeapProfiler(file: string | undefined): { start(): void; stop(): void } {
  if (file === undefined || file === '') return { start: () => {}, stop: () => {} };
  const session = new Session();
  session.connect();
  const collected = process.env.BENCH_HEAP_LIVE !== '1';
  return {
    start: () => session.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: collected, includeObjectsCollectedByMinorGC: collected } as object),
    stop: () =>
      session.post('HeapProfiler.stopSampling', (err, r) => {
        if (err === null) writeFileSync(file, JSON.stringify((r as { profile: unknown }).profile));
      }),
  };
}

// ---------------------------------------------------------------- the load generator
const presign = (setup: Setup, count: number, nonces: bigint[]): Buffer[] => presignOrders(PREFIX, setup, count, nonces);

/**
 * Node flags for the server child: `BENCH_PROFILE_DIR=dir` writes a V8 CPU profile of its main
 * thread there; `BENCH_SERVER_ARGS="--trace-gc ..."` passes any others (flags NODE_OPTIONS refuses).
 */
function profileArgs(): string[] {
  const dir = process.env.BENCH_PROFILE_DIR;
  const extra = (process.env.BENCH_SERVER_ARGS ?? '').split(' ').filter((a) => a !== '');
  return [...(dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : []), ...extra];
}

/**
 * The floor subject (lib/floorServer.ts): its own connections, 1 s of warm-up, then LATENCY_MS
 * at `rate`, with the floor's CPU time per order by thread over the measured part (the hops'
 * own cost at that rate: a loop turn, a pool message, a commit and a reply per few orders). It
 * checks no nonces, so the orders already sent to the venue serve again.
 */
async function floorRound(floor: ForkedFloor, reqs: Buffer[], rate: number): Promise<Round & { cpuUsPerOrderByThread: Record<string, number>; cpuUsPerOrder: number }> {
  const conns = await Promise.all(Array.from({ length: CONNS }, () => Conn.open(floor.port)));
  const cursor = { i: 0 };
  await openLoop(conns, reqs, cursor, rate, 1000);
  const before = await floor.cpu();
  const round = await openLoop(conns, reqs, cursor, rate, LATENCY_MS);
  const after = await floor.cpu();
  for (const c of conns) c.close();
  if (round.errors > 0) throw new Error(`floor: ${round.errors} errors`);
  const n = round.latenciesUs.length;
  const total = Object.keys(after).reduce((sum, k) => sum + after[k]! - (before[k] ?? 0), 0);
  return { ...round, cpuUsPerOrderByThread: perThreadUsPerItem(before, after, n), cpuUsPerOrder: Math.round(total / n) };
}

/** `a / b` to two decimals; null when either is missing. */
function ratioOf(a: number | null | undefined, b: number | null | undefined): number | null {
  return a === undefined || a === null || b === undefined || b === null || !(b > 0) ? null : Math.round((a / b) * 100) / 100;
}

/** The stall probe's figures without its lists (those go to BENCH_STALLS_FILE). */
function stallSummary(r: StallReport) {
  const ms = (x: number) => Number(x.toFixed(1));
  const gc = Object.fromEntries(Object.entries(r.gcByKind).map(([k, v]) => [k, { count: v.count, totalMs: ms(v.totalMs), maxMs: ms(v.maxMs) }]));
  return { overMs: r.minMs, count: r.count, totalMs: ms(r.totalMs), maxMs: ms(r.maxMs), gcMsInStalls: ms(r.gcMsInStalls), gc };
}

const us = (xs: number[], p: number): number => Math.round(percentile(xs, p));

async function main(): Promise<void> {
  // Flags reach the server child through its environment (it is forked with `--server` only).
  let profiling = false;
  for (const arg of process.argv.slice(2)) {
    const every = /^--snapshot-every=(\d+)$/.exec(arg);
    if (every) process.env.BENCH_SNAPSHOT_EVERY_COMMANDS = every[1];
    else if (arg === '--snapshot-in-thread') process.env.BENCH_SNAPSHOT_IN_THREAD = '1';
    else if (arg === '--profile') profiling = true;
    else throw new Error(`orders: unknown flag ${arg} (--snapshot-every=N, --snapshot-in-thread, --profile)`);
  }
  const srv = forkBenchServer<ToChild, FromChild>('orders', fileURLToPath(import.meta.url), profileArgs());
  const { ask } = srv;
  const ready = await ask(null);
  if (ready.type !== 'ready') throw new Error('server did not start');
  const setup = ready.setup;
  const cpuSample = async () => (await ask({ type: 'cpu' })) as { micros: number; threads: Record<string, number> };

  // A PlaceOrder does not name its signer: wallets need disjoint nonces or identical orders share an orderId.
  const nonces = freshNonces();
  const signStart = performance.now();
  const reqs = presign(setup, 4000, nonces);
  const conns = await Promise.all(Array.from({ length: CONNS }, () => Conn.open(setup.port)));
  const cursor = { i: 0 };
  const warm = await closedLoop(conns, reqs, cursor, 1000, DEPTH); // warm-up: JIT, worker start, LMDB
  if (warm.errors > 0) throw new Error(`warm-up: ${warm.errors} errors, first: ${firstErrorBody()}`);
  // Enough pre-signed orders for every round (ours and the peer's) at twice the warm-up rate, signed
  // before measuring; each round tops up again from the fastest rate seen so far (topUp).
  let fastest = warm.rate;
  const topUp = (ms: number) => {
    const needed = Math.min(200_000, Math.ceil((fastest * 2 * ms) / 1000) + 2000);
    if (needed > reqs.length - cursor.i) reqs.push(...presign(setup, needed - (reqs.length - cursor.i), nonces));
  };
  topUp(ROUNDS * (ROUND_MS + PEER_ROUND_MS) + LATENCY_MS);
  process.stderr.write(`# warm-up ${Math.round(warm.rate)}/s; pre-signed ${reqs.length} orders in ${Math.round(performance.now() - signStart)} ms (incl. warm-up)\n`);

  const oursRounds: Round[] = [];
  const peerRounds: Round[] = [];
  let oursCpuUsPerOrder = Infinity;
  let throughputCpuByThread: Record<string, number> = {};
  let generatorCpuUsPerOrder = 0;
  const throughputServer: ReturnType<typeof orderEntryBreakdown>[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    await ask({ type: 'verifier', which: 'ours' });
    topUp(ROUND_MS + PEER_ROUND_MS);
    await ask({ type: 'resetMetrics' });
    const c0 = await cpuSample();
    const g0 = process.cpuUsage();
    const ours = await closedLoop(conns, reqs, cursor, ROUND_MS, DEPTH);
    const g1 = process.cpuUsage(g0);
    const c1 = await cpuSample();
    const roundMetrics = (await ask({ type: 'metrics' })) as Extract<FromChild, { type: 'metrics' }>;
    throughputServer.push({ ...orderEntryBreakdown(roundMetrics.text), mainThreadLoopDelayUs: roundMetrics.loopDelayUs } as ReturnType<typeof orderEntryBreakdown>);
    const usPerOrder = (c1.micros - c0.micros) / ours.latenciesUs.length;
    if (usPerOrder < oursCpuUsPerOrder) {
      oursCpuUsPerOrder = usPerOrder;
      throughputCpuByThread = perThreadUsPerItem(c0.threads, c1.threads, ours.latenciesUs.length);
      generatorCpuUsPerOrder = (g1.user + g1.system) / ours.latenciesUs.length;
    }
    oursRounds.push(ours);
    fastest = Math.max(fastest, ours.rate);
    await ask({ type: 'verifier', which: 'viem' });
    peerRounds.push(await closedLoop(conns, reqs, cursor, PEER_ROUND_MS, DEPTH));
    process.stderr.write(`# round ${r + 1}: ours ${Math.round(ours.rate)}/s, peer ${Math.round(peerRounds[r]!.rate)}/s\n`);
  }
  await ask({ type: 'verifier', which: 'ours' });
  const best = oursRounds.reduce((a, b) => (b.rate > a.rate ? b : a));
  const peerBest = peerRounds.reduce((a, b) => (b.rate > a.rate ? b : a));
  // The latency phase must not run out of pre-signed orders (it would then run below half load).
  const latencyRate = best.rate / 2;
  const latencyNeeds = Math.ceil(latencyRate * (LATENCY_MS / 1000)) + 500;
  if (reqs.length - cursor.i < latencyNeeds) reqs.push(...presign(setup, latencyNeeds - (reqs.length - cursor.i), nonces));
  await ask({ type: 'resetMetrics' });
  const t0 = await cpuSample();
  // The generator's own event-loop stalls (GC, losing the CPU): due requests wait them out.
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  if (profiling) await ask({ type: 'profile', on: true });
  loopDelay.enable();
  const latency = await openLoop(conns, reqs, cursor, latencyRate, LATENCY_MS);
  loopDelay.disable();
  const t1 = await cpuSample();
  const profiled = profiling ? ((await ask({ type: 'profile', on: false })) as Extract<FromChild, { type: 'profile' }>).profile : null;
  const stages = profiled === null ? null : stageTable(profiled, latency.latenciesUs.length, fileURLToPath(new URL('..', import.meta.url)));
  if (stages !== null) process.stderr.write(formatStages(stages));
  const latencyCpu = { totalUsPerOrder: Math.round((t1.micros - t0.micros) / latency.latenciesUs.length), byThreadUsPerOrder: perThreadUsPerItem(t0.threads, t1.threads, latency.latenciesUs.length) };
  const scraped = (await ask({ type: 'metrics' })) as Extract<FromChild, { type: 'metrics' }>;
  if (process.env.BENCH_STALLS_FILE) writeFileSync(process.env.BENCH_STALLS_FILE, JSON.stringify(scraped.stalls));
  const server = { ...orderEntryBreakdown(scraped.text), mainThreadLoopDelayUs: scraped.loopDelayUs };
  const errors = [...oursRounds, ...peerRounds, latency].reduce((n, r) => n + r.errors, 0);
  const firstError = [...oursRounds, ...peerRounds, latency].find((r) => r.firstError !== null)?.firstError ?? null;
  conns.forEach((c) => c.close());
  await srv.stop();
  // The floor subject at the same rate, once the venue has exited: what the machine gives the bare hops.
  const floorServer = await forkFloor(setup.domain);
  const floor = await floorRound(floorServer, reqs, latencyRate).finally(() => floorServer.stop());
  if (errors > 0) throw new Error(`${errors} requests failed (first status ${firstError}: ${firstErrorBody()}): the bench would measure a broken path`);

  report({
    bench: 'orders',
    metric: 'signed_place_relays_per_s',
    unit: 'orders/s',
    value: best.rate,
    peer: 'same route, viem hashTypedData + recoverTypedDataAddress',
    peerValue: peerBest.rate,
    ratio: best.rate / peerBest.rate,
    p50_us: percentile(latency.latenciesUs, 50),
    p99_us: percentile(latency.latenciesUs, 99),
    extra: {
      what: 'POST /api/mm/orders/place, signed (phase two): parse, checks, signature recovery in the pool, engine (half the orders trade), LMDB journal commit, relay calldata',
      loadGenerator: 'same machine, this process (raw HTTP/1.1 keep-alive, no pipelining); the server is a child process',
      connections: CONNS,
      inFlightPerConnection: DEPTH,
      latency: `open loop at ${Math.round(latency.rate)} orders/s achieved (target ${Math.round(best.rate / 2)}: half the best throughput), due time to reply`,
      throughputLatencyP50us: Math.round(percentile(best.latenciesUs, 50)),
      throughputLatencyP99us: Math.round(percentile(best.latenciesUs, 99)),
      throughputPhaseServer: throughputServer[oursRounds.indexOf(best)],
      serverCpuUsPerOrder: Number(oursCpuUsPerOrder.toFixed(1)),
      serverCpuUsPerOrderByThread: throughputCpuByThread,
      generatorCpuUsPerOrder: Math.round(generatorCpuUsPerOrder),
      latencyPhaseServer: server,
      latencyPhaseServerCpu: latencyCpu,
      latencyPhaseServerStalls: stallSummary(scraped.stalls),
      ...(stages !== null ? { latencyPhaseStages: stages } : {}),
      latencyFromSendUs: { p50: us(latency.sentUs!, 50), p99: us(latency.sentUs!, 99) },
      latencyPhaseGeneratorSendLagUs: { p50: us(latency.sendLagUs!, 50), p99: us(latency.sendLagUs!, 99) },
      latencyPhaseGeneratorLoopDelayUs: { p99: Math.round(loopDelay.percentile(99) / 1000), max: Math.round(loopDelay.max / 1000) },
      floor: {
        what: 'after the venue exited, its own process and pool, same generator and rate: uWS, JSON parse, the signature through the same micro-batcher and pool, an LMDB put acknowledged after its fdatasync, a reply; no venue logic (bench/lib/floorServer.ts)',
        rate: Math.round(floor.rate),
        p50Us: us(floor.latenciesUs, 50),
        p99Us: us(floor.latenciesUs, 99),
        fromSendUs: { p50: us(floor.sentUs!, 50), p99: us(floor.sentUs!, 99) },
        cpuUsPerOrder: floor.cpuUsPerOrder,
        cpuUsPerOrderByThread: floor.cpuUsPerOrderByThread,
      },
      // The budget's ratios (docs/performance.md): the main thread's CPU an
      // order at half load over the engine's mean apply, and the p99 at half load over the floor's.
      mainThreadOverApplyAtHalfLoad: ratioOf(latencyCpu.byThreadUsPerOrder.main, server.engineApplyMeanUs),
      p99OverFloorAtHalfLoad: ratioOf(percentile(latency.latenciesUs, 99), percentile(floor.latenciesUs, 99)),
      serverOrdersPerCpuSecond: Math.round(1e6 / oursCpuUsPerOrder),
      budget: { ordersPerS: 8000, p99OverFloorAtHalfLoad: 1.25, mainThreadOverApplyAtHalfLoad: 2, mainThreadLoopDelayMaxUs: 5000 },
      rounds: ROUNDS,
      snapshots: process.env.BENCH_SNAPSHOT_EVERY_COMMANDS === undefined ? 'none' : `every ${process.env.BENCH_SNAPSHOT_EVERY_COMMANDS} commands, ${process.env.BENCH_SNAPSHOT_IN_THREAD === '1' ? 'main thread' : 'snapshot worker'}`,
      chain: process.env.CHAIN || 'none',
      cores: availableParallelism(),
      loadAverage1m: Number(loadavg()[0]!.toFixed(2)),
    },
  });
}

await runBenchFile('orders', main, server);
