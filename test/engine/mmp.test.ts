/**
 * Market maker protection in the engine (extensions.md "Market maker protection (MMP)",
 * docs/engine.md): each limit trips at its boundary, a one-taker sweep trips within the order,
 * frozen refusals (engine and pre-check), unfreeze by time and by reset, fill-or-kill under the
 * guard, and a restart in the middle of a window.
 */
import t from 'tap';
import { listedVenue, BTC, ETH, ALICE, BOB, CAROL, usdc, wad, type Harness } from './support/venueFixture.ts';
import type { MmpEvent, OrderEvent, VenueEvent } from '../../engine/events.ts';
import type { CommandBody, PlaceOrder } from '../../engine/commands.ts';
import { instructionsOf, type OrderInstructions } from '../../engine/domain/instructions.ts';
import type { MmpConfig } from '../../engine/domain/mmp.ts';
import { WAD } from '../../engine/domain/fixed.ts';
import { Venue } from '../../engine/venue.ts';
import { precheck } from '../../engine/precheck.ts';
import type { Hex } from '../../engine/domain/hex.ts';
import { WireEvents } from '../../engine/wire.ts';
import { balanceOf } from '../../engine/actors/position.ts';

const MAKER = ALICE;
const TAKER = BOB;

function setup(): { h: Harness; call: Hex; put: Hex } {
  const h = listedVenue();
  for (const w of [ALICE, BOB, CAROL]) h.fund(w, usdc(10_000_000));
  return { h, call: h.atm(BTC, true), put: h.atm(BTC, false) };
}

const MMP = (x: Partial<OrderInstructions> = {}): { instructions: OrderInstructions } => ({ instructions: instructionsOf({ mmp: true, ...x }) });
const OFF: Omit<MmpConfig, 'pairId'> = { windowMs: 10_000, frozenMs: 0, qtyLimit: 0n, deltaLimit: 0n, vegaLimit: 0n, tradeCountLimit: 0 };

function setMmp(h: Harness, owner: string, x: Partial<MmpConfig>, pairId: Hex = BTC): MmpEvent {
  const r = h.ok({ type: 'set_mmp', owner, pairId, ...OFF, ...x } as CommandBody);
  return mmpEvents(r.events)[0]!;
}

function mmpEvents(events: readonly VenueEvent[], owner?: string): MmpEvent[] {
  return events.filter((e): e is MmpEvent => e.type === 'mmp' && (owner === undefined || e.owner === owner));
}

function orderEvents(events: readonly VenueEvent[], orderId: Hex): OrderEvent[] {
  return events.filter((e): e is OrderEvent => e.type === 'order' && e.orderId === orderId);
}

const place = (h: Harness, ...orders: PlaceOrder[]) => h.ok({ type: 'place', orders });
const abs = (x: bigint): bigint => (x < 0n ? -x : x);
/** |g x size| as the engine counts one fill. */
const greek = (g: bigint, size: bigint): bigint => abs((g * size) / WAD);

function frozen(h: Harness, owner: string, pairId: Hex = BTC): boolean {
  return h.venue.state.mmp.isFrozen(owner, pairId, h.venue.now);
}

/**
 * A limit at `limit(first, second)` where the maker's two quotes fill first 0.99 then 0.01:
 * the first fill stays below it, the second (one lot more) reaches it and trips.
 */
function boundary(name: string, limitOf: (h: Harness, call: Hex) => Partial<MmpConfig>, reason: MmpEvent['reason']) {
  t.test(`${name}: trips at its boundary and not one lot before`, async (t) => {
    const { h, call } = setup();
    setMmp(h, MAKER, limitOf(h, call));
    const q1 = h.order(MAKER, call, false, 2000, 0.99, MMP());
    const q2 = h.order(MAKER, call, false, 2000, 0.01, MMP());
    const q3 = h.order(MAKER, call, false, 2100, 1, MMP());
    place(h, q1, q2, q3);
    const r1 = place(h, h.order(TAKER, call, true, 2000, 0.99));
    const [e1] = mmpEvents(r1.events, MAKER);
    t.match(e1, { frozen: false, reason: null, window: { qty: wad(0.99), trades: 1 } }, 'one lot short: counted, not tripped');
    t.notOk(frozen(h, MAKER));
    t.ok(h.venue.state.orderIndex.has(q3.orderId));
    const r2 = place(h, h.order(TAKER, call, true, 2000, 0.01));
    const [e2] = mmpEvents(r2.events, MAKER);
    t.match(e2, { frozen: true, reason, frozenUntil: null, window: { qty: wad(1), trades: 2 } }, 'the lot that reaches the limit trips');
    t.ok(frozen(h, MAKER));
    t.match(orderEvents(r2.events, q3.orderId), [{ status: 'cancelled', cancelReason: 'mmp' }], 'the other open mmp quote is cancelled in the same command');
    t.notOk(h.venue.state.orderIndex.has(q3.orderId));
  });
}

{
  boundary('qtyLimit', () => ({ qtyLimit: wad(1) }), 'qty');
  boundary(
    'deltaLimit',
    (h, call) => {
      const d = h.venue.state.series.get(call)!.marks!.delta;
      return { deltaLimit: greek(d, wad(0.99)) + greek(d, wad(0.01)) };
    },
    'delta',
  );
  boundary(
    'vegaLimit',
    (h, call) => {
      const v = h.venue.state.series.get(call)!.marks!.vega;
      return { vegaLimit: greek(v, wad(0.99)) + greek(v, wad(0.01)) };
    },
    'vega',
  );
  boundary('tradeCountLimit', () => ({ tradeCountLimit: 2 }), 'trades');
}

t.test('delta and vega count |greek x size| of the series the fill is in (a put: negative delta)', async (t) => {
  const { h, put } = setup();
  const marks = h.venue.state.series.get(put)!.marks!;
  t.ok(marks.delta < 0n);
  setMmp(h, MAKER, { qtyLimit: wad(100) });
  place(h, h.order(MAKER, put, true, 1000, 2, MMP()));
  const r = place(h, h.order(TAKER, put, false, 1000, 2));
  t.match(mmpEvents(r.events, MAKER), [{ frozen: false, window: { qty: wad(2), delta: greek(marks.delta, wad(2)), vega: greek(marks.vega, wad(2)), trades: 1 } }]);
});

t.test('one taker sweeping a market maker trips within the order: quotes beyond the trip are cancelled, not filled', async (t) => {
  const { h, call, put } = setup();
  setMmp(h, MAKER, { tradeCountLimit: 2 });
  const a1 = h.order(MAKER, call, false, 2000, 1, MMP());
  const a2 = h.order(MAKER, call, false, 2010, 1, MMP());
  const a3 = h.order(MAKER, call, false, 2020, 1, MMP());
  const c1 = h.order(CAROL, call, false, 2025, 1);
  const a4 = h.order(MAKER, call, false, 2030, 1, MMP());
  const a5 = h.order(MAKER, call, false, 2040, 1, MMP());
  const plain = h.order(MAKER, call, false, 2050, 1); // not mmp: still fills
  const otherSeries = h.order(MAKER, put, true, 500, 1, MMP()); // same pair: cancelled by the trip
  const otherPair = h.order(MAKER, h.atm(ETH, true), true, 10, 1, MMP()); // other pair: untouched
  place(h, a1, a2, a3, c1, a4, a5, plain, otherSeries);
  place(h, otherPair);
  const sweep = h.order(TAKER, call, true, 2100, 6);
  const r = place(h, sweep);
  const trades = r.events.filter((e) => e.type === 'trade');
  t.same(
    trades.map((e) => [e.maker, e.price]),
    [
      [MAKER, wad(2000)],
      [MAKER, wad(2010)],
      [CAROL, wad(2025)],
      [MAKER, wad(2050)],
    ],
    'two quotes fill, the trip stops the rest; the other maker and the non-mmp order still fill',
  );
  for (const q of [a3, a4, a5]) t.match(orderEvents(r.events, q.orderId), [{ status: 'cancelled', cancelReason: 'mmp', filled: 0n }], 'a quote beyond the trip is cancelled');
  t.match(orderEvents(r.events, otherSeries.orderId), [{ status: 'cancelled', cancelReason: 'mmp' }], 'mmp orders on the pair\'s other series are cancelled');
  t.ok(h.venue.state.orderIndex.has(otherPair.orderId), 'an mmp order on another pair stays');
  t.match(orderEvents(r.events, sweep.orderId), [{ status: 'partial', filled: wad(4), remaining: wad(2) }], 'the taker rests its remainder as a GTC order');
  t.match(mmpEvents(r.events, MAKER), [{ frozen: true, reason: 'trades', window: { trades: 2 } }]);
  const book = h.venue.state.series.get(call)!.book;
  t.equal(book.bestAsk(), -1, 'no ask is left');
  t.equal(h.venue.state.verifyOrderIndex(), null);
  t.equal(balanceOf(h.venue.state.accounts.portfolio(MAKER, 1)!.positions.get(call)!), -wad(3));
});

t.test('an mmp taker trips its own wallet: it stops, its rest is cancelled (cancelReason mmp), its other mmp orders too', async (t) => {
  const { h, call, put } = setup();
  setMmp(h, TAKER, { tradeCountLimit: 2 });
  place(h, h.order(CAROL, call, false, 2000, 1), h.order(CAROL, call, false, 2010, 1), h.order(ALICE, call, false, 2020, 1));
  const resting = h.order(TAKER, put, true, 100, 1, MMP());
  place(h, resting);
  const taker = h.order(TAKER, call, true, 2100, 3, MMP());
  const r = place(h, taker);
  t.equal(r.events.filter((e) => e.type === 'trade').length, 2, 'two fills, then it stops');
  t.match(orderEvents(r.events, taker.orderId), [{ status: 'cancelled', cancelReason: 'mmp', filled: wad(2), remaining: 0n }]);
  t.match(r.value, { outcomes: [{ status: 'cancelled', cancelReason: 'mmp', filled: wad(2) }] });
  t.match(orderEvents(r.events, resting.orderId), [{ status: 'cancelled', cancelReason: 'mmp' }]);
  t.equal(h.venue.state.series.get(call)!.book.bestAsk(), 2020 * 100, "ALICE's ask was not reached");
  t.equal(h.venue.state.verifyOrderIndex(), null);
});

t.test('frozen: new mmp orders refused mmp_frozen (engine and pre-check), others unaffected; unfreeze by reset', async (t) => {
  const { h, call } = setup();
  setMmp(h, MAKER, { tradeCountLimit: 1 });
  place(h, h.order(MAKER, call, false, 2000, 1, MMP()));
  place(h, h.order(TAKER, call, true, 2000, 1));
  t.ok(frozen(h, MAKER));
  const refused = h.order(MAKER, call, false, 2000, 1, MMP());
  t.match(precheck(h.venue.state, { type: 'place', orders: [refused], seq: h.seq + 1, ts: h.ts + 1 }), { code: 'mmp_frozen' }, 'the pre-check refuses');
  t.match(h.venue.precheckEntries(h.ts + 1, [], [{ ...refused, orderId: null, nonce: null }]), { code: 'mmp_frozen' }, 'the early refusal of unsigned entries too');
  const r = h.run({ type: 'place', orders: [refused] });
  t.match(r, { ok: false, rejection: { code: 'mmp_frozen' } });
  place(h, h.order(MAKER, call, false, 2000, 1), h.order(MAKER, h.atm(ETH, true), false, 10, 1, MMP()));
  t.pass('a non-mmp order on the pair and an mmp order on another pair are accepted');
  h.run({ type: 'clock' }, 3_600_000);
  t.ok(frozen(h, MAKER), 'frozenMs 0: frozen until a reset');
  const reset = h.ok({ type: 'reset_mmp', owner: MAKER, pairId: BTC });
  t.match(mmpEvents(reset.events), [{ owner: MAKER, frozen: false, frozenUntil: null, reason: null, window: { qty: 0n, trades: 0 } }]);
  t.match(reset.value, { config: { pairId: BTC, tradeCountLimit: 1 } });
  place(h, h.order(MAKER, call, false, 2000, 1, MMP()));
  t.match(h.run({ type: 'reset_mmp', owner: CAROL, pairId: BTC }), { ok: false, rejection: { code: 'mmp_not_configured' } });
});

t.test('unfreeze by time: at the first command past frozenUntil (the clock), with its event', async (t) => {
  const { h, call } = setup();
  setMmp(h, MAKER, { tradeCountLimit: 1, frozenMs: 1_000 });
  place(h, h.order(MAKER, call, false, 2000, 1, MMP()));
  const trip = place(h, h.order(TAKER, call, true, 2000, 1));
  const until = h.ts + 1_000;
  t.match(mmpEvents(trip.events), [{ frozen: true, frozenUntil: until }]);
  const before = h.ok({ type: 'clock' }, 998);
  t.same(mmpEvents(before.events), [], 'not yet');
  const q = h.order(MAKER, call, false, 2000, 1, MMP());
  t.match(precheck(h.venue.state, { type: 'place', orders: [q], seq: h.seq + 1, ts: until - 1 }), { code: 'mmp_frozen' }, 'one ms before: frozen');
  t.equal(precheck(h.venue.state, { type: 'place', orders: [q], seq: h.seq + 1, ts: until }), null, 'at frozenUntil the pre-check passes (judged at the command time)');
  const after = h.ok({ type: 'clock' }, 2);
  t.match(mmpEvents(after.events), [{ owner: MAKER, frozen: false, frozenUntil: null, reason: null, window: { trades: 0 } }], 'the clock past frozenUntil unfreezes');
  place(h, q);
});

t.test('the window slides on command time: fills older than windowMs leave', async (t) => {
  const { h, call } = setup();
  setMmp(h, MAKER, { qtyLimit: wad(1), windowMs: 1_000 });
  place(h, h.order(MAKER, call, false, 2000, 0.5, MMP()), h.order(MAKER, call, false, 2000, 0.5, MMP()), h.order(MAKER, call, false, 2000, 0.5, MMP()));
  place(h, h.order(TAKER, call, true, 2000, 0.5));
  const r = h.ok({ type: 'place', orders: [h.order(TAKER, call, true, 2000, 0.5)] }, 1_001);
  t.match(mmpEvents(r.events), [{ frozen: false, window: { qty: wad(0.5), trades: 1 } }], 'the first fill left the window');
  const r2 = h.ok({ type: 'place', orders: [h.order(TAKER, call, true, 2000, 0.5)] }, 1_000);
  t.match(mmpEvents(r2.events), [{ frozen: true, reason: 'qty', window: { qty: wad(1), trades: 2 } }], 'exactly windowMs old still counts');
});

t.test('fill-or-kill under the guard: quotes a trip would stop do not count', async (t) => {
  const { h, call } = setup();
  setMmp(h, MAKER, { tradeCountLimit: 2 });
  place(h, h.order(MAKER, call, false, 2000, 1, MMP()), h.order(MAKER, call, false, 2010, 1, MMP()), h.order(MAKER, call, false, 2020, 1, MMP()));
  const killed = h.order(TAKER, call, true, 2100, 3, { instructions: instructionsOf({ timeInForce: 'FOK' }) });
  const r = place(h, killed);
  t.match(orderEvents(r.events, killed.orderId), [{ status: 'cancelled', cancelReason: 'fok' }], 'only 2 of 3 could fill before the trip');
  t.equal(r.events.filter((e) => e.type === 'trade').length, 0);
  t.notOk(frozen(h, MAKER), 'the dry run changed nothing');
  const fills = h.order(TAKER, call, true, 2100, 2, { instructions: instructionsOf({ timeInForce: 'FOK' }) });
  t.match(place(h, fills).value, { outcomes: [{ status: 'filled', filled: wad(2) }] });
  t.ok(frozen(h, MAKER));
});

t.test('set_mmp validation', async (t) => {
  const { h } = setup();
  const code = (x: Partial<MmpConfig>) => {
    const r = h.run({ type: 'set_mmp', owner: MAKER, pairId: BTC, ...OFF, ...x } as CommandBody);
    return r.ok ? 'ok' : r.rejection.code;
  };
  t.equal(code({ windowMs: 99 }), 'mmp_bad_window');
  t.equal(code({ windowMs: 60_001 }), 'mmp_bad_window');
  t.equal(code({ windowMs: 100 }), 'ok');
  t.equal(code({ frozenMs: -1 }), 'mmp_bad_frozen');
  t.equal(code({ frozenMs: 3_600_001 }), 'mmp_bad_frozen');
  t.equal(code({ qtyLimit: -1n }), 'mmp_bad_limit');
  t.equal(code({ tradeCountLimit: 1.5 }), 'mmp_bad_limit');
  t.equal(code({ pairId: ('0x' + '12'.repeat(32)) as Hex }), 'unknown_pair');
  t.equal(code({ frozenMs: 3_600_000, windowMs: 60_000 }), 'ok');
});

t.test('a restart in the middle of a window: same state hash and the same trip', async (t) => {
  const { h, call } = setup();
  setMmp(h, MAKER, { qtyLimit: wad(2), windowMs: 5_000, frozenMs: 2_000 });
  place(h, ...[2000, 2010, 2020, 2030].map((p) => h.order(MAKER, call, false, p, 1, MMP())));
  place(h, h.order(TAKER, call, true, 2000, 1));
  const bytes = h.venue.serialize();
  const restored = Venue.restore(bytes);
  t.equal(restored.stateHash(), h.venue.stateHash(), 'the snapshot round trip hashes the same');
  t.same(restored.serialize(), bytes, 'and serialises to the same bytes');
  const rest: CommandBody[] = [{ type: 'place', orders: [h.order(TAKER, call, true, 2100, 2)] }, { type: 'clock' }];
  const mark = h.log.length;
  const live = rest.map((b) => h.ok(b, 500));
  const conv = new WireEvents();
  conv.learn(restored.imageEvents());
  const replayed = h.log.slice(mark).map((c) => conv.result(restored.apply(c)));
  t.same(replayed, live, 'the same results and events');
  t.match(mmpEvents(live[0]!.events), [{ frozen: true, reason: 'qty' }]);
  t.equal(restored.stateHash(), h.venue.stateHash(), 'the same state after the trip');
  const full = new Venue();
  for (const c of h.log) full.apply(c);
  t.equal(full.stateHash(), h.venue.stateHash(), 'a full replay too');
});

t.test('a venue with no MMP config snapshots without it (old snapshots restore with none and the same hash)', async (t) => {
  const { h, call } = setup();
  place(h, h.order(MAKER, call, false, 2000, 1, MMP()));
  const bytes = h.venue.serialize();
  t.notOk('mmp' in JSON.parse(new TextDecoder().decode(bytes)), 'no mmp key when no wallet has a config');
  const restored = Venue.restore(bytes);
  t.equal(restored.stateHash(), h.venue.stateHash());
  t.equal(restored.state.mmp.entries.size, 0);
  setMmp(h, MAKER, { qtyLimit: wad(1) });
  t.ok('mmp' in JSON.parse(new TextDecoder().decode(h.venue.serialize())));
  t.match(mmpEvents(h.wire.events(h.venue.imageEvents())), [{ owner: MAKER, pairId: BTC, frozen: false }], 'the image seeds read models with the configs');
});

t.test('a trip on a partial fill cancels the rest of that quote; a later mmp entry of the same command is cancelled at once', async (t) => {
  const { h, call } = setup();
  setMmp(h, MAKER, { qtyLimit: wad(1.5) });
  const big = h.order(MAKER, call, false, 2000, 2, MMP());
  place(h, big);
  const r = place(h, h.order(TAKER, call, true, 2000, 1.5));
  t.match(orderEvents(r.events, big.orderId), [{ status: 'partial', filled: wad(1.5) }, { status: 'cancelled', cancelReason: 'mmp', filled: wad(1.5), remaining: 0n }], 'filled to the limit, the rest cancelled');
  t.equal(h.venue.state.series.get(call)!.book.orderCount(), 0);

  const { h: h2, call: c2 } = setup();
  setMmp(h2, TAKER, { tradeCountLimit: 1 });
  place(h2, h2.order(CAROL, c2, false, 2000, 1));
  const first = h2.order(TAKER, c2, true, 2000, 1, MMP());
  const second = h2.order(TAKER, c2, true, 1900, 1, MMP());
  const third = h2.order(TAKER, c2, true, 1800, 1);
  const r2 = place(h2, first, second, third);
  t.match(r2.value, { outcomes: [{ status: 'filled' }, { status: 'cancelled', cancelReason: 'mmp', filled: 0n }, { status: 'open' }] }, 'the rules passed before the trip: the later mmp entry is cancelled, the plain one rests');
  t.match(orderEvents(r2.events, second.orderId), [{ status: 'cancelled', cancelReason: 'mmp', reason: 'mmp_frozen' }]);
  t.equal(h2.run({ type: 'place', orders: [{ ...second, orderId: h2.orderId() }] }).ok, false, 'its nonce was used');
  t.equal(h2.venue.state.verifyOrderIndex(), null);
});
