/**
 * Slot histograms and counters (gateway/http/slotMetrics.ts) render exactly what
 * prom-client renders for the same observations, bind one child per label set, and reset
 * with the registry.
 */
import t from 'tap';
import client from 'prom-client';
import { createMetrics } from '../../../gateway/http/metrics.ts';

const buckets = [0.001, 0.01, 0.1];
const values = [0, 0.0005, 0.001, 0.002, 0.01, 0.05, 0.1, 0.5, 3];

function promText(build: (registry: client.Registry) => void): Promise<string> {
  const registry = new client.Registry();
  build(registry);
  return registry.metrics();
}

t.test('a histogram renders as prom-client renders it, with and without labels', async (t) => {
  const ours = createMetrics({ defaultMetrics: false });
  const plain = ours.slotHistogram({ name: 'stage_seconds', help: 'Stages.', buckets }).child({});
  const byStage = ours.slotHistogram({ name: 'by_stage_seconds', help: 'By stage.', labelNames: ['stage'] as const, buckets });
  for (const v of values) {
    plain.observe(v);
    byStage.child({ stage: v < 0.01 ? 'fast' : 'slow' }).observe(v);
  }
  const expected = await promText((registry) => {
    const h = new client.Histogram({ name: 'stage_seconds', help: 'Stages.', buckets, registers: [registry] });
    const l = new client.Histogram({ name: 'by_stage_seconds', help: 'By stage.', labelNames: ['stage'], buckets, registers: [registry] });
    for (const v of values) {
      h.observe(v);
      l.observe({ stage: v < 0.01 ? 'fast' : 'slow' }, v);
    }
  });
  const text = await ours.text();
  for (const name of ['stage_seconds', 'by_stage_seconds']) {
    const lines = (s: string) => s.split('\n').filter((l) => l.startsWith(name)).sort();
    t.same(lines(text), lines(expected), name);
  }
});

t.test('a counter renders as prom-client renders it; children are bound once', async (t) => {
  const ours = createMetrics({ defaultMetrics: false });
  const family = ours.slotCounter({ name: 'things_total', help: 'Things.', labelNames: ['type', 'outcome'] as const });
  const a = family.child({ type: 'place', outcome: 'ok' });
  t.equal(family.child({ type: 'place', outcome: 'ok' }), a, 'the same child for the same labels');
  a.inc();
  a.inc(2);
  family.child({ type: 'cancel', outcome: 'not_found' }).inc();
  const expected = await promText((registry) => {
    const c = new client.Counter({ name: 'things_total', help: 'Things.', labelNames: ['type', 'outcome'], registers: [registry] });
    c.inc({ type: 'place', outcome: 'ok' }, 3);
    c.inc({ type: 'cancel', outcome: 'not_found' });
  });
  const lines = (s: string) => s.split('\n').filter((l) => l.startsWith('things_total')).sort();
  t.same(lines(await ours.text()), lines(expected));
  t.throws(() => family.child({ type: 'place' } as never), /label outcome is missing/);
});

t.test('reset clears the slots as prom-client does; a name is registered once', async (t) => {
  const ours = createMetrics({ defaultMetrics: false });
  const h = ours.slotHistogram({ name: 'x_seconds', help: 'X.', buckets }).child({});
  const l = ours.slotHistogram({ name: 'y_seconds', help: 'Y.', labelNames: ['stage'] as const, buckets });
  const theirs = new client.Registry();
  const ph = new client.Histogram({ name: 'x_seconds', help: 'X.', buckets, registers: [theirs] });
  const pl = new client.Histogram({ name: 'y_seconds', help: 'Y.', labelNames: ['stage'], buckets, registers: [theirs] });
  const lines = (s: string) => s.split('\n').filter((x) => /^[xy]_seconds/.test(x)).sort();
  t.same(lines(await ours.text()), lines(await theirs.metrics()), 'before any observation');
  h.observe(0.002);
  l.child({ stage: 'a' }).observe(0.002);
  ph.observe(0.002);
  pl.observe({ stage: 'a' }, 0.002);
  t.match(await ours.text(), /^x_seconds_count 1$/m);
  ours.registry.resetMetrics();
  theirs.resetMetrics();
  t.same(lines(await ours.text()), lines(await theirs.metrics()), 'after a reset');
  h.observe(0.2);
  t.match(await ours.text(), /^x_seconds_bucket\{le="\+Inf"\} 1$/m);
  t.throws(() => ours.slotHistogram({ name: 'x_seconds', help: 'again', buckets }));
});
