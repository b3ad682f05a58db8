/**
 * orders() is the book's snapshot: replayed through place() into an empty book (of either
 * implementation) it must reproduce the same book, priority included, and therefore the same
 * future behaviour on the same commands.
 */
import t from 'tap';
import type { OrderBook } from '../../../engine/book/types.ts';
import { implementations } from './support/implementations.ts';
import { apply, RandomStream, type StreamOptions } from './support/randomStream.ts';
import { Recorder, refuseEvents } from './support/recorder.ts';

const opts: StreamOptions = { owners: 4, mid: 5_000, target: 1_200, maxQty: 50 };

function replay(into: OrderBook, from: OrderBook): void {
  // Every order must rest without matching: refuseEvents throws on any event.
  for (const o of from.orders()) into.place(o.ref, o.owner, o.isBuy, o.tick, o.qty, refuseEvents);
}

for (const [fromName, createFrom] of implementations) {
  for (const [intoName, createInto] of implementations) {
    t.test(`${fromName} snapshot replayed into ${intoName}`, async (t) => {
      for (const seed of [11, 12, 13]) {
        const original = createFrom();
        const stream = new RandomStream(seed, opts);
        const rec = new Recorder();
        for (let i = 0; i < 8_000; i++) {
          const cmd = stream.next();
          const r = apply(original, cmd, rec);
          stream.observe(cmd, r, rec.events);
          rec.events = [];
        }
        t.ok(original.orderCount() > 200, `seed ${seed}: a non-trivial book (${original.orderCount()} orders)`);

        const copy = createInto();
        replay(copy, original);
        t.same(copy.orders(), original.orders(), `seed ${seed}: same orders in the same priority`);
        t.same(copy.depth(true, 1e9), original.depth(true, 1e9), `seed ${seed}: same bids`);
        t.same(copy.depth(false, 1e9), original.depth(false, 1e9), `seed ${seed}: same asks`);
        t.equal(copy.checkInvariants(), null, `seed ${seed}: replayed book is consistent`);

        // The same continuation must produce the same events and results on both.
        const a = new Recorder();
        const b = new Recorder();
        let disagreement: string | null = null;
        let events = 0;
        for (let i = 0; i < 8_000 && disagreement === null; i++) {
          const cmd = stream.next();
          const ra = apply(original, cmd, a);
          const rb = apply(copy, cmd, b);
          events += a.events.length;
          if (ra !== rb || a.events.join() !== b.events.join()) disagreement = `command ${i}: ${JSON.stringify(cmd)}`;
          stream.observe(cmd, ra, a.events);
          a.events = [];
          b.events = [];
        }
        t.equal(disagreement, null, `seed ${seed}: same future behaviour`);
        t.ok(events > 1_000, `seed ${seed}: the continuation matched against the replayed orders`);
        t.same(copy.orders(), original.orders(), `seed ${seed}: same book after the continuation`);
      }
    });
  }
}
