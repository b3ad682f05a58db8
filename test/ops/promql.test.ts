/**
 * Every PromQL expression of the dashboard (ops/grafana/venue-dashboard.json) and of the
 * alert rules (ops/prometheus/alerts.yml) parses, and names only metrics the venue
 * exports: the families the real venue serves on /metrics (its own and Node's process
 * metrics), the ones a branch being merged adds (ops/pending-metrics.json), and `up`.
 * The dashboard shows what the issue asked of it (each family broken down as asked) and
 * every family docs/metrics.md documents.
 */
import t, { type Test } from 'tap';
import { startTestApp } from '../gateway/support/testApp.ts';
import { allowedNames, dashboardExpressions, documentedFamilies, families, opsFile, pendingMetrics, problems, readDashboard, ruleExpressions, unmet, type Expression, type Requirement } from './support/promql.ts';

const app = await startTestApp({ memory: true });
t.teardown(() => app.close());
const served = families(await (await fetch(app.url + '/metrics')).text());
const pending = pendingMetrics();
const allowed = allowedNames(served, pending);

t.test('the scrape lists the families', async (t) => {
  for (const name of ['http_requests_total', 'journal_commit_seconds', 'process_start_time_seconds', 'nodejs_eventloop_lag_p99_seconds', 'rate_limit_hits_total']) t.ok(served.has(name), `${name} is served`);
  t.ok(allowed.has('journal_commit_seconds_bucket'), 'a histogram is queried by its _bucket samples');
});

t.test('pending metrics are not served yet (once one is, delete it from ops/pending-metrics.json)', async (t) => {
  for (const name of pending.keys()) t.notOk(served.has(name), `${name} is still pending`);
});

function check(t: Test, expressions: Expression[], least: number): void {
  t.ok(expressions.length >= least, `${expressions.length} expressions read`);
  const found = expressions.flatMap((e) => problems(e, allowed));
  t.same(found, [], 'every expression parses and names exported metrics');
}

t.test('the dashboard', async (t) => check(t, dashboardExpressions(readDashboard()), 40));
t.test('the alert rules', async (t) => check(t, ruleExpressions(opsFile('ops/prometheus/alerts.yml')), 7));

t.test('the check finds a misspelled metric, a misspelled pending metric and a syntax error', async (t) => {
  t.same(problems({ where: 'x', expr: 'histogram_quantile(0.99, sum by (le) (rate(journal_comit_seconds_bucket[$__rate_interval])))' }, allowed), ['x: names journal_comit_seconds_bucket, which the venue does not export']);
  t.same(problems({ where: 'x', expr: 'sum(rate(liquidation_total[5m]))' }, allowed), ['x: names liquidation_total, which the venue does not export']);
  t.same(problems({ where: 'x', expr: 'journal_commit_seconds' }, allowed), ['x: names journal_commit_seconds, which the venue does not export'], 'a histogram has no sample of its bare name');
  t.match(problems({ where: 'x', expr: 'sum(rate(http_requests_total[5m])' }, allowed), [/^x: PromQL does not parse/]);
  t.same(problems({ where: 'x', expr: 'sum(rate(liquidations_total[5m])) + up' }, allowed), [], 'pending names and up are allowed');
});

/** What the dashboard must show (issue 23, "Dashboard and alerts"): per item, its metrics ("metric by label" where a breakdown was asked for). */
const askedItems: Record<string, string[]> = {
  'requests and latency by route': ['http_requests_total by route', 'http_request_duration_seconds_bucket by route'],
  'order entry rate, latency and refusals by code': ['engine_commands_total by type', 'ws_order_messages_total by method', 'order_entry_stage_seconds_bucket by stage', 'engine_commands_total by outcome', 'ws_order_messages_total by outcome'],
  'journal commit latency and fsyncs': ['journal_commit_seconds_bucket', 'journal_fsyncs_total'],
  'engine command rate and queue': ['engine_commands_total by type', 'engine_commands_in_flight'],
  'WebSocket connections, messages, drops and slow-consumer closes': ['ws_connections by stream', 'ws_messages_sent_total by stream', 'ws_messages_received_total by stream', 'ws_connections_refused_total by reason', 'ws_slow_consumer_closes_total by stream'],
  'rate-limit hits': ['rate_limit_hits_total by group'],
  'MMP trips and disconnect cancels': ['mmp_trips_total by reason', 'order_venue_cancels_total by reason'],
  'liquidations and the insurance fund': ['liquidations_total', 'liquidation_closes_total by counterparty', 'insurance_fund_balance_usdc', 'insurance_fund_bad_debt_usdc'],
  'process health': ['up', 'process_start_time_seconds', 'process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_p99_seconds', 'process_open_fds'],
};
const asked: Requirement[] = Object.entries(askedItems).flatMap(([what, metrics]) =>
  metrics.map((m) => {
    const [metric, by] = m.split(' by ') as [string, string | undefined];
    return by === undefined ? { what, metric } : { what, metric, by };
  }),
);

/** One requirement per family docs/metrics.md documents: any of its samples (a histogram by its buckets). */
function documented(): Requirement[] {
  return documentedFamilies().map((name) => {
    const type = served.get(name) ?? pending.get(name);
    return { what: `documented family ${name}`, metric: type === 'histogram' ? `${name}_bucket` : name };
  });
}

t.test('the dashboard shows what was asked of it, broken down as asked', async (t) => {
  t.same(unmet(readDashboard(), asked), []);
});

t.test('the dashboard shows every family docs/metrics.md documents', async (t) => {
  const families = documented();
  t.ok(families.length >= 35, `${families.length} documented families`);
  for (const f of families) t.ok(allowed.has(f.metric), `${f.metric} is served`);
  t.same(unmet(readDashboard(), families), []);
});

t.test('the coverage check finds a panel taken out and a breakdown dropped', async (t) => {
  const d = readDashboard() as { panels: { title?: string; targets?: { expr: string }[] }[] };
  const broken = structuredClone(d);
  broken.panels = broken.panels.filter((p) => p.title !== 'Slow-consumer closes' && p.title !== 'Commands awaiting their commit');
  const byRoute = broken.panels.find((p) => p.title === 'Requests by route')!;
  byRoute.targets![0]!.expr = byRoute.targets![0]!.expr.replace('by (route, method)', 'by (method)');
  t.same(unmet(broken, asked), [
    'requests and latency by route (http_requests_total by route)',
    'engine command rate and queue (engine_commands_in_flight)',
    'WebSocket connections, messages, drops and slow-consumer closes (ws_slow_consumer_closes_total by stream)',
  ]);
  t.same(unmet(broken, documented()), ['documented family ws_slow_consumer_closes_total (ws_slow_consumer_closes_total)', 'documented family engine_commands_in_flight (engine_commands_in_flight)']);
});
