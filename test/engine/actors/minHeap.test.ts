import t from 'tap';
import { MinHeap } from '../../../engine/actors/minHeap.ts';
import { prng, randInt } from '../domain/prng.ts';

function drain<V>(h: MinHeap<V>): V[] {
  const out: V[] = [];
  for (let v = h.pop(); v !== undefined; v = h.pop()) out.push(v);
  return out;
}

/** `n` random keys in [0, maxKey] pushed with values from..from+n-1; returns the pairs pushed. */
function pushRandom(h: MinHeap<number>, rnd: () => number, from: number, n: number, maxKey: number): [number, number][] {
  const pushed: [number, number][] = [];
  for (let i = from; i < from + n; i++) {
    const key = randInt(rnd, 0, maxKey);
    h.push(key, i);
    pushed.push([key, i]);
  }
  return pushed;
}

t.test('pops by key, ties in insertion order', async (t) => {
  const h = new MinHeap<number>();
  const pushed = pushRandom(h, prng(7), 0, 2000, 50);
  const expected = [...pushed].sort((a, b) => a[0] - b[0] || a[1] - b[1]).map(([, v]) => v);
  t.same(drain(h), expected);
});

t.test('retain keeps what it accepts, in heap order, and the heap keeps working', async (t) => {
  const rnd = prng(11);
  const h = new MinHeap<number>();
  const pushed = pushRandom(h, rnd, 0, 3000, 100);
  h.retain((key, v) => v % 3 !== 0 && key !== 42);
  const kept = pushed.filter(([key, v]) => v % 3 !== 0 && key !== 42);
  t.equal(h.size, kept.length, 'the size counts the survivors');
  t.same(h.entries(), [...kept].sort((a, b) => a[0] - b[0] || a[1] - b[1]), 'entries are the survivors');
  // Later pushes interleave with the survivors; equal keys still pop in insertion order.
  kept.push(...pushRandom(h, rnd, 3000, 500, 100));
  t.same(drain(h), [...kept].sort((a, b) => a[0] - b[0] || a[1] - b[1]).map(([, v]) => v));
  h.retain(() => true);
  t.equal(h.size, 0, 'an empty heap stays empty');
});

t.test('its arrays only grow to the most entries held at once: pops and sweeps leave room that later pushes reuse', async (t) => {
  const rnd = prng(5);
  const h = new MinHeap<number>();
  pushRandom(h, rnd, 0, 1000, 80);
  t.equal(h.capacity, 1000);
  h.retain((_key, v) => v % 2 === 0);
  t.equal(h.size, 500, 'half swept');
  t.equal(h.capacity, 1000, 'the sweep kept the room');
  pushRandom(h, rnd, 1000, 500, 80);
  t.equal(h.capacity, 1000, 'pushes back to the most held reuse it');
  for (let i = 0; i < 300; i++) h.pop();
  pushRandom(h, rnd, 2000, 300, 80);
  t.equal(h.capacity, 1000, 'pops leave it too');
  h.push(-1, -1);
  t.equal(h.capacity, 1001, 'one more than ever held grows it by one entry');
  t.equal(h.pop(), -1, 'the new least key first');
});

t.test('each entry keeps its hint through pushes, pops and sweeps', async (t) => {
  const rnd = prng(11);
  const h = new MinHeap<number>();
  // The hint of value v is 3v + 1: every move of an entry must carry its hint with it.
  for (let v = 0; v < 2000; v++) h.push(Math.floor(rnd() * 50), v, 3 * v + 1);
  for (let i = 0; i < 400; i++) h.pop();
  let seen = 0;
  let wrong = 0;
  h.retain((_key, v, hint) => {
    seen++;
    if (hint !== 3 * v + 1) wrong++;
    return v % 3 !== 0;
  });
  t.equal(seen, 1600, 'the sweep saw every entry left');
  t.equal(wrong, 0, 'each with its own hint');
  for (let v = 2000; v < 2100; v++) h.push(Math.floor(rnd() * 50), v);
  let none = 0;
  h.retain((_key, v, hint) => {
    if (v >= 2000) none += hint === -1 ? 1 : 0;
    else if (hint !== 3 * v + 1) wrong++;
    return true;
  });
  t.equal(none, 100, 'an entry pushed without one has -1');
  t.equal(wrong, 0);
});
