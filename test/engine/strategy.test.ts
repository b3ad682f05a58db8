/**
 * The strategy command (engine/flows/strategy.ts; extensions.md "Strategies"): every leg fills
 * in full at its limit or better, or nothing changes (books, balances, nonces: the state hash).
 */
import t, { type Test } from 'tap';
import { listedVenue, BTC, ALICE, BOB, CAROL, usdc, type Harness } from './support/venueFixture.ts';
import type { CommandBody, PlaceOrder } from '../../engine/commands.ts';
import { instructionsOf, type OrderInstructions } from '../../engine/domain/instructions.ts';
import type { MmpConfig } from '../../engine/domain/mmp.ts';
import { Venue } from '../../engine/venue.ts';
import type { Hex } from '../../engine/domain/hex.ts';
import { balanceOf } from '../../engine/actors/position.ts';

const FOK = { instructions: instructionsOf({ timeInForce: 'FOK' }) };
const MMP = { instructions: instructionsOf({ mmp: true }) };
const SID = ('0x' + '5a'.repeat(32)) as Hex;

function setup(): Harness {
  const h = listedVenue();
  for (const w of [ALICE, CAROL]) h.fund(w, usdc(10_000_000));
  h.fund(BOB, usdc(1_000_000));
  return h;
}

/** The calls of the pair's `nth` expiry, by strike, around the money. */
function calls(h: Harness, nth = 0): Hex[] {
  const all = [...h.venue.state.series.values()].filter((s) => s.spec.pairId === BTC && s.spec.isCall && !s.settled);
  const expiries = [...new Set(all.map((s) => s.spec.expiry))].sort((a, b) => a - b);
  const spot = h.venue.state.oracles.get(BTC)!.spot;
  const list = all.filter((s) => s.spec.expiry === expiries[nth]).sort((a, b) => (a.spec.strike < b.spec.strike ? -1 : 1));
  const atm = list.findIndex((s) => s.spec.strike >= spot);
  return list.slice(Math.max(0, atm - 1), atm + 2).map((s) => s.spec.seriesId);
}

const leg = (h: Harness, owner: string, series: Hex, isBuy: boolean, price: number, size: number): PlaceOrder => h.order(owner, series, isBuy, price, size, FOK);
const strategy = (orders: PlaceOrder[]): CommandBody => ({ type: 'strategy', strategyId: SID, orders });

/** ALICE quotes a butterfly's three strikes: asks on the wings, a bid in the middle of `middle` size. */
function quoteButterfly(h: Harness, k: Hex[], middle: number): void {
  h.ok({ type: 'place', orders: [h.order(ALICE, k[0]!, false, 5000, 1), h.order(ALICE, k[1]!, true, 3000, middle), h.order(ALICE, k[2]!, false, 1500, 1)] });
}

function butterfly(h: Harness, k: Hex[]): PlaceOrder[] {
  return [leg(h, BOB, k[0]!, true, 5100, 1), leg(h, BOB, k[1]!, false, 2900, 2), leg(h, BOB, k[2]!, true, 1600, 1)];
}

t.test('a butterfly fills: every leg in full, at its limit or better', async (t) => {
  const h = setup();
  const k = calls(h);
  quoteButterfly(h, k, 2);
  const legs = butterfly(h, k);
  const r = h.ok(strategy(legs));
  t.match(r.value, { strategyId: SID, outcomes: [{ status: 'filled' }, { status: 'filled' }, { status: 'filled' }] });
  const bob = h.venue.state.accounts.portfolio(BOB, 1)!;
  t.same(k.map((s) => { const held = bob.positions.get(s); return held && balanceOf(held); }), [legs[0]!.size, -legs[1]!.size, legs[2]!.size]);
  const trades = r.events.filter((e) => e.type === 'trade');
  t.equal(trades.length, 3);
  t.match(trades.map((e) => (e as { price: bigint }).price), [5000n * 10n ** 18n, 3000n * 10n ** 18n, 1500n * 10n ** 18n], 'at the makers\' prices');
  for (const o of legs) t.ok(h.venue.orderNonceUsed(BOB, o.nonce));
});

/** A refused strategy: no events, and the venue equals one that never saw the command. */
function refusedChangesNothing(t: Test, h: Harness, body: CommandBody, code: string, details?: Record<string, unknown>): void {
  const control = Venue.create(h.venue.config);
  for (const c of h.log) control.apply(c);
  const r = h.run(body);
  t.match(r, { ok: false, rejection: details === undefined ? { code } : { code, details } });
  t.equal(r.events.length, 0, 'no events');
  // seq and the clock move with every command, refused or not: move the control's the same way.
  control.apply({ type: 'clock', seq: h.seq, ts: h.ts });
  const probe = Venue.restore(h.venue.serialize());
  probe.apply({ type: 'clock', seq: h.seq, ts: h.ts });
  t.equal(probe.stateHash(), control.stateHash(), 'state hash as if the command had not been sent');
  if (body.type === 'strategy') for (const o of body.orders) t.notOk(h.venue.orderNonceUsed(o.owner, o.nonce), `nonce ${o.nonce} unused`);
}

t.test('a butterfly whose middle leg lacks size changes nothing (books, balances, nonces)', async (t) => {
  const h = setup();
  const k = calls(h);
  quoteButterfly(h, k, 1.5);
  const legs = butterfly(h, k);
  refusedChangesNothing(t, h, strategy(legs), 'strategy_not_fillable', { leg: 1, seriesId: k[1]! });
  // The same legs as a place batch of FOK orders: the first leg would fill, the middle be killed.
  const batch = h.ok({ type: 'place', orders: legs });
  t.match(batch.value, { outcomes: [{ status: 'filled' }, { status: 'cancelled', cancelReason: 'fok' }, { status: 'filled' }] }, 'what the strategy prevented');
});

t.test('legs across two expiries (a calendar)', async (t) => {
  const h = setup();
  const near = calls(h, 0)[1]!;
  const far = calls(h, 1)[1]!;
  h.ok({ type: 'place', orders: [h.order(ALICE, near, true, 2000, 1), h.order(ALICE, far, false, 4000, 1)] });
  const r = h.ok(strategy([leg(h, BOB, near, false, 1900, 1), leg(h, BOB, far, true, 4100, 1)]));
  t.match(r.value, { outcomes: [{ status: 'filled' }, { status: 'filled' }] });
});

t.test('margin is checked once for the whole package: a refusal refuses every leg', async (t) => {
  const h = setup();
  h.fund(CAROL, usdc(100), 1);
  const k = calls(h);
  quoteButterfly(h, k, 2);
  const poor = '0x000000000000000000000000000000000000D00D';
  h.fund(poor, usdc(1_000));
  const legs = [leg(h, poor, k[0]!, true, 5100, 1), leg(h, poor, k[1]!, false, 2900, 2), leg(h, poor, k[2]!, true, 1600, 1)];
  // One leg alone (the cheapest wing) would pass: the package is what is refused.
  refusedChangesNothing(t, h, strategy(legs), 'insufficient_cash');
});

t.test('self-trade prevention: the wallet\'s own quotes are not liquidity', async (t) => {
  const h = setup();
  const k = calls(h);
  h.ok({ type: 'place', orders: [h.order(BOB, k[0]!, false, 5000, 1), h.order(ALICE, k[1]!, true, 3000, 1)] });
  refusedChangesNothing(t, h, strategy([leg(h, BOB, k[1]!, false, 2900, 1), leg(h, BOB, k[0]!, true, 5100, 1)]), 'strategy_not_fillable', { leg: 1 });
});

t.test('bad legs: empty, the same series twice, not FOK, two portfolios', async (t) => {
  const h = setup();
  const k = calls(h);
  quoteButterfly(h, k, 2);
  refusedChangesNothing(t, h, strategy([]), 'batch_empty');
  refusedChangesNothing(t, h, strategy([leg(h, BOB, k[0]!, true, 5100, 0.5), leg(h, BOB, k[0]!, true, 5100, 0.5)]), 'strategy_duplicate_leg', { leg: 1 });
  refusedChangesNothing(t, h, strategy([h.order(BOB, k[0]!, true, 5100, 1)]), 'strategy_bad_leg', { reason: 'fok_only' });
  refusedChangesNothing(t, h, strategy([leg(h, BOB, k[0]!, true, 5100, 1), { ...leg(h, BOB, k[2]!, true, 1600, 1), portfolioId: 2 }]), 'strategy_bad_leg', { reason: 'one_portfolio' });
  refusedChangesNothing(t, h, strategy([leg(h, BOB, k[0]!, true, 5100, 1), leg(h, BOB, ('0x' + '11'.repeat(32)) as Hex, true, 1, 1)]), 'unknown_series');
});

const OFF: Omit<MmpConfig, 'pairId'> = { windowMs: 10_000, frozenMs: 60_000, qtyLimit: 0n, deltaLimit: 0n, vegaLimit: 0n, tradeCountLimit: 0 };

t.test('market maker protection: a trip on one leg cannot kill a later leg', async (t) => {
  const h = setup();
  const k = calls(h);
  // ALICE trips after one fill on the pair; her mmp quotes on both wings would be cancelled by the first leg's fill.
  h.ok({ type: 'set_mmp', owner: ALICE, pairId: BTC, ...OFF, tradeCountLimit: 1 } as CommandBody);
  h.ok({ type: 'place', orders: [h.order(ALICE, k[0]!, false, 5000, 1, MMP), h.order(ALICE, k[2]!, false, 1500, 1, MMP)] });
  const legs = [leg(h, BOB, k[0]!, true, 5100, 1), leg(h, BOB, k[2]!, true, 1600, 1)];
  refusedChangesNothing(t, h, strategy(legs), 'strategy_not_fillable', { leg: 0 });
  const batch = h.ok({ type: 'place', orders: legs });
  t.match(batch.value, { outcomes: [{ status: 'filled' }, { status: 'cancelled', cancelReason: 'fok' }] }, 'as plain FOK orders the second leg is killed by the trip the first caused');
  // Quotes no trip can stop count: CAROL (no config) quotes both wings; the package fills.
  h.ok({ type: 'place', orders: [h.order(CAROL, k[0]!, false, 5000, 1), h.order(CAROL, k[2]!, false, 1500, 1)] });
  const r = h.ok(strategy([leg(h, BOB, k[0]!, true, 5100, 1), leg(h, BOB, k[2]!, true, 1600, 1)]));
  t.match(r.value, { outcomes: [{ status: 'filled' }, { status: 'filled' }] });
  // A single leg on the armed pair is judged exactly as a FOK order is.
  h.ok({ type: 'reset_mmp', owner: ALICE, pairId: BTC });
  h.ok({ type: 'place', orders: [h.order(ALICE, k[1]!, true, 3000, 1, MMP)] });
  t.match(h.ok(strategy([leg(h, BOB, k[1]!, false, 2900, 1)])).value, { outcomes: [{ status: 'filled' }] });
});

t.test('accepted packages always fill every leg (random books); replay gives the same state', async (t) => {
  let seed = 7;
  const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
  const h = setup();
  const k = calls(h);
  h.ok({ type: 'set_mmp', owner: ALICE, pairId: BTC, ...OFF, tradeCountLimit: 2 } as CommandBody);
  let accepted = 0;
  let refused = 0;
  const codes = new Set<string>();
  for (let round = 0; round < 60; round++) {
    for (const s of k) {
      for (const w of [ALICE, CAROL]) {
        const size = rnd(3) * 0.5;
        if (size > 0) h.run({ type: 'place', orders: [h.order(w, s, false, 2000 + rnd(3) * 1000, size, w === ALICE ? MMP : {})] });
      }
    }
    const legs = k.filter(() => rnd(3) > 0).map((s) => leg(h, BOB, s, true, 6000, 0.5 + rnd(3) * 0.5));
    const r = h.run(strategy(legs)); // a leg that could not fill after the check would throw here
    if (r.ok) {
      accepted++;
      t.ok((r.value as unknown as { outcomes: { status: string }[] }).outcomes.every((o) => o.status === 'filled'));
    } else {
      refused++;
      codes.add(r.rejection.code);
    }
  }
  t.ok(accepted > 0 && refused > 0, `both seen (${accepted} accepted, ${refused} refused: ${[...codes].join(", ")})`);
  const replay = Venue.create(h.venue.config);
  for (const c of h.log) replay.apply(c);
  t.equal(replay.stateHash(), h.venue.stateHash());
});
