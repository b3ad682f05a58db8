/**
 * Journal benchmark (performance.md): durable commands/s with group commit, commits/s,
 * fsyncs/s, and recovery time of 1,000,000 commands with the toy engine. No peer.
 *
 * How things are counted:
 * - durable: a command counts when its `append` promise resolved with durability 'flush'
 *   (commit + fdatasync), the default of openStorage.
 * - commits: lmdb-js 'aftercommit' events on the environment (storage.stats().commits).
 * - fsyncs: the throughput phase runs in a child process under
 *   `strace -f --seccomp-bpf -ttt -e trace=fsync,fdatasync,msync,sync_file_range`, and the
 *   calls whose timestamps fall inside the measured rounds are counted. Without strace (or
 *   ptrace permission) fsyncsPerS is null, never estimated.
 * - latency (p50/p99): from issuing a burst of 1,000 appends to its acknowledgement.
 *
 * Load shape: bursts of 1,000 ~200-byte commands, one burst per event turn, at most 4
 * bursts awaiting acknowledgement (a gateway keeps accepting while commits are in flight).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command, Durability, Logger } from '../persistence/types.ts';
import { openStorage } from '../persistence/storage.ts';
import { recover } from '../persistence/recover.ts';
import { encodeFrame } from '../persistence/frame.ts';
import { ToyEngine, toyCommand } from '../test/persistence/fixtures/toyEngine.ts';
import { percentile } from './lib/stats.ts';
import { report } from './lib/report.ts';
import { STALL_MS, StallError, within } from './lib/deadline.ts';

const BURST = 1000;
const IN_FLIGHT = 4;
const ROUND_COMMANDS = 200_000;
const ROUNDS = 3;
const RECOVERY_COMMANDS = 1_000_000;
const TEMPLATES = 10_000;
/** The throughput child (warm-up and every round) must end within this (each wait in it is bounded too). */
const CHILD_TIMEOUT_MS = (ROUNDS + 1) * STALL_MS;

const quietLog: Logger = {
  info() {},
  warn: (msg) => process.stderr.write(`warn: ${msg}\n`),
  error: (msg) => process.stderr.write(`error: ${msg}\n`),
};

const templates = Array.from({ length: TEMPLATES }, (_, i) => toyCommand(42, i + 1));
/** Command `seq` built from a pre-generated template: keeps command generation out of the measurement. */
const commandAt = (seq: number): Command => ({ ...templates[(seq - 1) % TEMPLATES]!, seq, ts: 1_700_000_000_000 + seq });
const epochSeconds = (): number => (performance.timeOrigin + performance.now()) / 1000;
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

type Round = { commands: number; seconds: number; cpuSeconds: number; commits: number; journalTransactions: number; start: number; end: number };
type ChildResult = { durability: Durability; rounds: Round[]; p50_us: number; p99_us: number };

/** Appends `count` commands from seq `from` in bursts; returns burst ack latencies (us) into `latencies`. */
async function appendBursts(storage: ReturnType<typeof openStorage>, from: number, count: number, latencies: number[] | null): Promise<void> {
  const inFlight: Promise<void>[] = [];
  for (let seq = from; seq < from + count; ) {
    if (inFlight.length >= IN_FLIGHT) await inFlight.shift();
    const t0 = performance.now();
    let ack: Promise<void> = Promise.resolve();
    for (let i = 0; i < BURST && seq < from + count; i++) ack = storage.journal.append(commandAt(seq++));
    inFlight.push(latencies === null ? ack : ack.then(() => void latencies.push((performance.now() - t0) * 1000)));
    await nextTurn();
  }
  await Promise.all(inFlight);
}

async function throughputChild(dir: string, durability: Durability): Promise<void> {
  const storage = openStorage({ dataDir: dir, log: quietLog, durability });
  await within(appendBursts(storage, 1, 20_000, null), 'journal: the warm-up appends (LMDB acknowledgements)'); // warm-up: JIT, LMDB map growth
  const latencies: number[] = [];
  const rounds: Round[] = [];
  let next = 20_001;
  for (let r = 0; r < ROUNDS; r++) {
    const before = storage.stats();
    const start = epochSeconds();
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    await within(appendBursts(storage, next, ROUND_COMMANDS, latencies), `journal: round ${r + 1}'s appends (LMDB acknowledgements)`);
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const end = epochSeconds();
    const after = storage.stats();
    next += ROUND_COMMANDS;
    rounds.push({ commands: ROUND_COMMANDS, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, commits: after.commits - before.commits, journalTransactions: after.journalTransactions - before.journalTransactions, start, end });
  }
  await within(storage.close(), 'journal: closing the throughput storage');
  const result: ChildResult = { durability, rounds, p50_us: percentile(latencies, 50), p99_us: percentile(latencies, 99) };
  process.stdout.write(JSON.stringify(result) + '\n');
}

function hasStrace(): boolean {
  return spawnSync('strace', ['-V'], { stdio: 'ignore' }).status === 0;
}

/** Runs the throughput phase in a child (traced when possible); returns its result and fsync timestamps. */
function runThroughput(durability: Durability, trace: boolean): { result: ChildResult; fsyncTimes: number[] | null } {
  const dir = mkdtempSync(join(tmpdir(), 'bench-journal-'));
  const traceFile = join(dir, 'strace.log');
  const self = fileURLToPath(import.meta.url);
  const nodeArgs = ['--import', 'tsx', self, '--throughput-child', join(dir, 'data'), durability];
  try {
    const r = trace
      ? spawnSync('strace', ['-f', '--seccomp-bpf', '-qq', '-ttt', '-o', traceFile, '-e', 'trace=fsync,fdatasync,msync,sync_file_range', process.execPath, ...nodeArgs], { encoding: 'utf8', maxBuffer: 1 << 26, timeout: CHILD_TIMEOUT_MS, killSignal: 'SIGKILL' })
      : spawnSync(process.execPath, nodeArgs, { encoding: 'utf8', maxBuffer: 1 << 26, timeout: CHILD_TIMEOUT_MS, killSignal: 'SIGKILL' });
    if (r.error !== undefined && (r.error as NodeJS.ErrnoException).code === 'ETIMEDOUT') throw new StallError(`stalled: journal: the ${durability} throughput child did not finish within ${CHILD_TIMEOUT_MS} ms`);
    if (r.status !== 0) throw new Error(`throughput child failed (${r.status ?? r.signal}): ${r.stderr}`);
    const lastLine = r.stdout.trim().split('\n').pop() ?? '';
    const result = JSON.parse(lastLine) as ChildResult;
    let fsyncTimes: number[] | null = null;
    if (trace && existsSync(traceFile)) {
      fsyncTimes = [];
      for (const line of readFileSync(traceFile, 'utf8').split('\n')) {
        const m = /(\d+\.\d+) (?:fsync|fdatasync|msync|sync_file_range)\(/.exec(line);
        if (m) fsyncTimes.push(Number(m[1]));
      }
    }
    return { result, fsyncTimes };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function recoveryPhase(): Promise<{ seconds: number; cpuSeconds: number; commands: number; hash: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-journal-recovery-'));
  try {
    // Setup only: durability 'commit' writes the 1M history faster; recovery does not care.
    const writer = openStorage({ dataDir: dir, log: quietLog, durability: 'commit' });
    await within(appendBursts(writer, 1, RECOVERY_COMMANDS, null), 'journal: writing the recovery history (LMDB acknowledgements)');
    await within(writer.close(), 'journal: closing the recovery writer');
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const storage = openStorage({ dataDir: dir, log: quietLog });
    const r = recover({ journal: storage.journal, snapshots: storage.snapshots, create: () => new ToyEngine(), restore: ToyEngine.restore, log: quietLog });
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    await within(storage.close(), 'journal: closing the recovered storage');
    if (r.lastSeq !== RECOVERY_COMMANDS || r.replayed !== RECOVERY_COMMANDS) throw new Error(`recovered ${r.replayed} of ${RECOVERY_COMMANDS}`);
    return { seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, commands: r.replayed, hash: r.engine.stateHash() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const childAt = process.argv.indexOf('--throughput-child');
  if (childAt >= 0) {
    await throughputChild(process.argv[childAt + 1]!, process.argv[childAt + 2] as Durability);
    return;
  }
  const loadAvg1m = loadavg()[0]!;
  const trace = hasStrace();
  const flush = runThroughput('flush', trace);
  const commit = runThroughput('commit', false);
  const best = (rs: Round[]): Round => rs.reduce((a, b) => (b.commands / b.seconds > a.commands / a.seconds ? b : a));
  const bestFlush = best(flush.result.rounds);
  const totalSeconds = flush.result.rounds.reduce((s, r) => s + r.seconds, 0);
  const totalCommits = flush.result.rounds.reduce((s, r) => s + r.commits, 0);
  const totalCommands = flush.result.rounds.reduce((s, r) => s + r.commands, 0);
  const totalCpu = flush.result.rounds.reduce((s, r) => s + r.cpuSeconds, 0);
  let fsyncs: number | null = null;
  if (flush.fsyncTimes !== null) {
    fsyncs = 0;
    for (const t of flush.fsyncTimes) if (flush.result.rounds.some((r) => t >= r.start && t <= r.end)) fsyncs++;
  }
  const recovery = await recoveryPhase();
  const commandBytes = templates.reduce((s, c) => s + encodeFrame(c).length, 0) / templates.length;
  console.log(
    `durable (flush): best ${Math.round(bestFlush.commands / bestFlush.seconds)} commands/s; ${totalCommits} commits and ${fsyncs ?? 'n/a'} fsyncs in ${totalSeconds.toFixed(2)} s; ` +
      `commit-only: ${Math.round(best(commit.result.rounds).commands / best(commit.result.rounds).seconds)} commands/s; ` +
      `recovery of 1M: ${recovery.seconds.toFixed(2)} s (${recovery.cpuSeconds.toFixed(2)} CPU-s); load average at start ${loadAvg1m.toFixed(1)} on ${availableParallelism()} cores`,
  );
  report({
    bench: 'journal',
    metric: 'durable_commands_per_s',
    unit: 'commands/s',
    value: bestFlush.commands / bestFlush.seconds,
    peer: null,
    peerValue: null,
    ratio: null,
    p50_us: flush.result.p50_us,
    p99_us: flush.result.p99_us,
    extra: {
      commitsPerS: Math.round(totalCommits / totalSeconds),
      fsyncsPerS: fsyncs === null ? null : Math.round(fsyncs / totalSeconds),
      fsyncCount: fsyncs === null ? 'strace unavailable: not counted' : 'strace -f --seccomp-bpf: fsync+fdatasync+msync+sync_file_range calls inside the measured rounds',
      commandsPerCommit: Math.round(totalCommands / Math.max(1, totalCommits)),
      meanDurableCommandsPerS: Math.round(totalCommands / totalSeconds),
      commitOnlyCommandsPerS: Math.round(best(commit.result.rounds).commands / best(commit.result.rounds).seconds),
      commitOnlyP99Us: Math.round(commit.result.p99_us),
      cpuUsPerDurableCommand: Number(((totalCpu / totalCommands) * 1e6).toFixed(2)),
      recovery1MSeconds: Number(recovery.seconds.toFixed(3)),
      recovery1MCpuSeconds: Number(recovery.cpuSeconds.toFixed(3)),
      recoveryCommandsPerS: Math.round(recovery.commands / recovery.seconds),
      commandBytes: Math.round(commandBytes),
      burst: BURST,
      burstsInFlight: IN_FLIGHT,
      latencyIs: 'burst of 1,000 appends: issue to acknowledgement',
      budget: { durableCommandsPerS: 200_000, recovery1MSeconds: 5 },
      loadAvg1mAtStart: Number(loadAvg1m.toFixed(2)),
      cpuNote: 'cpu = user+system of the whole process (all threads, incl. the lmdb writer), from process.cpuUsage()',
    },
  });
}

await main();
