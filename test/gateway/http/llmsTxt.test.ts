/**
 * `/llms.txt` of the real venue: every operation of the OpenAPI document (both forms: the
 * current `/api/...` path and the earlier path without `/api`) has its own section, and the
 * section of an operation that takes a body shows that body: its fields and the same
 * example as the OpenAPI document.
 */
import t from 'tap';
import { startTestApp } from '../support/testApp.ts';

const app = await startTestApp({ memory: true, startAt: Date.UTC(2026, 0, 5, 12, 0, 0) });
t.teardown(() => app.close());

type Op = { 'x-form': 'current' | 'earlier'; requestBody?: { content: Record<string, { example?: unknown }> } };
const doc = (await (await fetch(`${app.url}/openapi/json`)).json()) as { paths: Record<string, Record<string, Op>> };
const llms = await (await fetch(`${app.url}/llms.txt`)).text();

/** The text of the section whose heading is `### METHOD path`, or null. */
function sectionOf(method: string, path: string): string | null {
  const heading = `### ${method} ${path}\n`;
  const start = llms.indexOf(heading);
  if (start < 0) return null;
  const end = llms.indexOf('\n### ', start + heading.length);
  const nextGroup = llms.indexOf('\n## ', start + heading.length);
  const stops = [end, nextGroup].filter((i) => i >= 0);
  return llms.slice(start, stops.length > 0 ? Math.min(...stops) : undefined);
}

const ops = Object.entries(doc.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, op]) => ({ method: method.toUpperCase(), path: path.replace(/\{([^}]+)\}/g, ':$1'), op })),
);

t.test('every operation, in each form, has its own section', async (t) => {
  t.ok(ops.filter((o) => o.op['x-form'] === 'earlier').length > 30, 'earlier-form operations');
  for (const { method, path } of ops) t.not(sectionOf(method, path), null, `${method} ${path}`);
});

t.test('each section of a body-taking operation shows the request body and its example', async (t) => {
  let withBody = 0;
  for (const { method, path, op } of ops) {
    const section = sectionOf(method, path) ?? '';
    const id = `${method} ${path}`;
    if (op.requestBody !== undefined) {
      withBody++;
      t.match(section, /\n- Body \(JSON\): \S/, `${id}: fields`);
      const example = op.requestBody.content['application/json']!.example;
      t.ok(section.includes(`- Example body: \`${JSON.stringify(example)}\``), `${id}: the OpenAPI example`);
    } else if (method !== 'GET') {
      t.match(section, /\n- Body: none \(send none, or any JSON, which is ignored; a body that is not JSON is 400\)/, `${id}: no body`);
    }
  }
  t.ok(withBody > 20, `${withBody} operations with a body, both forms`);
  const earlier = sectionOf('POST', '/portfolio/deposit')!;
  t.match(earlier, /Earlier form of `POST \/api\/portfolio\/deposit`/);
  t.match(earlier, /`portfolioId`: integer/);
});
