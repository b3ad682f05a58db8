/**
 * Book benchmark (performance.md): one seeded op stream through our fast book and through the
 * `nodejs-order-book` npm package, alternating, best of N rounds, then sampled per-op latency.
 *
 * The op stream (exchange-core style: a book that stays busy at the touch):
 *   - 50% GTC limit orders resting behind the best price of their side (both sides) by a
 *     geometric distance (mean ~6 ticks, at most 60), 5% of them improving the touch by a tick,
 *   - 10% crossing limit orders 0-3 ticks through the opposite best, half IOC, half GTC (a GTC
 *     remainder rests),
 *   - 40% cancels: 95% of a live resting order picked at random, 5% of any ref (mostly dead or
 *     never used),
 *   - sizes 1-100 lots, 1,000 owners (self-trade prevention rarely fires, but is on for both),
 *   - the book is pre-filled with 2,000 resting orders, and when it holds more than 2,000 the
 *     generator cancels instead of placing, so its size stays stable (about 2,000 orders on a
 *     few dozen levels per side: a busy options series).
 * The stream is generated once, up front, by simulating it on our book (that is how cancels
 * know which refs are live); both subjects then replay exactly the same ops, and after every
 * round their full depth must agree, or the benchmark fails.
 *
 * Subjects: each is one function `run<Subject>(stream)` returning its ops/s for one pass. The
 * measurement "through the series actor" (lib/seriesActorSubject.ts: the whole engine, from
 * 1,000 and from 10 wallets) is listed in `alsoMeasured` below: it runs in the same alternating
 * rounds and is reported in `extra`, with its own sampled p50/p99/p99.9 (1,000 wallets); so is
 * a diagnostic "series actor alone" (lib/seriesAloneSubject.ts: the same commands without the
 * account actor's risk and accounting, checked to end with the same book).
 * `makeOpStream` is exported so that another bench file can reuse the same stream (this file
 * only runs its main when executed directly).
 *
 * After the rounds, the whole engine's bytes allocated per op of the timed loop (1,000 wallets,
 * warmed; lib/allocation.ts, docs/book.md "Allocation per op"), in `extra` as
 * `allocatedBytesPerOp` with `collectionsPer1000Ops`; and in steady state (the last 50,000 of
 * 250,000 ops on one venue, at the stream's sizes and at 40 times them) as
 * `allocatedBytesPerOpSteady` and `allocatedBytesPerOpSteadyLarge`.
 *
 * `--instructions` (`npm run bench -- book --instructions`) also counts the whole engine's
 * instructions per op with valgrind's cachegrind, after the timed rounds (lib/instructions.ts,
 * docs/book.md "Instructions per op"), reported in `extra` as `instructionsPerOp` with W, M
 * and both runs' totals; null, with a message, when valgrind is not installed.
 */
import { fileURLToPath } from 'node:url';
import { OrderBook as PeerBook, SelfTradePreventionMode, Side, type LimitOrderOptions } from 'nodejs-order-book';
import { createFastBook } from '../engine/book/fastBook.ts';
import type { MatchSink } from '../engine/book/types.ts';
import { report } from './lib/report.ts';
import { instructionsExtra, instructionsSettings, measureInstructions, parseBookArgs } from './lib/instructions.ts';
import { percentile } from './lib/stats.ts';
import { prepare as prepareSeriesActor, runSeriesActor, seriesActorAllocation, seriesActorSteadyAllocation, runSeriesActorMarketMakers } from './lib/seriesActorSubject.ts';
import { checkSeriesAlone, prepareSeriesAlone, runSeriesAlone } from './lib/seriesAloneSubject.ts';

export const OP_PLACE = 0;
export const OP_PLACE_IOC = 1;
export const OP_CANCEL = 2;

/** The stream as parallel typed arrays (no objects to chase while timing). */
export type OpStream = {
  length: number;
  /** How many ops at the start only pre-fill the book (replayed but not timed). */
  prefill: number;
  kind: Uint8Array;
  ref: Float64Array;
  owner: Int32Array;
  isBuy: Uint8Array;
  tick: Float64Array;
  qty: Float64Array;
  /** Per-op strings the peer needs (ids, accounts), built once so that neither side pays for them while timed. */
  peerIds: string[];
  peerAccounts: string[];
};

/** mulberry32: a seeded PRNG, so that every run times the same ops. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    let t = (s = (s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const nullSink: MatchSink = { onFill() {}, onSelfTradeCancel() {} };

/** Resting orders the generator keeps the book near: above it, it cancels instead of placing. */
const TARGET_LIVE = 2_000;

export function makeOpStream(timedOps: number, seed = 42, prefill = TARGET_LIVE, owners = 1_000): OpStream {
  const n = prefill + timedOps;
  const s: OpStream = {
    length: n,
    prefill,
    kind: new Uint8Array(n),
    ref: new Float64Array(n),
    owner: new Int32Array(n),
    isBuy: new Uint8Array(n),
    tick: new Float64Array(n),
    qty: new Float64Array(n),
    peerIds: new Array<string>(n),
    peerAccounts: new Array<string>(owners),
  };
  for (let o = 0; o < owners; o++) s.peerAccounts[o] = `acct${o}`;
  const rnd = prng(seed);
  const int = (lo: number, hi: number): number => lo + Math.floor(rnd() * (hi - lo + 1));
  // Simulate on our own book to know which refs are live when a cancel is drawn.
  const book = createFastBook(1 << 15);
  const live: number[] = [];
  const liveAt = new Map<number, number>();
  const drop = (ref: number): void => {
    const at = liveAt.get(ref);
    if (at === undefined) return;
    const last = live.pop()!;
    if (last !== ref) {
      live[at] = last;
      liveAt.set(last, at);
    }
    liveAt.delete(ref);
  };
  const tracking: MatchSink = {
    onFill: (ref, _owner, _tick, _qty, left) => left === 0 && drop(ref),
    onSelfTradeCancel: (ref) => drop(ref),
  };
  const mid = 100_000;
  let nextRef = 1;
  for (let i = 0; i < n; i++) {
    const u = i < prefill ? 0 : rnd();
    const crowded = live.length > TARGET_LIVE;
    if (!crowded && u < 0.6) {
      const isBuy = rnd() < 0.5;
      const crossing = u >= 0.5;
      const bb = book.bestBid();
      const ba = book.bestAsk();
      let tick: number;
      if (crossing && (isBuy ? ba : bb) !== -1) tick = isBuy ? ba + int(0, 3) : bb - int(0, 3);
      else {
        // Behind the touch by a geometric distance (mean ~6 ticks, at most 60); 5% improve the
        // touch by one tick when the spread allows, which is what moves the price over time.
        const touch = isBuy ? (bb === -1 ? (ba === -1 ? mid : ba - 1) : bb) : ba === -1 ? (bb === -1 ? mid + 1 : bb + 1) : ba;
        const behind = rnd() < 0.05 ? -1 : Math.min(60, Math.floor(-Math.log(1 - rnd()) * 6));
        tick = isBuy ? touch - behind : touch + behind;
        if (isBuy && ba !== -1 && tick >= ba) tick = ba - 1;
        if (!isBuy && bb !== -1 && tick <= bb) tick = bb + 1;
      }
      const ioc = crossing && rnd() < 0.5;
      const ref = nextRef++;
      s.kind[i] = ioc ? OP_PLACE_IOC : OP_PLACE;
      s.ref[i] = ref;
      s.owner[i] = int(0, owners - 1);
      s.isBuy[i] = isBuy ? 1 : 0;
      s.tick[i] = tick;
      s.qty[i] = int(1, 100);
      s.peerIds[i] = `o${ref}`;
      const left = book.place(ref, s.owner[i]!, isBuy, tick, s.qty[i]!, tracking, !ioc);
      if (left > 0 && !ioc) {
        liveAt.set(ref, live.length);
        live.push(ref);
      }
    } else {
      const ref = live.length > 0 && rnd() < 0.95 ? live[int(0, live.length - 1)]! : int(1, nextRef + 100);
      s.kind[i] = OP_CANCEL;
      s.ref[i] = ref;
      s.peerIds[i] = `o${ref}`;
      book.cancel(ref);
      drop(ref);
    }
  }
  return s;
}

// --- Timing -------------------------------------------------------------------------------------

/**
 * Wall time is the headline figure; CPU time of this process is kept beside it (`lastCpuRate`)
 * because the machines are shared: when other processes take the cores, wall time counts their
 * slices too, CPU time does not.
 */
let lastCpuRate = 0;

function startClock(): { stop(ops: number): number } {
  const wall0 = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  return {
    stop(ops) {
      const secs = Number(process.hrtime.bigint() - wall0) / 1e9;
      const cpu = process.cpuUsage(cpu0);
      lastCpuRate = ops / ((cpu.user + cpu.system) / 1e6);
      return secs;
    },
  };
}

// --- Subject: our fast book ------------------------------------------------------------------

function replayFast(s: OpStream, book = createFastBook(1 << 15)): ReturnType<typeof createFastBook> {
  for (let i = 0; i < s.length; i++) applyFast(book, s, i);
  return book;
}

function applyFast(book: ReturnType<typeof createFastBook>, s: OpStream, i: number): void {
  const k = s.kind[i]!;
  if (k === OP_CANCEL) book.cancel(s.ref[i]!);
  else book.place(s.ref[i]!, s.owner[i]!, s.isBuy[i] === 1, s.tick[i]!, s.qty[i]!, nullSink, k === OP_PLACE);
}

/** ops/s of our fast book over the timed part of the stream. */
export function runFastBook(s: OpStream): number {
  const book = createFastBook(1 << 15);
  for (let i = 0; i < s.prefill; i++) applyFast(book, s, i);
  const clock = startClock();
  for (let i = s.prefill; i < s.length; i++) applyFast(book, s, i);
  const secs = clock.stop(s.length - s.prefill);
  lastFastDepth = fastDepth(book);
  return (s.length - s.prefill) / secs;
}

// --- Subject: nodejs-order-book (peer) ---------------------------------------------------------

function applyPeer(book: PeerBook, s: OpStream, i: number): void {
  const k = s.kind[i]!;
  if (k === OP_CANCEL) {
    book.cancel(s.peerIds[i]!);
    return;
  }
  const options: LimitOrderOptions = {
    id: s.peerIds[i]!,
    side: s.isBuy[i] === 1 ? Side.BUY : Side.SELL,
    size: s.qty[i]!,
    price: s.tick[i]!,
    accountId: s.peerAccounts[s.owner[i]!]!,
    stpMode: SelfTradePreventionMode.EXPIRE_MAKER, // our STP rule (docs/book.md "Self-trade prevention"), so both books do the same work
    timeInForce: (k === OP_PLACE_IOC ? 'IOC' : 'GTC') as NonNullable<LimitOrderOptions['timeInForce']>,
  };
  book.limit(options);
}

/** ops/s of nodejs-order-book over the timed part of the same stream. */
export function runPeerBook(s: OpStream): number {
  const book = new PeerBook();
  for (let i = 0; i < s.prefill; i++) applyPeer(book, s, i);
  const clock = startClock();
  for (let i = s.prefill; i < s.length; i++) applyPeer(book, s, i);
  const secs = clock.stop(s.length - s.prefill);
  lastPeerDepth = peerDepth(book);
  return (s.length - s.prefill) / secs;
}

// --- Agreement check: both subjects must end each round with the same book ---------------------

let lastFastDepth = '';
let lastPeerDepth = '';

function fastDepth(book: ReturnType<typeof createFastBook>): string {
  const side = (isBuy: boolean) => book.depth(isBuy, 1e9).map((l) => `${l.tick}:${l.qty}`).join(',');
  return `bids ${side(true)} asks ${side(false)}`;
}

function peerDepth(book: PeerBook): string {
  const [asks, bids] = book.depth();
  const side = (levels: Array<[number, number]>, desc: boolean) =>
    [...levels].sort((a, b) => (desc ? b[0] - a[0] : a[0] - b[0])).map(([p, q]) => `${p}:${q}`).join(',');
  return `bids ${side(bids, true)} asks ${side(asks, false)}`;
}

// --- Latency: sampled per-op times ---------------------------------------------------------------

/**
 * Per-op latency by sampling: every `every`-th op of the timed part is timed on its own with a
 * pair of process.hrtime.bigint() calls (the others run untimed in between, so the book is in
 * its steady state). The figures include the timer's own cost, reported as `timer_ns` in extra.
 */
function sampleLatencies(s: OpStream, apply: (i: number) => void, prefill: () => void, every: number): Float64Array {
  prefill();
  const out = new Float64Array(Math.ceil((s.length - s.prefill) / every));
  let k = 0;
  for (let i = s.prefill; i < s.length; i++) {
    if ((i - s.prefill) % every === 0) {
      const t0 = process.hrtime.bigint();
      apply(i);
      const t1 = process.hrtime.bigint();
      out[k++] = Number(t1 - t0) / 1000;
    } else apply(i);
  }
  return out.subarray(0, k);
}

function timerOverheadNs(): number {
  const samples = new Float64Array(100_000);
  for (let i = 0; i < samples.length; i++) {
    const t0 = process.hrtime.bigint();
    samples[i] = Number(process.hrtime.bigint() - t0);
  }
  return percentile(samples, 50);
}

// --- Main ----------------------------------------------------------------------------------------

type Subject = { name: string; run: (s: OpStream) => number };

/**
 * Further subjects measured on the same stream, alternating with the two above, and reported in
 * `extra` as `<name>_ops_per_s` (the place for "through the series actor").
 */
const alsoMeasured: Subject[] = [
  { name: 'series actor', run: runSeriesActor },
  { name: 'series actor 10 wallets', run: runSeriesActorMarketMakers },
  // Diagnostic, not the budget's measure: the series actor without the account actor's risk and accounting.
  { name: 'series actor alone', run: runSeriesAlone },
];

async function main(): Promise<void> {
  const args = parseBookArgs(process.argv.slice(2));
  const instructions = args.instructions ? instructionsSettings(process.env) : null;
  const timedOps = Number(process.env['BOOK_BENCH_OPS'] ?? 200_000);
  const rounds = Number(process.env['BOOK_BENCH_ROUNDS'] ?? 5);
  const stream = makeOpStream(timedOps);
  let places = 0;
  let iocs = 0;
  for (let i = stream.prefill; i < stream.length; i++) {
    if (stream.kind[i] !== OP_CANCEL) places++;
    if (stream.kind[i] === OP_PLACE_IOC) iocs++;
  }
  const check = replayFast(stream);
  console.log(
    `# ${timedOps} timed ops after a ${stream.prefill}-order prefill: ${places} places (${iocs} IOC), ${timedOps - places} cancels; ` +
      `book at the end: ${check.orderCount()} orders, ${check.depth(true, 1e9).length}+${check.depth(false, 1e9).length} levels`,
  );

  // Alternate the subjects round by round and keep each one's best round (performance.md).
  const subjects: Subject[] = [{ name: 'fast book', run: runFastBook }, { name: 'nodejs-order-book', run: runPeerBook }, ...alsoMeasured];
  const best = new Map<string, number>();
  const bestCpu = new Map<string, number>();
  for (let round = 0; round < rounds; round++) {
    for (const subject of subjects) {
      lastCpuRate = NaN; // set by the subjects that measure CPU time
      const rate = subject.run(stream);
      const cpu = Number.isNaN(lastCpuRate) ? '' : ` (${Math.round(lastCpuRate).toLocaleString('en')} per CPU second)`;
      console.log(`#   ${subject.name.padEnd(24)} ${Math.round(rate).toLocaleString('en')} ops/s${cpu}`);
      best.set(subject.name, Math.max(best.get(subject.name) ?? 0, rate));
      bestCpu.set(subject.name, Math.max(bestCpu.get(subject.name) ?? 0, lastCpuRate));
    }
    if (lastPeerDepth !== lastFastDepth) throw new Error('the two books disagree on the final depth: the op stream was not processed identically');
  }
  const levels = lastFastDepth.split(/[ ,]/).filter((x) => x.includes(':')).length;
  console.log(`# after every round both books held the same ${levels} levels (tick and qty)`);
  checkSeriesAlone(stream);
  console.log('# the series actor alone and Venue.apply ended with the same book and open orders, and refused the same commands');
  const extra: Record<string, unknown> = {
    timedOps,
    rounds,
    prefill: stream.prefill,
    mix: 'place 50% passive, 10% crossing (half IOC), cancel 40%',
    budget_ops_per_s: 2_000_000,
    budget_p99_us: 10,
    budget_series_actor_ops_per_s: 500_000,
    cpu_ops_per_s: Math.round(bestCpu.get('fast book')!),
    peer_cpu_ops_per_s: Math.round(bestCpu.get('nodejs-order-book')!),
  };
  for (const subject of alsoMeasured) extra[`${subject.name}_ops_per_s`] = Math.round(best.get(subject.name)!);
  // Warmed by the rounds: bytes allocated on V8's heap per op of the whole engine's timed loop (docs/book.md "Allocation per op").
  const allocation = seriesActorAllocation(stream);
  console.log(`# whole engine (1,000 wallets): ${allocation.bytesPerOp.toLocaleString('en')} bytes allocated per op, ${allocation.collectionsPer1000} collections per 1,000 ops`);
  extra['allocatedBytesPerOp'] = allocation.bytesPerOp;
  extra['collectionsPer1000Ops'] = allocation.collectionsPer1000;
  // In steady state, on one venue past 200,000 ops (the storage grown, the code settled), at the stream's sizes and at 40 times them.
  const steadyStream = makeOpStream(250_000, 43);
  const steady = seriesActorSteadyAllocation(steadyStream, 50_000);
  const steadyLarge = seriesActorSteadyAllocation(steadyStream, 50_000, 40);
  console.log(`# whole engine in steady state (the last 50,000 of 250,000 ops on one venue): ${steady.bytesPerOp} bytes allocated per op; ${steadyLarge.bytesPerOp} with orders 40 times larger`);
  extra['allocatedBytesPerOpSteady'] = steady.bytesPerOp;
  extra['allocatedBytesPerOpSteadyLarge'] = steadyLarge.bytesPerOp;
  const ours = best.get('fast book')!;
  const peerRate = best.get('nodejs-order-book')!;

  const every = 4;
  let fast = createFastBook(1 << 15);
  const fastLat = sampleLatencies(stream, (i) => applyFast(fast, stream, i), () => {
    fast = createFastBook(1 << 15);
    for (let i = 0; i < stream.prefill; i++) applyFast(fast, stream, i);
  }, every);
  let peer = new PeerBook();
  const peerLat = sampleLatencies(stream, (i) => applyPeer(peer, stream, i), () => {
    peer = new PeerBook();
    for (let i = 0; i < stream.prefill; i++) applyPeer(peer, stream, i);
  }, every);
  // The same sampling through the whole engine (1,000 wallets): its budget is p99 <= 10 us too.
  let actor = prepareSeriesActor(stream);
  const actorLat = sampleLatencies(stream, (i) => actor.venue.apply(actor.commands[i]!), () => {
    actor = prepareSeriesActor(stream);
    for (let i = 0; i < stream.prefill; i++) actor.venue.apply(actor.commands[i]!);
  }, every);
  let alone = prepareSeriesAlone(stream);
  const aloneLat = sampleLatencies(stream, (i) => alone.apply(i), () => {
    alone = prepareSeriesAlone(stream);
    for (let i = 0; i < stream.prefill; i++) alone.apply(i);
  }, every);
  extra['series actor alone_p50_us'] = percentile(aloneLat, 50);
  extra['series actor alone_p99_us'] = percentile(aloneLat, 99);
  extra['series actor_p50_us'] = percentile(actorLat, 50);
  extra['series actor_p99_us'] = percentile(actorLat, 99);
  extra['series actor_p999_us'] = percentile(actorLat, 99.9);
  extra['latency_sampling'] = `every ${every}th op timed alone with process.hrtime.bigint()`;
  extra['timer_ns'] = timerOverheadNs();
  extra['p999_us'] = percentile(fastLat, 99.9);
  extra['peer_p50_us'] = percentile(peerLat, 50);
  extra['peer_p99_us'] = percentile(peerLat, 99);

  if (instructions !== null) {
    // After the timed rounds, so that the valgrind children do not share the cores with them.
    const { warmupOps: W, measuredOps: M } = instructions;
    console.log(`# instructions per op, whole engine (Venue.apply, 1,000 wallets): cachegrind, (I(W+M) - I(W)) / M with W ${W}, M ${M}`);
    const r = await measureInstructions({ ...instructions, log: (line) => console.log(`#   ${line}`) });
    if (r.instructionsPerOp !== null) console.log(`#   ${r.instructionsPerOp.toLocaleString('en')} instructions per op (${r.seconds} s to measure)`);
    Object.assign(extra, instructionsExtra(r));
  }

  report({
    bench: 'book',
    metric: 'ops_per_s',
    unit: 'ops/s',
    value: ours,
    peer: 'nodejs-order-book',
    peerValue: peerRate,
    ratio: ours / peerRate,
    p50_us: percentile(fastLat, 50),
    p99_us: percentile(fastLat, 99),
    extra,
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
