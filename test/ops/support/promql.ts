/**
 * The PromQL in ops/ (the Grafana dashboard and the Prometheus alert rules), read and
 * checked against the metric names the venue serves: parse each expression with
 * @prometheus-io/lezer-promql (Prometheus' own grammar, as Grafana's editor uses it) and
 * collect the metric name of every vector selector.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { parser } from '@prometheus-io/lezer-promql';

const root = new URL('../../../', import.meta.url);
export const opsFile = (path: string): string => readFileSync(new URL(path, root), 'utf8');

/** Where an expression comes from (a panel, a variable, an alert) and its text. */
export type Expression = { readonly where: string; readonly expr: string };

/** Series Prometheus writes itself for every target; not served by the venue, yet real. */
export const prometheusSeries: readonly string[] = ['up'];

/** Grafana's built-in interval variables, replaced by a duration before parsing. */
const grafanaDurations = /\$__rate_interval|\$__interval|\$__range|\$\{__rate_interval\}|\$\{__interval\}|\$\{__range\}/g;

/** Errors (as "at N: text") and the metric names selected by one expression. */
export function analyse(expr: string): { errors: string[]; metrics: string[] } {
  const text = expr.replace(grafanaDurations, '5m');
  const errors: string[] = [];
  const metrics: string[] = [];
  parser.parse(text).iterate({
    enter: (node) => {
      if (node.type.isError) errors.push(`at ${node.from}: "${text.slice(node.from, node.from + 20)}"`);
      if (node.name === 'VectorSelector') {
        const name = node.node.getChild('Identifier');
        if (name !== null) metrics.push(text.slice(name.from, name.to));
      }
    },
  });
  if (text.trim() === '') errors.push('empty expression');
  return { errors, metrics };
}

/** What is wrong with one expression given the names allowed: parse errors and unknown metric names. */
export function problems(e: Expression, allowed: ReadonlySet<string>): string[] {
  const { errors, metrics } = analyse(e.expr);
  const out = errors.map((err) => `${e.where}: PromQL does not parse ${err} in ${e.expr}`);
  if (errors.length === 0 && metrics.length === 0) out.push(`${e.where}: selects no metric: ${e.expr}`);
  for (const m of metrics) if (!allowed.has(m)) out.push(`${e.where}: names ${m}, which the venue does not export`);
  return out;
}

/** Sample names a family of each type is queried by. */
function sampleNames(name: string, type: string): string[] {
  if (type === 'histogram') return [`${name}_bucket`, `${name}_sum`, `${name}_count`];
  if (type === 'summary') return [name, `${name}_sum`, `${name}_count`];
  return [name];
}

/** Families (name -> type) a Prometheus text exposition declares with `# TYPE`. */
export function families(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (m) out.set(m[1]!, m[2]!);
  }
  return out;
}

/** The names of ops/pending-metrics.json (families a branch being merged adds), with their types. */
export function pendingMetrics(): Map<string, string> {
  const json = JSON.parse(opsFile('ops/pending-metrics.json')) as { metrics: Record<string, string> };
  return new Map(Object.entries(json.metrics));
}

/** Every name a query may select: the served families' samples, the pending ones', Prometheus' own. */
export function allowedNames(served: ReadonlyMap<string, string>, pending: ReadonlyMap<string, string>): Set<string> {
  const out = new Set(prometheusSeries);
  for (const [name, type] of [...served, ...pending]) for (const s of sampleNames(name, type)) out.add(s);
  return out;
}

type Panel = { id?: number; type?: string; title?: string; panels?: Panel[]; targets?: { refId?: string; expr?: string }[] };
export type Dashboard = { panels?: Panel[]; templating?: { list?: { name?: string; type?: string; definition?: string }[] } };

export const readDashboard = (): Dashboard => JSON.parse(opsFile('ops/grafana/venue-dashboard.json')) as Dashboard;

/** Panels of a dashboard, those inside collapsed rows too. */
export function allPanels(d: Dashboard): Panel[] {
  return (d.panels ?? []).flatMap((p) => [p, ...(p.panels ?? [])]);
}

/**
 * Every PromQL expression of a dashboard: each panel target's `expr` and each query
 * variable's metric (`label_values(metric{...}, label)` is Grafana's, its first argument PromQL).
 */
export function dashboardExpressions(d: Dashboard): Expression[] {
  const out: Expression[] = [];
  for (const p of allPanels(d)) for (const t of p.targets ?? []) out.push({ where: `panel "${p.title}" ${t.refId}`, expr: t.expr ?? '' });
  for (const v of d.templating?.list ?? []) {
    if (v.type !== 'query') continue;
    const m = /^label_values\((.*),\s*\w+\)$/.exec(v.definition ?? '');
    out.push({ where: `variable ${v.name} (${v.definition})`, expr: m?.[1] ?? '' });
  }
  return out;
}

/** Every `expr` of a Prometheus rule file. */
export function ruleExpressions(yamlText: string): Expression[] {
  const doc = parseYaml(yamlText) as { groups?: { name: string; rules?: { alert?: string; record?: string; expr?: unknown }[] }[] };
  return (doc.groups ?? []).flatMap((g) => (g.rules ?? []).map((r) => ({ where: `rule ${g.name}/${r.alert ?? r.record}`, expr: String(r.expr ?? '') })));
}

/** Metric families documented in docs/metrics.md (the first cell of each table row). */
export function documentedFamilies(): string[] {
  return [...opsFile('docs/metrics.md').matchAll(/^\| `([a-z_][a-z0-9_]*)` \|/gm)].map((m) => m[1]!);
}

/** One thing the dashboard must show: a metric, and the label it must be broken down by (if any). */
export type Requirement = { readonly what: string; readonly metric: string; readonly by?: string };

/** The labels of every `by (...)` clause of an expression. */
const groupings = (expr: string): string[] => [...expr.matchAll(/\bby\s*\(([^)]*)\)/g)].flatMap((m) => m[1]!.split(',').map((l) => l.trim()));

/** The requirements no expression of the dashboard meets, as "what (metric[ by label])". */
export function unmet(d: Dashboard, requirements: readonly Requirement[]): string[] {
  const exprs = dashboardExpressions(d).map((e) => ({ metrics: new Set(analyse(e.expr).metrics), by: groupings(e.expr) }));
  return requirements
    .filter((r) => !exprs.some((e) => e.metrics.has(r.metric) && (r.by === undefined || e.by.includes(r.by))))
    .map((r) => `${r.what} (${r.metric}${r.by !== undefined ? ` by ${r.by}` : ''})`);
}
