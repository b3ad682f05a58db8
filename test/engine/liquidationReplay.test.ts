/**
 * Replay of liquidations is exact: a seeded stream with random price shocks gives the same
 * liquidations and the same state hash run straight through, replayed from the journal, and
 * with snapshots and restarts every few hundred commands (architecture.md rule 2).
 */
import t from 'tap';
import { Venue } from '../../engine/venue.ts';
import { defaultVenueConfig } from '../../engine/config.ts';
import type { Command } from '../../engine/commands.ts';
import type { VenueEvent } from '../../engine/events.ts';
import { Harness } from './support/venueFixture.ts';
import { shockBodies } from './support/shockStream.ts';

const liquidations = (events: readonly VenueEvent[]) => events.filter((e) => e.type === 'liquidation' || e.type === 'insurance_fund' || e.type === 'bad_debt');
const text = (x: unknown) => JSON.stringify(x, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));

for (const seed of [11, 12]) {
  t.test(`seed ${seed}`, async (t) => {
    const h = new Harness();
    const seen: VenueEvent[] = [];
    const hashes: string[] = [];
    for (const { body, advance } of shockBodies(h, seed, 900)) {
      seen.push(...liquidations(h.run(body, advance).events));
      if (h.seq % 300 === 0) hashes.push(h.venue.stateHash());
    }
    const commands: Command[] = h.log;
    const liqs = seen.filter((e) => e.type === 'liquidation');
    t.ok(liqs.length >= 3, `the stream liquidates (${liqs.length} liquidations, ${seen.filter((e) => e.type === 'bad_debt').length} with bad debt)`);
    t.ok(liqs.some((e) => e.type === 'liquidation' && e.closes.length > 0), 'with closes');
    t.ok(liqs.some((e) => e.type === 'liquidation' && e.cancelledOrders.length > 0), 'with cancelled orders');

    // Replayed from the journal.
    const replay = Venue.create(defaultVenueConfig);
    const replayed: VenueEvent[] = [];
    for (const c of commands) replayed.push(...liquidations(replay.apply(c).events));
    t.equal(text(replayed), text(seen), 'a replay gives the same liquidations');
    t.equal(replay.stateHash(), h.venue.stateHash(), 'and the same state hash');

    // Snapshots and restarts every 250 commands.
    let venue = Venue.create(defaultVenueConfig);
    const restarted: VenueEvent[] = [];
    const midHashes: string[] = [];
    for (const c of commands) {
      restarted.push(...liquidations(venue.apply(c).events));
      if (c.seq % 300 === 0) midHashes.push(venue.stateHash());
      if (c.seq % 250 === 0) venue = Venue.restore(venue.serialize());
    }
    t.equal(text(restarted), text(seen), 'snapshots and restarts give the same liquidations');
    t.same(midHashes, hashes, 'and the same state hashes along the way');
    t.equal(venue.state.accounts.margin.verify(venue.state.accounts.allPortfolios()), null, 'the margin book after restarts equals a rebuild');
    t.equal(venue.state.verifyOrderIndex(), null, 'the order index is consistent');
  });
}
