import t from 'tap';
import { Deque, Tail } from '../../../engine/actors/deque.ts';
import { SeriesActor, type PublicTrade } from '../../../engine/actors/series.ts';
import { createFastBook } from '../../../engine/book/fastBook.ts';
import { prng, randInt } from '../domain/prng.ts';

t.test('Deque behaves as an array that forgets from the front, across compactions', async (t) => {
  const rnd = prng(3);
  const d = new Deque<number>();
  const model: number[] = [];
  let next = 0;
  for (let step = 0; step < 50_000; step++) {
    const r = rnd();
    if (r < 0.7) {
      d.push(next);
      model.push(next++);
    } else if (r < 0.85) {
      if (d.shift() !== model.shift()) t.fail(`shift at ${step}`);
    } else if (r < 0.88) {
      if (d.pop() !== model.pop()) t.fail(`pop at ${step}`);
    } else if (r < 0.95) {
      const n = randInt(rnd, 0, 10);
      d.dropFront(n);
      model.splice(0, n);
    } else {
      const i = randInt(rnd, -5, model.length + 5);
      if (d.at(i) !== model.at(i)) t.fail(`at(${i}) at ${step}`);
    }
    if (d.length !== model.length || d.first() !== model[0] || d.last() !== model.at(-1)) {
      t.fail(`diverged at step ${step}`);
      break;
    }
  }
  t.ok(model.length > 1000, `it grew past a compaction (${model.length} live)`);
  t.same(d.toArray(), model, 'same items at the end');
  t.same([...d], model, 'iteration gives the live items');
});

t.test('Tail keeps the last `limit` items', async (t) => {
  const tail = new Tail<number>(1000);
  for (let i = 0; i < 5000; i++) tail.push(i);
  t.equal(tail.length, 1000);
  t.equal(tail.first(), 4000);
  t.equal(tail.at(-1), 4999);
  t.same(tail.toArray(), Array.from({ length: 1000 }, (_, i) => 4000 + i));
});

t.test('a series\' 24-hour statistics are kept equal to a recount as trades enter and leave', async (t) => {
  const rnd = prng(9);
  const s = new SeriesActor({} as never, createFastBook(), 50);
  const all: PublicTrade[] = [];
  let ts = 1_800_000_000_000;
  let checks = 0;
  for (let i = 0; i < 20_000; i++) {
    ts += randInt(rnd, 0, 20_000); // ~10 s apart on average: the 24-hour window holds thousands
    const trade: PublicTrade = { id: String(i + 1), price: BigInt(randInt(rnd, 1, 60)) * 10n ** 17n, size: BigInt(randInt(rnd, 1, 9)) * 10n ** 16n, side: rnd() < 0.5 ? 'buy' : 'sell', ts };
    all.push(trade);
    if (rnd() < 0.05) s.pruneWindow(ts); // a clock command between trades
    s.recordTrade(trade);
    if (i % 97 === 0 || i === 19_999) {
      const live = all.filter((x) => x.ts > ts - 24 * 3600 * 1000);
      const w = s.windowStats();
      const want = {
        volume: live.reduce((a, x) => a + x.size, 0n),
        count: live.length,
        high: live.reduce<bigint | null>((a, x) => (a === null || x.price > a ? x.price : a), null),
        low: live.reduce<bigint | null>((a, x) => (a === null || x.price < a ? x.price : a), null),
        first: live[0] ?? null,
        last: live.at(-1) ?? null,
      };
      if (JSON.stringify(w, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) !== JSON.stringify(want, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))) {
        t.fail(`statistics differ after trade ${i}`);
        break;
      }
      const recent = s.recentTrades.toArray();
      const want50 = all.slice(-50);
      if (recent.length !== want50.length || recent.some((x, k) => x !== want50[k])) {
        t.fail(`recent trades differ after trade ${i}`);
        break;
      }
      checks++;
    }
  }
  t.equal(checks, 208, 'statistics and recent trades checked along the way');
  t.ok(s.windowStats().count > 1000 && s.windowStats().count < 20_000, 'the window both filled and pruned');
  // Restored from its serialised form, the same statistics.
  const restored = new SeriesActor({} as never, createFastBook(), 50);
  restored.restoreTrades(s.recentTrades.toArray(), s.window.toArray());
  t.same(restored.windowStats(), s.windowStats(), 'rebuilt on restore');
});
