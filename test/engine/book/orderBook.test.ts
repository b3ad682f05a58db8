/**
 * Every rule of the OrderBook contract (engine/book/types.ts, docs/book.md), run with the same
 * test body against the fast and the naive book.
 */
import t from 'tap';
import { BookInvariantError } from '../../../engine/book/bookInvariantError.ts';
import type { MatchSink, OrderBook } from '../../../engine/book/types.ts';
import { implementations } from './support/implementations.ts';
import { Recorder, refuseEvents } from './support/recorder.ts';

const BUY = true;
const SELL = false;

/** Rest orders that must not match anything: [ref, owner, isBuy, tick, qty]. */
function seed(book: OrderBook, rows: Array<[number, number, boolean, number, number]>): void {
  for (const [ref, owner, isBuy, tick, qty] of rows) book.place(ref, owner, isBuy, tick, qty, refuseEvents);
}

for (const [name, create] of implementations) {
  t.test(`${name}: an empty book`, async (t) => {
    const book = create();
    t.equal(book.bestBid(), -1);
    t.equal(book.bestAsk(), -1);
    t.same(book.depth(BUY, 10), []);
    t.same(book.depth(SELL, 10), []);
    t.equal(book.orderCount(), 0);
    t.same(book.orders(), []);
    t.equal(book.levelQty(BUY, 100), 0);
    t.equal(book.get(1), undefined);
    t.equal(book.has(1), false);
    t.equal(book.cancel(1), 0, 'cancelling an unknown ref returns 0');
    t.equal(book.reduce(1, 5), 0, 'reducing an unknown ref returns 0');
    t.equal(book.checkInvariants(), null);
  });

  t.test(`${name}: non-crossing orders rest and aggregate by level, best first`, async (t) => {
    const book = create();
    seed(book, [
      [1, 1, BUY, 99, 5],
      [2, 2, BUY, 98, 7],
      [3, 3, BUY, 99, 2],
      [4, 1, SELL, 101, 4],
      [5, 2, SELL, 103, 6],
      [6, 3, SELL, 101, 1],
    ]);
    t.equal(book.bestBid(), 99);
    t.equal(book.bestAsk(), 101);
    t.same(book.depth(BUY, 10), [{ tick: 99, qty: 7, count: 2 }, { tick: 98, qty: 7, count: 1 }]);
    t.same(book.depth(SELL, 10), [{ tick: 101, qty: 5, count: 2 }, { tick: 103, qty: 6, count: 1 }]);
    t.same(book.depth(SELL, 1), [{ tick: 101, qty: 5, count: 2 }], 'maxLevels limits the levels');
    t.same(book.depth(BUY, 0), [], 'maxLevels 0 gives no levels');
    t.same(book.depth(BUY, NaN), [], 'maxLevels NaN gives no levels');
    t.same(book.depth(BUY, 1.9), [{ tick: 99, qty: 7, count: 2 }], 'fractional maxLevels rounds down');
    t.equal(book.depth(SELL, Infinity).length, 2, 'maxLevels Infinity gives every level');
    t.equal(book.levelQty(BUY, 99), 7);
    t.equal(book.levelQty(SELL, 99), 0, 'levelQty is per side');
    t.equal(book.levelQty(SELL, 103), 6);
    t.equal(book.orderCount(), 6);
    t.same(book.get(3), { ref: 3, owner: 3, isBuy: true, tick: 99, qty: 2 });
    t.equal(book.has(5), true);
    t.equal(book.checkInvariants(), null);
  });

  t.test(`${name}: a buy takes asks at or below its tick, lowest first, at the maker's tick`, async (t) => {
    const book = create();
    seed(book, [
      [1, 1, SELL, 103, 5],
      [2, 2, SELL, 101, 5],
      [3, 3, SELL, 102, 5],
      [4, 4, SELL, 104, 5],
    ]);
    const rec = new Recorder();
    t.equal(book.place(10, 9, BUY, 103, 12, rec), 0, 'fully filled');
    t.same(rec.take(), ['fill 2 2 101 5 0', 'fill 3 3 102 5 0', 'fill 1 1 103 2 3'], 'best price first, maker tick, partial last');
    t.equal(book.bestAsk(), 103);
    t.equal(book.get(1)?.qty, 3);
    t.equal(book.has(10), false, 'a fully filled taker does not rest');
    t.equal(book.levelQty(SELL, 104), 5, 'asks above the limit are untouched');
    t.equal(book.checkInvariants(), null);
  });

  t.test(`${name}: a sell takes bids at or above its tick, highest first`, async (t) => {
    const book = create();
    seed(book, [
      [1, 1, BUY, 97, 5],
      [2, 2, BUY, 99, 5],
      [3, 3, BUY, 98, 5],
    ]);
    const rec = new Recorder();
    t.equal(book.place(10, 9, SELL, 98, 20, rec), 10, 'remainder after matching');
    t.same(rec.take(), ['fill 2 2 99 5 0', 'fill 3 3 98 5 0']);
    t.equal(book.bestAsk(), 98, 'the remainder rests at its own tick');
    t.same(book.get(10), { ref: 10, owner: 9, isBuy: false, tick: 98, qty: 10 });
    t.equal(book.bestBid(), 97);
    t.equal(book.checkInvariants(), null);
  });

  t.test(`${name}: FIFO within a level; a partial fill keeps the maker at the head`, async (t) => {
    const book = create();
    seed(book, [
      [1, 1, SELL, 101, 5],
      [2, 2, SELL, 101, 5],
      [3, 3, SELL, 101, 5],
    ]);
    const rec = new Recorder();
    book.place(10, 9, BUY, 101, 3, rec);
    t.same(rec.take(), ['fill 1 1 101 3 2'], 'the oldest order fills first');
    book.place(11, 9, BUY, 101, 4, rec);
    t.same(rec.take(), ['fill 1 1 101 2 0', 'fill 2 2 101 2 3'], 'the partly filled maker is still first');
    t.same(book.orders().map((o) => o.ref), [2, 3]);
  });

  t.test(`${name}: a crossing order that exhausts the other side rests the remainder`, async (t) => {
    const book = create();
    seed(book, [[1, 1, SELL, 101, 5]]);
    const rec = new Recorder();
    t.equal(book.place(10, 2, BUY, 105, 8, rec), 3);
    t.same(rec.take(), ['fill 1 1 101 5 0']);
    t.equal(book.bestBid(), 105);
    t.equal(book.bestAsk(), -1);
    t.equal(book.levelQty(BUY, 105), 3);
  });

  t.test(`${name}: IOC (restRemainder false) never rests`, async (t) => {
    const book = create();
    seed(book, [[1, 1, SELL, 101, 5], [2, 1, BUY, 95, 5]]);
    const rec = new Recorder();
    t.equal(book.place(10, 2, BUY, 101, 8, rec, false), 3, 'returns what was left unfilled');
    t.same(rec.take(), ['fill 1 1 101 5 0']);
    t.equal(book.has(10), false);
    t.equal(book.bestBid(), 95, 'no bid was added');
    t.equal(book.place(11, 2, BUY, 99, 4, rec, false), 4, 'a non-crossing IOC returns its full qty');
    t.same(rec.take(), []);
    t.equal(book.orderCount(), 1);
    t.equal(book.place(12, 2, SELL, 90, 5, rec, false), 0, 'an IOC that fills fully returns 0');
    t.same(rec.take(), ['fill 2 1 95 5 0']);
    t.equal(book.checkInvariants(), null);
  });

  t.test(`${name}: self-trade prevention removes the taker's own makers and continues`, async (t) => {
    const book = create();
    seed(book, [
      [1, 7, SELL, 101, 5], // own, at the head
      [2, 2, SELL, 101, 4],
      [3, 7, SELL, 101, 3], // own, behind another owner's order
      [4, 3, SELL, 102, 6],
      [5, 7, SELL, 103, 9], // own, beyond the taker's limit
    ]);
    const rec = new Recorder();
    t.equal(book.place(10, 7, BUY, 102, 6, rec), 0);
    t.same(rec.take(), ['stp 1 5', 'fill 2 2 101 4 0', 'stp 3 3', 'fill 4 3 102 2 4'], 'events in book order');
    t.equal(book.has(1), false);
    t.equal(book.has(3), false);
    t.equal(book.has(5), true, 'own orders the taker does not reach stay');
    t.equal(book.get(4)?.qty, 4);
    t.equal(book.checkInvariants(), null);
  });

  t.test(`${name}: self-trade prevention with only own liquidity rests the taker`, async (t) => {
    const book = create();
    seed(book, [[1, 4, BUY, 99, 5], [2, 4, BUY, 98, 5], [3, 5, BUY, 97, 5]]);
    const rec = new Recorder();
    t.equal(book.place(10, 4, SELL, 98, 7, rec), 7, 'nothing filled');
    t.same(rec.take(), ['stp 1 5', 'stp 2 5']);
    t.equal(book.bestAsk(), 98, 'the taker rests');
    t.equal(book.bestBid(), 97, 'the book is not crossed');
    t.equal(book.place(11, 4, SELL, 90, 2, rec, false), 0, 'another owner is matched normally');
    t.same(rec.take(), ['fill 3 5 97 2 3']);
  });

  t.test(`${name}: owner 0 is an owner like any other`, async (t) => {
    const book = create();
    seed(book, [[1, 0, SELL, 101, 5]]);
    const rec = new Recorder();
    book.place(10, 0, BUY, 101, 1, rec);
    t.same(rec.take(), ['stp 1 5']);
    seed(book, [[2, 0, SELL, 102, 5]]);
    book.place(11, 1, BUY, 102, 1, rec);
    t.same(rec.take(), ['fill 2 0 102 1 4']);
  });

  t.test(`${name}: cancel`, async (t) => {
    const book = create();
    seed(book, [[1, 1, SELL, 101, 5], [2, 2, SELL, 101, 6], [3, 3, SELL, 101, 7], [4, 1, SELL, 102, 1]]);
    t.equal(book.cancel(2), 6, 'returns the qty it had');
    t.equal(book.cancel(2), 0, 'a second cancel finds nothing');
    t.equal(book.cancel(99), 0, 'unknown ref');
    t.same(book.depth(SELL, 5), [{ tick: 101, qty: 12, count: 2 }, { tick: 102, qty: 1, count: 1 }]);
    const rec = new Recorder();
    book.place(10, 9, BUY, 101, 6, rec);
    t.same(rec.take(), ['fill 1 1 101 5 0', 'fill 3 3 101 1 6'], 'the others keep their order');
    t.equal(book.cancel(4), 1);
    t.equal(book.cancel(3), 6);
    t.equal(book.bestAsk(), -1, 'emptied levels disappear');
    t.same(book.depth(SELL, 5), []);
    t.equal(book.checkInvariants(), null);
  });

  t.test(`${name}: refs that can never be resting find nothing`, async (t) => {
    const book = create();
    // Fill the first slots so that a lookup that wrongly hits an empty bucket or slot 0 would show.
    seed(book, [[1, 1, BUY, 99, 5], [2, 2, SELL, 101, 5]]);
    const before = JSON.stringify(book.orders());
    for (const ref of [0, -1, 1.5, NaN, Infinity, 2 ** 60]) {
      t.equal(book.has(ref), false, `has(${ref})`);
      t.equal(book.get(ref), undefined, `get(${ref})`);
      t.equal(book.cancel(ref), 0, `cancel(${ref})`);
      t.equal(book.reduce(ref, 1), 0, `reduce(${ref})`);
    }
    t.equal(JSON.stringify(book.orders()), before, 'book unchanged');
    for (const tick of [-1, 99.5, NaN, 2 ** 40]) t.equal(book.levelQty(BUY, tick), 0, `levelQty at ${tick}`);
  });

  t.test(`${name}: a cancelled or filled ref may be placed again`, async (t) => {
    const book = create();
    seed(book, [[1, 1, SELL, 101, 5]]);
    book.cancel(1);
    seed(book, [[1, 1, BUY, 90, 2]]);
    t.same(book.get(1), { ref: 1, owner: 1, isBuy: true, tick: 90, qty: 2 });
  });

  t.test(`${name}: reduce keeps priority`, async (t) => {
    const book = create();
    seed(book, [[1, 1, BUY, 99, 10], [2, 2, BUY, 99, 10]]);
    t.equal(book.reduce(1, 4), 6, 'returns the new qty');
    t.equal(book.levelQty(BUY, 99), 16);
    const rec = new Recorder();
    book.place(10, 9, SELL, 99, 7, rec);
    t.same(rec.take(), ['fill 1 1 99 6 0', 'fill 2 2 99 1 9'], 'the reduced order is still first');
    t.equal(book.reduce(2, 9), 0, 'reducing by the whole qty removes the order');
    t.equal(book.has(2), false);
    t.equal(book.bestBid(), -1);
    seed(book, [[3, 1, BUY, 98, 3]]);
    t.equal(book.reduce(3, 50), 0, 'reducing by more than the qty removes the order');
    t.equal(book.orderCount(), 0);
    t.equal(book.checkInvariants(), null);
  });

  t.test(`${name}: broken invariants throw and leave the book unchanged`, async (t) => {
    const book = create();
    seed(book, [[1, 1, SELL, 101, 5], [2, 1, BUY, 99, 5]]);
    const before = JSON.stringify(book.orders());
    const rec = new Recorder();
    const place = (ref: number, owner: number, tick: number, qty: number) => () => book.place(ref, owner, BUY, tick, qty, rec);
    t.throws(place(1, 2, 101, 1), BookInvariantError, 'a ref that is resting');
    t.throws(place(2, 2, 50, 1), BookInvariantError, 'a ref that is resting on the same side');
    for (const qty of [0, -1, 1.5, NaN, Infinity, 2 ** 53]) t.throws(place(3, 2, 101, qty), BookInvariantError, `qty ${qty}`);
    for (const tick of [-1, 1.5, 2 ** 32, NaN]) t.throws(place(3, 2, tick, 1), BookInvariantError, `tick ${tick}`);
    for (const ref of [0, -1, 2.5, 2 ** 53]) t.throws(place(ref, 2, 101, 1), BookInvariantError, `ref ${ref}`);
    for (const owner of [-1, 0.5, 2 ** 31]) t.throws(place(3, owner, 101, 1), BookInvariantError, `owner ${owner}`);
    for (const by of [0, -2, 0.5, NaN]) t.throws(() => book.reduce(1, by), BookInvariantError, `reduce by ${by}`);
    t.same(rec.take(), [], 'nothing matched');
    t.equal(JSON.stringify(book.orders()), before, 'book unchanged');
    t.equal(book.checkInvariants(), null);
  });

  t.test(`${name}: a sink may read the book, which is already updated, but not mutate it`, async (t) => {
    const book = create();
    seed(book, [[1, 1, SELL, 101, 5], [2, 2, SELL, 101, 5], [3, 3, SELL, 102, 5]]);
    const seen: string[] = [];
    const reading: MatchSink = {
      onFill(makerRef, _owner, tick, _qty, makerRemaining) {
        seen.push(`${makerRef}:${book.get(makerRef)?.qty ?? 'gone'}=${makerRemaining || 'gone'} ask ${book.bestAsk()} lvl ${book.levelQty(SELL, tick)}`);
      },
      onSelfTradeCancel(makerRef) {
        seen.push(`stp ${makerRef} ${book.has(makerRef)}`);
      },
    };
    book.place(10, 3, BUY, 102, 7, reading);
    t.same(seen, ['1:gone=gone ask 101 lvl 5', '2:3=3 ask 101 lvl 3']);
    book.place(11, 3, BUY, 102, 4, reading);
    t.same(seen.slice(2), ['2:gone=gone ask 102 lvl 0', 'stp 3 false'], 'an emptied level is gone at the callback');

    seed(book, [[4, 1, SELL, 110, 5], [5, 1, SELL, 111, 5]]);
    for (const [what, mutate] of [
      ['place', () => book.place(99, 8, BUY, 50, 1, refuseEvents)],
      ['cancel', () => book.cancel(5)],
      ['reduce', () => book.reduce(5, 1)],
    ] as const) {
      const mutating: MatchSink = { onFill: () => void mutate(), onSelfTradeCancel: () => void mutate() };
      t.throws(() => book.place(20, 9, BUY, 110, 1, mutating), BookInvariantError, `${what} from a sink throws`);
      t.equal(book.has(5), true, `${what} did not happen`);
    }
    t.equal(book.has(99), false);
    t.equal(book.checkInvariants(), null);
    book.place(21, 9, BUY, 50, 1, refuseEvents);
    t.equal(book.has(21), true, 'the book works again after a sink threw');
  });

  t.test(`${name}: get returns a copy`, async (t) => {
    const book = create();
    seed(book, [[1, 1, BUY, 99, 5]]);
    const o = book.get(1)!;
    o.qty = 1000;
    o.tick = 1;
    t.same(book.get(1), { ref: 1, owner: 1, isBuy: true, tick: 99, qty: 5 });
    const list = book.orders();
    list[0]!.qty = 7;
    t.equal(book.get(1)?.qty, 5);
  });

  t.test(`${name}: extreme ticks, refs and quantities are exact`, async (t) => {
    const book = create();
    const big = 2 ** 53 - 1;
    const bigRef = 2 ** 53 - 2;
    seed(book, [[bigRef, 2 ** 31 - 1, SELL, 2 ** 32 - 1, big], [2, 0, BUY, 0, big]]);
    t.equal(book.bestAsk(), 2 ** 32 - 1);
    t.equal(book.bestBid(), 0);
    t.same(book.get(bigRef), { ref: bigRef, owner: 2 ** 31 - 1, isBuy: false, tick: 2 ** 32 - 1, qty: big });
    const rec = new Recorder();
    t.equal(book.place(3, 5, BUY, 2 ** 32 - 1, big - 1, rec), 0);
    t.same(rec.take(), [`fill ${bigRef} ${2 ** 31 - 1} ${2 ** 32 - 1} ${big - 1} 1`], 'one lot remains, exactly');
    t.equal(book.reduce(2, big - 3), 3);
    t.equal(book.place(4, 5, SELL, 0, 10, rec, false), 7);
    t.same(rec.take(), ['fill 2 0 0 3 0']);
    t.equal(book.checkInvariants(), null);
  });
}
