/**
 * The pure parts of `bench/book.ts --instructions` (bench/lib/instructions.ts) and of
 * bench/run.ts's arguments (bench/lib/runArgs.ts). Nothing here runs valgrind or measures
 * time: the "valgrind missing" path runs with a command that does not exist.
 */
import t from 'tap';
import {
  envInt,
  hasCommand,
  instructionsExtra,
  instructionsSettings,
  measureInstructions,
  missingValgrindMessage,
  parseBookArgs,
  parseCachegrindOut,
  perOp,
  runBounded,
  DEFAULT_MEASURED_OPS,
  DEFAULT_WARMUP_OPS,
} from '../../bench/lib/instructions.ts';
import { parseRunArgs } from '../../bench/lib/runArgs.ts';
import { makeOpStream } from '../../bench/book.ts';
import { StallError } from '../../bench/lib/deadline.ts';

t.test('book arguments: none, --instructions, anything else refused', async (t) => {
  t.same(parseBookArgs([]), { instructions: false });
  t.same(parseBookArgs(['--instructions']), { instructions: true });
  t.throws(() => parseBookArgs(['--instruction']), /unknown argument "--instruction"/);
  t.throws(() => parseBookArgs(['book']), /unknown argument "book"/);
});

t.test('run arguments: flags follow the benchmark they are for', async (t) => {
  const available = ['book', 'greeks', 'iv'];
  t.same(parseRunArgs([], available), [
    { name: 'book', args: [] },
    { name: 'greeks', args: [] },
    { name: 'iv', args: [] },
  ]);
  t.same(parseRunArgs(['book'], available), [{ name: 'book', args: [] }]);
  t.same(parseRunArgs(['book', '--instructions'], available), [{ name: 'book', args: ['--instructions'] }]);
  t.same(parseRunArgs(['iv', 'book', '--instructions', 'greeks'], available), [
    { name: 'iv', args: [] },
    { name: 'book', args: ['--instructions'] },
    { name: 'greeks', args: [] },
  ]);
  t.throws(() => parseRunArgs(['--instructions', 'book'], available), /flag "--instructions" before any benchmark name/);
  t.throws(() => parseRunArgs(['bok'], available), /unknown benchmark "bok"; available: book, greeks, iv/);
});

t.test('instructions per op is (I(W+M) - I(W)) / M, rounded', async (t) => {
  t.equal(perOp(12_000_000_000, 10_000_000_000, 40_000), 50_000);
  t.equal(perOp(1_000_000_003, 1_000_000_000, 2), 2, '1.5 rounds to 2');
  t.equal(perOp(5, 5, 1), 0);
  t.throws(() => perOp(10, 11, 1), /fewer instructions with more ops/);
  t.throws(() => perOp(10, 5, 0), /measured ops must be > 0/);
});

t.test('the total of a cachegrind output file', async (t) => {
  const out = 'desc: I1 cache: 32768 B\ncmd: node x.ts\nevents: Ir\nfl=a.c\nfn=f\n1 10\nsummary: 12345678901\n';
  t.equal(parseCachegrindOut(out), 12_345_678_901);
  t.equal(parseCachegrindOut('events: Dr Ir\nsummary: 7 42\n'), 42, 'the Ir column when there are several');
  t.throws(() => parseCachegrindOut('events: Ir\n'), /no events: or summary: line/);
  t.throws(() => parseCachegrindOut('events: Dr\nsummary: 4\n'), /does not count Ir/);
  t.throws(() => parseCachegrindOut('events: Ir\nsummary: x\n'), /not a positive count/);
});

t.test('settings from the environment', async (t) => {
  t.same(instructionsSettings({}), { warmupOps: DEFAULT_WARMUP_OPS, measuredOps: DEFAULT_MEASURED_OPS, timeoutMs: 15 * 60_000 });
  t.same(instructionsSettings({ BOOK_INSTRUCTIONS_WARMUP: '0', BOOK_INSTRUCTIONS_OPS: '500', BOOK_INSTRUCTIONS_TIMEOUT_MS: '1000' }), {
    warmupOps: 0,
    measuredOps: 500,
    timeoutMs: 1000,
  });
  t.throws(() => instructionsSettings({ BOOK_INSTRUCTIONS_OPS: '0' }), /BOOK_INSTRUCTIONS_OPS must be a whole number >= 1, got "0"/);
  t.throws(() => envInt({ X: '1.5' }, 'X', 1, 0), /X must be a whole number >= 0/);
});

t.test('valgrind missing: null figures and a message saying how to install it, no failure', async (t) => {
  const command = '/nonexistent/valgrind-for-a-test';
  t.equal(await hasCommand(command, 10_000), false);
  const lines: string[] = [];
  const r = await measureInstructions({ warmupOps: 3, measuredOps: 5, valgrind: command, timeoutMs: 10_000, log: (l) => lines.push(l) });
  t.same(r, { instructionsPerOp: null, warmupOps: 3, measuredOps: 5, totalWarmup: null, totalWarmupPlusMeasured: null, seconds: null, missing: missingValgrindMessage(command) });
  t.equal(lines.length, 1);
  t.match(lines[0], /valgrind not found/);
  t.match(lines[0], /apt-get install -y valgrind/);
  t.same(instructionsExtra(r), {
    instructionsPerOp: null,
    instructionsWarmupOps: 3,
    instructionsMeasuredOps: 5,
    instructionsTotalWarmup: null,
    instructionsTotalWarmupPlusMeasured: null,
    instructionsSeconds: null,
    instructionsMissing: missingValgrindMessage(command),
  });
});

t.test('the report fields of a measurement', async (t) => {
  const r = { instructionsPerOp: 50_000, warmupOps: 20_000, measuredOps: 40_000, totalWarmup: 10e9, totalWarmupPlusMeasured: 12e9, seconds: 150 };
  t.same(instructionsExtra(r), {
    instructionsPerOp: 50_000,
    instructionsWarmupOps: 20_000,
    instructionsMeasuredOps: 40_000,
    instructionsTotalWarmup: 10e9,
    instructionsTotalWarmupPlusMeasured: 12e9,
    instructionsSeconds: 150,
  });
});

t.test('a shorter op stream is a prefix of a longer one (the child builds W+M ops, the benchmark 200,000)', async (t) => {
  const short = makeOpStream(3_000);
  const long = makeOpStream(6_000);
  t.equal(short.prefill, long.prefill);
  for (const k of ['kind', 'ref', 'owner', 'isBuy', 'tick', 'qty'] as const) {
    t.same(Array.from(short[k]), Array.from(long[k].subarray(0, short.length)), k);
  }
});

t.test('a child that does not end is killed at its bound and the run fails saying which child', async (t) => {
  const stuck = runBounded(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], 'the cachegrind run with 7 ops', 50);
  await t.rejects(stuck, StallError);
  await t.rejects(stuck, /stalled: the cachegrind run with 7 ops did not finish within 50 ms/);
});
