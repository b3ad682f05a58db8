/**
 * The fast book against the naive reference on seeded random command streams (style.md
 * habit 5): every return value, every fill and self-trade cancel (in order), periodic depth
 * snapshots and the final resting orders must agree, and the fast book's internal invariants
 * must hold throughout. Plus what only the fast book has: growth from a tiny capacity.
 */
import t from 'tap';
import { createFastBook } from '../../../engine/book/fastBook.ts';
import { createNaiveBook } from '../../../engine/book/naiveBook.ts';
import type { OrderBook } from '../../../engine/book/types.ts';
import { apply, FOK_REMAINDER, RandomStream, type Command, type StreamOptions } from './support/randomStream.ts';
import { FILL, FrozenRecorder, Recorder, refuseEvents } from './support/recorder.ts';

/** `frozenLimit`: the sinks screen like market maker protection (FrozenRecorder), thawing every `thawEvery` commands. */
type Run = { seed: number; commands: number; opts: StreamOptions; frozenLimit?: number; thawEvery?: number };

const runs: Run[] = [
  { seed: 1, commands: 40_000, opts: { owners: 5, mid: 10_000, target: 1_500, maxQty: 100 } },
  { seed: 2, commands: 40_000, opts: { owners: 2, mid: 10_000, target: 800, maxQty: 20 } }, // STP-heavy
  { seed: 3, commands: 40_000, opts: { owners: 50, mid: 500, target: 3_000, maxQty: 1_000 } },
  { seed: 4, commands: 40_000, opts: { owners: 5, mid: 60, target: 1_000, maxQty: 50 } }, // hugs tick 0
  { seed: 5, commands: 40_000, opts: { owners: 3, mid: 0xffffffff - 200, target: 1_500, maxQty: 100 } }, // near the top tick
  { seed: 6, commands: 40_000, opts: { owners: 8, mid: 2_000_000, target: 400, maxQty: 5 } }, // small sizes: many exact fills
  { seed: 7, commands: 40_000, opts: { owners: 5, mid: 10_000, target: 5_000, maxQty: 300, passive: 0.8 } }, // deep book
  { seed: 8, commands: 40_000, opts: { owners: 1, mid: 10_000, target: 1_000, maxQty: 100 } }, // one owner: every cross is STP
  { seed: 9, commands: 40_000, opts: { owners: 4, mid: 30_000, target: 200, maxQty: 10 } }, // thin book near the touch
  { seed: 10, commands: 40_000, opts: { owners: 20, mid: 10_000, target: 3_000, maxQty: 100, passive: 0.75 } },
];

function describe(cmd: Command): string {
  return JSON.stringify(cmd);
}

/** Runs one stream through both books; returns the first disagreement, or null. */
function differential(run: Run, fast: OrderBook, naive: OrderBook, totals: Record<string, number>): string | null {
  const stream = new RandomStream(run.seed, run.opts);
  const screening = run.frozenLimit !== undefined;
  const fastSink = screening ? new FrozenRecorder(run.frozenLimit!) : new Recorder();
  const naiveSink = screening ? new FrozenRecorder(run.frozenLimit!) : new Recorder();
  for (let i = 0; i < run.commands; i++) {
    const cmd = stream.next();
    if (fastSink instanceof FrozenRecorder && naiveSink instanceof FrozenRecorder) {
      if (i % run.thawEvery! === 0) {
        fastSink.thaw();
        naiveSink.thaw();
      }
      if (cmd.kind === 'place') fastSink.taker = naiveSink.taker = cmd.owner;
    }
    const a = apply(fast, cmd, fastSink);
    const b = apply(naive, cmd, naiveSink);
    if (a !== b) return `command ${i} ${describe(cmd)}: fast returned ${a}, naive ${b}`;
    if (fastSink instanceof FrozenRecorder && naiveSink instanceof FrozenRecorder && [...fastSink.frozen].join() !== [...naiveSink.frozen].join()) return `command ${i}: frozen owners differ`;
    // A screen (or a stopped taker) may leave a fill-or-kill order short: the engine checks that above the book.
    if (a === FOK_REMAINDER && !screening) return `command ${i} ${describe(cmd)}: a fill-or-kill order that passed its check left a remainder`;
    const ea = fastSink.events;
    const eb = naiveSink.events;
    if (ea.length !== eb.length || ea.some((v, k) => v !== eb[k])) {
      return `command ${i} ${describe(cmd)}: events differ\nfast:  ${fastSink.take().join('; ')}\nnaive: ${naiveSink.take().join('; ')}`;
    }
    for (let k = 0; k < ea.length; k += ea[k] === FILL ? 6 : 3) totals[ea[k] === FILL ? 'fills' : 'stps']!++;
    stream.observe(cmd, a, ea);
    fastSink.events = [];
    naiveSink.events = [];
    if (i % 1000 === 999) {
      const problem = fast.checkInvariants();
      if (problem) return `after command ${i}: fast book invariant broken: ${problem}`;
      for (const isBuy of [true, false]) {
        const da = JSON.stringify(fast.depth(isBuy, 10));
        const db = JSON.stringify(naive.depth(isBuy, 10));
        if (da !== db) return `after command ${i}: ${isBuy ? 'bid' : 'ask'} depth differs\nfast:  ${da}\nnaive: ${db}`;
      }
    }
    if (i % 10_000 === 9_999) {
      const problem = naive.checkInvariants();
      if (problem) return `after command ${i}: naive book invariant broken: ${problem}`;
    }
  }
  if (fastSink instanceof FrozenRecorder) {
    totals['screened'] = (totals['screened'] ?? 0) + fastSink.screened;
    totals['stopped'] = (totals['stopped'] ?? 0) + fastSink.stops;
  }
  for (const [k, v] of Object.entries(stream.stats)) totals[k] = (totals[k] ?? 0) + v;
  totals['restingAtEnd'] = (totals['restingAtEnd'] ?? 0) + fast.orderCount();
  totals['maxLevels'] = Math.max(totals['maxLevels'] ?? 0, fast.depth(true, 1e9).length, fast.depth(false, 1e9).length);
  return null;
}

t.test('fast and naive books agree on seeded random streams', async (t) => {
  const totals: Record<string, number> = { fills: 0, stps: 0 };
  for (const run of runs) {
    const fast = createFastBook(4);
    const naive = createNaiveBook();
    t.equal(differential(run, fast, naive, totals), null, `seed ${run.seed}: ${run.commands} commands agree`);
    t.equal(fast.checkInvariants(), null, `seed ${run.seed}: fast invariants at the end`);
    t.equal(naive.checkInvariants(), null, `seed ${run.seed}: naive invariants at the end`);
    t.same(fast.orders(), naive.orders(), `seed ${run.seed}: same resting orders in the same priority`);
    t.same(fast.depth(true, 1e9), naive.depth(true, 1e9), `seed ${run.seed}: same full bid depth`);
    t.same(fast.depth(false, 1e9), naive.depth(false, 1e9), `seed ${run.seed}: same full ask depth`);
  }
  // The streams must actually exercise every rule, or agreement would prove little.
  t.ok(totals['fills']! > 50_000, `many fills (${totals['fills']})`);
  t.ok(totals['stps']! > 5_000, `many self-trade cancels (${totals['stps']})`);
  t.ok(totals['ioc']! > 8_000, `many IOC orders (${totals['ioc']})`);
  t.ok(totals['fok']! > 3_000, `many fill-or-kill orders (${totals['fok']})`);
  t.ok(totals['fokKilled']! > 300 && totals['fokKilled']! < totals['fok']! - 300, `fill-or-kill orders both killed and filled (${totals['fokKilled']} of ${totals['fok']} killed)`);
  t.ok(totals['postOnly']! > 3_000, `many post-only orders (${totals['postOnly']})`);
  t.ok(totals['postOnlyRefused']! > 300 && totals['postOnlyRefused']! < totals['postOnly']! - 300, `post-only orders both refused and resting (${totals['postOnlyRefused']} of ${totals['postOnly']} refused)`);
  t.ok(totals['deadCancels']! > 5_000, `many cancels of dead refs (${totals['deadCancels']})`);
  t.ok(totals['reduces']! > 10_000, `many reduces (${totals['reduces']})`);
  t.ok(totals['maxLevels']! > 100, `some book had many levels on one side (${totals['maxLevels']})`);
  t.ok(totals['restingAtEnd']! > 5_000, `books non-trivial at the end (${totals['restingAtEnd']} orders)`);
});

t.test('fast and naive books agree with frozen owners screened out and stopped takers (market maker protection)', async (t) => {
  const screened: Run[] = [
    { seed: 11, commands: 30_000, opts: { owners: 5, mid: 10_000, target: 1_500, maxQty: 100 }, frozenLimit: 6, thawEvery: 40 },
    { seed: 12, commands: 30_000, opts: { owners: 20, mid: 10_000, target: 3_000, maxQty: 100, passive: 0.75 }, frozenLimit: 3, thawEvery: 200 },
    { seed: 13, commands: 30_000, opts: { owners: 3, mid: 500, target: 800, maxQty: 20 }, frozenLimit: 10, thawEvery: 25 },
  ];
  const totals: Record<string, number> = { fills: 0, stps: 0 };
  for (const run of screened) {
    const fast = createFastBook(4);
    const naive = createNaiveBook();
    t.equal(differential(run, fast, naive, totals), null, `seed ${run.seed}: ${run.commands} commands agree`);
    t.equal(fast.checkInvariants(), null, `seed ${run.seed}: fast invariants at the end`);
    t.equal(naive.checkInvariants(), null, `seed ${run.seed}: naive invariants at the end`);
    t.same(fast.orders(), naive.orders(), `seed ${run.seed}: same resting orders in the same priority`);
  }
  t.ok(totals['screened']! > 2_000, `many resting orders screened out (${totals['screened']})`);
  t.ok(totals['stopped']! > 1_000, `many takers stopped (${totals['stopped']})`);
  t.ok(totals['fills']! > 10_000, `many fills still (${totals['fills']})`);
});

t.test('grows from a capacity of one through many orders and levels and back', async (t) => {
  const book = createFastBook(1);
  const n = 20_000;
  // Bids on 2,000 distinct levels, inserted out of order so that the ladder inserts mid-array.
  for (let i = 0; i < n; i++) book.place(i + 1, i % 7, true, 1_000 + ((i * 7919) % 2_000), 1 + (i % 5), refuseEvents);
  t.equal(book.orderCount(), n);
  t.equal(book.depth(true, 1e9).length, 2_000, 'two thousand bid levels');
  t.equal(book.bestBid(), 2_999);
  t.equal(book.checkInvariants(), null);
  // Cancel every other order, then sweep the rest with one sell.
  let cancelled = 0;
  for (let i = 0; i < n; i += 2) cancelled += book.cancel(i + 1);
  t.equal(book.orderCount(), n / 2);
  t.equal(book.checkInvariants(), null, 'consistent after cancels across the book');
  const rec = new Recorder();
  const total = book.depth(true, 1e9).reduce((a, l) => a + l.qty, 0);
  t.equal(book.place(n + 1, 99, false, 0, total + 5, rec), 5, 'the sweep leaves only its excess');
  t.equal(rec.take().length, n / 2, 'one fill per resting order');
  t.equal(book.orderCount(), 1, 'only the sweeping sell rests');
  t.equal(book.bestBid(), -1);
  t.equal(book.bestAsk(), 0);
  t.equal(book.checkInvariants(), null, 'consistent after growing and emptying');
  // Slots and levels are recycled: the same book takes a new round of orders.
  for (let i = 0; i < n; i++) book.place(n + 2 + i, 1, false, 10 + (i % 3_000), 1, refuseEvents);
  t.equal(book.orderCount(), n + 1);
  t.equal(book.checkInvariants(), null);
  t.ok(cancelled > 0);
});
