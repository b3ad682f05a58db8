/**
 * WebSocket fan-out benchmark (performance.md): N subscribers (default 5,000; FANOUT_SUBSCRIBERS
 * from 1,000 to 10,000) on one book's depth channel of the real venue while the book changes;
 * messages delivered per second and delivery latency, against the same feed served with the
 * `ws` package in the same run, rounds alternating.
 *
 * - Feed: place and cancel commands on one series through the real command pipeline (memory
 *   journal, inline workers). Each command changes one level, so each publishes one depth delta.
 *   Ours: the streams layer as the venue runs it (uWS pub/sub). Peer: a `ws` WebSocketServer fed
 *   by a pipeline listener that serialises the same frame once and sends it to every client.
 * - Counting: the clients are raw TCP sockets in a separate process (the server keeps its own
 *   core). They do the WebSocket handshake by hand and count frames by parsing only frame
 *   headers (payloads are skipped, except on every 50th socket, which reads the seq).
 * - Flow control: the producer keeps at most WINDOW updates per subscriber undelivered (from the
 *   clients' counts, reported every 2 ms), so the rate measured is what the server delivers, not
 *   what piles up in buffers.
 * - Latency (p50/p99): in a separate paced round at 10 updates/s (less if the best rate is under
 *   40/s), from just before the command is submitted (engine, journal, publish, kernel) to its
 *   frame's arrival at 20 probe subscribers in a third, nearly idle process (the bulk client,
 *   busy with N sockets, would measure itself; its figures are in `extra`). CLOCK_MONOTONIC in all
 *   processes (process.hrtime is system-wide). Writing one update to N sockets is N sends: a
 *   subscriber waits for its turn, so latency grows with N.
 * - CPU: server and client CPU time per delivered message are reported too (extra): on a shared
 *   machine they say more about capacity than the wall-clock rate does.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { STALL_MS, within } from './lib/deadline.ts';
import { cpuUs, startFanoutClient, type FanoutClient, type ToClient } from './lib/fanoutClient.ts';

const N = Number(process.env['FANOUT_SUBSCRIBERS'] ?? 5000);
if (!Number.isInteger(N) || N < 1000 || N > 10_000) throw new Error('FANOUT_SUBSCRIBERS must be a whole number from 1000 to 10000');
const WINDOW = 32;
const ROUND_MS = 2500;
const LATENCY_MS = 2000;
const ROUNDS = 2;
/** Probe subscribers in their own, nearly idle process: their latency is the server's and the kernel's, not a busy client's. */
const PROBES = 20;
const nowUs = (): number => Number(process.hrtime.bigint() / 1000n);

// ---------------------------------------------------------------- server process

async function runServer(): Promise<void> {
  process.env['WS_CONNECTIONS_PER_MINUTE'] = '1000000';
  process.env['WS_MESSAGES_PER_MINUTE'] = '1000000';
  // The venue is imported here rather than at the top so that the client process stays light.
  const [{ loadConfig }, { startApp }, { silentLogger }, { WebSocketServer }, viem, fixed, drivers, streamPayloads, publisher, stats, rep] = await Promise.all([
    import('../gateway/config.ts'),
    import('../gateway/app.ts'),
    import('../gateway/http/log.ts'),
    import('ws'),
    import('viem'),
    import('../engine/domain/fixed.ts'),
    import('../gateway/drivers.ts'),
    import('../gateway/streams/payloads.ts'),
    import('../gateway/streams/publisher.ts'),
    import('./lib/stats.ts'),
    import('./lib/report.ts'),
  ]);
  const dataDir = mkdtempSync(join(tmpdir(), 'fanout-'));
  // No chain: the feed does not need one, and the embedded chain needs DATA_DIR's journal.
  const loaded = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, WORKERS: '1', ORACLE: 'manual', CHAIN: 'none' });
  if (!loaded.ok) throw new Error(loaded.errors.join('; '));
  const app = await within(startApp(loaded.config, { log: silentLogger, inlineWorkers: true, drivers: false, memory: true }), 'fanout: the venue starting');
  const s = app.services;
  const pairId = viem.keccak256(viem.toBytes('BTC-USDC'));
  const o = s.reads.catalog.oracles.get(pairId)!;
  await drivers.submitOracle(s.pipeline, s.reads, s.marks, pairId, o.spot, o.volatility, o.riskFreeRate);
  const owner = viem.getAddress('0x00000000000000000000000000000000000fa170');
  await s.pipeline.submit({ type: 'create_portfolio', owner });
  await s.pipeline.submit({ type: 'deposit', owner, portfolioId: 1, amount: 10n ** 9n * 10n ** 6n });
  const series = [...s.reads.catalog.series.values()].find((x) => x.pairId === pairId && x.isCall && !x.settled && x.strike >= o.spot)!;
  const channel = `${series.symbol}@depth`;
  // The engine's own book sequence moves when a command is applied (before it is published): the timing key.
  const book = app.engine.state.series.get(series.seriesId)!;
  const baseTick = Math.max(100, Math.round((Number(series.marks.mark) / 1e18) * 50)); // half the mark, in ticks (2 decimals)

  // The peer: the same frames from the same pipeline events, sent with `ws` to each client.
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await within(new Promise((r) => wss.once('listening', r)), 'fanout: the ws peer server listening');
  let peerActive = false;
  s.pipeline.onEvents((events) => {
    if (!peerActive) return;
    for (const e of events) {
      if (e.type !== 'depth' || e.seriesId !== series.seriesId) continue;
      const msg = Buffer.from(publisher.frame(channel, JSON.stringify(streamPayloads.depthDelta(e))));
      for (const c of wss.clients) c.send(msg, { binary: false });
    }
  });

  // The feed: one-level changes (buy orders below the mark, placed and cancelled).
  let nonce = 0n;
  let k = 0;
  const open: `0x${string}`[] = [];
  const sent = new Map<number, number>();
  const next = () => {
    const nowSec = Math.floor(s.pipeline.now() / 1000);
    nonce++;
    if (open.length >= 64) return { type: 'cancel' as const, cancels: [{ orderId: open.shift()!, owner, nonce, deadline: nowSec + 300 }] };
    const orderId = viem.keccak256(viem.toHex(`fanout-${++k}`));
    open.push(orderId);
    return { type: 'place' as const, orders: [{ orderId, owner, portfolioId: 1, seriesId: series.seriesId, isBuy: true, tick: baseTick + (k % 40), size: fixed.WAD / 100n, expiry: series.expiry, nonce, deadline: nowSec + 300 }] };
  };

  type Client = FanoutClient;
  const client = (role: 'bulk' | 'probe'): Client => startFanoutClient('fanout', role, children);
  const bulk = client('bulk');
  const probe = client('probe');
  const both = (m: ToClient, probeMsg: ToClient = m) => Promise.all([bulk.ask(m), probe.ask(probeMsg)]);
  const samplesOf = async (c: Client) => ((await c.ask({ cmd: 'samples' })) as { t: 'samples'; samples: [number, number][] }).samples;

  const tc = performance.now();
  const wsPort = (wss.address() as { port: number }).port;
  await both({ cmd: 'connect', target: 'uws', port: app.port, path: '/ws/public', n: N }, { cmd: 'connect', target: 'uws', port: app.port, path: '/ws/public', n: PROBES });
  await both({ cmd: 'connect', target: 'ws', port: wsPort, path: '/', n: N }, { cmd: 'connect', target: 'ws', port: wsPort, path: '/', n: PROBES });
  console.log(`# ${N} subscribers on ${channel} (uWS) and ${wss.clients.size} on the ws peer, connected in ${Math.round(performance.now() - tc)} ms; load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores`);

  type RoundResult = { rate: number; updates: number; serverCpuUsPerMsg: number; clientCpuUsPerMsg: number };
  /**
   * One round on one server. Closed loop (`pacedUpdatesPerS` null): at most WINDOW updates per
   * subscriber undelivered, to measure throughput. Paced: a steady update rate, to measure latency.
   */
  async function round(target: 'uws' | 'ws', pacedUpdatesPerS: number | null = null, ms = ROUND_MS): Promise<RoundResult> {
    const subscribe = JSON.stringify({ method: 'SUBSCRIBE', params: [channel], id: 1 });
    if (target === 'uws') await both({ cmd: 'send', target: 'uws', text: subscribe, expectFrames: 2 * N }, { cmd: 'send', target: 'uws', text: subscribe, expectFrames: 2 * PROBES });
    peerActive = target === 'ws';
    const clientCpu0 = ((await both({ cmd: 'reset' }))[0] as { cpuUs: number }).cpuUs;
    const serverCpu0 = cpuUs();
    bulk.progress = {};
    const progress = () => bulk.progress[target] ?? 0;
    let published = 0;
    const t0 = performance.now();
    while (performance.now() - t0 < ms) {
      const room = pacedUpdatesPerS === null ? WINDOW - Math.ceil(published - progress() / N) : Math.floor(((performance.now() - t0) / 1000) * pacedUpdatesPerS) - published;
      if (pacedUpdatesPerS !== null && room <= 0) {
        await new Promise((r) => setTimeout(r, 2));
        continue;
      }
      if (room <= 0) {
        await within(new Promise<void>((r) => (bulk.progressWaiter = r)), `fanout: delivery progress on ${target} (${published} updates published, ${progress()} messages delivered)`, STALL_MS);
        continue;
      }
      const wave: Promise<unknown>[] = [];
      for (let i = 0; i < room; i++) {
        const before = book.bookSeq;
        const t = nowUs();
        wave.push(s.pipeline.submit(next()));
        if (book.bookSeq !== before) {
          sent.set(book.bookSeq, t);
          published++;
        }
      }
      await Promise.all(wave);
    }
    // Drain: wait until everything published has arrived.
    const drainUntil = performance.now() + 12_000;
    while (progress() < published * N && performance.now() < drainUntil) await new Promise<void>((r) => ((bulk.progressWaiter = r), setTimeout(r, 5)));
    if (progress() < published * N) console.log(`# ${target}: ${published * N - progress()} messages still undelivered after the drain`);
    const seconds = (performance.now() - t0) / 1000;
    const serverCpu = cpuUs() - serverCpu0;
    const clientCpu = ((await bulk.ask({ cmd: 'cpu' })) as { cpuUs: number }).cpuUs - clientCpu0;
    peerActive = false;
    const unsubscribe = JSON.stringify({ method: 'UNSUBSCRIBE', params: [channel], id: 2 });
    if (target === 'uws') await both({ cmd: 'send', target: 'uws', text: unsubscribe, expectFrames: N }, { cmd: 'send', target: 'uws', text: unsubscribe, expectFrames: PROBES });
    const delivered = Math.max(1, progress());
    return { rate: delivered / seconds, updates: published / seconds, serverCpuUsPerMsg: serverCpu / delivered, clientCpuUsPerMsg: clientCpu / delivered };
  }

  const latenciesOf = (samples: [number, number][]): number[] => samples.flatMap(([seq, at]) => (sent.has(seq) ? [at - sent.get(seq)!] : []));
  const saturated: number[] = [];
  const results = { uws: [] as RoundResult[], ws: [] as RoundResult[] };
  for (let r = 0; r < ROUNDS; r++) {
    results.uws.push(await round('uws'));
    saturated.push(...latenciesOf(await samplesOf(probe)));
    results.ws.push(await round('ws'));
    const [u, w] = [results.uws[r]!, results.ws[r]!];
    console.log(`# round ${r + 1}: uWS ${Math.round(u.rate)} msg/s (server ${u.serverCpuUsPerMsg.toFixed(3)} us cpu/msg, client ${u.clientCpuUsPerMsg.toFixed(3)}), ws ${Math.round(w.rate)} msg/s (server ${w.serverCpuUsPerMsg.toFixed(3)}, client ${w.clientCpuUsPerMsg.toFixed(3)})`);
  }
  // Latency at a steady 10 updates/s (a busy option book), or a quarter of the best rate if that
  // is lower. Not "half the best rate": at a low rate each update costs one send per socket on its
  // own, while at saturation several updates share a send, so half the updates is far more than
  // half the work.
  const best = (xs: RoundResult[]) => xs.reduce((a, b) => (b.rate > a.rate ? b : a));
  const ours = best(results.uws);
  const peer = best(results.ws);
  const pacedRate = Math.max(1, Math.min(10, Math.round(ours.updates / 4)));
  const paced = await round('uws', pacedRate, LATENCY_MS);
  const latencies = latenciesOf(await samplesOf(probe));
  const bulkLatencies = latenciesOf(await samplesOf(bulk));
  console.log(`# latency round: ${pacedRate} updates/s (${Math.round(paced.rate)} msg/s), ${latencies.length} probe samples`);
  for (const c of [bulk, probe]) c.child.send({ cmd: 'exit' } satisfies ToClient);
  wss.close();
  await within(app.close(), 'fanout: the venue closing');
  rmSync(dataDir, { recursive: true, force: true });

  rep.report({
    bench: 'fanout',
    metric: `messages_per_s_delivered_to_${N}_subscribers`,
    unit: 'msg/s',
    value: ours.rate,
    peer: 'ws',
    peerValue: peer.rate,
    ratio: ours.rate / peer.rate,
    p50_us: stats.percentile(latencies, 50),
    p99_us: stats.percentile(latencies, 99),
    extra: {
      subscribers: N,
      updates_per_s: Math.round(ours.updates),
      server_cpu_us_per_msg: Number(ours.serverCpuUsPerMsg.toFixed(3)),
      msgs_per_server_cpu_s: Math.round(1e6 / ours.serverCpuUsPerMsg),
      peer_msgs_per_server_cpu_s: Math.round(1e6 / peer.serverCpuUsPerMsg),
      peer_server_cpu_us_per_msg: Number(peer.serverCpuUsPerMsg.toFixed(3)),
      cpu_ratio: Number((peer.serverCpuUsPerMsg / ours.serverCpuUsPerMsg).toFixed(2)),
      client_cpu_us_per_msg: Number(ours.clientCpuUsPerMsg.toFixed(3)),
      peer_updates_per_s: Math.round(peer.updates),
      budget_msgs_per_s: 1_000_000,
      budget_ratio: 5,
      rounds: ROUNDS,
      round_ms: ROUND_MS,
      window_updates: WINDOW,
      latency_samples: latencies.length,
      latency_updates_per_s: pacedRate,
      latency_from: `command submit (engine + journal + publish) to frame arrival at ${PROBES} probe subscribers in their own process, at ${pacedRate} updates/s`,
      bulk_client_p50_us: Math.round(stats.percentile(bulkLatencies, 50)),
      bulk_client_p99_us: Math.round(stats.percentile(bulkLatencies, 99)),
      saturated_p50_us: Math.round(stats.percentile(saturated, 50)),
      saturated_p99_us: Math.round(stats.percentile(saturated, 99)),
      counting: 'raw TCP clients in a child process, frames counted from WebSocket headers',
      loadavg_1m: Number(loadavg()[0]!.toFixed(2)),
      cores: availableParallelism(),
    },
  });
}

/** The client processes while they run: killed if the server side fails, so that a failed run ends. */
const children: ChildProcess[] = [];

await runServer().catch((e: unknown) => {
  for (const c of children) c.kill('SIGKILL');
  process.stderr.write(`# bench fanout failed: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
