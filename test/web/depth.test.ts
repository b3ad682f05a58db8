/**
 * The page's local order book (web/depth.js): a snapshot and the deltas that follow it
 * rebuild the book; a delta whose prevSeq is not the last seq is a gap (the page then
 * re-subscribes) and nothing more applies until a new snapshot.
 */
import t from 'tap';
import { DepthBook } from '../../web/depth.js';

const w = (n: number) => `${n}000000000000000000`;

t.test('snapshot, then deltas in sequence', async (t) => {
  const b = new DepthBook();
  t.equal(b.apply({ type: 'delta', seq: 4, prevSeq: 3, bids: [[w(1), w(1)]], asks: [] }), 'waiting', 'nothing before a snapshot');
  t.equal(b.seq, null);
  t.equal(b.apply({ type: 'snapshot', seq: 5, bids: [[w(10), w(1)], [w(9), w(2)]], asks: [[w(12), w(3)]] }), 'ok');
  t.equal(b.apply({ type: 'delta', seq: 6, prevSeq: 5, bids: [[w(11), w(4)], [w(9), '0']], asks: [[w(12), w(1)], [w(13), w(2)]] }), 'ok');
  t.equal(b.seq, 6);
  t.same(b.levels('bids'), [[w(11), w(4)], [w(10), w(1)]], 'bids best (highest) first; a 0 removes the level');
  t.same(b.levels('asks'), [[w(12), w(1)], [w(13), w(2)]], 'asks best (lowest) first; a size replaces the level');
});

t.test('a gap stops the book until a fresh snapshot', async (t) => {
  const b = new DepthBook();
  b.apply({ type: 'snapshot', seq: 5, bids: [[w(10), w(1)]], asks: [] });
  t.equal(b.apply({ type: 'delta', seq: 8, prevSeq: 7, bids: [[w(10), '0']], asks: [] }), 'gap', 'prevSeq 7 after seq 5');
  t.equal(b.seq, null);
  t.equal(b.apply({ type: 'delta', seq: 9, prevSeq: 8, bids: [], asks: [] }), 'waiting', 'later deltas are dropped');
  t.equal(b.apply({ type: 'snapshot', seq: 9, bids: [[w(7), w(1)]], asks: [] }), 'ok');
  t.same(b.levels('bids'), [[w(7), w(1)]], 'the snapshot replaces everything');
  t.equal(b.apply({ type: 'delta', seq: 10, prevSeq: 9, bids: [], asks: [[w(8), w(1)]] }), 'ok');
  t.equal(b.apply({ type: 'delta', seq: 10, prevSeq: 9, bids: [], asks: [] }), 'gap', 'a repeated delta is a gap too');
});
