/**
 * Replay of liquidations is exact: a seeded stream with random price shocks gives the same
 * liquidations and the same state hash run straight through, replayed from the journal, and
 * with snapshots and restarts every few hundred commands (architecture.md rule 2). Along the
 * straight run every liquidation is checked against the pass's properties (band, intrinsic
 * value, no open order left, equity not negative, the deficit's split, money conserved by
 * oracle updates but for bad debt); the streams reach sales, bankruptcies and bad debt.
 */
import t, { type Test } from 'tap';
import { premiumOf } from '../../engine/actors/position.ts';
import { Venue } from '../../engine/venue.ts';
import { defaultVenueConfig } from '../../engine/config.ts';
import type { Command } from '../../engine/commands.ts';
import type { VenueEvent } from '../../engine/events.ts';
import { Harness } from './support/venueFixture.ts';
import { shockBodies } from './support/shockStream.ts';
import type { LiquidationEvent } from '../../engine/events.ts';
import { WireEvents } from '../../engine/wire.ts';

/** Money as the venue holds it: every portfolio's cash plus its deferred premium (C6). */
function money(v: Venue): bigint {
  let sum = 0n;
  for (const p of v.state.accounts.allPortfolios()) {
    sum += v.state.accounts.depositOf(p);
    for (const pos of p.positions.values()) sum += premiumOf(pos);
  }
  return sum;
}

/**
 * The pass's properties for each liquidation of a command (the venue as the command left it):
 * no close beyond the band nor a sale below intrinsic value, no open order of the account left,
 * equity not negative, the deficit split between the fund and bad debt; and for an oracle
 * update (which moves no money of its own) money conserved but for the bad debt recorded.
 * Returns the number of faults (each also a failed assertion).
 */
function checkPass(t: Test, v: Venue, body: { type: string }, events: readonly VenueEvent[], moneyBefore: bigint): number {
  const s = v.state;
  let faults = 0;
  const check = (ok: boolean, what: string) => {
    if (ok) return;
    faults++;
    t.fail(what);
  };
  let badDebt = 0n;
  for (const e of events) {
    if (e.type !== 'liquidation') continue;
    const liq = e as LiquidationEvent;
    badDebt += liq.badDebt;
    const band = BigInt(s.config.liquidationBandBps);
    for (const c of liq.closes) {
      const q = s.marks.quote(c.seriesId)!;
      const spec = s.series.get(c.seriesId)!.spec;
      const intrinsic = spec.isCall ? (q.spotWad > spec.strike ? q.spotWad - spec.strike : 0n) : spec.strike > q.spotWad ? spec.strike - q.spotWad : 0n;
      const mark = q.markWad;
      if (c.side === 'sell') check(c.price >= mark - (mark * band) / 10_000n && c.price >= (intrinsic < mark ? intrinsic : mark), `liquidation ${liq.liquidationId}: a sale at ${c.price} below the band or intrinsic value`);
      else check(c.price <= mark + (mark * band) / 10_000n, `liquidation ${liq.liquidationId}: a purchase at ${c.price} above the band`);
    }
    const anchor = s.accounts.marginAnchor(s.accounts.portfolio(liq.owner, liq.portfolioId)!);
    check(![...s.orderIndex.values()].some((o) => s.accounts.marginAnchor(s.accounts.holderOf(o)) === anchor), `liquidation ${liq.liquidationId}: an open order left`);
    check(s.accounts.risk(anchor).equity >= 0n, `liquidation ${liq.liquidationId}: negative equity left`);
    check(liq.fundPaid + liq.badDebt === liq.deficit && (liq.deficit === 0n || liq.fee === 0n), `liquidation ${liq.liquidationId}: deficit split, or a fee out of a deficit`);
  }
  if (body.type === 'oracle') check(money(v) - moneyBefore === badDebt, `an oracle update moved money by ${money(v) - moneyBefore} with ${badDebt} bad debt`);
  return faults;
}

const liquidations = (events: readonly VenueEvent[]) => events.filter((e) => e.type === 'liquidation' || e.type === 'insurance_fund' || e.type === 'bad_debt');
const text = (x: unknown) => JSON.stringify(x, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));

// Two seeded streams of 900 steps, each run three times: about 20 s of CPU, far more wall time on a loaded host.
t.setTimeout(600_000);

let badDebts = 0;
for (const seed of [11, 12]) {
  t.test(`seed ${seed}`, async (t) => {
    const h = new Harness();
    const seen: VenueEvent[] = [];
    const hashes: string[] = [];
    let faults = 0;
    for (const { body, advance } of shockBodies(h, seed, 900)) {
      const before = money(h.venue);
      const events = h.run(body, advance).events;
      faults += checkPass(t, h.venue, body, events, before);
      seen.push(...liquidations(events));
      if (h.seq % 300 === 0) hashes.push(h.venue.stateHash());
    }
    const commands: Command[] = h.log;
    const liqs = seen.filter((e) => e.type === 'liquidation');
    t.ok(liqs.length >= 3, `the stream liquidates (${liqs.length} liquidations, ${liqs.filter((e) => e.type === 'liquidation' && e.deficit > 0n).length} bankrupt, ${seen.filter((e) => e.type === 'bad_debt').length} with bad debt)`);
    t.ok(liqs.some((e) => e.type === 'liquidation' && e.closes.length > 0), 'with closes');
    t.ok(liqs.some((e) => e.type === 'liquidation' && e.cancelledOrders.length > 0), 'with cancelled orders');
    t.ok(liqs.some((e) => e.type === 'liquidation' && e.closes.some((c) => c.side === 'sell')), 'with sales');
    t.ok(liqs.some((e) => e.type === 'liquidation' && e.deficit > 0n), 'with bankruptcies');
    badDebts += seen.filter((e) => e.type === 'bad_debt').length;
    t.equal(faults, 0, 'every liquidation kept the properties of the pass');

    // Replayed from the journal.
    const replay = Venue.create(defaultVenueConfig);
    const replayWire = new WireEvents();
    const replayed: VenueEvent[] = [];
    for (const c of commands) replayed.push(...liquidations(replayWire.result(replay.apply(c)).events));
    t.equal(text(replayed), text(seen), 'a replay gives the same liquidations');
    t.equal(replay.stateHash(), h.venue.stateHash(), 'and the same state hash');

    // Snapshots and restarts every 250 commands.
    let venue = Venue.create(defaultVenueConfig);
    let venueWire = new WireEvents();
    const restarted: VenueEvent[] = [];
    const midHashes: string[] = [];
    for (const c of commands) {
      restarted.push(...liquidations(venueWire.result(venue.apply(c)).events));
      if (c.seq % 300 === 0) midHashes.push(venue.stateHash());
      if (c.seq % 250 === 0) {
        venue = Venue.restore(venue.serialize());
        // A restarted gateway's converter learns the listings from the restored engine's image.
        venueWire = new WireEvents();
        venueWire.learn(venue.imageEvents());
      }
    }
    t.equal(text(restarted), text(seen), 'snapshots and restarts give the same liquidations');
    t.same(midHashes, hashes, 'and the same state hashes along the way');
    t.equal(venue.state.accounts.margin.verify(venue.state.accounts.allPortfolios()), null, 'the margin book after restarts equals a rebuild');
    t.equal(venue.state.verifyOrderIndex(), null, 'the order index is consistent');
  });
}

t.test('the seeds together reach bad debt', async (t) => t.ok(badDebts > 0, `${badDebts} bad debts`));
