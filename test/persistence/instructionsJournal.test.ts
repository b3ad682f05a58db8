/**
 * Order instructions in the journal: a place entry carrying them comes back with them, and
 * an entry written before they existed (none) still decodes and is applied with the defaults.
 */
import t from 'tap';
import { checkEntry, encodeCommand } from '../../persistence/journalEntry.ts';
import type { Command } from '../../engine/commands.ts';
import { listedVenue, BTC, BOB, usdc } from '../engine/support/venueFixture.ts';
import { instructionsOf } from '../../engine/domain/instructions.ts';

t.test('place entries with and without instructions round-trip through the journal codec', async (t) => {
  const h = listedVenue();
  const call = h.atm(BTC, true);
  h.fund(BOB, usdc(100_000));
  const withIns = h.order(BOB, call, true, 1500, 1, { instructions: instructionsOf({ timeInForce: 'GTC', postOnly: true, reduceOnly: false, mmp: true, clientOrderId: 'abc_1' }) });
  const without = h.order(BOB, call, true, 1400, 1);
  t.notOk('instructions' in without, 'an entry written before instructions has none');
  for (const [name, order] of [['with', withIns], ['without', without]] as const) {
    const cmd: Command = { type: 'place', orders: [order], seq: h.seq + 1, ts: h.ts + 1 };
    const entry = checkEntry(cmd.seq, encodeCommand(cmd, cmd.seq));
    t.ok(entry.ok, `${name}: decodes`);
    if (!entry.ok) continue;
    t.same(entry.command as Command, cmd, `${name}: the same command comes back`);
    const r = h.venue.apply(entry.command as Command);
    t.ok(r.ok, `${name}: applies`);
    h.seq++;
    h.ts++;
    const slot = h.venue.state.orderIndex.get(order.orderId)!;
    t.same(h.venue.state.accounts.orders.instructions[slot], name === 'with' ? withIns.instructions : instructionsOf(undefined), `${name}: the order holds its instructions (defaults when none)`);
  }
});
