/**
 * The live engine against the frozen reference (test/engine/reference/): seeded full streams
 * (every command type), seeds 1 and 2. See support.ts.
 */
import t from 'tap';
import type { Command } from '../../../engine/commands.ts';
import { Venue as ReferenceVenue } from '../reference/engine/venue.ts';
import { defaultVenueConfig as referenceConfig } from '../reference/engine/config.ts';
import { Harness, ALICE, usdc } from '../support/venueFixture.ts';
import { compare, DIFF_SCALE, fullStreamDiff, stateDifference, wire } from './support.ts';

// Thousands of commands through two engines: minutes on a busy 2-core host (tap's default is 120 s).
t.setTimeout(600_000 * DIFF_SCALE);

for (const seed of [1, 2]) t.test(`full stream, seed ${seed}`, async (t) => fullStreamDiff(t, seed, 2_500 * DIFF_SCALE));

t.test('the comparison sees a difference (so these tests can fail)', async (t) => {
  const h = new Harness();
  const reference = ReferenceVenue.create(referenceConfig);
  const live = h.run({ type: 'deposit', owner: ALICE, portfolioId: 0, amount: usdc(100) });
  const other = { ...h.log[0]!, amount: usdc(101) } as Command;
  const m = compare(reference, other, 0, wire(live));
  t.not(m, null, 'a deposit of another amount gives other events');
  t.match(m?.reference ?? '', /101000000/, 'the mismatch shows the reference side');
});

t.test('the state comparison sees a difference (so these tests can fail)', async (t) => {
  const h = new Harness();
  const reference = ReferenceVenue.create(referenceConfig);
  h.run({ type: 'deposit', owner: ALICE, portfolioId: 0, amount: usdc(100) });
  reference.apply(h.log[0]! as Parameters<ReferenceVenue['apply']>[0]);
  t.equal(stateDifference(h.venue, reference), null, 'the same command: the same state');
  reference.apply({ ...h.log[0]!, seq: 2, amount: usdc(1) } as Parameters<ReferenceVenue['apply']>[0]);
  h.run({ type: 'deposit', owner: ALICE, portfolioId: 0, amount: usdc(2) });
  t.match(stateDifference(h.venue, reference) ?? '', /first difference/, 'a deposit of another amount: other state');
  const twin = new Harness();
  const ref2 = ReferenceVenue.create(referenceConfig);
  twin.run({ type: 'deposit', owner: ALICE, portfolioId: 0, amount: usdc(100) });
  ref2.apply(twin.log[0]! as Parameters<ReferenceVenue['apply']>[0]);
  twin.venue.state.accounts.hasTraded[twin.venue.state.accounts.walletOf(ALICE)] = 1;
  t.match(stateDifference(twin.venue, ref2) ?? '', /hasTraded/, 'the one fact the engine keeps of the history is compared too');
});
