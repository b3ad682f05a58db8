import t from 'tap';
import { Deque } from '../../../engine/actors/deque.ts';
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
