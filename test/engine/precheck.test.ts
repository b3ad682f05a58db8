/**
 * The engine's front door (architecture.md rule 5): `precheck(state, command)` is pure and
 * gives the code `Venue.apply` gives for an order rule. Each case runs the pre-check (and the
 * rule functions under it) on a venue and proves the state hash unchanged afterwards, then
 * applies the command to a copy and compares the outcome.
 */
import t from 'tap';
import { listedVenue, BTC, ALICE, BOB, CAROL, MM, usdc, type Harness } from './support/venueFixture.ts';
import type { Command, CommandBody } from '../../engine/commands.ts';
import { Venue } from '../../engine/venue.ts';
import { precheck, precheckEntries } from '../../engine/precheck.ts';
import { checkOrders, validateCancel, validatePlace } from '../../engine/flows/orderRules.ts';

function setUp(): { h: Harness; call: `0x${string}`; alicesOrder: `0x${string}` } {
  const h = listedVenue();
  const call = h.atm(BTC, true);
  h.ok({ type: 'set_mmm', address: MM, isMmm: true });
  h.ok({ type: 'deposit', owner: MM, portfolioId: 0, amount: usdc(500_000) });
  h.fund(ALICE, usdc(100_000));
  h.fund(BOB, usdc(100_000));
  const resting = h.order(ALICE, call, false, 2000, 1);
  h.ok({ type: 'place', orders: [resting] });
  return { h, call, alicesOrder: resting.orderId };
}

type Case = { readonly name: string; readonly expected: string | null; readonly build: (h: Harness, call: `0x${string}`, order: `0x${string}`) => CommandBody };

const cases: readonly Case[] = [
  { name: 'place (passes)', expected: null, build: (h, call) => ({ type: 'place', orders: [h.order(BOB, call, true, 1500, 1)] }) },
  { name: "an MMM's first order from portfolio 0 (passes; its internal portfolio does not exist yet)", expected: null, build: (h, call) => ({ type: 'place', orders: [h.order(MM, call, false, 2500, 1, { portfolioId: 0 })] }) },
  { name: 'place at tick 0 (refused)', expected: 'zero_price', build: (h, call) => ({ type: 'place', orders: [h.order(BOB, call, true, 1500, 1, { tick: 0 })] }) },
  { name: "place from another wallet's portfolio (refused)", expected: 'unknown_portfolio', build: (h, call) => ({ type: 'place', orders: [h.order(CAROL, call, true, 1500, 1)] }) },
  {
    name: "batch: an MMM's first order, then one off the size step (refused; nothing created)",
    expected: 'off_size_step',
    build: (h, call) => ({ type: 'place', orders: [h.order(MM, call, false, 2500, 1, { portfolioId: 0 }), h.order(MM, call, false, 2600, 0.000001, { portfolioId: 0 })] }),
  },
  { name: 'batch of two (passes)', expected: null, build: (h, call) => ({ type: 'place', orders: [h.order(BOB, call, true, 1500, 1), h.order(MM, call, false, 2500, 1, { portfolioId: 0 })] }) },
  {
    name: 'batch with one nonce twice (refused)',
    expected: 'duplicate_in_batch',
    build: (h, call) => {
      const a = h.order(BOB, call, true, 1500, 1);
      return { type: 'place', orders: [a, h.order(BOB, call, true, 1400, 1, { nonce: a.nonce })] };
    },
  },
  { name: 'cancel (passes)', expected: null, build: (h, _call, order) => ({ type: 'cancel', cancels: [{ orderId: order, owner: ALICE, nonce: h.nextNonce(ALICE), deadline: Math.floor(h.ts / 1000) + 300 }] }) },
  { name: 'cancel by a wallet with no account (refused)', expected: 'not_owner', build: (h, _call, order) => ({ type: 'cancel', cancels: [{ orderId: order, owner: CAROL, nonce: 1n, deadline: Math.floor(h.ts / 1000) + 300 }] }) },
  {
    name: 'cancel of an unknown order by a wallet with no account (refused)',
    expected: 'unknown_order',
    build: (h) => ({ type: 'cancel', cancels: [{ orderId: h.orderId(), owner: CAROL, nonce: 1n, deadline: Math.floor(h.ts / 1000) + 300 }] }),
  },
  {
    name: 'replace into an MMM-free order (passes)',
    expected: null,
    build: (h, call, order) => ({ type: 'replace', pairs: [{ cancel: { orderId: order, owner: ALICE, nonce: h.nextNonce(ALICE), deadline: Math.floor(h.ts / 1000) + 300 }, place: h.order(ALICE, call, false, 2100, 1) }] }),
  },
  {
    name: 'replace whose cancel deadline has passed (refused)',
    expected: 'deadline_passed',
    build: (h, call, order) => ({ type: 'replace', pairs: [{ cancel: { orderId: order, owner: ALICE, nonce: h.nextNonce(ALICE), deadline: Math.floor(h.ts / 1000) - 1 }, place: h.order(ALICE, call, false, 2100, 1) }] }),
  },
];

for (const c of cases) {
  t.test(c.name, async (t) => {
    const { h, call, alicesOrder } = setUp();
    const state = h.venue.state;
    const cmd = { ...c.build(h, call, alicesOrder), seq: h.seq + 1, ts: h.ts + 1 } as Command;
    const before = h.venue.stateHash();
    const accountsBefore = [...state.accounts.owners];
    const portfoliosBefore = state.accounts.portfolioIds.map((ids) => ids.size);

    const refusal = precheck(state, cmd);
    t.equal(refusal?.code ?? null, c.expected, 'the pre-check');
    // The rule functions under it, run directly, change nothing either.
    const nowSec = Math.floor(cmd.ts / 1000);
    const places = cmd.type === 'place' ? cmd.orders : cmd.type === 'replace' ? cmd.pairs.map((p) => p.place) : [];
    const cancels = cmd.type === 'cancel' ? cmd.cancels : cmd.type === 'replace' ? cmd.pairs.map((p) => p.cancel) : [];
    for (const p of places) validatePlace(state, p, nowSec);
    for (const x of cancels) validateCancel(state, x, nowSec);
    checkOrders(state, cancels, places, nowSec);
    t.equal(precheckEntries(state, cmd.ts, cancels, places)?.code ?? null, c.expected, 'the same rules for entries');

    t.equal(h.venue.stateHash(), before, 'the state hash is unchanged');
    t.same([...state.accounts.owners], accountsBefore, 'no account created');
    t.same(state.accounts.portfolioIds.map((ids) => ids.size), portfoliosBefore, 'no portfolio created');

    const copy = Venue.restore(h.venue.serialize());
    const applied = copy.apply(cmd);
    t.equal(applied.ok ? null : applied.rejection.code, c.expected, 'Venue.apply gives the same outcome');
  });
}

t.test("an MMM's internal portfolio is created when its first order is applied, not when it is checked", async (t) => {
  const { h, call } = setUp();
  const internal = () => [...h.venue.state.accounts.walletPortfolios(h.venue.state.accounts.walletOf(MM))].filter((p) => p.internalPair === BTC).length;
  const body: CommandBody = { type: 'place', orders: [h.order(MM, call, false, 2500, 1, { portfolioId: 0 })] };
  t.equal(precheck(h.venue.state, { ...body, seq: h.seq + 1, ts: h.ts + 1 } as Command), null);
  t.equal(internal(), 0, 'not after the pre-check');
  h.ok(body);
  t.equal(internal(), 1, 'after the apply');
});

t.test('commands without order rules pass the pre-check', async (t) => {
  const { h } = setUp();
  t.equal(precheck(h.venue.state, { type: 'clock', seq: h.seq + 1, ts: h.ts + 1 }), null);
});
