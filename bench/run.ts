/**
 * `npm run bench` runs every benchmark; `npm run bench -- <name>` runs one.
 * Each benchmark is bench/<name>.ts and runs in its own process so that one cannot
 * warm up or disturb the next.
 */
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCH_TIMEOUT_MS } from './lib/deadline.ts';

const here = dirname(fileURLToPath(import.meta.url));
const available = readdirSync(here)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts')
  .map((f) => f.slice(0, -3))
  .sort();

const wanted = process.argv.slice(2);
for (const name of wanted) {
  if (!available.includes(name)) {
    console.error(`unknown benchmark "${name}"; available: ${available.join(', ')}`);
    process.exit(2);
  }
}

let failed = 0;
for (const name of wanted.length > 0 ? wanted : available) {
  console.log(`# bench ${name}`);
  // A benchmark that does not end by itself within BENCH_TIMEOUT_MS is killed and counted as failed.
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(here, `${name}.ts`)], { stdio: 'inherit', timeout: BENCH_TIMEOUT_MS, killSignal: 'SIGKILL' });
  if (r.error !== undefined && (r.error as NodeJS.ErrnoException).code === 'ETIMEDOUT') {
    failed++;
    console.error(`# bench ${name} stalled: killed after ${BENCH_TIMEOUT_MS} ms (BENCH_TIMEOUT_MS)`);
  } else if (r.status !== 0) {
    failed++;
    console.error(`# bench ${name} exited with ${r.status ?? r.signal ?? r.error?.message}`);
  }
}
process.exit(failed === 0 ? 0 : 1);
