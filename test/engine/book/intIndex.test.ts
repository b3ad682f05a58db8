/** IntIndex against a JS Map on seeded random inserts, overwrites and deletes. */
import t from 'tap';
import { IntIndex } from '../../../engine/book/intIndex.ts';
import { Prng } from './support/prng.ts';

t.test('agrees with a Map through growth and heavy deletion', async (t) => {
  for (const [seed, keySpace] of [[1, 500], [2, 50_000], [3, 2 ** 53 - 1]] as const) {
    const rng = new Prng(seed);
    const index = new IntIndex(1);
    const map = new Map<number, number>();
    let mismatch: string | null = null;
    // Keys come from a mix of small, sequential and huge values so that probe runs wrap around.
    const key = (): number => (rng.chance(0.5) ? rng.int(1, keySpace) : Math.max(1, keySpace - rng.int(0, 1000)));
    for (let i = 0; i < 100_000 && mismatch === null; i++) {
      const k = key();
      const u = rng.next();
      if (u < 0.5) {
        const v = rng.int(0, 2 ** 31 - 1);
        index.set(k, v);
        map.set(k, v);
      } else if (u < 0.85) {
        const got = index.delete(k);
        const want = map.get(k) ?? -1;
        map.delete(k);
        if (got !== want) mismatch = `delete ${k}: ${got} vs ${want}`;
      } else if (index.get(k) !== (map.get(k) ?? -1)) mismatch = `get ${k}: ${index.get(k)} vs ${map.get(k)}`;
      if (index.size !== map.size) mismatch = `size ${index.size} vs ${map.size} after op ${i}`;
    }
    t.equal(mismatch, null, `seed ${seed}: every operation agrees`);
    let all = 0;
    index.forEach((k, v) => {
      if (map.get(k) === v) all++;
    });
    t.equal(all, map.size, `seed ${seed}: forEach visits exactly the entries`);
    for (const [k, v] of map) if (index.get(k) !== v) t.fail(`seed ${seed}: lost ${k}`);
    t.ok(index.capacity >= index.size * 2, 'load stays at most one half');
  }
});

t.test('missing keys and overwrites', async (t) => {
  const index = new IntIndex();
  t.equal(index.get(5), -1);
  t.equal(index.delete(5), -1);
  index.set(5, 0);
  t.equal(index.get(5), 0, 'a value of 0 is a value, not absence');
  index.set(5, 9);
  t.equal(index.get(5), 9);
  t.equal(index.size, 1);
  t.equal(index.delete(5), 9);
  t.equal(index.size, 0);
});
