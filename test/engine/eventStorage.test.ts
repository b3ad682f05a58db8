/**
 * The result storage `Venue.apply` reuses (engine/flows/eventPool.ts, docs/events.md "Reused
 * storage"): the result object, the events array and the hot events' objects are the venue's
 * own, rewritten by the next apply, and the storage grows to the largest command's need and no
 * further. That the reused objects carry no stale field from an earlier command is the
 * differential tests' (every command's events, converted at once, against the frozen reference).
 */
import t from 'tap';
import { makeOpStream } from '../../bench/book.ts';
import { prepare } from '../../bench/lib/seriesActorSubject.ts';
import type { EngineEvent } from '../../engine/events.ts';
import { WireEvents } from '../../engine/wire.ts';
import { Venue } from '../../engine/venue.ts';
import { POOLED_LENGTH } from '../../engine/flows/eventPool.ts';

/** The objects one command's events take from the storage: one per hot event, one per non-empty depth side (by its length), the list of events (by its length). */
function needOf(events: readonly EngineEvent[]): Map<string, number> {
  const need = new Map<string, number>();
  const add = (k: string): void => void need.set(k, (need.get(k) ?? 0) + 1);
  if (events.length > 0 && events.length <= POOLED_LENGTH) add(`events ${events.length}`); // a longer list is a fresh array
  for (const e of events) {
    if (e.type === 'order' || e.type === 'trade' || e.type === 'position' || e.type === 'portfolio') add(e.type);
    if (e.type === 'depth') {
      add('depth');
      for (const side of [e.bids, e.asks]) if (side.length > 0 && side.length <= POOLED_LENGTH) add(`levels ${side.length}`);
    }
  }
  return need;
}

t.test('the storage grows to the largest command and stays there', (t) => {
  const p = prepare(makeOpStream(6_000, 11));
  // A fresh venue through the setup and the stream, so that every command it applied is counted.
  const venue = Venue.create(p.venue.config);
  const most = new Map<string, number>();
  let events = 0;
  let longest = 0;
  for (const c of [...p.setup, ...p.commands]) {
    const r = venue.apply(c);
    events += r.events.length;
    longest = Math.max(longest, r.events.length);
    for (const [k, n] of needOf(r.events)) most.set(k, Math.max(most.get(k) ?? 0, n));
  }
  const bound = [...most.values()].reduce((a, b) => a + b, 0);
  t.ok(events > 10_000, `the stream made events (${events})`);
  t.ok(longest > POOLED_LENGTH, `a command with more events than the storage keeps lists for (${longest}): a fresh array`);
  t.ok(most.get('trade')! > 1 && most.get('depth')! >= 1, 'trades and depth among them');
  t.equal(venue.storageMade(), bound, `objects made: exactly the most one command needed of each kind (${bound}), not one per event`);
  t.end();
});

t.test('the result is the venue\'s: rewritten by the next apply, so a reader converts it first', (t) => {
  const p = prepare(makeOpStream(2_000, 3));
  for (let i = 0; i < p.prefill; i++) p.venue.apply(p.commands[i]!);
  const conv = new WireEvents();
  conv.learn(p.venue.imageEvents());
  let i = p.prefill;
  let a = p.venue.apply(p.commands[i++]!);
  while (a.events.length === 0) a = p.venue.apply(p.commands[i++]!);
  const first = a.events[0]!;
  const firstSeq = first.seq;
  const converted = conv.events(a.events);
  const b = p.venue.apply(p.commands[i]!);
  t.equal(b, a, 'the same result object');
  t.not(first.seq, firstSeq, 'an event object read after the next apply shows that command (seq moved on)');
  t.equal(converted[0]!.seq, firstSeq, 'what was converted before stays as it was');
  const image = p.venue.imageEvents();
  p.venue.apply(p.commands[i + 1]!);
  t.ok(image.every((e) => e.seq === image[0]!.seq), 'the image is fresh objects, not the storage');
  t.end();
});
