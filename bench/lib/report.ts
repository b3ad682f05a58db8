/**
 * How every benchmark reports (performance.md): the last line of output is one JSON
 * object, and the same object is appended to bench/results/<name>.jsonl with the date
 * and git commit so that progress is visible over time.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type BenchResult = {
  bench: string;
  metric: string;
  unit: string;
  value: number;
  peer: string | null;
  peerValue: number | null;
  ratio: number | null;
  p50_us: number | null;
  p99_us: number | null;
  /** Anything else worth keeping (budgets, secondary metrics, machine notes). */
  extra?: Record<string, unknown>;
};

const resultsDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'results');

function gitCommit(): string | null {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

/** Print the result as the last line of output and append it to the results file. */
export function report(result: BenchResult): void {
  const line = JSON.stringify({
    bench: result.bench,
    metric: result.metric,
    unit: result.unit,
    value: round(result.value),
    peer: result.peer,
    peerValue: result.peerValue === null ? null : round(result.peerValue),
    ratio: result.ratio === null ? null : round(result.ratio),
    p50_us: result.p50_us === null ? null : round(result.p50_us),
    p99_us: result.p99_us === null ? null : round(result.p99_us),
  });
  mkdirSync(resultsDir, { recursive: true });
  const record = { ...JSON.parse(line), ...(result.extra ? { extra: result.extra } : {}), date: new Date().toISOString(), commit: gitCommit() };
  appendFileSync(join(resultsDir, `${result.bench}.jsonl`), JSON.stringify(record) + '\n');
  process.stdout.write(line + '\n');
}

function round(n: number): number {
  if (!Number.isFinite(n)) return n;
  const abs = Math.abs(n);
  const digits = abs >= 1000 ? 0 : abs >= 1 ? 3 : 6;
  return Number(n.toFixed(digits));
}
