/**
 * Tool test (`npm run test:tools`, not part of `npm test`): the alert rules in
 * ops/prometheus pass `promtool check rules` and their unit tests (`promtool test rules
 * alerts.test.yml`), every alert has a unit test in which it fires, and the example
 * Prometheus configuration passes `promtool check config`.
 */
import t from 'tap';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { promtool } from './support/promtool.ts';

const dir = fileURLToPath(new URL('../../ops/prometheus/', import.meta.url));
const rules = parse(readFileSync(join(dir, 'alerts.yml'), 'utf8')) as { groups: { rules: { alert: string }[] }[] };
const alerts = rules.groups.flatMap((g) => g.rules.map((r) => r.alert));

t.test('promtool check rules', async (t) => {
  const { code, output } = await promtool(['check', 'rules', 'alerts.yml'], { cwd: dir });
  t.equal(code, 0, output);
  t.match(output, `SUCCESS: ${alerts.length} rules found`);
});

t.test('promtool test rules: the unit tests pass', async (t) => {
  const { code, output } = await promtool(['test', 'rules', 'alerts.test.yml'], { cwd: dir });
  t.equal(code, 0, output);
  t.match(output, 'SUCCESS');
});

t.test('every alert has a unit test in which it fires', async (t) => {
  const tests = parse(readFileSync(join(dir, 'alerts.test.yml'), 'utf8')) as { tests: { alert_rule_test?: { alertname: string; exp_alerts: unknown[] }[] }[] };
  const firing = new Set(tests.tests.flatMap((u) => (u.alert_rule_test ?? []).filter((a) => a.exp_alerts.length > 0).map((a) => a.alertname)));
  t.ok(alerts.length >= 7, `${alerts.length} alerts read`);
  for (const a of alerts) t.ok(firing.has(a), `${a} fires in a test`);
});

t.test('the unit tests fail when a threshold changes', async (t) => {
  const tmp = mkdtempSync(join(tmpdir(), 'alerts-'));
  t.teardown(() => rmSync(tmp, { recursive: true, force: true }));
  copyFileSync(join(dir, 'alerts.test.yml'), join(tmp, 'alerts.test.yml'));
  const original = readFileSync(join(dir, 'alerts.yml'), 'utf8');
  const loosened = original.replace('rate(journal_commit_seconds_bucket{job="venue"}[5m]))) > 0.05', 'rate(journal_commit_seconds_bucket{job="venue"}[5m]))) > 0.5');
  t.not(loosened, original, 'the threshold was found');
  writeFileSync(join(tmp, 'alerts.yml'), loosened);
  const { code, output } = await promtool(['test', 'rules', 'alerts.test.yml'], { cwd: tmp });
  t.not(code, 0, 'promtool test rules fails');
  t.match(output, 'alertname: JournalCommitSlow');
});

t.test('promtool check config on the example configuration', async (t) => {
  const { code, output } = await promtool(['check', 'config', 'prometheus.yml'], { cwd: dir });
  t.equal(code, 0, output);
});
