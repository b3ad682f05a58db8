/**
 * The order command's result value (engine/flows/orderResults.ts, engine/wire.ts): the engine
 * gives a place's outcome in lots and its trades as id, tick and lots, in the venue's reused
 * storage; `WireEvents.result` converts it to the wire's outcome (WAD sizes and prices, trade
 * ids as strings), the values the trade and order events carry.
 */
import t from 'tap';
import type { EngineOrderOutcome, OrderOutcome } from '../../engine/flows/orderResults.ts';
import type { EngineTradeEvent, TradeEvent } from '../../engine/events.ts';
import { WAD } from '../../engine/domain/fixed.ts';
import type { Command, CommandBody } from '../../engine/commands.ts';
import { Venue } from '../../engine/venue.ts';
import { listedVenue, ALICE, BOB, BTC, usdc, wad, type Harness } from './support/venueFixture.ts';

const bigintFields = (e: object): string[] => Object.entries(e).filter(([, v]) => typeof v === 'bigint').map(([k]) => k);

function setUp(): { h: Harness; call: `0x${string}` } {
  const h = listedVenue();
  const call = h.atm(BTC, true);
  h.fund(ALICE, usdc(100_000));
  h.fund(BOB, usdc(100_000));
  return { h, call };
}

/** A numbered command for the venue itself (the harness's `run` converts; these tests look before). */
function command(h: Harness, body: CommandBody): Command {
  h.ts += 1;
  const cmd = { ...body, seq: ++h.seq, ts: h.ts } as Command;
  h.log.push(cmd);
  return cmd;
}

const outcomesOf = (v: unknown): readonly EngineOrderOutcome[] => (v as { outcomes: readonly EngineOrderOutcome[] }).outcomes;

t.test("a place's outcome in lots and ticks, and the wire's outcome from it", async (t) => {
  const { h, call } = setUp();
  h.ok({ type: 'place', orders: [h.order(ALICE, call, false, 2000, 1)] });
  const cmd = command(h, { type: 'place', orders: [h.order(BOB, call, true, 2100, 0.4)] });
  const compact = h.venue.apply(cmd);
  t.ok(compact.ok);
  const [o] = outcomesOf(compact.ok && compact.value);
  t.match(o, { status: 'filled', filledLots: 40, remainingLots: 0, tradeCount: 1, cancelReason: null });
  t.same(bigintFields(o!), [], 'no bigint in the engine\'s outcome');
  const at = o!.tradeStart;
  const tradeEvent = compact.events.find((e): e is EngineTradeEvent => e.type === 'trade')!;
  t.same([o!.trades.ids[at], o!.trades.ticks[at], o!.trades.lots[at]], [tradeEvent.tradeNo, 200_000, 40], 'the trade: its id, the maker\'s tick, lots');
  const wired = h.wire.result(compact);
  t.ok(wired.ok);
  const w = (wired.ok ? (wired.value as { outcomes: readonly OrderOutcome[] }).outcomes : [])[0];
  t.same(w, { orderId: cmd.type === 'place' ? cmd.orders[0]!.orderId : '', status: 'filled', filled: wad(0.4), remaining: 0n, trades: [{ tradeId: String(tradeEvent.tradeNo), price: 2000n * WAD, size: wad(0.4) }], instructions: o!.instructions, cancelReason: null });
  t.same(Object.keys(w!), ['orderId', 'status', 'filled', 'remaining', 'trades', 'instructions', 'cancelReason'], 'the wire outcome\'s fields, in their order');
});

t.test('a sweep of 12 makers (past the tape\'s first 8): every trade in order, as the trade events give it, and the rest resting', async (t) => {
  const { h, call } = setUp();
  h.ok({ type: 'place', orders: Array.from({ length: 12 }, (_, i) => h.order(ALICE, call, false, 2000 + i, 0.1)) });
  const cmd = command(h, { type: 'place', orders: [h.order(BOB, call, true, 2100, 1.5)] });
  const r = h.wire.result(h.venue.apply(cmd));
  t.ok(r.ok);
  const out = (r.ok ? (r.value as { outcomes: readonly OrderOutcome[] }).outcomes : [])[0]!;
  t.match(out, { status: 'partial', filled: wad(1.2), remaining: wad(0.3) });
  const trades = r.events.filter((e): e is TradeEvent => e.type === 'trade').map((e) => ({ tradeId: e.tradeId, price: e.price, size: e.size }));
  t.equal(trades.length, 12);
  t.same(out.trades, trades, 'the outcome\'s trades are the trade events\' ids, prices and sizes, in order');
  t.same(out.trades.map((x) => x.price), Array.from({ length: 12 }, (_, i) => BigInt(2000 + i) * WAD), 'at each maker\'s price');
});

t.test("the value is the venue's storage, reused: valid until its next apply, converted before", async (t) => {
  const { h, call } = setUp();
  const first = h.venue.apply(command(h, { type: 'place', orders: [h.order(ALICE, call, false, 2500, 1)] }));
  const firstWire = h.wire.result(first);
  const second = h.venue.apply(command(h, { type: 'place', orders: [h.order(ALICE, call, false, 2600, 2)] }));
  const a = first.ok ? first.value : null;
  const b = second.ok ? second.value : null;
  t.equal(a, b, 'the same value object for two one-place commands');
  t.match(outcomesOf(b)[0], { status: 'open', remainingLots: 200 }, 'holding the later command\'s outcome');
  t.match((firstWire.ok ? (firstWire.value as { outcomes: readonly OrderOutcome[] }).outcomes : [])[0], { status: 'open', remaining: wad(1) }, 'the first, converted at once, is its own');
  const bids = [h.order(BOB, call, true, 100, 1), h.order(BOB, call, true, 110, 1)];
  const two = h.venue.apply(command(h, { type: 'place', orders: bids }));
  t.ok(two.ok, 'two bids placed');
  t.equal(outcomesOf(two.ok ? two.value : null).length, 2, 'another count of outcomes: its own list');
  t.not(two.ok && two.value, b, 'not the one-place value');
  const cancelled = h.run({ type: 'cancel', cancels: [{ orderId: bids[0]!.orderId, owner: BOB, nonce: h.nextNonce(BOB), deadline: Math.floor(h.ts / 1000) + 60 }] });
  t.same(cancelled.ok && cancelled.value, { outcomes: [] }, 'a cancel: no outcomes');
});

t.test('an order killed before the book (fill-or-kill): no trades, nothing filled', async (t) => {
  const { h, call } = setUp();
  const r = h.ok({ type: 'place', orders: [h.order(BOB, call, true, 2100, 1, { instructions: { timeInForce: 'FOK', postOnly: false, reduceOnly: false, mmp: false, clientOrderId: null } })] });
  t.match((r.value as { outcomes: readonly OrderOutcome[] }).outcomes, [{ status: 'cancelled', filled: 0n, remaining: 0n, trades: [], cancelReason: 'fok' }]);
});

t.test("an order's owner index by its wallet handle: the index internOwner gives, the same after a restore", async (t) => {
  const { h, call } = setUp();
  const state = h.venue.state;
  // Interned before its first order by another path (the liquidation's close interns by owner).
  const bobIndex = state.internOwner(BOB);
  h.ok({ type: 'place', orders: [h.order(ALICE, call, true, 100, 1)] });
  const b = h.order(BOB, call, true, 101, 1);
  h.ok({ type: 'place', orders: [b] });
  const aliceIndex = state.ownerIndexOf(ALICE);
  t.ok(aliceIndex >= 0 && aliceIndex !== bobIndex, 'ALICE interned by her first order');
  t.equal(state.series.get(call)!.openOrder(state.accounts.orders.ref[state.orderIndex.get(b.orderId)!]!)!.ownerIndex, bobIndex, "BOB's order: the index interned before");
  t.equal(state.internWalletOwner(state.accounts.walletOf(ALICE), ALICE), aliceIndex, 'by handle: the same index');
  const restored = Venue.restore(h.venue.serialize());
  const again = h.order(ALICE, call, true, 102, 1);
  const cmd = { type: 'place' as const, orders: [again], seq: h.seq + 1, ts: h.ts + 1 };
  t.ok(restored.apply(cmd).ok);
  h.venue.apply(cmd);
  t.equal(restored.state.series.get(call)!.openOrder(restored.state.accounts.orders.ref[restored.state.orderIndex.get(again.orderId)!]!)!.ownerIndex, aliceIndex, 'restored: the snapshot\'s index, by handle');
  t.equal(restored.stateHash(), h.venue.stateHash(), 'and the same state as the venue that never stopped');
});
