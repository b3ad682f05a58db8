/**
 * `npm run bench` runs every benchmark; `npm run bench -- <name>` runs one. Flags after a name
 * go to that benchmark: `npm run bench -- book --instructions` (lib/runArgs.ts).
 * Each benchmark is bench/<name>.ts and runs in its own process so that one cannot
 * warm up or disturb the next.
 */
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCH_TIMEOUT_MS } from './lib/deadline.ts';
import { parseRunArgs, type BenchRun } from './lib/runArgs.ts';

const here = dirname(fileURLToPath(import.meta.url));
const available = readdirSync(here)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts')
  .map((f) => f.slice(0, -3))
  .sort();

let runs: BenchRun[];
try {
  runs = parseRunArgs(process.argv.slice(2), available);
} catch (err) {
  console.error((err as Error).message);
  process.exit(2);
}

let failed = 0;
for (const { name, args } of runs) {
  console.log(`# bench ${[name, ...args].join(' ')}`);
  // A benchmark that does not end by itself within BENCH_TIMEOUT_MS is killed and counted as failed.
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(here, `${name}.ts`), ...args], { stdio: 'inherit', timeout: BENCH_TIMEOUT_MS, killSignal: 'SIGKILL' });
  if (r.error !== undefined && (r.error as NodeJS.ErrnoException).code === 'ETIMEDOUT') {
    failed++;
    console.error(`# bench ${name} stalled: killed after ${BENCH_TIMEOUT_MS} ms (BENCH_TIMEOUT_MS)`);
  } else if (r.status !== 0) {
    failed++;
    console.error(`# bench ${name} exited with ${r.status ?? r.signal ?? r.error?.message}`);
  }
}
process.exit(failed === 0 ? 0 : 1);
