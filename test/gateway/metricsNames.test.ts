/**
 * Prometheus naming on the venue's whole `/metrics`, checked without promtool (which
 * `npm run test:tools` runs too): no gauge is named *_total (prom-client's default
 * nodejs_active_*_total gauges are dropped, gateway/http/metrics.ts), every counter is.
 */
import t from 'tap';
import { startTestApp } from './support/testApp.ts';

const app = await startTestApp({ memory: true, startAt: Date.UTC(2026, 0, 5, 12, 0, 0) });
t.teardown(() => app.close());

t.test('no gauge named *_total, every counter named *_total', async (t) => {
  const text = await (await fetch(app.url + '/metrics')).text();
  const types = new Map<string, string>();
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) types.set(m[1]!, m[2]!);
  t.ok(types.size >= 30, `the families were read (${types.size})`);
  t.equal(types.get('nodejs_active_handles'), 'gauge', 'the by-type handle gauge stays');
  t.ok(types.has('nodejs_eventloop_lag_seconds'), 'default process metrics are served');
  const gaugesTotal = [...types].filter(([name, type]) => type === 'gauge' && name.endsWith('_total')).map(([name]) => name);
  t.same(gaugesTotal, [], 'no gauge ends in _total');
  const counters = [...types].filter(([, type]) => type === 'counter').map(([name]) => name);
  t.ok(counters.length > 0, 'some counters are served');
  t.same(counters.filter((n) => !n.endsWith('_total')), [], 'every counter ends in _total');
});
