/** PriceLadder keeps occupied levels sorted with the best last, on both sides. */
import t from 'tap';
import { PriceLadder } from '../../../engine/book/priceLadder.ts';
import { Prng } from './support/prng.ts';

for (const isBuy of [true, false]) {
  t.test(`${isBuy ? 'bid' : 'ask'} ladder agrees with a sorted array`, async (t) => {
    const rng = new Prng(isBuy ? 1 : 2);
    const ladder = new PriceLadder(isBuy, 1);
    const ticks = new Set<number>();
    let mismatch: string | null = null;
    for (let i = 0; i < 20_000 && mismatch === null; i++) {
      const tick = rng.int(0, 400);
      if (ticks.has(tick)) {
        if (!ladder.remove(tick)) mismatch = `remove ${tick} failed`;
        ticks.delete(tick);
      } else {
        ladder.insert(tick, tick + 1_000);
        ticks.add(tick);
      }
      if (ladder.remove(401)) mismatch = 'removed an absent tick';
      const best = ticks.size === 0 ? -1 : isBuy ? Math.max(...ticks) : Math.min(...ticks);
      if (ladder.bestTick() !== best) mismatch = `best ${ladder.bestTick()} vs ${best}`;
      if (ladder.bestLevel() !== (best === -1 ? -1 : best + 1_000)) mismatch = `best level ${ladder.bestLevel()}`;
    }
    t.equal(mismatch, null, 'best price and removals agree throughout');
    const want = [...ticks].sort((a, b) => (isBuy ? b - a : a - b));
    const got = Array.from({ length: ladder.size }, (_, i) => ladder.tickAt(i));
    t.same(got, want, 'walks from the best price outwards');
    t.same(Array.from({ length: ladder.size }, (_, i) => ladder.levelAt(i)), want.map((x) => x + 1_000), 'levels follow their ticks');
    t.equal(ladder.check(), null);
  });
}
