/**
 * The live engine against the frozen reference (test/engine/reference/): seeded full streams
 * (every command type), seeds 1 and 2. See support.ts.
 */
import t from 'tap';
import type { Command } from '../../../engine/commands.ts';
import { Venue as ReferenceVenue } from '../reference/engine/venue.ts';
import { defaultVenueConfig as referenceConfig } from '../reference/engine/config.ts';
import { Harness, ALICE, usdc } from '../support/venueFixture.ts';
import { compare, fullStreamDiff, wire } from './support.ts';

// Thousands of commands through two engines: minutes on a busy 2-core host (tap's default is 120 s).
t.setTimeout(600_000);

for (const seed of [1, 2]) t.test(`full stream, seed ${seed}`, async (t) => fullStreamDiff(t, seed, 2_500));

t.test('the comparison sees a difference (so these tests can fail)', async (t) => {
  const h = new Harness();
  const reference = ReferenceVenue.create(referenceConfig);
  const live = h.run({ type: 'deposit', owner: ALICE, portfolioId: 0, amount: usdc(100) });
  const other = { ...h.log[0]!, amount: usdc(101) } as Command;
  const m = compare(reference, other, 0, wire(live));
  t.not(m, null, 'a deposit of another amount gives other events');
  t.match(m?.reference ?? '', /101000000/, 'the mismatch shows the reference side');
});
