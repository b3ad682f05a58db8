/** Sliding windows: exactly `limit` events in any window, refused events not counted, stale keys forgotten. */
import t from 'tap';
import { KeyedRateWindows, RateWindow } from '../../../gateway/streams/rateWindow.ts';

t.test('at most `limit` events in any window of windowMs', async (t) => {
  const w = new RateWindow(3, 1000);
  t.same([w.take(0), w.take(100), w.take(200), w.take(300)], [true, true, true, false], 'the 4th inside the window is refused');
  t.equal(w.take(999), false, 'still inside the window of the first');
  t.equal(w.take(1000), true, 'the first left the window: one slot');
  t.equal(w.take(1001), false, 'and only one');
  t.equal(w.take(1100), true, 'the second left too');
  t.equal(w.idle(1500), false);
  t.equal(w.idle(2100), true, 'idle once the newest left');
});

t.test('no burst of twice the limit at a window edge', async (t) => {
  const w = new RateWindow(10, 60_000);
  let accepted = 0;
  for (let ms = 59_000; ms < 61_000; ms += 100) if (w.take(ms)) accepted++;
  t.equal(accepted, 10, 'ten in any 60 s, even across a minute boundary');
});

t.test('per key, and stale keys are swept', async (t) => {
  const k = new KeyedRateWindows(1, 1000);
  t.equal(k.take('a', 0), true);
  t.equal(k.take('a', 10), false);
  t.equal(k.take('b', 10), true, 'keys are independent');
  t.equal(k.size, 2);
  k.take('c', 5000);
  t.equal(k.size, 1, 'a and b were forgotten');
});
