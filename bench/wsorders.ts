/**
 * Signed orders over `/ws/private` end to end, against `POST /api/mm/orders/place` at the
 * same rate in the same run (performance.md budget: the WebSocket's p99 <= REST's p99 at the
 * same rate).
 *
 * - The venue runs in a child process (`bench/wsorders.ts --server`): the real app with LMDB in
 *   a temporary DATA_DIR, the Piscina signature pool (WORKERS default), no timers, the orders
 *   rate-limit group unlimited (the WebSocket order methods draw on the same limiter), the
 *   connection limit per IP raised, no periodic snapshot (see server()). 64 MMM wallets, funded and logged in.
 * - This process is the load generator, ON THE SAME MACHINE (it takes CPU from the server).
 *   Orders are pre-signed (native secp256k1 over our digest) and pre-serialised, both as an
 *   HTTP request and as a `{"method":"PLACE","params":<the same body>,"id":n}` frame, before
 *   anything is measured; pairs at the mark (a sell, then a buy from the next wallet), so half
 *   of them trade, as in bench/orders.ts.
 * - WebSocket: one socket per wallet (64, the `ws` package for the handshake, AUTH and reading
 *   the answers), AUTH with the wallet's token; an order goes on its wallet's socket as a frame
 *   prepared in advance (written to the TCP socket as is, like the HTTP requests) and answers
 *   are matched by `id` (several in flight per socket). REST: 128 keep-alive connections, one request in flight each (bench/lib/httpLoad.ts).
 * - Throughput: closed loop, best of ROUNDS, alternating WebSocket and REST (WebSocket: WS_DEPTH
 *   in flight per socket, 128 in all like REST). Latency: open loop at half the lower of the
 *   two best rates, LATENCY_ROUNDS rounds of each, alternating; percentiles count from each
 *   order's due time (so a queue is measured, not hidden) over all rounds of a transport.
 * - Also reported: the server's CPU time per order for each transport (child process, all
 *   threads; does not depend on the share of the machine the server got), and the generator's;
 *   per latency round, the p99s and the largest event-loop delay of the generator and of the
 *   server's main thread (a stall of either side is what a p99 on this shared machine is made of).
 * - Every wait is bounded (bench/lib/deadline.ts): the child's answers, the handshakes and AUTH,
 *   and any round with answers outstanding and none arriving for BENCH_STALL_MS.
 */
import { createRequire } from 'node:module';
import { availableParallelism, loadavg } from 'node:os';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import WebSocket from 'ws';
import { bytesToHex, hexToBytes, keccak256, toBytes } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type secp256k1Types from 'secp256k1';
import { report } from './lib/report.ts';
import { placeOrderBody } from '../client/signing.ts';
import { percentile } from './lib/stats.ts';
import { Conn, closedLoop, firstErrorBody, openLoop, type Round } from './lib/httpLoad.ts';
import { STALL_MS, StallError, within } from './lib/deadline.ts';
import { forkBenchServer, runBenchFile, startBenchVenue, type BenchVenueSetup } from './lib/benchServer.ts';
import { domainSeparator, placeOrderDigest } from '../workers/eip712/digest.ts';
import type { PlaceOrderMessage } from '../workers/eip712/types.ts';

const WALLETS = 64;
const CONNS = 128;
const WS_DEPTH = CONNS / WALLETS;
const ROUND_MS = 2000;
const ROUNDS = 2;
const LATENCY_MS = 1500;
// Short rounds, many of them, alternating: a stall of the shared machine (100-400 ms seen) lands on both transports alike more often than in two long rounds.
const LATENCY_ROUNDS = 6;
const key = (i: number) => keccak256(toBytes(`wsorders-bench-${i}`));

type Setup = BenchVenueSetup & { port: number };
type ToChild = { type: 'cpu' } | { type: 'loopStart' } | { type: 'loopEnd' } | { type: 'stop' };
type FromChild = { type: 'ready'; setup: Setup } | { type: 'cpu'; micros: number } | { type: 'ok' } | { type: 'loop'; maxMs: number; p99Ms: number };

// ---------------------------------------------------------------- the venue (child)
async function server(): Promise<void> {
  // Read by the streams at start: 64 sockets from one IP in the first second.
  process.env['WS_CONNECTIONS_PER_MINUTE'] = '100000';
  const { app, dataDir, setup } = await startBenchVenue('wsorders', Array.from({ length: WALLETS }, (_, i) => privateKeyToAccount(key(i)).address));
  // The server's main-thread stalls in a latency round (GC, long turns, losing the CPU).
  let loop = monitorEventLoopDelay({ resolution: 1 });
  process.on('message', (m: ToChild) => {
    if (m.type === 'loopStart') {
      loop = monitorEventLoopDelay({ resolution: 1 });
      loop.enable();
      process.send!({ type: 'ok' } satisfies FromChild);
    } else if (m.type === 'loopEnd') {
      loop.disable();
      process.send!({ type: 'loop', maxMs: Math.round(loop.max / 1e6), p99Ms: Math.round(loop.percentile(99) / 1e6) } satisfies FromChild);
    } else if (m.type === 'cpu') {
      const u = process.cpuUsage();
      process.send!({ type: 'cpu', micros: u.user + u.system } satisfies FromChild);
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
const secp256k1 = createRequire(import.meta.url)('secp256k1/bindings') as typeof secp256k1Types;

/** One pre-signed order in both encodings: its wallet, the HTTP request, the WebSocket frame (bytes on the wire). */
type Order = { wallet: number; http: Buffer; frame: Buffer; id: number };

/**
 * A client-to-server text frame, built once like the HTTP request: FIN + text, the masked bit
 * with an all-zero masking key (RFC 6455 lets the client pick any key; zero leaves the payload
 * as is), so sending it is one write of prepared bytes, as for REST.
 */
function maskedTextFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const n = payload.length;
  const head = n < 126 ? Buffer.from([0x81, 0x80 | n]) : n < 65536 ? Buffer.from([0x81, 0x80 | 126, n >> 8, n & 0xff]) : (() => {
    const h = Buffer.alloc(10);
    h[0] = 0x81;
    h[1] = 0x80 | 127;
    h.writeBigUInt64BE(BigInt(n), 2);
    return h;
  })();
  return Buffer.concat([head, Buffer.alloc(4), payload]);
}

let nextId = 0;
function presign(setup: Setup, count: number, nonces: bigint[]): Order[] {
  const separator = domainSeparator(setup.domain);
  const keys = Array.from({ length: WALLETS }, (_, i) => hexToBytes(key(i)));
  const deadline = BigInt(Math.floor(setup.now / 1000) + 3600);
  const out: Order[] = [];
  for (let i = 0; i < count; i++) {
    const w = i % WALLETS;
    const s = setup.series[Math.floor(i / 2) % setup.series.length]!;
    const m: PlaceOrderMessage = { seriesId: s.seriesId, portfolioId: 0n, isBuy: i % 2 === 1, tick: s.markTick, size: 10n ** 16n, expiry: s.expiry, nonce: nonces[w]!++, deadline };
    const sig = secp256k1.ecdsaSign(placeOrderDigest(separator, m), keys[w]!);
    const signature = `${bytesToHex(sig.signature)}${(27 + sig.recid).toString(16)}`;
    // The wire body as the client builds it (client/signing.ts); signed natively here for speed.
    const body = JSON.stringify(placeOrderBody(m, signature));
    const id = ++nextId;
    out.push({
      wallet: w,
      id,
      http: Buffer.from(`POST /api/mm/orders/place HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${setup.tokens[w]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`),
      frame: maskedTextFrame(`{"method":"PLACE","params":${body},"id":${id}}`),
    });
  }
  return out;
}

/** One authenticated socket per wallet; answers matched to orders by id. */
class WsClient {
  private readonly pending = new Map<number, { dueNs: bigint; done: (ok: boolean, ns: bigint) => void }>();
  private lastProgress = performance.now();
  private failure: Error | null = null;
  private readonly onFail: ((e: Error) => void)[] = [];
  private readonly watchdog: NodeJS.Timeout;
  private closing = false;
  firstError: string | null = null;

  private constructor(
    private readonly ws: WebSocket,
    /** The socket under `ws`: prepared frames are written to it directly (ws still reads the answers). */
    private readonly raw: { write(b: Buffer): boolean },
    private readonly name: string,
  ) {
    ws.on('message', (data) => this.onMessage(data.toString()));
    ws.on('close', (code) => {
      if (!this.closing) this.fail(new Error(`${this.name}: closed by the server (${code}) with ${this.pending.size} orders in flight`));
    });
    ws.on('error', (e) => this.fail(new Error(`${this.name}: ${e.message}`)));
    this.watchdog = setInterval(() => {
      if (this.pending.size > 0 && performance.now() - this.lastProgress > STALL_MS) this.fail(new StallError(`${this.name}: no answer for ${STALL_MS} ms with ${this.pending.size} orders in flight`));
    }, 1000);
    this.watchdog.unref();
  }

  static async open(port: number, token: string, wallet: number): Promise<WsClient> {
    const name = `WebSocket of wallet ${wallet}`;
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws/private`, { perMessageDeflate: false });
    ws.on('error', () => {});
    await within(new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('close', (code) => reject(new Error(`${name}: closed before open (${code})`)));
    }), `${name}: the handshake`);
    const authed = new Promise<void>((resolve, reject) => {
      ws.once('message', (data) => {
        const f = JSON.parse(data.toString()) as { type?: string };
        if (f.type === 'AUTH_SUCCESS') resolve();
        else reject(new Error(`${name}: AUTH answered ${data.toString()}`));
      });
    });
    ws.send(JSON.stringify({ type: 'AUTH', token }));
    await within(authed, `${name}: AUTH_SUCCESS`);
    const raw = (ws as unknown as { _socket: { setNoDelay(b: boolean): void; write(b: Buffer): boolean } })._socket;
    raw.setNoDelay(true);
    return new WsClient(ws, raw, name);
  }

  get inFlight(): number {
    return this.pending.size;
  }

  whenFailed(f: (e: Error) => void): void {
    if (this.failure !== null) f(this.failure);
    else this.onFail.push(f);
  }

  send(o: Order, done: (ok: boolean, ns: bigint) => void, dueNs = process.hrtime.bigint()): void {
    if (this.failure !== null) return;
    if (this.pending.size === 0) this.lastProgress = performance.now();
    this.pending.set(o.id, { dueNs, done });
    this.raw.write(o.frame);
  }

  private onMessage(text: string): void {
    // The id is the last field of every answer ({"result":...,"id":n} or {"error":...,"id":n}).
    const at = text.lastIndexOf('"id":');
    const id = Number(text.slice(at + 5, -1));
    const p = this.pending.get(id);
    if (p === undefined) return this.fail(new Error(`${this.name}: an answer to no order: ${text.slice(0, 200)}`));
    this.pending.delete(id);
    this.lastProgress = performance.now();
    const ok = text.startsWith('{"result":');
    if (!ok) this.firstError ??= text.slice(0, 400);
    p.done(ok, process.hrtime.bigint() - p.dueNs);
  }

  private fail(e: Error): void {
    if (this.failure !== null) return;
    this.failure = e;
    clearInterval(this.watchdog);
    this.closing = true;
    this.ws.terminate();
    for (const f of this.onFail.splice(0)) f(e);
  }

  close(): void {
    this.closing = true;
    clearInterval(this.watchdog);
    this.ws.close();
  }
}

/** Closed loop over the sockets: each keeps `depth` orders of its wallet in flight for `ms`. */
function wsClosedLoop(clients: WsClient[], queues: Order[][], ms: number, depth: number): Promise<Round> {
  return new Promise((resolve, reject) => {
    const latenciesUs: number[] = [];
    let errors = 0;
    let done = 0;
    let finished = false;
    const start = performance.now();
    const end = start + ms;
    const pump = (w: number) => {
      const c = clients[w]!;
      const q = queues[w]!;
      while (!finished && c.inFlight < depth && q.length > 0 && performance.now() < end) {
        c.send(q.shift()!, (ok, ns) => {
          if (!ok) errors++;
          done++;
          latenciesUs.push(Number(ns) / 1000);
          if (performance.now() >= end || q.length === 0) {
            if (!finished && clients.every((x) => x.inFlight === 0)) {
              finished = true;
              resolve({ rate: done / ((performance.now() - start) / 1000), latenciesUs, errors, firstError: errors > 0 ? 0 : null });
            }
          } else pump(w);
        });
      }
    };
    for (const c of clients) c.whenFailed((e) => {
      if (finished) return;
      finished = true;
      reject(new Error(`WebSocket closed loop after ${done} answers: ${e.message}`, { cause: e }));
    });
    clients.forEach((_, w) => pump(w));
    if (!finished && clients.every((x) => x.inFlight === 0)) {
      finished = true;
      reject(new Error('WebSocket closed loop: nothing to send'));
    }
  });
}

/** Open loop: `rate` orders per second for `ms`, each sent on its wallet's socket when due; latency from the due time. */
function wsOpenLoop(clients: WsClient[], orders: Order[], cursor: { i: number }, rate: number, ms: number): Promise<Round & { dueAtMs: number[] }> {
  return new Promise((resolve, reject) => {
    const latenciesUs: number[] = [];
    let errors = 0;
    let scheduled = 0;
    let done = 0;
    let stopped = false;
    let ended = false;
    const start = performance.now();
    const startNs = process.hrtime.bigint();
    const finish = () => {
      if (ended) return;
      ended = true;
      resolve({ rate: done / ((performance.now() - start) / 1000), latenciesUs, errors, firstError: errors > 0 ? 0 : null, dueAtMs });
    };
    const dueAtMs: number[] = [];
    const timer = setInterval(() => {
      const elapsed = performance.now() - start;
      const due = Math.min(Math.floor((Math.min(elapsed, ms) / 1000) * rate), orders.length - cursor.i + scheduled);
      for (; scheduled < due; scheduled++) {
        const o = orders[cursor.i++]!;
        const dueMs = (scheduled / rate) * 1000;
        clients[o.wallet]!.send(o, (ok, ns) => {
          if (!ok) errors++;
          latenciesUs.push(Number(ns) / 1000);
          dueAtMs.push(dueMs);
          if (++done === scheduled && stopped) finish();
        }, startNs + BigInt(Math.round((scheduled / rate) * 1e9)));
      }
      if (elapsed >= ms) {
        clearInterval(timer);
        stopped = true;
        if (done === scheduled) finish();
      }
    }, 1);
    for (const c of clients) c.whenFailed((e) => {
      if (ended) return;
      ended = true;
      clearInterval(timer);
      reject(new Error(`WebSocket open loop after ${done} of ${scheduled} answers: ${e.message}`, { cause: e }));
    });
  });
}

const us = (xs: number[], p: number): number => Math.round(percentile(xs, p));

async function main(): Promise<void> {
  const srv = forkBenchServer<ToChild, FromChild>('wsorders', fileURLToPath(import.meta.url), []);
  const { ask } = srv;
  const ready = await ask(null);
  if (ready.type !== 'ready') throw new Error('server did not start');
  const setup = ready.setup;
  const cpu = async () => ((await ask({ type: 'cpu' })) as { micros: number }).micros;

  const nonces = Array.from({ length: WALLETS }, (_, w) => BigInt(w + 1) << 40n);
  // REST connections are opened afresh for each round: the server closes keep-alive connections
  // left idle while the other transport runs and the next orders are signed.
  const openConns = () => Promise.all(Array.from({ length: CONNS }, () => Conn.open(setup.port)));
  const restRound = async <T>(run: (conns: Conn[]) => Promise<T>): Promise<T> => {
    const conns = await openConns();
    try {
      return await run(conns);
    } finally {
      for (const c of conns) c.close();
    }
  };
  const clients: WsClient[] = [];
  for (let w = 0; w < WALLETS; w++) clients.push(await WsClient.open(setup.port, setup.tokens[w]!, w));

  const httpOf = (orders: Order[]) => orders.map((o) => o.http);
  const byWallet = (orders: Order[]) => {
    const q: Order[][] = Array.from({ length: WALLETS }, () => []);
    for (const o of orders) q[o.wallet]!.push(o);
    return q;
  };
  // Warm-up of both paths (JIT, worker start, LMDB): 1 s each.
  const warmOrders = presign(setup, 6000, nonces);
  const warmWs = await wsClosedLoop(clients, byWallet(warmOrders.slice(0, 3000)), 1000, WS_DEPTH);
  const warmRest = await restRound((conns) => closedLoop(conns, httpOf(warmOrders.slice(3000)), { i: 0 }, 1000, 1));
  if (warmWs.errors + warmRest.errors > 0) throw new Error(`warm-up: ${warmWs.errors} WebSocket and ${warmRest.errors} REST errors; first: ${clients.find((c) => c.firstError)?.firstError ?? firstErrorBody()}`);
  const perRound = Math.ceil(Math.max(warmWs.rate, warmRest.rate) * 2 * (ROUND_MS / 1000)) + 1000;
  process.stderr.write(`# warm-up: WebSocket ${Math.round(warmWs.rate)}/s, REST ${Math.round(warmRest.rate)}/s; signing ${perRound * ROUNDS * 2} orders for the throughput rounds\n`);

  const wsRounds: Round[] = [];
  const restRounds: Round[] = [];
  const cpuPerOrder = { ws: Infinity, rest: Infinity };
  const generatorCpuPerOrder = { ws: Infinity, rest: Infinity };
  const generatorCpu = () => {
    const u = process.cpuUsage();
    return u.user + u.system;
  };
  for (let r = 0; r < ROUNDS; r++) {
    const wsOrders = presign(setup, perRound, nonces);
    const restOrders = presign(setup, perRound, nonces);
    let c0 = await cpu();
    let g0 = generatorCpu();
    const ws = await wsClosedLoop(clients, byWallet(wsOrders), ROUND_MS, WS_DEPTH);
    generatorCpuPerOrder.ws = Math.min(generatorCpuPerOrder.ws, (generatorCpu() - g0) / ws.latenciesUs.length);
    cpuPerOrder.ws = Math.min(cpuPerOrder.ws, ((await cpu()) - c0) / ws.latenciesUs.length);
    const restConns = await openConns();
    c0 = await cpu();
    g0 = generatorCpu();
    const rest = await closedLoop(restConns, httpOf(restOrders), { i: 0 }, ROUND_MS, 1).finally(() => restConns.forEach((c) => c.close()));
    generatorCpuPerOrder.rest = Math.min(generatorCpuPerOrder.rest, (generatorCpu() - g0) / rest.latenciesUs.length);
    cpuPerOrder.rest = Math.min(cpuPerOrder.rest, ((await cpu()) - c0) / rest.latenciesUs.length);
    wsRounds.push(ws);
    restRounds.push(rest);
    process.stderr.write(`# round ${r + 1}: WebSocket ${Math.round(ws.rate)}/s, REST ${Math.round(rest.rate)}/s\n`);
  }
  const wsBest = wsRounds.reduce((a, b) => (b.rate > a.rate ? b : a));
  const restBest = restRounds.reduce((a, b) => (b.rate > a.rate ? b : a));

  // Latency: both at the same rate, half the lower best rate, alternating.
  const rate = Math.min(wsBest.rate, restBest.rate) / 2;
  const perLatency = Math.ceil(rate * (LATENCY_MS / 1000)) + 500;
  const wsLat: (Round & { dueAtMs: number[] })[] = [];
  const generatorLoopDelayMaxMs = { ws: [] as number[], rest: [] as number[] };
  const serverLoopDelayMaxMs = { ws: [] as number[], rest: [] as number[] };
  const restLat: Round[] = [];
  // Signed before the first latency round: no signing (and its garbage) between rounds.
  const latencyOrders = Array.from({ length: LATENCY_ROUNDS }, () => ({ ws: presign(setup, perLatency, nonces), rest: presign(setup, perLatency, nonces) }));
  for (let r = 0; r < LATENCY_ROUNDS; r++) {
    const wsOrders = latencyOrders[r]!.ws;
    const restOrders = latencyOrders[r]!.rest;
    // Which goes first alternates, so that neither always follows the other's backlog.
    // The generator's own stalls (GC, losing the CPU) delay due orders: measured per round.
    const watched = async <T>(which: 'ws' | 'rest', run: () => Promise<T>): Promise<T> => {
      await ask({ type: 'loopStart' });
      const h = monitorEventLoopDelay({ resolution: 1 });
      h.enable();
      try {
        return await run();
      } finally {
        h.disable();
        generatorLoopDelayMaxMs[which].push(Math.round(h.max / 1e6));
        serverLoopDelayMaxMs[which].push(((await ask({ type: 'loopEnd' })) as { maxMs: number }).maxMs);
      }
    };
    const wsRun = () => watched('ws', () => wsOpenLoop(clients, wsOrders, { i: 0 }, rate, LATENCY_MS));
    const restRun = () => watched('rest', () => restRound((conns) => openLoop(conns, httpOf(restOrders), { i: 0 }, rate, LATENCY_MS)));
    if (r % 2 === 0) {
      wsLat.push(await wsRun());
      restLat.push(await restRun());
    } else {
      restLat.push(await restRun());
      wsLat.push(await wsRun());
    }
    const w = wsLat[r]!.latenciesUs;
    const h = restLat[r]!.latenciesUs;
    // Where in the round the slowest WebSocket answers were due: a stall shows as a cluster.
    const slow = w.map((x, i) => [x, wsLat[r]!.dueAtMs[i]!] as const).sort((a, b) => b[0] - a[0]).slice(0, 5).map(([x, at]) => `${Math.round(x / 1000)}ms@${Math.round(at)}`);
    process.stderr.write(`# latency round ${r + 1} at ${Math.round(rate)}/s: WebSocket p50 ${us(w, 50)} p99 ${us(w, 99)} us (slowest: ${slow.join(' ')}), REST p50 ${us(h, 50)} p99 ${us(h, 99)} us; loop delay max (generator / server): WebSocket ${generatorLoopDelayMaxMs.ws[r]} / ${serverLoopDelayMaxMs.ws[r]} ms, REST ${generatorLoopDelayMaxMs.rest[r]} / ${serverLoopDelayMaxMs.rest[r]} ms\n`);
  }
  const errors = [...wsRounds, ...restRounds, ...wsLat, ...restLat].reduce((n, r) => n + r.errors, 0);
  const firstError = clients.find((c) => c.firstError)?.firstError ?? firstErrorBody();
  for (const c of clients) c.close();
  await srv.stop();
  if (errors > 0) throw new Error(`${errors} orders failed (first: ${firstError}): the bench would measure a broken path`);

  const all = (rounds: Round[]) => rounds.flatMap((r) => r.latenciesUs);
  const wsAll = all(wsLat);
  const restAll = all(restLat);
  const wsP99 = percentile(wsAll, 99);
  const restP99 = percentile(restAll, 99);
  report({
    bench: 'wsorders',
    metric: 'signed_places_per_s_ws',
    unit: 'orders/s',
    value: wsBest.rate,
    peer: 'POST /api/mm/orders/place (REST), same orders, same run',
    peerValue: restBest.rate,
    ratio: wsBest.rate / restBest.rate,
    p50_us: percentile(wsAll, 50),
    p99_us: wsP99,
    extra: {
      what: '{"method":"PLACE","params":<signed place body>} on /ws/private: the REST route\'s operation (parse, checks, signature recovery in the pool, engine with half the orders trading, LMDB journal commit, relay calldata), answered {result} after the commit',
      loadGenerator: 'same machine, this process; the server is a child process. WebSocket: one socket per wallet (64; frames prepared in advance and written to the TCP socket, answers read by the ws package), 2 in flight per socket in the closed loop, no limit in the open loop; REST: 128 keep-alive connections (raw HTTP/1.1, requests prepared in advance), 1 in flight each',
      latency: `open loop at ${Math.round(rate)} orders/s for both (half the lower best throughput), ${LATENCY_ROUNDS} rounds of ${LATENCY_MS} ms each, alternating (which goes first alternates too); due time to answer`,
      ws: { p50Us: us(wsAll, 50), p99Us: Math.round(wsP99), achievedRates: wsLat.map((r) => Math.round(r.rate)), roundP99Us: wsLat.map((r) => us(r.latenciesUs, 99)), serverCpuUsPerOrder: Math.round(cpuPerOrder.ws), generatorCpuUsPerOrder: Math.round(generatorCpuPerOrder.ws), generatorLoopDelayMaxMs: generatorLoopDelayMaxMs.ws, serverLoopDelayMaxMs: serverLoopDelayMaxMs.ws, throughputRounds: wsRounds.map((r) => Math.round(r.rate)) },
      rest: { p50Us: us(restAll, 50), p99Us: Math.round(restP99), achievedRates: restLat.map((r) => Math.round(r.rate)), roundP99Us: restLat.map((r) => us(r.latenciesUs, 99)), serverCpuUsPerOrder: Math.round(cpuPerOrder.rest), generatorCpuUsPerOrder: Math.round(generatorCpuPerOrder.rest), generatorLoopDelayMaxMs: generatorLoopDelayMaxMs.rest, serverLoopDelayMaxMs: serverLoopDelayMaxMs.rest, throughputRounds: restRounds.map((r) => Math.round(r.rate)) },
      p99RatioWsToRest: Number((wsP99 / restP99).toFixed(3)),
      budget: { wsP99AtMostRestP99: true, met: wsP99 <= restP99 },
      chain: process.env.CHAIN || 'none', cores: availableParallelism(),
      loadAverage1m: Number(loadavg()[0]!.toFixed(2)),
    },
  });
}

await runBenchFile('wsorders', main, server);
