/**
 * docs/metrics.md is the operators' list of what `/metrics` serves: every family it names
 * is served with the type it states, and every family the venue defines is in it (Node's
 * default process metrics aside).
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { startTestApp } from './support/testApp.ts';

/** Families documented in the tables: first cell `name`, type in the column headed "type". */
function documented(): Map<string, string> {
  const out = new Map<string, string>();
  let typeColumn = -1;
  for (const line of readFileSync(new URL('../../docs/metrics.md', import.meta.url), 'utf8').split('\n')) {
    if (!line.startsWith('|')) continue;
    const cells = line.split('|').slice(1, -1).map((c) => c.trim());
    if (cells[0] === 'family') {
      typeColumn = cells.indexOf('type');
      continue;
    }
    const name = /^`([a-z_]+)`$/.exec(cells[0] ?? '')?.[1];
    if (name !== undefined) out.set(name, cells[typeColumn] ?? '');
  }
  return out;
}

t.test('docs/metrics.md and /metrics list the same families', async (t) => {
  const app = await startTestApp();
  t.teardown(() => app.close());
  const text = await (await fetch(app.url + '/metrics')).text();
  const served = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (m) served.set(m[1]!, m[2]!);
  }
  const docs = documented();
  t.ok(docs.size >= 15, `the doc's tables were read (${docs.size} families)`);
  for (const [name, type] of docs) t.equal(served.get(name), type, `${name} is served as a ${type}`);
  const undocumented = [...served.keys()].filter((n) => !n.startsWith('nodejs_') && !n.startsWith('process_') && !docs.has(n));
  t.same(undocumented, [], 'every venue family is documented');
});
