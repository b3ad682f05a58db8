/** Single-use nonces in a bounded window (engine/actors/nonceWindow.ts, docs/engine.md). */
import t from 'tap';
import { NonceWindow } from '../../../engine/actors/nonceWindow.ts';

t.test('in-order nonces move the base and remember nothing', async (t) => {
  const w = new NonceWindow(8);
  for (let n = 0n; n < 100n; n++) t.equal(w.use(n), true);
  t.equal(w.base, 100n);
  t.equal(w.used.size, 0);
  t.equal(w.isUsed(99n), true);
  t.equal(w.isUsed(100n), false);
  t.equal(w.use(5n), false, 'a used nonce is refused');
  t.equal(w.next(), 100n);
});

t.test('out-of-order nonces are remembered until the gap closes', async (t) => {
  const w = new NonceWindow(8);
  t.equal(w.use(2n), true);
  t.equal(w.use(1n), true);
  t.same([w.base, w.used.size], [0n, 2]);
  t.equal(w.isUsed(2n), true);
  t.equal(w.isUsed(0n), false);
  t.equal(w.next(), 3n, 'the server hands out above every used nonce');
  t.equal(w.use(0n), true);
  t.same([w.base, w.used.size], [3n, 0], 'the gap closed: 0..2 folded into the base');
});

t.test('sparse nonces: the lowest quarter folds into the base when the window is full', async (t) => {
  const w = new NonceWindow(8);
  for (let i = 1n; i <= 9n; i++) t.equal(w.use(i * 10n), true); // 10, 20, ..., 90: one over the limit
  t.equal(w.used.size, 7, 'two of nine (a quarter, rounded down) folded');
  t.equal(w.base, 21n, 'the base moved past the highest folded nonce');
  t.equal(w.isUsed(15n), true, 'an unused nonce below the base can no longer be used');
  t.equal(w.isUsed(25n), false, 'one above it still can');
  t.equal(w.use(25n), true);
  t.equal(w.use(30n), false, 'remembered nonces stay used');
  t.equal(w.next(), 91n);
});
