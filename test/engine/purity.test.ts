/**
 * architecture.md rule 1: the engine is pure. Nothing under engine/ may import I/O
 * modules, the transport or the worker pool, read a clock or draw random numbers.
 */
import t from 'tap';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const engineDir = join(root, 'engine');

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sources(path));
    else if (name.endsWith('.ts')) out.push(path);
  }
  return out;
}

const forbidden: Array<[RegExp, string]> = [
  [/from\s+['"](node:)?(fs|fs\/promises|net|http|https|http2|child_process|worker_threads|cluster|dgram|os|crypto|dns|tls|readline|perf_hooks|timers|process)['"]/, 'imports a Node I/O, clock or randomness module'],
  [/from\s+['"](lmdb|piscina|uWebSockets\.js|prom-client|ws|fastify)['"]/, 'imports I/O infrastructure'],
  [/from\s+['"](\.\.\/)+(gateway|persistence|workers|bench)\//, 'imports an outer layer'],
  [/\bDate\.now\s*\(/, 'reads the clock'],
  [/\bnew Date\s*\(\s*\)/, 'reads the clock'],
  [/\bperformance\.now\s*\(/, 'reads the clock'],
  [/\bprocess\.hrtime/, 'reads the clock'],
  [/\bMath\.random\s*\(/, 'draws a random number'],
  [/\bcrypto\.getRandomValues/, 'draws a random number'],
  [/\bsetTimeout\s*\(|\bsetInterval\s*\(|\bsetImmediate\s*\(/, 'schedules timers'],
  [/\bprocess\.env\b/, 'reads the environment'],
];

const files = sources(engineDir);
t.ok(files.length > 0, 'engine has sources');
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  for (const [pattern, why] of forbidden) {
    const line = text.split('\n').findIndex((l) => pattern.test(l));
    t.equal(line, -1, `${relative(root, file)}${line >= 0 ? `:${line + 1}` : ''} ${why}`);
  }
}

t.test('the checker itself catches violations', async (t) => {
  const bad = ["import { open } from 'lmdb';", 'const t = Date.now();', 'Math.random()', "import fs from 'node:fs';", "import x from '../../gateway/app.ts';"];
  for (const line of bad) t.ok(forbidden.some(([p]) => p.test(line)), `flags: ${line}`);
  t.notOk(forbidden.some(([p]) => p.test("import { keccak256 } from 'viem';")), 'allows pure libraries');
});
