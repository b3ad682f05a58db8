/**
 * Metrics: an own registry with default process metrics (event-loop lag included), HTTP
 * counters and histograms labelled by the declared route pattern (never the raw path),
 * metrics added by other layers, and `GET /metrics` in Prometheus text.
 */
import t from 'tap';
import { Type } from '@sinclair/typebox';
import { createMetrics, type Metrics } from '../../../gateway/http/metrics.ts';
import { defineRoute } from '../../../gateway/http/route.ts';
import { systemRoutes } from '../../../gateway/http/systemRoutes.ts';
import client from 'prom-client';
import { connect } from 'node:net';
import { demoRoutes, faultyRoutes, start } from './support.ts';

/**
 * `GET /api/demo/held` answers only when the test releases it: `nextHeld()` resolves once a
 * request has reached the handler, with the function that lets it answer. No timing involved.
 */
const heldWaiters: ((release: () => void) => void)[] = [];
const heldEarly: (() => void)[] = [];
const nextHeld = (): Promise<() => void> => new Promise((resolve) => (heldEarly.length > 0 ? resolve(heldEarly.shift()!) : heldWaiters.push(resolve)));
const heldRoute = defineRoute({
  method: 'GET',
  path: '/api/demo/held',
  group: 'platform',
  auth: 'none',
  summary: 'Answers when the test releases it',
  responses: { 200: Type.Object({ ok: Type.Boolean() }) },
  handler: async () => {
    await new Promise<void>((release) => {
      const waiter = heldWaiters.shift();
      if (waiter) waiter(release);
      else heldEarly.push(release);
    });
    return { body: { ok: true } };
  },
});

/** The server's metrics, with a hook on each recorded abort (the event the abort test awaits). */
const base = createMetrics();
const abortWaiters: { route: string; n: number; resolve: () => void }[] = [];
const abortCounts = new Map<string, number>();
const metrics: Metrics = {
  ...base,
  recorder(route, method) {
    const r = base.recorder(route, method);
    return {
      record: r.record,
      aborted() {
        r.aborted();
        const n = (abortCounts.get(route) ?? 0) + 1;
        abortCounts.set(route, n);
        for (const w of abortWaiters.filter((w) => w.route === route && w.n <= n)) {
          abortWaiters.splice(abortWaiters.indexOf(w), 1);
          w.resolve();
        }
      },
    };
  },
};
/** Resolves once `n` aborts of `route` were recorded; fails after 10 s (a safety net, not a timing). */
function abortsRecorded(route: string, n: number): Promise<void> {
  if ((abortCounts.get(route) ?? 0) >= n) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${n} aborts of ${route} were not recorded within 10 s (got ${abortCounts.get(route) ?? 0})`)), 10_000);
    abortWaiters.push({ route, n, resolve: () => (clearTimeout(timer), resolve()) });
  });
}
const api = [...demoRoutes(), heldRoute];
const s = await start({ routes: [...api, ...faultyRoutes(), ...systemRoutes({ apiRoutes: api, info: { title: 'Test venue', version: '1' }, metrics })], metrics });
t.teardown(s.close);

function sample(text: string, name: string, labels: Record<string, string>): number | null {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name + '{')) continue;
    const body = line.slice(name.length + 1, line.indexOf('}'));
    const got = Object.fromEntries(body.split(/,(?=[a-z_]+=")/).map((kv) => [kv.slice(0, kv.indexOf('=')), JSON.parse(kv.slice(kv.indexOf('=') + 1)) as string]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return null;
}

t.test('requests are counted by declared pattern, method and status', async (t) => {
  for (const sym of ['BTC-1-C-1', 'ETH-2-P-2', 'SOL-3-C-3']) await (await fetch(`${s.base}/api/markets/ticker/${sym}`)).arrayBuffer();
  await (await fetch(`${s.base}/api/markets/ticker/bad`)).arrayBuffer();
  await (await fetch(`${s.base}/markets/ticker/BTC-1-C-1`)).arrayBuffer();
  await (await fetch(`${s.base}/api/random/${Math.random()}`)).arrayBuffer();
  await (await fetch(`${s.base}/api/markets/pairs`, { method: 'DELETE' })).arrayBuffer();
  const res = await fetch(`${s.base}/metrics`);
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  t.equal(sample(text, 'http_requests_total', { route: '/api/markets/ticker/:symbol', method: 'GET', status: '200' }), 3);
  t.equal(sample(text, 'http_requests_total', { route: '/api/markets/ticker/:symbol', method: 'GET', status: '400' }), 1);
  t.equal(sample(text, 'http_requests_total', { route: '/markets/ticker/:symbol', method: 'GET', status: '200' }), 1, 'earlier form has its own pattern');
  t.equal(sample(text, 'http_requests_total', { route: 'unmatched', method: 'GET', status: '404' }), 1);
  t.equal(sample(text, 'http_requests_total', { route: '/api/markets/pairs', method: 'DELETE', status: '405' }), 1);
  t.notMatch(text, /BTC-1-C-1|\/api\/random\//, 'raw paths never become labels');
  t.equal(sample(text, 'http_request_duration_seconds_count', { route: '/api/markets/ticker/:symbol', method: 'GET' }), 4);
  t.match(text, /http_request_duration_seconds_bucket\{le="0\.001",route="\/api\/markets\/ticker\/:symbol",method="GET"\}/);
});

/** A raw connection that writes `payload`; `closed` resolves with what it received once either side closed it. */
function raw(payload: string): { closed: Promise<string>; destroy(): void } {
  let got = '';
  const sock = connect(s.port, '127.0.0.1', () => sock.write(payload));
  sock.on('data', (d) => (got += d.toString()));
  sock.on('error', () => {});
  return { closed: new Promise((resolve) => sock.on('close', () => resolve(got))), destroy: () => sock.destroy() };
}

t.test('requests whose connection closed before the reply are counted as aborted', async (t) => {
  const held = 'GET /api/demo/held HTTP/1.1\r\nHost: x\r\n\r\n';
  // A client that gives up while its request is in the handler.
  const quitter = raw(held);
  const releaseFirst = await nextHeld();
  quitter.destroy();
  t.equal(await quitter.closed, '', 'no reply reached the client');
  await abortsRecorded('/api/demo/held', 1);
  releaseFirst(); // the handler finishes into an aborted response: nothing is written
  // Two requests pipelined behind a pending reply: uWebSockets.js closes the connection, answering neither.
  const pipelined = raw(held + held);
  const releaseSecond = await nextHeld();
  t.equal(await pipelined.closed, '', 'pipelined behind a pending reply: closed by the server without a reply');
  await abortsRecorded('/api/demo/held', 2);
  releaseSecond();
  const text = await metrics.text();
  t.equal(sample(text, 'http_requests_aborted_total', { route: '/api/demo/held', method: 'GET' }), 2, 'one each: the second pipelined request never reached the handler');
  t.equal(sample(text, 'http_requests_total', { route: '/api/demo/held', method: 'GET', status: '200' }), null, 'and none is counted as answered');
  t.equal(heldEarly.length + heldWaiters.length, 0, 'exactly two requests reached the handler');
  const patient = fetch(`${s.base}/api/demo/held`);
  (await nextHeld())();
  t.equal((await patient).status, 200, 'a patient client still gets its reply');
  t.equal(sample(await metrics.text(), 'http_requests_total', { route: '/api/demo/held', method: 'GET', status: '200' }), 1, 'counted as answered');
});

t.test('default process metrics include event-loop lag', async (t) => {
  const text = await metrics.text();
  for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_eventloop_lag_p99_seconds', 'nodejs_heap_size_used_bytes']) {
    t.match(text, new RegExp(`^# TYPE ${name} `, 'm'), name);
  }
});

t.test('other layers register on the same registry; the global registry is untouched', async (t) => {
  const commands = metrics.counter({ name: 'engine_commands_total', help: 'Engine commands', labelNames: ['type'] as const });
  const latency = metrics.histogram({ name: 'journal_commit_seconds', help: 'Journal commit latency', buckets: [0.001, 0.01] });
  const queue = metrics.gauge({ name: 'worker_pool_queue_size', help: 'Queued tasks' });
  const ws = metrics.summary({ name: 'ws_message_bytes', help: 'Message sizes', percentiles: [0.5] });
  commands.inc({ type: 'place' }, 3);
  latency.observe(0.005);
  queue.set(7);
  ws.observe(120);
  const text = await (await fetch(`${s.base}/metrics`)).text();
  t.equal(sample(text, 'engine_commands_total', { type: 'place' }), 3);
  t.match(text, /^journal_commit_seconds_bucket\{le="0\.01"\} 1$/m);
  t.match(text, /^worker_pool_queue_size 7$/m);
  t.match(text, /^ws_message_bytes_count 1$/m);
  t.equal(await client.register.getSingleMetric('engine_commands_total'), undefined, 'not on the global registry');
  const second = createMetrics({ defaultMetrics: false, prefix: 'b_' });
  t.doesNotThrow(() => second.counter({ name: 'engine_commands_total', help: 'x' }), 'a second registry does not collide');
  t.match(await second.text(), /b_http_requests_total/);
});
