/**
 * Mass cancel, cancel on disconnect and the dead-man switch as engine commands
 * (extensions.md "Cancels", "Cancel on disconnect and the dead-man switch"): scopes, the
 * cancel reasons in the order events, the switch's deadline as engine state that fires at
 * the first clock past it, also after a restart, and refusals that change nothing.
 */
import t from 'tap';
import { Venue, type Hex, type OrderEvent, type VenueEvent } from '../../engine/index.ts';
import { listedVenue, ALICE, BOB, BTC, ETH, usdc, type Harness } from './support/venueFixture.ts';
import { WireEvents } from '../../engine/wire.ts';

function setup(): { h: Harness; btcCall: Hex; btcPut: Hex; ethCall: Hex; ids: Record<string, Hex> } {
  const h = listedVenue();
  h.fund(ALICE, usdc(1_000_000));
  h.fund(BOB, usdc(1_000_000));
  h.ok({ type: 'create_portfolio', owner: ALICE });
  h.ok({ type: 'deposit', owner: ALICE, portfolioId: 2, amount: usdc(100_000) });
  const btcCall = h.atm(BTC, true);
  const btcPut = h.atm(BTC, false);
  const ethCall = h.atm(ETH, true);
  const ids: Record<string, Hex> = {};
  const place = (name: string, seriesId: Hex, isBuy: boolean, extra: Record<string, unknown> = {}) => {
    const o = h.order(ALICE, seriesId, isBuy, isBuy ? 1 : 90_000, 0.1, extra);
    h.ok({ type: 'place', orders: [o] });
    ids[name] = o.orderId;
  };
  place('btcCallBuy', btcCall, true);
  place('btcCallSell', btcCall, false);
  place('btcPutBuy', btcPut, true, { instructions: { timeInForce: 'GTC', postOnly: false, reduceOnly: false, mmp: true, clientOrderId: null } });
  place('ethCallBuy', ethCall, true);
  place('p2', btcCall, true, { portfolioId: 2 });
  const bob = h.order(BOB, btcCall, true, 1, 0.1);
  h.ok({ type: 'place', orders: [bob] });
  ids['bob'] = bob.orderId;
  return { h, btcCall, btcPut, ethCall, ids };
}

const cancelled = (events: readonly VenueEvent[]) => events.filter((e): e is OrderEvent => e.type === 'order' && e.status === 'cancelled');
const open = (h: Harness) => new Set(h.venue.state.orderIndex.keys());

t.test('cancel_all takes the scope asked for, and nothing else', async (t) => {
  const cases: [string, Record<string, unknown>, string[]][] = [
    ['pair', { pairId: ETH }, ['ethCallBuy']],
    ['series', {}, []],
    ['side', { side: 'sell' }, ['btcCallSell']],
    ['portfolio', { portfolioId: 2 }, ['p2']],
    ['mmpOnly', { mmpOnly: true }, ['btcPutBuy']],
    ['series and side', {}, []],
    ['listed orders', {}, []],
  ];
  for (const [name, base, want] of cases) {
    const { h, btcCall, ids } = setup();
    const scope = name === 'series' ? { seriesId: btcCall } : name === 'series and side' ? { seriesId: btcCall, side: 'buy' as const } : name === 'listed orders' ? { orderIds: [ids['btcPutBuy']!, ids['bob']!, ids['p2']!] } : base;
    const expected = name === 'series' ? ['btcCallBuy', 'btcCallSell', 'p2'] : name === 'series and side' ? ['btcCallBuy', 'p2'] : name === 'listed orders' ? ['btcPutBuy', 'p2'] : want;
    const before = open(h);
    const r = h.ok({ type: 'cancel_all', owner: ALICE, scope, reason: 'mass_cancel' });
    const gone = expected.map((k) => ids[k]!);
    t.same([...(r.value as { orderIds: Hex[] }).orderIds].sort(), [...gone].sort(), `${name}: the orders in scope`);
    t.same(cancelled(r.events).map((e) => e.orderId).sort(), [...gone].sort(), `${name}: one cancelled order event each`);
    t.ok(cancelled(r.events).every((e) => e.cancelReason === 'mass_cancel' && e.reason === 'cancelled_by_mass_cancel' && e.remaining === 0n), `${name}: cancelReason mass_cancel`);
    const after = open(h);
    for (const id of before) t.equal(after.has(id), !gone.includes(id), `${name}: ${id.slice(0, 10)} ${gone.includes(id) ? 'cancelled' : 'still open'}`);
    t.ok(after.has(ids['bob']!), `${name}: another wallet's order is untouched`);
    t.equal(h.venue.state.verifyOrderIndex(), null, `${name}: the order index is consistent`);
  }
});

t.test('{} cancels every open order, margin reservations are released; nothing open answers empty', async (t) => {
  const { h, ids } = setup();
  const r = h.ok({ type: 'cancel_all', owner: ALICE, scope: {}, reason: 'mass_cancel' });
  t.equal((r.value as { orderIds: Hex[] }).orderIds.length, 5);
  const p1 = r.events.filter((e) => e.type === 'portfolio' && e.owner === ALICE && e.portfolioId === 1);
  t.equal(p1.length, 1, 'the portfolio event after the cancels');
  if (p1[0]?.type === 'portfolio') t.equal(p1[0].initialMarginWithOrders, p1[0].initialMargin, 'no order left to reserve for');
  t.ok(open(h).has(ids['bob']!));
  const again = h.ok({ type: 'cancel_all', owner: ALICE, scope: {}, reason: 'mass_cancel' });
  t.same(again.value, { orderIds: [] }, 'nothing open: nothing cancelled');
  t.same(again.events, []);
  const stranger = h.ok({ type: 'cancel_all', owner: '0x000000000000000000000000000000000000dEaD', scope: {}, reason: 'mass_cancel' });
  t.same(stranger.value, { orderIds: [] }, 'a wallet the venue never saw');
  t.notOk(h.venue.state.accounts.walletOf('0x000000000000000000000000000000000000dEaD') >= 0, 'and no account is created for it');
});

t.test('disconnect: the listed orders, cancelReason disconnect', async (t) => {
  const { h, ids } = setup();
  const r = h.ok({ type: 'cancel_all', owner: ALICE, scope: { orderIds: [ids['btcCallBuy']!, ids['ethCallBuy']!] }, reason: 'disconnect' });
  t.same(cancelled(r.events).map((e) => [e.orderId, e.cancelReason, e.reason]), [
    [ids['btcCallBuy'], 'disconnect', 'cancelled_on_disconnect'],
    [ids['ethCallBuy'], 'disconnect', 'cancelled_on_disconnect'],
  ]);
});

t.test('the dead-man switch: armed, moved, disarmed, fired at the first clock past it', async (t) => {
  const { h, ids } = setup();
  const bad = [999, 600_001, -1, 1.5];
  for (const timeoutMs of bad) {
    const r = h.run({ type: 'cancel_after', owner: ALICE, timeoutMs });
    t.equal(r.ok ? null : r.rejection.code, 'bad_cancel_after', `${timeoutMs} is refused`);
    t.same(r.events, [], 'with no event');
    t.equal(h.venue.state.cancelAfter.size, 0, 'and no switch armed');
  }
  const armed = h.ok({ type: 'cancel_after', owner: ALICE, timeoutMs: 5_000 }, 10);
  const at = h.ts + 5_000;
  t.same(armed.value, { cancelAt: at }, 'cancelAt = the command time + timeoutMs');
  t.same(armed.events.map((e) => e.type === 'dead_man' && [e.owner, e.cancelAt]), [[ALICE, at]], 'a dead_man event');
  const moved = h.ok({ type: 'cancel_after', owner: ALICE, timeoutMs: 10_000 }, 1_000);
  const later = h.ts + 10_000;
  t.same(moved.value, { cancelAt: later }, 'each call moves the deadline');
  const before = h.ok({ type: 'clock' }, later - h.ts - 1);
  t.same(cancelled(before.events), [], 'a clock before the deadline cancels nothing');
  const fired = h.ok({ type: 'clock' }, 1);
  t.same(cancelled(fired.events).map((e) => e.orderId).sort(), [ids['btcCallBuy'], ids['btcCallSell'], ids['btcPutBuy'], ids['ethCallBuy'], ids['p2']].sort(), 'every open order of the wallet');
  t.ok(cancelled(fired.events).every((e) => e.cancelReason === 'dead_man'), 'cancelReason dead_man');
  t.ok(fired.events.some((e) => e.type === 'dead_man' && e.owner === ALICE && e.cancelAt === null), 'and the switch disarms');
  t.ok(open(h).has(ids['bob']!), "another wallet's order stays");
  const o = h.order(ALICE, h.atm(BTC, true), true, 1, 0.1);
  h.ok({ type: 'place', orders: [o] });
  const next = h.ok({ type: 'clock' }, 60_000);
  t.same(cancelled(next.events), [], 'fired once: a new order after it stays');
  h.ok({ type: 'cancel_after', owner: ALICE, timeoutMs: 1_000 });
  const off = h.ok({ type: 'cancel_after', owner: ALICE, timeoutMs: 0 });
  t.same(off.value, { cancelAt: null }, '0 disarms');
  t.same(cancelled(h.ok({ type: 'clock' }, 5_000).events), [], 'a disarmed switch does not fire');
});

t.test('the deadline is engine state: a restart keeps it, and a deadline passed while down fires at the first clock', async (t) => {
  const { h, ids } = setup();
  h.ok({ type: 'cancel_after', owner: ALICE, timeoutMs: 30_000 });
  const bytes = h.venue.serialize();
  const hash = h.venue.stateHash();
  const restored = Venue.restore(bytes);
  t.equal(restored.stateHash(), hash, 'the snapshot restores to the same hash');
  // The venue was down for ten minutes: the first clock after the start is far past the deadline.
  const conv = new WireEvents();
  conv.learn(restored.imageEvents());
  const r = conv.result(restored.apply({ type: 'clock', seq: h.seq + 1, ts: h.ts + 600_000 }));
  t.equal(cancelled(r.events).length, 5, 'every open order is cancelled at the first clock');
  t.notOk(new Set(restored.imageEvents().map((e) => e.type)).has('dead_man'), 'and the switch is gone from the state');
  t.ok(ids['bob']);
  // A snapshot without switches (an older one) has no field for them: its hash is unchanged.
  const plain = listedVenue();
  t.notOk(new TextDecoder().decode(plain.venue.serialize()).includes('cancelAfter'), 'no switch, no field');
});
