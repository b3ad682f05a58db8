/**
 * Issue 3/8's safety net: the live engine against the frozen reference copy of the engine as it
 * stood before the account side's rewrite (test/engine/reference/). The same seeded command
 * streams go through both; every result code and value and every event, serialised as the wire
 * serialises them (bigints as decimal strings), must be equal, command for command, and so must
 * the state hash (the snapshot format stays) and the image events at the end.
 *
 * Streams: the read-model sufficiency stream (every command type: orders with instructions,
 * cancels, replaces, MMP, RFQ, a market maker, cash, caps, mass cancels, the dead-man switch,
 * expiries and settlement) over several seeds, and the book benchmark's stream (1,000 funded
 * wallets on one series: the whole-engine hot path).
 */
import t, { type Test } from 'tap';
import type { Command } from '../../engine/commands.ts';
import { Venue } from '../../engine/venue.ts';
import { Venue as ReferenceVenue } from './reference/engine/venue.ts';
import { defaultVenueConfig as referenceConfig } from './reference/engine/config.ts';
import { fullBodies } from '../gateway/readModels/support/fullStream.ts';
import { Harness } from './support/venueFixture.ts';
import { makeOpStream } from '../../bench/book.ts';
import { prepare } from '../../bench/lib/seriesActorSubject.ts';

/** JSON with bigints as decimal strings, as the wire carries them. */
const wire = (x: unknown): string => JSON.stringify(x, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));

type Mismatch = { index: number; cmd: string; live: string; reference: string };

/** Applies `cmd` to the reference and compares with the live result already serialised. */
function compare(reference: ReferenceVenue, cmd: Command, index: number, liveWire: string): Mismatch | null {
  const refWire = wire(reference.apply(cmd as Parameters<ReferenceVenue['apply']>[0]));
  return refWire === liveWire ? null : { index, cmd: wire(cmd), live: liveWire, reference: refWire };
}

function checkEnd(t: Test, live: Venue, reference: ReferenceVenue): void {
  t.equal(live.stateHash(), reference.stateHash(), 'the same state hash at the end (snapshot bytes equal)');
  t.equal(wire(live.imageEvents()), wire(reference.imageEvents()), 'the same image events at the end');
}

for (const seed of [1, 2, 3, 4, 5, 6]) {
  t.test(`full stream, seed ${seed}`, async (t) => {
    const h = new Harness();
    const reference = ReferenceVenue.create(referenceConfig);
    let first: Mismatch | null = null;
    let fills = 0;
    let refusals = 0;
    let index = 0;
    for (const { body, advance } of fullBodies(h, seed, 2_500)) {
      const r = h.run(body, advance);
      if (!r.ok) refusals++;
      for (const e of r.events) if (e.type === 'trade') fills++;
      const m = compare(reference, h.log[h.log.length - 1]!, index++, wire(r));
      if (m !== null && first === null) first = m;
    }
    t.equal(first, null, 'every command: the same result and events, in wire form');
    t.ok(index > 2_500 && fills > 200 && refusals > 20, `a long stream with fills and refusals (${index} commands, ${fills} trades, ${refusals} refusals)`);
    checkEnd(t, h.venue, reference);
  });
}

t.test('the book benchmark stream (1,000 wallets, one series)', async (t) => {
  const stream = makeOpStream(30_000, 7);
  const live = prepare(stream);
  const ref = prepare(stream);
  // Both prepared the same way on the live engine; replay the prepared setup into a reference venue.
  const reference = ReferenceVenue.restore(ref.venue.serialize());
  t.equal(reference.stateHash(), live.venue.stateHash(), 'the reference starts from the same state');
  let first: Mismatch | null = null;
  let fills = 0;
  for (let i = 0; i < live.commands.length; i++) {
    const cmd = live.commands[i]!;
    const r = live.venue.apply(cmd);
    for (const e of r.events) if (e.type === 'trade') fills++;
    const m = compare(reference, cmd, i, wire(r));
    if (m !== null && first === null) first = m;
  }
  t.equal(first, null, 'every command: the same result and events, in wire form');
  t.ok(fills > 1_000, `fills happened (${fills} trades)`);
  checkEnd(t, live.venue, reference);
});
