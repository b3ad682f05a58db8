/**
 * ops/grafana/venue-dashboard.json imports into Grafana (Dashboards > New > Import, or file
 * provisioning): the fields Grafana needs are there with the right types, panels have unique
 * ids and sit on the 24-column grid without overlapping, every query panel reads the
 * `datasource` variable's Prometheus, and every `$variable` an expression uses is defined.
 * Its PromQL is checked against the venue's metrics in promql.test.ts.
 */
import t from 'tap';
import { allPanels, dashboardExpressions, readDashboard } from './support/promql.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown): v is number => Number.isInteger(v);

/** What Grafana would refuse or misplace in one dashboard model (empty: importable). */
function dashboardProblems(d: unknown): string[] {
  const out: string[] = [];
  if (!isObj(d)) return ['the dashboard is not a JSON object'];
  if (typeof d.title !== 'string' || d.title === '') out.push('title: a non-empty string');
  if (typeof d.uid !== 'string' || !/^[A-Za-z0-9_-]{1,40}$/.test(d.uid)) out.push('uid: 1-40 characters of [A-Za-z0-9_-]');
  if (d.id !== undefined && d.id !== null) out.push('id: absent or null (an import with an id overwrites another dashboard)');
  if (!isInt(d.schemaVersion) || d.schemaVersion < 36) out.push('schemaVersion: an integer >= 36');
  if (!isObj(d.time) || typeof d.time.from !== 'string' || typeof d.time.to !== 'string') out.push('time: { from, to }');
  if (!Array.isArray(d.panels) || d.panels.length === 0) return [...out, 'panels: a non-empty array'];
  const templating = isObj(d.templating) && Array.isArray(d.templating.list) ? (d.templating.list as unknown[]) : null;
  if (templating === null) return [...out, 'templating.list: an array'];

  const variables = new Set<string>();
  for (const v of templating) {
    if (!isObj(v) || typeof v.name !== 'string' || typeof v.type !== 'string') out.push(`templating: a variable without name or type: ${JSON.stringify(v)}`);
    else variables.add(v.name);
  }
  const ds = templating.find((v) => isObj(v) && v.name === 'datasource');
  if (!isObj(ds) || ds.type !== 'datasource' || ds.query !== 'prometheus') out.push('templating: a "datasource" variable of type datasource, query prometheus');

  const ids = new Set<number>();
  const cells = new Map<string, string>();
  for (const p of allPanels(d as Parameters<typeof allPanels>[0]) as unknown[]) {
    if (!isObj(p)) {
      out.push('a panel is not an object');
      continue;
    }
    const name = `panel ${String(p.id)} "${String(p.title)}"`;
    if (!isInt(p.id) || p.id < 1) out.push(`${name}: id must be a positive integer`);
    else if (ids.has(p.id)) out.push(`${name}: id used twice`);
    else ids.add(p.id);
    if (typeof p.type !== 'string' || p.type === '') out.push(`${name}: type`);
    if (typeof p.title !== 'string' || p.title === '') out.push(`${name}: title`);
    const g = p.gridPos;
    if (!isObj(g) || ![g.x, g.y, g.w, g.h].every(isInt) || (g.w as number) < 1 || (g.h as number) < 1 || (g.x as number) < 0 || (g.y as number) < 0 || (g.x as number) + (g.w as number) > 24) {
      out.push(`${name}: gridPos { x, y, w, h } integers inside 24 columns`);
    } else {
      const overlapped = new Set<string>();
      for (let x = g.x as number; x < (g.x as number) + (g.w as number); x++) {
        for (let y = g.y as number; y < (g.y as number) + (g.h as number); y++) {
          const other = cells.get(`${x},${y}`);
          if (other !== undefined) overlapped.add(other);
          cells.set(`${x},${y}`, name);
        }
      }
      for (const other of overlapped) out.push(`${name}: overlaps ${other}`);
    }
    if (p.type === 'row') continue;
    if (!isObj(p.datasource) || p.datasource.type !== 'prometheus' || p.datasource.uid !== '${datasource}') out.push(`${name}: datasource { type: prometheus, uid: \${datasource} }`);
    if (!Array.isArray(p.targets) || p.targets.length === 0) {
      out.push(`${name}: targets: a non-empty array`);
      continue;
    }
    const refIds = new Set<string>();
    for (const target of p.targets as unknown[]) {
      if (!isObj(target) || typeof target.refId !== 'string' || refIds.has(target.refId)) out.push(`${name}: each target needs its own refId`);
      else refIds.add(target.refId);
      if (!isObj(target) || typeof target.expr !== 'string' || target.expr === '') out.push(`${name}: each target needs an expr`);
    }
  }
  for (const e of dashboardExpressions(d as Parameters<typeof dashboardExpressions>[0])) {
    for (const m of e.expr.matchAll(/\$\{?(\w+)\}?/g)) {
      if (!m[1]!.startsWith('__') && !variables.has(m[1]!)) out.push(`${e.where}: uses $${m[1]}, which no variable defines`);
    }
  }
  return out;
}

t.test('the dashboard has what Grafana needs to import it', async (t) => {
  const d = readDashboard();
  t.same(dashboardProblems(d), [], 'no problems');
  t.ok(allPanels(d).filter((p) => p.type !== 'row').length >= 30, 'the panels were read');
});

t.test('the check finds what Grafana would refuse', async (t) => {
  const d = readDashboard() as unknown as { uid: string; panels: { id: number; gridPos: { x: number; y: number }; targets?: { expr: string }[] }[] };
  const broken = structuredClone(d);
  broken.uid = 'not a uid!';
  broken.panels[2]!.id = broken.panels[1]!.id;
  broken.panels[3]!.gridPos = { ...broken.panels[2]!.gridPos };
  broken.panels[4]!.targets![0]!.expr = 'rate(http_requests_total{instance=~"$node"}[5m])';
  const found = dashboardProblems(broken);
  t.match(found, [/^uid/, /id used twice/, /overlaps/, /uses \$node, which no variable defines/]);
  t.equal(found.length, 4, 'and nothing else');
  t.same(dashboardProblems({ title: 'x' }).at(-1), 'panels: a non-empty array');
});
