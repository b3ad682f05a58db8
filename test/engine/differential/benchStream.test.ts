/**
 * The live engine against the frozen reference (test/engine/reference/) on the book
 * benchmark's stream: 1,000 funded wallets on one series, the whole-engine hot path. See support.ts.
 */
import t from 'tap';
import { Venue as ReferenceVenue } from '../reference/engine/venue.ts';
import { defaultVenueConfig as referenceConfig } from '../reference/engine/config.ts';
import { makeOpStream } from '../../../bench/book.ts';
import { prepare } from '../../../bench/lib/seriesActorSubject.ts';
import { DIFF_SCALE, checkEnd, compare, stateDifference, wire, type Mismatch } from './support.ts';
import { WireEvents } from '../../../engine/wire.ts';

// Thousands of commands through two engines: minutes on a busy 2-core host (tap's default is 120 s).
t.setTimeout(600_000 * DIFF_SCALE);

t.test('the book benchmark stream (1,000 wallets, one series)', async (t) => {
  const stream = makeOpStream(30_000 * DIFF_SCALE, 7);
  const live = prepare(stream);
  // The reference follows the commands that set the live venue up (it cannot read the live engine's snapshot format).
  const reference = ReferenceVenue.create(referenceConfig);
  for (const c of live.setup) reference.apply(c as Parameters<ReferenceVenue['apply']>[0]);
  t.equal(stateDifference(live.venue, reference), null, 'the reference starts from the same state');
  let first: Mismatch | null = null;
  let fills = 0;
  // The converter starts from the live engine's image, as the gateway's does after a restore.
  const conv = new WireEvents();
  conv.learn(live.venue.imageEvents());
  for (let i = 0; i < live.commands.length; i++) {
    const cmd = live.commands[i]!;
    const r = conv.result(live.venue.apply(cmd));
    for (const e of r.events) if (e.type === 'trade') fills++;
    const m = compare(reference, cmd, i, wire(r));
    if (m !== null && first === null) first = m;
  }
  t.equal(first, null, 'every command: the same result and events, in wire form');
  t.ok(fills > 1_000, `fills happened (${fills} trades)`);
  checkEnd(t, live.venue, reference);
});
