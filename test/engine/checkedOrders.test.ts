/**
 * The order rules' reused storage (engine/flows/orderRules.ts `checkOrders`): one entry object
 * per position, rewritten by every command. Proves that nothing leaks from one command, or one
 * entry, to the next (batches of places and cancels, refusals part-way, a market maker's first
 * internal portfolio, then single commands: every result and event equal to the frozen
 * reference engine's), and that in steady state the storage allocates nothing: the same entry
 * objects, the capacity the largest command checked.
 */
import t from 'tap';
import type { CommandBody, PlaceOrder } from '../../engine/commands.ts';
import { checkOrders, checkUnique, checkedCapacity, type CheckedOrders } from '../../engine/flows/orderRules.ts';
import { checkUnique as referenceCheckUnique } from './reference/engine/flows/orderRules.ts';
import { prng, randInt } from './domain/prng.ts';
import { instructionsOf } from '../../engine/domain/instructions.ts';
import { Venue as ReferenceVenue } from './reference/engine/venue.ts';
import { defaultVenueConfig as referenceConfig } from './reference/engine/config.ts';
import { compare, checkEnd, wire, type Mismatch } from './differential/support.ts';
import { listedVenue, BTC, ALICE, BOB, CAROL, MM, usdc, type Harness } from './support/venueFixture.ts';

function setUp(): { h: Harness; call: `0x${string}` } {
  const h = listedVenue();
  const call = h.atm(BTC, true);
  h.ok({ type: 'set_mmm', address: MM, isMmm: true });
  h.ok({ type: 'deposit', owner: MM, portfolioId: 0, amount: usdc(500_000) });
  for (const w of [ALICE, BOB, CAROL]) h.fund(w, usdc(200_000));
  return { h, call };
}

t.test('batches, refusals part-way and single commands: every result and event as the reference gives them', async (t) => {
  const { h, call } = setUp();
  const cancel = (owner: string, o: PlaceOrder) => ({ orderId: o.orderId, owner, nonce: h.nextNonce(owner), deadline: Math.floor(h.ts / 1000) + 300 });
  const asks = [2000, 2010, 2020, 2030, 2040].map((p) => h.order(ALICE, call, false, p, 1));
  const bids = [1500, 1510, 1520].map((p) => h.order(BOB, call, true, p, 2));
  const bodies: CommandBody[] = [
    // Five places, then three: the storage holds five place entries, the last two stale.
    { type: 'place', orders: asks },
    { type: 'place', orders: bids },
    // Cancels and places together (a replace of three): each place entry rewritten, the cancels counted.
    { type: 'replace', pairs: [0, 1, 2].map((i) => ({ cancel: cancel(ALICE, asks[i]!), place: h.order(ALICE, call, false, 2100 + 10 * i, 1) })) },
    // A replace of one after the replace of three (its lists shrink), then of two.
    { type: 'replace', pairs: [{ cancel: cancel(ALICE, asks[4]!), place: h.order(ALICE, call, false, 2200, 1) }] },
    { type: 'replace', pairs: [0, 1].map((i) => ({ cancel: cancel(BOB, bids[i + 1]!), place: h.order(BOB, call, true, 1560 + 10 * i, 1) })) },
    // A batch refused at its third entry (off the size step): entries 0-1 rewritten, nothing applied.
    { type: 'place', orders: [h.order(CAROL, call, true, 1400, 1), h.order(CAROL, call, true, 1410, 1), h.order(CAROL, call, true, 1420, 0.000001)] },
    // A cancel batch refused at its second entry (an order not the wallet's), then one that passes.
    { type: 'cancel', cancels: [cancel(ALICE, asks[3]!), cancel(ALICE, bids[0]!)] },
    { type: 'cancel', cancels: [cancel(ALICE, asks[3]!)] },
    // Entry 0 was BOB's portfolio: a market maker's first order from portfolio 0 (no internal portfolio yet) must not inherit it.
    { type: 'place', orders: [h.order(MM, call, false, 2500, 1, { portfolioId: 0 }), h.order(BOB, call, true, 1530, 1)] },
    { type: 'place', orders: [h.order(MM, call, false, 2510, 1, { portfolioId: 0 })] },
    // A post-only batch whose second entry would take the first: refused by the instruction rules.
    { type: 'place', orders: [h.order(CAROL, call, false, 1700, 1), h.order(CAROL, call, true, 1700, 1, { instructions: instructionsOf({ postOnly: true }) })] },
    // Single commands after the batches: a crossing place (fills), a cancel, a place that rests, an IOC.
    { type: 'place', orders: [h.order(CAROL, call, true, 2040, 1)] },
    { type: 'cancel', cancels: [cancel(BOB, bids[0]!)] },
    { type: 'place', orders: [h.order(CAROL, call, true, 1600, 1)] },
    { type: 'place', orders: [h.order(BOB, call, true, 2100, 3, { instructions: instructionsOf({ timeInForce: 'IOC' }) })] },
  ];
  // The reference engine follows the setup, then every command is compared as it is applied.
  const reference = ReferenceVenue.create(referenceConfig);
  for (const c of h.log) reference.apply(c as Parameters<ReferenceVenue['apply']>[0]);
  const codes: (string | null)[] = [];
  let first: Mismatch | null = null;
  bodies.forEach((body, i) => {
    const r = h.run(body);
    codes.push(r.ok ? null : r.rejection.code);
    const m = compare(reference, h.log[h.log.length - 1]!, i, wire(r));
    if (m !== null && first === null) first = m;
  });
  t.same(codes, [null, null, null, null, null, 'off_size_step', 'not_owner', null, null, null, 'post_only_would_take', null, null, null, null], 'the commands passed and were refused as built');
  t.equal(first, null, 'every command: the same result and events as the reference');
  checkEnd(t, h.venue, reference);
});

t.test('in steady state the storage allocates nothing: the same entries, the capacity of the largest command', async (t) => {
  const { h, call } = setUp();
  const at = () => ({ nowSec: Math.floor(h.ts / 1000) });
  const check = (places: readonly PlaceOrder[]): CheckedOrders => {
    const c = checkOrders(h.venue.state, [], places, at().nowSec);
    if ('code' in c) throw new Error(`refused: ${c.code}`);
    return c;
  };
  const before = checkedCapacity();
  const seven = Array.from({ length: 7 }, (_, i) => h.order(ALICE, call, false, 2000 + 10 * i, 1));
  const big = check(seven);
  t.equal(big.placeCount, 7);
  t.equal(checkedCapacity().places, Math.max(before.places, 7), 'grown to the batch');
  const entries = big.places.slice(0, 7);
  h.ok({ type: 'place', orders: seven });
  const largest = checkedCapacity();
  for (let i = 0; i < 40; i++) {
    const o = h.order(BOB, call, true, 1500 + i, 1);
    const c = check([o]);
    t.equal(c, big, 'the same result object');
    t.equal(c.places[0], entries[0], 'the same entry object');
    t.equal(c.placeCount, 1);
    t.equal(c.places[0]!.o, o, 'rewritten for this command');
    h.ok({ type: 'place', orders: [o] });
    h.ok({ type: 'cancel', cancels: [{ orderId: o.orderId, owner: BOB, nonce: h.nextNonce(BOB), deadline: at().nowSec + 300 }] });
  }
  const three = check(Array.from({ length: 3 }, (_, i) => h.order(CAROL, call, true, 1000 + i, 1)));
  t.same(three.places.slice(0, 3), entries.slice(0, 3), 'a smaller batch reuses the first entries');
  t.same(checkedCapacity(), largest, 'the capacity stays at the largest command');
});

t.test('uniqueness within a command, compared pairwise: the refusal the reference gives, on random batches', async (t) => {
  const rnd = prng(23);
  const owners = [ALICE, BOB, CAROL];
  const id = () => `0x${randInt(rnd, 0, 9).toString(16).padStart(64, '0')}` as const;
  const nonce = () => (rnd() < 0.15 ? null : BigInt(randInt(rnd, 1, 12)));
  const codes = new Map<string, number>();
  for (let i = 0; i < 5000; i++) {
    const places = Array.from({ length: randInt(rnd, 0, 6) }, () => ({ owner: owners[randInt(rnd, 0, 2)]!, nonce: nonce(), orderId: rnd() < 0.2 ? null : id() }));
    const cancels = Array.from({ length: randInt(rnd, 0, 6) }, () => ({ owner: owners[randInt(rnd, 0, 2)]!, nonce: nonce(), orderId: id() }));
    const live = wire(checkUnique(places, cancels));
    const reference = wire(referenceCheckUnique(places, cancels));
    if (live !== reference) {
      t.fail(`${wire({ places, cancels })}: ${live}, the reference ${reference}`);
      return;
    }
    const key = live === 'null' ? 'passed' : live.includes('nonce') ? 'nonce' : 'orderId';
    codes.set(key, (codes.get(key) ?? 0) + 1);
  }
  t.ok((codes.get('passed') ?? 0) > 300 && (codes.get('nonce') ?? 0) > 300 && (codes.get('orderId') ?? 0) > 300, `passes and both refusals (${wire([...codes])})`);
});
