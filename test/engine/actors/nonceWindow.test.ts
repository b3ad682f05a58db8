/** Single-use nonces in a bounded window (engine/actors/nonceWindow.ts, docs/engine.md). */
import t from 'tap';
import { NonceWindow } from '../../../engine/actors/nonceWindow.ts';
import { rng } from '../../persistence/fixtures/rng.ts';

t.test('in-order nonces move the base and remember nothing', async (t) => {
  const w = new NonceWindow(8);
  for (let n = 0n; n < 100n; n++) t.equal(w.use(n), true);
  t.equal(w.base, 100n);
  t.equal(w.size, 0);
  t.equal(w.isUsed(99n), true);
  t.equal(w.isUsed(100n), false);
  t.equal(w.use(5n), false, 'a used nonce is refused');
  t.equal(w.next(), 100n);
});

t.test('out-of-order nonces are remembered until the gap closes', async (t) => {
  const w = new NonceWindow(8);
  t.equal(w.use(2n), true);
  t.equal(w.use(1n), true);
  t.same([w.base, w.size], [0n, 2]);
  t.equal(w.isUsed(2n), true);
  t.equal(w.isUsed(0n), false);
  t.equal(w.next(), 3n, 'the server hands out above every used nonce');
  t.equal(w.use(0n), true);
  t.same([w.base, w.size], [3n, 0], 'the gap closed: 0..2 folded into the base');
});

t.test('sparse nonces: the lowest quarter folds into the base when the window is full', async (t) => {
  const w = new NonceWindow(8);
  for (let i = 1n; i <= 9n; i++) t.equal(w.use(i * 10n), true); // 10, 20, ..., 90: one over the limit
  t.equal(w.size, 7, 'two of nine (a quarter, rounded down) folded');
  t.equal(w.base, 21n, 'the base moved past the highest folded nonce');
  t.equal(w.isUsed(15n), true, 'an unused nonce below the base can no longer be used');
  t.equal(w.isUsed(25n), false, 'one above it still can');
  t.equal(w.use(25n), true);
  t.equal(w.use(30n), false, 'remembered nonces stay used');
  t.equal(w.next(), 91n);
});

/** The window as one plain set (the implementation before nonces were kept as runs): the reference. */
class SetWindow {
  base = 0n;
  readonly used = new Set<bigint>();
  constructor(private readonly limit: number) {}
  isUsed(n: bigint): boolean {
    return n < this.base || this.used.has(n);
  }
  use(n: bigint): boolean {
    if (this.isUsed(n)) return false;
    this.used.add(n);
    while (this.used.has(this.base)) this.used.delete(this.base++);
    if (this.used.size > this.limit) {
      const sorted = [...this.used].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const fold = sorted.slice(0, Math.max(1, sorted.length >> 2));
      for (const x of fold) this.used.delete(x);
      this.base = fold[fold.length - 1]! + 1n;
      while (this.used.has(this.base)) this.used.delete(this.base++);
    }
    return true;
  }
  next(): bigint {
    let max = this.base;
    for (const x of this.used) if (x >= max) max = x + 1n;
    return max;
  }
}

t.test('runs answer like one plain set, through snapshots (seeded streams)', async (t) => {
  let checks = 0;
  for (let seed = 1; seed <= 40; seed++) {
    const rnd = rng(seed).next;
    const limit = 1 + Math.floor(rnd() * 12);
    const ref = new SetWindow(limit);
    let w = new NonceWindow(limit);
    let cursor = BigInt(Math.floor(rnd() * 1000)); // where the "server" hands out next
    for (let i = 0; i < 3_000; i++) {
      const r = rnd();
      let n: bigint;
      if (r < 0.6) n = cursor++; // in order
      else if (r < 0.7) n = ++cursor + 1n; // skip one: a nonce handed out and never used
      else if (r < 0.8) n = cursor - BigInt(Math.floor(rnd() * 20)); // late or reused
      else if (r < 0.85) n = (cursor += BigInt(Math.floor(rnd() * 1000))); // far jump
      else if (r < 0.9) n = ref.base; // the base itself
      else n = ref.base + BigInt(Math.floor(rnd() * 30) - 5); // near the base, either side
      if (n < 0n) n = 0n;
      const got = w.use(n);
      const want = ref.use(n);
      if (got !== want || w.base !== ref.base || w.size !== ref.used.size) {
        t.fail(`seed ${seed} step ${i}: use(${n}) ${got}/${want}, base ${w.base}/${ref.base}, size ${w.size}/${ref.used.size}`);
        return;
      }
      const probe = ref.base + BigInt(Math.floor(rnd() * 40) - 10);
      if (w.isUsed(probe) !== ref.isUsed(probe) || w.next() !== ref.next()) {
        t.fail(`seed ${seed} step ${i}: isUsed(${probe}) or next() differ`);
        return;
      }
      if (i % 97 === 0) {
        t.same(w.remembered(), [...ref.used].sort((a, b) => (a < b ? -1 : 1)), `seed ${seed} step ${i}: remembered, ascending`);
        const restored = new NonceWindow(limit);
        restored.restore(w.base, w.remembered());
        t.same([restored.base, restored.remembered()], [w.base, w.remembered()], 'restored as snapshotted');
        w = restored; // carry on from the restored copy
      }
      checks++;
    }
  }
  t.equal(checks, 40 * 3_000, 'every step compared');
});

t.test('a wallet starting far above 0: one run, folded whole', async (t) => {
  const w = new NonceWindow(4);
  const start = 0x1234_5678_9a00_0000n;
  for (let i = 0n; i < 4n; i++) t.equal(w.use(start + i), true);
  t.same([w.base, w.size, w.remembered()], [0n, 4, [start, start + 1n, start + 2n, start + 3n]]);
  t.equal(w.use(start + 4n), true);
  t.same([w.base, w.size], [start + 5n, 0], 'over the limit: the run joined the base');
  t.equal(w.isUsed(start + 2n), true);
  t.equal(w.use(start + 6n), true, 'a gap of one');
  t.equal(w.use(start + 5n), true, 'the gap closes');
  t.same([w.base, w.size], [start + 7n, 0]);
});

t.test('a snapshot listing nonces out of order serialises back the same until the next use', async (t) => {
  const w = new NonceWindow(8);
  w.restore(10n, [15n, 12n, 13n]); // as the set of an earlier version listed them: in use order
  t.same(w.remembered(), [15n, 12n, 13n], 'as restored');
  t.equal(w.size, 3);
  t.equal(w.isUsed(12n) && w.isUsed(13n) && w.isUsed(15n), true);
  t.equal(w.isUsed(14n), false);
  t.equal(w.use(14n), true);
  t.same(w.remembered(), [12n, 13n, 14n, 15n], 'ascending from the first use on');
  t.equal(w.use(9n), false, 'below the base');
  t.equal(w.use(11n), true);
  t.equal(w.use(10n), true);
  t.same([w.base, w.size], [16n, 0], 'the gap closed: the run joined the base');
});

t.test('raiseBase: a nonce floor counts everything below it as used, cutting runs it reaches', async (t) => {
  const w = new NonceWindow(64);
  for (const n of [3n, 4n, 5n, 10n, 11n, 20n]) w.use(n);
  t.same([w.base, w.size], [0n, 6]);
  w.raiseBase(2n);
  t.same([w.base, w.size], [2n, 6], 'below every run: only the base moves');
  t.equal(w.isUsed(1n), true);
  t.equal(w.isUsed(2n), false);
  w.raiseBase(3n);
  t.same([w.base, w.size], [6n, 3], 'a run starting at the floor joins the base');
  w.raiseBase(11n);
  t.same([w.base, w.size], [12n, 1], 'a run the floor cuts: its part below goes, the rest joins');
  t.same(w.remembered(), [20n]);
  t.equal(w.isUsed(15n), false, 'above the floor: free');
  t.equal(w.use(9n), false, 'below the floor: refused as used');
  w.raiseBase(5n);
  t.same([w.base, w.size], [12n, 1], 'a floor at or below the base changes nothing');
  w.raiseBase(100n);
  t.same([w.base, w.size, w.next()], [100n, 0, 100n], 'above everything: nothing remembered');
  t.equal(w.use(100n), true);
  t.equal(w.next(), 101n);
});
