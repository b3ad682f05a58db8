/**
 * Metrics: an own registry with default process metrics (event-loop lag included), HTTP
 * counters and histograms labelled by the declared route pattern (never the raw path),
 * metrics added by other layers, and `GET /metrics` in Prometheus text.
 */
import t from 'tap';
import { createMetrics } from '../../../gateway/http/metrics.ts';
import { systemRoutes } from '../../../gateway/http/systemRoutes.ts';
import client from 'prom-client';
import { connect } from 'node:net';
import { demoRoutes, faultyRoutes, start } from './support.ts';

const metrics = createMetrics();
const api = demoRoutes();
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

/** Write `payload` on a raw connection, then wait until the server closes it or `closeAfterMs` passes (then close it ourselves). */
function raw(payload: string, closeAfterMs: number): Promise<string> {
  return new Promise((resolve) => {
    let got = '';
    const sock = connect(s.port, '127.0.0.1', () => sock.write(payload));
    sock.on('data', (d) => (got += d.toString()));
    const timer = setTimeout(() => sock.destroy(), closeAfterMs);
    sock.on('close', () => {
      clearTimeout(timer);
      resolve(got);
    });
    sock.on('error', () => {});
  });
}

t.test('requests whose connection closed before the reply are counted as aborted', async (t) => {
  const slow = 'GET /api/demo/slow HTTP/1.1\r\nHost: x\r\n\r\n';
  // A client that gives up before the 200 ms reply.
  t.equal(await raw(slow, 50), '', 'no reply reached the client');
  // Two requests pipelined behind a pending reply: uWebSockets.js closes the connection, answering neither.
  t.equal(await raw(slow + slow, 1000), '', 'pipelined behind a pending reply: closed without a reply');
  await new Promise((r) => setTimeout(r, 300)); // the handlers finish into aborted responses
  const text = await metrics.text();
  t.equal(sample(text, 'http_requests_aborted_total', { route: '/api/demo/slow', method: 'GET' }), 2, 'one each: the second pipelined request never reached the handler');
  t.equal(sample(text, 'http_requests_total', { route: '/api/demo/slow', method: 'GET', status: '200' }), null, 'and none is counted as answered');
  const ok = await fetch(`${s.base}/api/demo/slow`);
  t.equal(ok.status, 200, 'a patient client still gets its reply');
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
