/**
 * The OpenAPI document the venue serves passes Redocly CLI (recommended rules, redocly.yaml)
 * and Spectral (spectral:oas, .spectral.yaml) with no error and no warning; both run from
 * node_modules through their node entry points, offline. Beside the linters: every
 * operation lists 4XX responses (but the three liveness routes, see redocly.yaml), every
 * parameter and request body has an example, every tag a description.
 */
import t from 'tap';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startTestApp } from '../support/testApp.ts';

const root = resolve(import.meta.dirname, '../../..');
const redocly = join(root, 'node_modules/@redocly/cli/bin/cli.js');
const spectral = join(root, 'node_modules/@stoplight/spectral-cli/dist/index.js');
const offline = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };

type Op = { parameters?: Array<Record<string, unknown>>; requestBody?: { content: Record<string, { example?: unknown }> }; responses: Record<string, unknown>; tags: string[] };
type Doc = { paths: Record<string, Record<string, Op>>; tags: Array<{ name: string; description?: string }> };

const app = await startTestApp({ memory: true, startAt: Date.UTC(2026, 0, 5, 12, 0, 0) });
const doc = (await (await fetch(`${app.url}/openapi/json`)).json()) as Doc;
await app.close();
const dir = mkdtempSync(join(tmpdir(), 'api-lint-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, args, { cwd: root, env: offline, maxBuffer: 64 * 1024 * 1024, timeout: 120_000 }, (err, stdout, stderr) => {
      done({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stdout, stderr });
    });
  });
}

type Problem = { rule: string; severity: string; where: string; message: string };

async function lintRedocly(file: string): Promise<Problem[]> {
  const r = await run([redocly, 'lint', file, '--config', join(root, 'redocly.yaml'), '--format=json']);
  const out = JSON.parse(r.stdout.slice(r.stdout.indexOf('{'))) as { totals: { errors: number; warnings: number }; problems: Array<{ ruleId: string; severity: string; message: string; location: Array<{ pointer: string }> }> };
  return out.problems.map((p) => ({ rule: p.ruleId, severity: p.severity, where: p.location[0]?.pointer ?? '', message: p.message }));
}

async function lintSpectral(file: string): Promise<Problem[]> {
  const out = join(dir, `spectral-${Math.random().toString(36).slice(2)}.json`);
  const r = await run([spectral, 'lint', file, '--ruleset', join(root, '.spectral.yaml'), '--format', 'json', '--output', out, '--fail-severity', 'hint', '--quiet']);
  let results: Array<{ code: string; severity: number; path: string[]; message: string }>;
  try {
    results = JSON.parse(readFileSync(out, 'utf8')) as typeof results;
  } catch {
    throw new Error(`spectral wrote no results (exit ${r.code}): ${r.stderr.slice(0, 2000)}`);
  }
  // Spectral severities: 0 error, 1 warning, 2 info, 3 hint.
  return results.map((p) => ({ rule: p.code, severity: ['error', 'warn', 'info', 'hint'][p.severity] ?? String(p.severity), where: p.path.join('.'), message: p.message }));
}

function write(name: string, value: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(value, null, 2));
  return file;
}

const operations = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ id: `${method.toUpperCase()} ${path}`, op })));

t.test('Redocly (recommended) and Spectral (spectral:oas): no error, no warning', async (t) => {
  const file = write('openapi.json', doc);
  const [r, s] = await Promise.all([lintRedocly(file), lintSpectral(file)]);
  t.same(r, [], 'redocly lint');
  t.same(s, [], 'spectral lint');
});

t.test('the linters do find faults in a broken document', async (t) => {
  const broken = structuredClone(doc);
  broken.tags[0] = { name: broken.tags[0]!.name };
  const deposit = broken.paths['/api/portfolio/deposit']!['post']!;
  deposit.requestBody!.content['application/json']!.example = { portfolioId: 'one', amount: '1' };
  const file = write('broken.json', broken);
  const [r, s] = await Promise.all([lintRedocly(file), lintSpectral(file)]);
  t.ok(r.some((p) => p.rule === 'tag-description'), 'redocly: a tag without a description');
  t.ok(s.some((p) => p.rule === 'oas3-valid-media-example' && p.where.includes('/api/portfolio/deposit')), 'spectral: an example that does not match its schema');
});

t.test('every operation lists its 4XX responses; only the liveness routes have none', async (t) => {
  t.ok(operations.length > 50, `${operations.length} operations`);
  const without = operations.filter(({ op }) => !Object.keys(op.responses).some((s) => s.startsWith('4'))).map(({ id }) => id);
  t.same(without.sort(), ['GET /api/health', 'GET /api/health-signal', 'GET /health']);
  for (const { id, op } of operations) {
    if (id.startsWith('GET ')) continue;
    t.ok(op.responses['400'], `${id}: 400 (a body that is not JSON)`);
  }
  t.ok(doc.paths['/api/portfolio/deposit']!['post']!.responses['404'], 'a portfolio named in the body can be missing');
  t.ok(doc.paths['/api/markets/ticker/{symbol}']!['get']!.responses['404'], 'a series named in the path can be missing');
});

t.test('every parameter and request body has an example; every tag a description', async (t) => {
  let params = 0;
  let bodies = 0;
  for (const { id, op } of operations) {
    for (const p of op.parameters ?? []) {
      params++;
      t.not(p['example'], undefined, `${id}: parameter ${String(p['name'])}`);
    }
    if (op.requestBody !== undefined) {
      bodies++;
      t.not(op.requestBody.content['application/json']?.example, undefined, `${id}: request body`);
    }
  }
  t.ok(params > 40 && bodies > 20, `${params} parameters, ${bodies} bodies`);
  t.ok(doc.tags.length > 5);
  for (const tag of doc.tags) t.ok(tag.description !== undefined && tag.description.length > 10, `tag ${tag.name}`);
});
