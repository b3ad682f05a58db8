/**
 * `bench/book.ts --instructions`: the whole engine's instructions per op, counted by valgrind's
 * cachegrind (docs/book.md "Instructions per op"). Instruction counts do not move with the
 * host's load the way times do, so this is the stable figure on a shared, noisy machine.
 *
 * Method: a child node process (lib/instructionsChild.ts, the same tsx loader as the benchmark)
 * builds the benchmark's op stream and prepared venue (lib/seriesActorSubject.ts `prepare`),
 * applies the prefill, then applies `applyOps` ops through `Venue.apply`. It runs twice under
 * cachegrind: once with W + M ops, once with W ops only. Instructions per op is
 * (I(W + M) - I(W)) / M: start-up, the loader's compilation, building the stream and the
 * warm-up (with most of the JIT compiling) are in both totals and cancel.
 *
 * Every wait is bounded: each child gets a timeout and a stall fails the run saying which
 * child stalled. A missing valgrind is not a failure: the figure is reported as null with a
 * message saying how to install it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StallError } from './deadline.ts';

/** bench/book.ts's command-line flags. */
export type BookArgs = { instructions: boolean };

/** Parses bench/book.ts's arguments; throws on anything it does not know. */
export function parseBookArgs(argv: readonly string[]): BookArgs {
  const args: BookArgs = { instructions: false };
  for (const a of argv) {
    if (a === '--instructions') args.instructions = true;
    else throw new Error(`bench/book: unknown argument "${a}" (known: --instructions)`);
  }
  return args;
}

/** A whole number >= `min` from the environment variable `name`, or `fallback` when unset. */
export function envInt(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < min) throw new Error(`${name} must be a whole number >= ${min}, got "${raw}"`);
  return n;
}

/** W, M and each child's bound, from BOOK_INSTRUCTIONS_WARMUP, _OPS and _TIMEOUT_MS. */
export function instructionsSettings(env: NodeJS.ProcessEnv): { warmupOps: number; measuredOps: number; timeoutMs: number } {
  return {
    warmupOps: envInt(env, 'BOOK_INSTRUCTIONS_WARMUP', DEFAULT_WARMUP_OPS, 0),
    measuredOps: envInt(env, 'BOOK_INSTRUCTIONS_OPS', DEFAULT_MEASURED_OPS, 1),
    timeoutMs: envInt(env, 'BOOK_INSTRUCTIONS_TIMEOUT_MS', 15 * 60_000, 1),
  };
}

/** Default W and M (docs/book.md: chosen by trying, for a stable figure in a few minutes). */
export const DEFAULT_WARMUP_OPS = 20_000;
export const DEFAULT_MEASURED_OPS = 80_000;

/**
 * Node's flags for the child under valgrind, so that the count does not depend on timing
 * (docs/book.md): no background threads (compiling and collecting on the main thread, where
 * valgrind counts them all the same), a garbage collection schedule fixed by allocation rather
 * than by measured speeds, and marking in one pause instead of time-sliced steps. Without the
 * last one, two identical runs differed by 300-600 million instructions; with it, two runs from
 * the shell by 44 million, but runs of the benchmark still by up to ~600 million (docs/book.md).
 */
export const CHILD_NODE_FLAGS: readonly string[] = ['--single-threaded', '--predictable-gc-schedule', '--no-incremental-marking'];

/**
 * valgrind's flags: cachegrind counting instructions only (no cache simulation), and
 * self-modifying-code checks on all code not from a file, which V8's JIT code needs (it is
 * valgrind's default on amd64; given explicitly so that it holds elsewhere).
 */
export const VALGRIND_FLAGS: readonly string[] = ['--tool=cachegrind', '--cache-sim=no', '--smc-check=all-non-file'];

export type InstructionsOptions = {
  /** Warm-up ops W (after the stream's prefill). */
  warmupOps: number;
  /** Measured ops M. */
  measuredOps: number;
  /** The valgrind command (tests inject one that does not exist). */
  valgrind?: string;
  /** Bound of each child (ms); a child still running then is killed and the run fails. */
  timeoutMs: number;
  /** Progress lines (the benchmark prints them as `# ...` comments). */
  log?: (line: string) => void;
};

export type InstructionsResult = {
  instructionsPerOp: number | null;
  warmupOps: number;
  measuredOps: number;
  /** I(W): the whole child's instructions with W ops applied. */
  totalWarmup: number | null;
  /** I(W + M). */
  totalWarmupPlusMeasured: number | null;
  /** Wall time of the whole measurement (both valgrind runs and the native check), seconds. */
  seconds: number | null;
  /** Why the figure is null (valgrind missing). */
  missing?: string;
};

/** (I(W + M) - I(W)) / M, rounded to a whole instruction. */
export function perOp(totalWarmupPlusMeasured: number, totalWarmup: number, measuredOps: number): number {
  if (!(measuredOps > 0)) throw new Error(`measured ops must be > 0, got ${measuredOps}`);
  if (totalWarmupPlusMeasured < totalWarmup) {
    throw new Error(`cachegrind counted fewer instructions with more ops (I(W+M) ${totalWarmupPlusMeasured} < I(W) ${totalWarmup})`);
  }
  return Math.round((totalWarmupPlusMeasured - totalWarmup) / measuredOps);
}

/** The total instruction count of a cachegrind output file (its `summary:` line; events: Ir). */
export function parseCachegrindOut(text: string): number {
  const events = /^events:\s*(.*)$/m.exec(text);
  const summary = /^summary:\s*(.*)$/m.exec(text);
  if (!events || !summary) throw new Error('cachegrind output has no events: or summary: line');
  const at = events[1]!.trim().split(/\s+/).indexOf('Ir');
  if (at < 0) throw new Error(`cachegrind output does not count Ir (events: ${events[1]})`);
  const n = Number(summary[1]!.trim().split(/\s+/)[at]);
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`cachegrind summary is not a positive count: "${summary[1]}"`);
  return n;
}

/** The message printed when valgrind is not there. */
export function missingValgrindMessage(command: string): string {
  return (
    `valgrind not found ("${command}"): instructions per op not measured (reported as null). ` +
    'Install it with `apt-get install -y valgrind` (Debian/Ubuntu), then run `npm run bench -- book --instructions` again.'
  );
}

type Exit = { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string };

/** Runs a command to its end, or kills it and throws a StallError naming `where` after `timeoutMs`. */
export function runBounded(command: string, args: readonly string[], where: string, timeoutMs: number, signal?: AbortSignal): Promise<Exit> {
  return new Promise((resolve, reject) => {
    // `signal` kills the child when another run it goes with has failed.
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...(signal ? { signal, killSignal: 'SIGKILL' as const } : {}) });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-20_000)));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new StallError(`stalled: ${where} did not finish within ${timeoutMs} ms (BOOK_INSTRUCTIONS_TIMEOUT_MS); killed`));
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** True if `command --version` runs; false if there is no such command. */
export async function hasCommand(command: string, timeoutMs: number): Promise<boolean> {
  try {
    const r = await runBounded(command, ['--version'], `"${command} --version"`, timeoutMs);
    return r.code === 0;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'EACCES') return false;
    throw err;
  }
}

const childScript = join(dirname(fileURLToPath(import.meta.url)), 'instructionsChild.ts');

/** The child's node arguments: stream of W + M ops, `applyOps` of them applied. */
function childArgs(streamOps: number, applyOps: number): string[] {
  return ['--import', 'tsx', childScript, String(streamOps), String(applyOps)];
}

function checkChild(r: Exit, where: string, applyOps: number): void {
  if (r.code !== 0) throw new Error(`${where} exited with ${r.code ?? r.signal}:\n${r.stderr.slice(-4000)}`);
  if (!new RegExp(`^applied \\d+ prefill \\+ ${applyOps} ops$`, 'm').test(r.stdout)) {
    throw new Error(`${where} did not report applying ${applyOps} ops; its output:\n${r.stdout.slice(-2000)}`);
  }
}

/** Measures the whole engine's instructions per op (see the file's comment). */
export async function measureInstructions(o: InstructionsOptions): Promise<InstructionsResult> {
  const log = o.log ?? (() => {});
  const valgrind = o.valgrind ?? 'valgrind';
  const W = o.warmupOps;
  const M = o.measuredOps;
  if (!Number.isInteger(W) || W < 0 || !Number.isInteger(M) || M < 1) throw new Error(`instructions: W must be >= 0 and M >= 1, whole numbers (W ${W}, M ${M})`);
  const none: InstructionsResult = { instructionsPerOp: null, warmupOps: W, measuredOps: M, totalWarmup: null, totalWarmupPlusMeasured: null, seconds: null };
  if (!(await hasCommand(valgrind, o.timeoutMs))) {
    const missing = missingValgrindMessage(valgrind);
    log(missing);
    return { ...none, missing };
  }
  const started = process.hrtime.bigint();
  const stream = W + M;
  // One native run first: it checks the child works before minutes under valgrind, and fills
  // tsx's transform cache so that both valgrind runs start from the same cache state.
  checkChild(await runBounded(process.execPath, childArgs(stream, 0), 'the native check run of the instructions child', o.timeoutMs), 'the native check run', 0);
  const dir = mkdtempSync(join(tmpdir(), 'book-instructions-'));
  try {
    const abort = new AbortController();
    const count = async (applyOps: number): Promise<number> => {
      const where = `the cachegrind run with ${applyOps} ops`;
      const t0 = process.hrtime.bigint();
      const sub = join(dir, String(applyOps));
      const r = await runBounded(
        valgrind,
        [...VALGRIND_FLAGS, `--cachegrind-out-file=${sub}.%p`, process.execPath, ...CHILD_NODE_FLAGS, ...childArgs(stream, applyOps)],
        where,
        o.timeoutMs,
        abort.signal,
      );
      checkChild(r, where, applyOps);
      const files = readdirSync(dir).filter((f) => f.startsWith(`${applyOps}.`));
      if (files.length !== 1) throw new Error(`${where}: expected one cachegrind output file, found ${files.length}`);
      const total = parseCachegrindOut(readFileSync(join(dir, files[0]!), 'utf8'));
      log(`cachegrind, ${applyOps} ops after the prefill: ${total.toLocaleString('en')} instructions in ${(Number(process.hrtime.bigint() - t0) / 1e9).toFixed(0)} s`);
      return total;
    };
    // The two runs side by side (the counts do not depend on timing, docs/book.md); if one
    // fails, the other is killed.
    const failFast = (p: Promise<number>): Promise<number> =>
      p.catch((err: unknown) => {
        abort.abort();
        throw err;
      });
    const [totalWarmupPlusMeasured, totalWarmup] = await Promise.all([failFast(count(W + M)), failFast(count(W))]);
    return {
      instructionsPerOp: perOp(totalWarmupPlusMeasured, totalWarmup, M),
      warmupOps: W,
      measuredOps: M,
      totalWarmup,
      totalWarmupPlusMeasured,
      seconds: Math.round(Number(process.hrtime.bigint() - started) / 1e9),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The `extra` fields of the JSON line for a measurement. */
export function instructionsExtra(r: InstructionsResult): Record<string, unknown> {
  return {
    instructionsPerOp: r.instructionsPerOp,
    instructionsWarmupOps: r.warmupOps,
    instructionsMeasuredOps: r.measuredOps,
    instructionsTotalWarmup: r.totalWarmup,
    instructionsTotalWarmupPlusMeasured: r.totalWarmupPlusMeasured,
    instructionsSeconds: r.seconds,
    ...(r.missing !== undefined ? { instructionsMissing: r.missing } : {}),
  };
}
