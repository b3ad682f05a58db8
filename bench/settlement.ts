/**
 * Settlement on chain (performance.md budget, docs/chain.md "The relayer"): fills settled per
 * second through the venue's relayer and the embedded chain (anvil from npm, 1-second blocks,
 * the defaults of `npm start`), gas per fill, settlement lag at 300 fills/s, what the
 * relayer costs the order route, and the same on chain for RFQ fills and for the positions of
 * a series settled at its expiry.
 *
 * - The venue runs in a child process (`bench/settlement.ts --server`): the real app with
 *   CHAIN=embedded, LMDB in a temporary DATA_DIR, 64 funded market-maker wallets (their
 *   portfolio 0). This process sends signed orders over HTTP (bench/lib/httpLoad.ts), in
 *   pairs at the mark (half the orders trade). The child stamps each trade when its command
 *   commits and each batch when the relayer reports it included (a receipt), and reads every
 *   included batch's receipt for its gas.
 * - Throughput (`value`): a backlog drained. The chain's block production is paused
 *   (`evm_setIntervalMining 0`), a burst of orders is sent as fast as the route takes them
 *   (closed loop; the relayer cuts and sends what it may, nothing is included), production
 *   resumes on 1-second blocks, and the figure is the burst's fills / the time from the resume
 *   to the last one included: the relayer's and the chain's rate, not the order route's.
 * - Peer (`peerValue`): the same fills one per transaction, the same relayer with
 *   SETTLE_MAX_FILLS=1 (and SETTLE_MAX_IN_FLIGHT=64, its most), in its own venue, after ours.
 * - Gas per fill (`extra.gasPerFill`), from receipts, calldata and the signed orders' checks
 *   included: `batched` the median of the burst's 100-fill batches (64 wallets trading each
 *   other: steady state), `sweep` one taker order meeting 90 resting makers (one batch),
 *   `single` one fill alone in its batch. Sweep and single use series the burst did not touch.
 * - Lag (`p50_us`, `p99_us`): open loop at 600 orders/s (300 fills/s) for LAG_MS, each fill
 *   from its commit to its batch's receipt.
 * - The order route (`extra.orderRoute`): bench/orders' own server twice, CHAIN=none and
 *   CHAIN=embedded, both warm and alive; at half the CHAIN=none venue's throughput, open-loop
 *   rounds alternate between them; p99 of each and the ratio (budget 1.1).
 * - RFQ fills on chain (`extra.rfq`: `fillsPerSecond`, `gasPerFill`, `fills`): in a third venue,
 *   whose clock this process moves (it starts at TIMED_START_MS, BENCH_CLOCK_START:
 *   bench/lib/benchClock.ts, bench/lib/settlementTimed.ts), RFQ fills over HTTP (request, signed
 *   quote, signed fill: docs/rfq.md) adding to positions held, a backlog drained as the fills
 *   throughput above; gas per RFQ fill the median of the 100-fill batches' receipts
 *   (bench/lib/settlementRfq.ts).
 * - Expiry settlement on chain (`extra.expiry`: `positionsPerSecond`, `gasPerPosition`,
 *   `positions`): in the same venue, one position per wallet in every series of the nearest
 *   expiry, on chain; then the venue's clock a minute past 08:00 UTC and its clock command:
 *   positions / the time from the command to the last SETTLE_POSITION's batch included, gas per
 *   position the median of the batches of SETTLE_POSITION items only, from their receipts
 *   (after refunds) (bench/lib/settlementExpiry.ts).
 *
 * `--only=fills,rfq,expiry,route` runs some parts (default all): `fills` is the throughput,
 * gas, lag and peer above (the JSON line's value: null without it), `route` the order route.
 */
import { availableParallelism, loadavg } from 'node:os';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createPublicClient, http, type Hex } from 'viem';
import { report } from './lib/report.ts';
import { freshNonces, presign, presignOrders, walletAddresses, WALLETS, type BenchOrder } from './lib/signedOrders.ts';
import { percentile } from './lib/stats.ts';
import { Conn, closedLoop, firstErrorBody, openLoop, type Round } from './lib/httpLoad.ts';
import { forkBenchServer, runBenchFile, startBenchVenue, type BenchServer, type BenchVenueSetup } from './lib/benchServer.ts';
import { within } from './lib/deadline.ts';
import { BENCH_CLOCK_START, benchClockFromEnv } from './lib/benchClock.ts';
import { parseSettlementParts, SETTLEMENT_PARTS, timedChild, TIMED_START_MS, type SettlementPart, type TimedFrom, type TimedTo, type TimedVenue } from './lib/settlementTimed.ts';
import { rfqPhase } from './lib/settlementRfq.ts';
import { expiryPhase } from './lib/settlementExpiry.ts';

const PREFIX = 'settlement-bench';
const CONNS = 64;
const BURST_MS = 3000;
const PEER_BURST_MS = 300;
const LAG_RATE = 600;
const LAG_MS = 8000;
const ROUTE_ROUNDS = 2;
const ROUTE_ROUND_MS = 2500;
const DRAIN_MS = 90_000;
/** RFQ fills: the warm-up's, and the backlog's. */
const RFQ_WARMUP = 300;
const RFQ_FILLS = 2000;
/** The embedded chain as `npm start` runs it. */
const CHAIN_ENV = { CHAIN: 'embedded', CHAIN_BLOCK_TIME_MS: '1000' };

type Setup = BenchVenueSetup & { port: number };
type Batch = { batch: number; fills: number; gasUsed: number };
type Drained = { type: 'drained'; fills: number; spanMs: number; lagsMs: number[]; batches: Batch[] };
type ToChild = { type: 'reset' } | { type: 'pause' } | { type: 'resume' } | { type: 'drain' } | TimedTo | { type: 'stop' };
type FromChild = { type: 'ready'; setup: Setup } | { type: 'ok' } | Drained | TimedFrom | { type: 'failed'; message: string };

// ---------------------------------------------------------------- the venue (child)
async function server(): Promise<void> {
  // BENCH_CLOCK_START: the timed venue's injected clock; otherwise the real clock.
  const clock = benchClockFromEnv();
  const { app, dataDir, setup } = await startBenchVenue('settlement', walletAddresses(PREFIX), clock === null ? {} : { clock: clock.now });
  const timed = clock === null ? null : timedChild(app, clock);
  const chain = app.chain;
  if (chain === null || app.services.chain.info.rpcUrl === null) throw new Error('settlement: the venue started without a chain (CHAIN=embedded expected)');
  const rpc = createPublicClient({ transport: http(app.services.chain.info.rpcUrl) });
  let committed = new Map<string, number>();
  let included = new Map<string, number>();
  let batches: { batch: number; tx: Hex; fills: number }[] = [];
  /** When the chain's block production resumed after a pause (the drain of a backlog counts from it), or null. */
  let resumedAt: number | null = null;
  const mining = (seconds: number) => rpc.request({ method: 'evm_setIntervalMining' as never, params: [seconds] as never });
  app.services.pipeline.onEvents((events) => {
    const now = performance.now();
    for (const e of events) if (e.type === 'trade') committed.set(e.tradeId, now);
  });
  app.services.chain.statusListeners.push((m) => {
    if (m.status !== 'included' || m.txHash === null) return;
    const now = performance.now();
    let fills = 0;
    for (const id of m.tradeIds) {
      if (!committed.has(id) || included.has(id)) continue;
      included.set(id, now);
      fills++;
    }
    if (fills > 0) batches.push({ batch: m.batch, tx: m.txHash, fills });
  });
  const drain = async (): Promise<FromChild> => {
    const deadline = performance.now() + DRAIN_MS;
    while (included.size < committed.size) {
      const halted = chain.metrics()?.halted ?? null;
      if (halted !== null) return { type: 'failed', message: `settlement halted: ${halted}` };
      if (performance.now() > deadline) return { type: 'failed', message: `${committed.size - included.size} of ${committed.size} fills not on chain after ${DRAIN_MS} ms` };
      await new Promise((r) => setTimeout(r, 20));
    }
    let first = resumedAt ?? Infinity;
    let last = 0;
    const lagsMs: number[] = [];
    for (const [id, at] of committed) {
      const inc = included.get(id)!;
      if (resumedAt === null && at < first) first = at;
      if (inc > last) last = inc;
      lagsMs.push(inc - at);
    }
    const receipts = await Promise.all(batches.map((b) => rpc.getTransactionReceipt({ hash: b.tx })));
    return { type: 'drained', fills: committed.size, spanMs: last - first, lagsMs, batches: batches.map((b, i) => ({ batch: b.batch, fills: b.fills, gasUsed: Number(receipts[i]!.gasUsed) })) };
  };
  process.on('message', (m: ToChild) => {
    if (m.type === 'reset') {
      committed = new Map();
      included = new Map();
      batches = [];
      resumedAt = null;
      process.send!({ type: 'ok' } satisfies FromChild);
    } else if (m.type === 'pause' || m.type === 'resume') {
      void mining(m.type === 'pause' ? 0 : Number(process.env.CHAIN_BLOCK_TIME_MS) / 1000).then(
        () => {
          if (m.type === 'resume') resumedAt = performance.now();
          process.send!({ type: 'ok' } satisfies FromChild);
        },
        (e: unknown) => process.send!({ type: 'failed', message: `evm_setIntervalMining: ${e instanceof Error ? e.message : String(e)}` } satisfies FromChild),
      );
    } else if (m.type === 'drain' || m.type === 'markets' || m.type === 'advance' || m.type === 'expire') {
      const answer: Promise<FromChild> = m.type === 'drain' ? drain() : timed === null ? Promise.resolve<FromChild>({ type: 'failed', message: `${m.type}: this venue has no injected clock (${BENCH_CLOCK_START})` }) : timed(m);
      void answer.then(
        (r) => process.send!(r),
        (e: unknown) => process.send!({ type: 'failed', message: e instanceof Error ? e.message : String(e) } satisfies FromChild),
      );
    } else {
      void app.close().then(() => {
        rmSync(dataDir, { recursive: true, force: true });
        process.exit(0);
      });
    }
  });
  process.send!({ type: 'ready', setup: { port: app.port, ...setup } } satisfies FromChild);
}

// ---------------------------------------------------------------- the load generator
type Venue = { srv: BenchServer<ToChild, FromChild>; setup: Setup; conns: Conn[]; nonces: bigint[] };

async function startVenue(env: Record<string, string>): Promise<Venue> {
  const srv = forkBenchServer<ToChild, FromChild>('settlement', fileURLToPath(import.meta.url), [], { ...CHAIN_ENV, ...env });
  const ready = await srv.ask(null);
  if (ready.type !== 'ready') throw new Error('settlement: the server did not start');
  if (ready.setup.series.length < 8) throw new Error(`settlement: ${ready.setup.series.length} live series, 8 needed`);
  const conns = await Promise.all(Array.from({ length: CONNS }, () => Conn.open(ready.setup.port)));
  return { srv, setup: ready.setup, conns, nonces: freshNonces() };
}

async function drained(v: Venue): Promise<Drained> {
  const r = await within(v.srv.ask({ type: 'drain' }), 'settlement: every fill on chain', DRAIN_MS + 30_000);
  if (r.type === 'failed') throw new Error(r.message);
  if (r.type !== 'drained') throw new Error(`settlement: unexpected answer ${r.type}`);
  return r;
}

function checked(what: string, r: Round): Round {
  if (r.errors > 0) throw new Error(`${what}: ${r.errors} requests failed (first status ${r.firstError}: ${firstErrorBody()})`);
  return r;
}

/** Orders from the burst's series only (the first six): sweep and single use the last two. */
function burstSetup(setup: Setup): Setup {
  return { ...setup, series: setup.series.slice(0, 6) };
}

/** Sends `reqs` one after another on one connection, each after the previous reply. */
async function sequential(conn: Conn, reqs: Buffer[]): Promise<void> {
  for (const req of reqs) {
    const status = await within(new Promise<number>((resolve) => conn.send(req, (s) => resolve(s))), 'settlement: an order reply');
    if (status !== 200) throw new Error(`settlement: an order was answered ${status}: ${firstErrorBody()}`);
  }
}

/**
 * A backlog, then its drain: block production paused, a burst of orders as fast as the route
 * takes them (the relayer cuts and sends what it can; nothing is included), production resumed,
 * and every fill on chain. The rate counts from the resume.
 */
async function burst(v: Venue, ms: number): Promise<{ fills: number; rate: number; drained: Drained; orderRate: number }> {
  const reqs = presign(PREFIX, burstSetup(v.setup), Math.max(2000, Math.ceil((ms / 1000) * 8000)), v.nonces);
  await v.srv.ask({ type: 'reset' });
  await v.srv.ask({ type: 'pause' });
  const round = checked('burst', await closedLoop(v.conns, reqs, { i: 0 }, ms, 1));
  await v.srv.ask({ type: 'resume' });
  const d = await drained(v);
  return { fills: d.fills, rate: d.fills / (d.spanMs / 1000), drained: d, orderRate: round.rate };
}

const median = (xs: number[]) => percentile(xs, 50);

/** The fills part: throughput, gas a fill, lag (ours), and the peer. */
async function fillsPart() {
  // --- ours: the defaults (100 fills, 250 ms, 16 in flight)
  const ours = await startVenue({});
  await burst(ours, 500); // warm-up: JIT, the relayer's first batches, the signature pool
  const through = await burst(ours, BURST_MS);
  const full = through.drained.batches.filter((b) => b.fills === 100);
  if (full.length === 0) throw new Error('settlement: no 100-fill batch in the burst');
  const batched = median(full.map((b) => b.gasUsed / b.fills));
  process.stderr.write(`# burst: ${through.fills} fills (orders at ${Math.round(through.orderRate)}/s), settled at ${Math.round(through.rate)} fills/s; ${full.length} full batches\n`);

  // Sweep: 90 asks from wallets 1..63 on a series of its own, then one buy from wallet 0 meets them all.
  const sweepSeries = ours.setup.series[6]!;
  const asks: BenchOrder[] = Array.from({ length: 90 }, (_, i) => ({ wallet: 1 + (i % (WALLETS - 1)), seriesId: sweepSeries.seriesId, expiry: sweepSeries.expiry, isBuy: false, tick: sweepSeries.markTick, size: 10n ** 16n }));
  const taker: BenchOrder = { wallet: 0, seriesId: sweepSeries.seriesId, expiry: sweepSeries.expiry, isBuy: true, tick: sweepSeries.markTick, size: 90n * 10n ** 16n };
  await ours.srv.ask({ type: 'reset' });
  await sequential(ours.conns[0]!, presignOrders(PREFIX, ours.setup, asks, ours.nonces));
  await sequential(ours.conns[0]!, presignOrders(PREFIX, ours.setup, [taker], ours.nonces));
  const sweepRun = await drained(ours);
  if (sweepRun.fills !== 90 || sweepRun.batches.length !== 1) throw new Error(`settlement: the sweep gave ${sweepRun.fills} fills in ${sweepRun.batches.length} batches (90 in one expected)`);
  const sweep = sweepRun.batches[0]!.gasUsed / 90;

  // Single: one ask and one bid on the last series, alone in a batch.
  const singleSeries = ours.setup.series[7]!;
  await ours.srv.ask({ type: 'reset' });
  const pair: BenchOrder[] = [
    { wallet: 1, seriesId: singleSeries.seriesId, expiry: singleSeries.expiry, isBuy: false, tick: singleSeries.markTick, size: 10n ** 16n },
    { wallet: 2, seriesId: singleSeries.seriesId, expiry: singleSeries.expiry, isBuy: true, tick: singleSeries.markTick, size: 10n ** 16n },
  ];
  await sequential(ours.conns[0]!, presignOrders(PREFIX, ours.setup, pair, ours.nonces));
  const singleRun = await drained(ours);
  if (singleRun.fills !== 1 || singleRun.batches.length !== 1) throw new Error(`settlement: the single fill gave ${singleRun.fills} fills in ${singleRun.batches.length} batches`);
  const single = singleRun.batches[0]!.gasUsed;

  // Lag at 300 fills/s on 1-second blocks.
  const lagReqs = presign(PREFIX, burstSetup(ours.setup), Math.ceil((LAG_RATE * LAG_MS) / 1000) + 200, ours.nonces);
  await ours.srv.ask({ type: 'reset' });
  // Fresh connections: the server closes keep-alive connections idle for 10 s (those of the burst, while the sweep ran on one).
  ours.conns.forEach((c) => c.close());
  ours.conns = await Promise.all(Array.from({ length: CONNS }, () => Conn.open(ours.setup.port)));
  const lagRound = checked('lag phase', await openLoop(ours.conns, lagReqs, { i: 0 }, LAG_RATE, LAG_MS));
  const lag = await drained(ours);
  process.stderr.write(`# lag: ${lag.fills} fills at ${Math.round(lag.fills / (LAG_MS / 1000))}/s, p50 ${Math.round(percentile(lag.lagsMs, 50))} ms, p99 ${Math.round(percentile(lag.lagsMs, 99))} ms\n`);
  ours.conns.forEach((c) => c.close());
  await ours.srv.stop();

  // --- the peer: one fill per transaction
  const peer = await startVenue({ SETTLE_MAX_FILLS: '1', SETTLE_MAX_IN_FLIGHT: '64' });
  await burst(peer, 200);
  const peerThrough = await burst(peer, PEER_BURST_MS);
  peer.conns.forEach((c) => c.close());
  await peer.srv.stop();
  process.stderr.write(`# peer (one fill a transaction): ${peerThrough.fills} fills settled at ${Math.round(peerThrough.rate)} fills/s\n`);

  return {
    rate: through.rate,
    peerRate: peerThrough.rate,
    p50Us: percentile(lag.lagsMs, 50) * 1000,
    p99Us: percentile(lag.lagsMs, 99) * 1000,
    extra: {
      gasPerFill: { batched: Math.round(batched), sweep: Math.round(sweep), single },
      gasBudget: { batched: 90_000, sweep: 60_000 },
      throughput: { fills: through.fills, orderRate: Math.round(through.orderRate), spanMs: Math.round(through.drained.spanMs), batches: through.drained.batches.length, fullBatches: full.length, budgetFillsPerS: 800 },
      lag: { what: `open loop at ${LAG_RATE} orders/s (${LAG_RATE / 2} fills/s) for ${LAG_MS} ms, each fill from its commit to its batch's receipt`, fills: lag.fills, achievedOrderRate: Math.round(lagRound.rate), p50Ms: Math.round(percentile(lag.lagsMs, 50)), p99Ms: Math.round(percentile(lag.lagsMs, 99)), maxMs: Math.round(Math.max(...lag.lagsMs)), budgetP99Ms: 3000 },
      peerFills: peerThrough.fills,
    },
  };
}

/**
 * RFQ fills and expiry settlement on chain, in a venue of their own started at TIMED_START_MS
 * with an injected clock (BENCH_CLOCK_START) that the expiry phase moves past 08:00 UTC.
 */
async function timedPart(only: readonly SettlementPart[]) {
  const v = await startVenue({ [BENCH_CLOCK_START]: String(TIMED_START_MS) });
  v.conns.forEach((c) => c.close());
  const answered = async (m: ToChild) => {
    const r = await v.srv.ask(m);
    if (r.type === 'failed') throw new Error(r.message);
    return r;
  };
  const timed: TimedVenue = {
    prefix: PREFIX,
    port: v.setup.port,
    setup: v.setup,
    nonces: v.nonces,
    ask: (m) => answered(m) as Promise<Exclude<TimedFrom, { type: 'failed' }>>,
    reset: async () => void (await answered({ type: 'reset' })),
    pause: async () => void (await answered({ type: 'pause' })),
    resume: async () => void (await answered({ type: 'resume' })),
    drain: () => drained(v),
  };
  const rfq = only.includes('rfq') ? await rfqPhase(timed, RFQ_WARMUP, RFQ_FILLS) : null;
  const expiry = only.includes('expiry') ? await expiryPhase(timed) : null;
  await v.srv.stop();
  return { rfq, expiry };
}

async function main(): Promise<void> {
  const only = parseSettlementParts(process.argv.slice(2));
  const fills = only.includes('fills') ? await fillsPart() : null;
  const timed = only.includes('rfq') || only.includes('expiry') ? await timedPart(only) : null;
  const route = only.includes('route') ? await orderRoute() : null;

  report({
    bench: 'settlement',
    metric: 'fills_settled_per_s',
    unit: 'fills/s',
    value: fills?.rate ?? Number.NaN,
    peer: 'the same fills one per transaction (SETTLE_MAX_FILLS=1, SETTLE_MAX_IN_FLIGHT=64)',
    peerValue: fills?.peerRate ?? null,
    ratio: fills === null ? null : fills.rate / fills.peerRate,
    p50_us: fills?.p50Us ?? null,
    p99_us: fills?.p99Us ?? null,
    extra: {
      what: 'signed orders over HTTP into the venue (CHAIN=embedded, 1-second blocks); fills from commit to their batch included on chain (a receipt) through the relayer thread',
      ...fills?.extra,
      orderRoute: route,
      rfq: timed?.rfq ?? null,
      expiry: timed?.expiry ?? null,
      ...(only.length < SETTLEMENT_PARTS.length ? { parts: only } : {}),
      cores: availableParallelism(),
      loadAverage1m: Number(loadavg()[0]!.toFixed(2)),
    },
  });
}

/** Waits until a venue's relayer has nothing waiting (settlement_outbox_batches and settlement_lag_seconds at 0 on /metrics). */
async function settledIdle(port: number): Promise<void> {
  const deadline = performance.now() + DRAIN_MS;
  for (;;) {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const gauge = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
    if (gauge('settlement_outbox_batches') === 0 && gauge('settlement_lag_seconds') === 0 && gauge('settlement_open_items') === 0) return;
    if (performance.now() > deadline) throw new Error(`settlement: the relayer venue did not drain within ${DRAIN_MS} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * bench/orders' server, CHAIN=none and CHAIN=embedded, both started and warm; rounds at half
 * the CHAIN=none venue's closed-loop throughput alternate between them.
 */
async function orderRoute() {
  type OrdersTo = { type: 'stop' };
  type OrdersFrom = { type: 'ready'; setup: Setup };
  const ordersFile = fileURLToPath(new URL('./orders.ts', import.meta.url));
  const ordersPrefix = 'orders-bench';
  const start = async (env: Record<string, string>) => {
    const srv = forkBenchServer<OrdersTo, OrdersFrom>(`orders (${env.CHAIN})`, ordersFile, [], env);
    const ready = await srv.ask(null);
    const conns = await Promise.all(Array.from({ length: 128 }, () => Conn.open(ready.setup.port)));
    return { srv, setup: ready.setup, conns, nonces: freshNonces(), latencies: [] as number[] };
  };
  const none = await start({ CHAIN: 'none' });
  const on = await start(CHAIN_ENV);
  try {
    const subjects = [none, on];
    for (const s of subjects) checked('route warm-up', await closedLoop(s.conns, presign(ordersPrefix, s.setup, 6000, s.nonces), { i: 0 }, 1000, 1));
    none.conns.forEach((c) => c.close());
    none.conns = await Promise.all(Array.from({ length: 128 }, () => Conn.open(none.setup.port)));
    const tput = checked('route throughput', await closedLoop(none.conns, presign(ordersPrefix, none.setup, 16_000, none.nonces), { i: 0 }, 1500, 1));
    const rate = tput.rate / 2;
    for (let r = 0; r < ROUTE_ROUNDS; r++) {
      for (const s of subjects) {
        // The relayer venue's settlement of the last round drained first: its work would land on the other subject's round.
        await settledIdle(on.setup.port);
        const reqs = presign(ordersPrefix, s.setup, Math.ceil((rate * ROUTE_ROUND_MS) / 1000) + 500, s.nonces);
        // Fresh connections each round: the server closes keep-alive connections idle for 10 s.
        s.conns.forEach((c) => c.close());
        s.conns = await Promise.all(Array.from({ length: 128 }, () => Conn.open(s.setup.port)));
        const round = checked('route round', await openLoop(s.conns, reqs, { i: 0 }, rate, ROUTE_ROUND_MS));
        s.latencies.push(...round.latenciesUs);
      }
    }
    const p99None = percentile(none.latencies, 99);
    const p99On = percentile(on.latencies, 99);
    process.stderr.write(`# order route at ${Math.round(rate)}/s: p99 ${Math.round(p99On)} us with the relayer, ${Math.round(p99None)} us with CHAIN=none\n`);
    return {
      what: `bench/orders' server and route, open loop at ${Math.round(rate)} orders/s (half the CHAIN=none venue's ${Math.round(tput.rate)}/s), ${ROUTE_ROUNDS} rounds of ${ROUTE_ROUND_MS} ms each, alternating`,
      p50UsChainOn: Math.round(percentile(on.latencies, 50)),
      p99UsChainOn: Math.round(p99On),
      p50UsChainNone: Math.round(percentile(none.latencies, 50)),
      p99UsChainNone: Math.round(p99None),
      ratio: Number((p99On / p99None).toFixed(3)),
      budgetRatio: 1.1,
    };
  } finally {
    for (const s of [none, on]) s.conns.forEach((c) => c.close());
    await none.srv.stop();
    await on.srv.stop();
  }
}

await runBenchFile('settlement', main, server);
