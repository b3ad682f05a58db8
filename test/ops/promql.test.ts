/**
 * Every PromQL expression of the dashboard (ops/grafana/venue-dashboard.json) and of the
 * alert rules (ops/prometheus/alerts.yml) parses, and names only metrics the venue
 * exports: the families the real venue serves on /metrics (its own and Node's process
 * metrics), the ones a branch being merged adds (ops/pending-metrics.json), and `up`.
 */
import t, { type Test } from 'tap';
import { startTestApp } from '../gateway/support/testApp.ts';
import { allowedNames, dashboardExpressions, families, opsFile, pendingMetrics, problems, readDashboard, ruleExpressions, type Expression } from './support/promql.ts';

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
