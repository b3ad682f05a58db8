/**
 * The open order id index (engine/actors/orderIdIndex.ts) against the Map it replaced: the same
 * lookups, removals, sizes and insertion order over seeded steps, across several doublings and
 * with ids crowded into a few buckets; no storage made under steady churn; and a seed that
 * changes no iteration order.
 */
import t from 'tap';
import { OrderIdIndex } from '../../../engine/actors/orderIdIndex.ts';
import { Prng } from '../book/support/prng.ts';

/** A seeded stream in [0, 1). */
function rng(seed: number): () => number {
  const prng = new Prng(seed);
  return () => prng.next();
}

/** An order-id-like key (0x + 64 hex digits) from a number, or a short plain string now and then. */
const idOf = (n: number): string => (n % 7 === 0 ? `order-${n}` : `0x${n.toString(16).padStart(64, '0')}`);

type Run = { readonly mismatch: string | null; readonly most: number; readonly index: OrderIdIndex<string>; readonly model: Map<string, number> };

/** `steps` seeded operations on both, checked step by step; ids from `key`. */
function against(index: OrderIdIndex<string>, steps: number, seed: number, key: (n: number) => string, placeShare = 0.5): Run {
  const random = rng(seed);
  const model = new Map<string, number>();
  let next = 1;
  let mismatch: string | null = null;
  let most = 0;
  const fail = (what: string, step: number) => (mismatch ??= `${what} at step ${step}`);
  for (let step = 0; step < steps && mismatch === null; step++) {
    const r = random();
    if (r < placeShare || model.size === 0) {
      // A place: has, then set (as the order rules and the book do).
      const id = key(next++);
      if (index.has(id) !== model.has(id)) fail(`has ${id}`, step);
      const slot = Math.floor(random() * 2 ** 31);
      index.set(id, slot);
      model.set(id, slot);
    } else if (r < 0.9) {
      // A cancel or fill: get, then delete, of an open id (a fresh string of the same text half the time).
      const ids = [...model.keys()];
      const held = ids[Math.floor(random() * ids.length)]!;
      const id = random() < 0.5 ? held : (' ' + held).slice(1);
      if (index.get(id) !== model.get(id)) fail(`get ${id}`, step);
      if (index.delete(id) !== model.delete(id)) fail(`delete ${id}`, step);
    } else if (r < 0.95) {
      // An id never added or already gone: absent from both.
      const id = key(1 + Math.floor(random() * (next + 10)));
      if (index.get(id) !== model.get(id) || index.has(id) !== model.has(id)) fail(`lookup ${id}`, step);
      if (index.delete(id) !== model.delete(id)) fail(`delete of ${id}`, step);
    } else {
      // A set of a held id keeps its place and takes the new value.
      const ids = [...model.keys()];
      const id = ids[Math.floor(random() * ids.length)]!;
      index.set(id, step);
      model.set(id, step);
    }
    most = Math.max(most, model.size);
    if (index.size !== model.size) fail(`size ${index.size} against ${model.size}`, step);
    if (step % 1000 === 0) {
      if (JSON.stringify([...index]) !== JSON.stringify([...model])) fail('entries or their order differ', step);
      if (JSON.stringify([...index.keys()]) !== JSON.stringify([...model.keys()]) || JSON.stringify([...index.values()]) !== JSON.stringify([...model.values()])) fail('keys or values differ', step);
      for (const [id, slot] of model) if (index.get(id) !== slot) fail(`get ${id}`, step);
      const problem = index.verify();
      if (problem !== null) fail(problem, step);
    }
  }
  return { mismatch, most, index, model };
}

t.test('the same as a Map over 60,000 seeded steps, growing through several doublings', (t) => {
  const run = against(new OrderIdIndex<string>(0x9e3779b9), 60_000, 23, idOf, 0.55);
  t.equal(run.mismatch, null, 'every lookup, removal, size and the insertion order as the Map');
  t.ok(run.most > 2000, `many open at once (${run.most})`);
  t.ok(run.index.storageMade() >= 6, `grew ${run.index.storageMade()} times from 16 entries`);
  t.same([...run.index], [...run.model], 'the same entries in the same order at the end');
  t.equal(run.index.verify(), null, 'every entry found from its hash, the order list whole');
  t.end();
});

t.test('ids crowded into a few buckets: still the same as a Map', (t) => {
  // Keep only ids whose hash under this seed is 0 in its low 10 bits: they all share a home
  // bucket in every table up to 1024 buckets, and runs of them cross buckets after.
  const seed = 12345;
  const probe = new OrderIdIndex<string>(seed);
  const hashOf = (id: string) => (probe as unknown as { hash(k: string): number }).hash(id);
  const crowded: string[] = [];
  for (let n = 1; crowded.length < 300; n++) if ((hashOf(idOf(n)) & 1023) === 0) crowded.push(idOf(n));
  const run = against(new OrderIdIndex<string>(seed), 20_000, 5, (n) => crowded[n % crowded.length] + (n >= crowded.length ? `/${Math.floor(n / crowded.length)}` : ''), 0.5);
  t.equal(run.mismatch, null, 'every result as the Map, with colliding ids mixed in');
  const colliding = new OrderIdIndex<string>(seed);
  const model = new Map<string, number>();
  const random = rng(77);
  let mismatch: string | null = null;
  for (let step = 0; step < 20_000 && mismatch === null; step++) {
    const id = crowded[Math.floor(random() * crowded.length)]!;
    if (model.has(id) && random() < 0.6) {
      if (colliding.delete(id) !== model.delete(id)) mismatch = `delete ${id} at step ${step}`;
    } else {
      colliding.set(id, step);
      model.set(id, step);
    }
    if (colliding.size !== model.size) mismatch = `size at step ${step}`;
    if (step % 500 === 0) {
      for (const c of crowded) if (colliding.get(c) !== model.get(c)) mismatch = `get ${c} at step ${step}`;
      if (JSON.stringify([...colliding]) !== JSON.stringify([...model])) mismatch = `order at step ${step}`;
      mismatch ??= colliding.verify();
    }
  }
  t.equal(mismatch, null, 'only colliding ids, set and deleted at random: every result as the Map');
  t.ok(model.size > 50, `many colliding ids held at once (${model.size})`);
  t.end();
});

t.test('no storage made under steady churn once grown', (t) => {
  const index = new OrderIdIndex<string>(7);
  const open: string[] = [];
  let next = 1;
  for (; next <= 3000; next++) {
    open.push(idOf(next));
    index.set(idOf(next), next);
  }
  const random = rng(3);
  // Warm-up: churn at that size.
  const churn = (steps: number) => {
    for (let i = 0; i < steps; i++) {
      const at = Math.floor(random() * open.length);
      const gone = open[at]!;
      index.get(gone);
      index.delete(gone);
      const id = idOf(next++);
      index.has(id);
      index.set(id, next);
      open[at] = id;
    }
  };
  churn(10_000);
  const made = index.storageMade();
  churn(100_000);
  t.equal(index.storageMade(), made, `100,000 cancels and places at ${open.length} open: no storage made (${made} growths before)`);
  t.equal(index.size, open.length, 'the size held');
  t.equal(index.verify(), null, 'the table consistent after the churn');
  t.ok(open.every((id) => index.has(id)), 'every open id found');
  t.end();
});

t.test('the seed changes no output: the same entries in the same order under any seed', (t) => {
  const a = against(new OrderIdIndex<string>(1), 5000, 9, idOf);
  const b = against(new OrderIdIndex<string>(0xdeadbeef), 5000, 9, idOf);
  t.equal(a.mismatch, null);
  t.equal(b.mismatch, null);
  t.equal(JSON.stringify([...a.index]), JSON.stringify([...b.index]), 'iteration identical');
  const ha = (a.index as unknown as { hash(k: string): number }).hash('0xabc');
  const hb = (b.index as unknown as { hash(k: string): number }).hash('0xabc');
  t.not(ha, hb, 'while the hashes themselves differ');
  t.end();
});
