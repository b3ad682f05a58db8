/**
 * Order instructions in the engine (docs/engine.md "Order instructions"): IOC, FOK, post-only,
 * reduce-only, client order ids, the cancel reasons, the pre-check, snapshots and replay.
 */
import t from 'tap';
import { listedVenue, BTC, ALICE, BOB, CAROL, usdc, wad, Harness } from './support/venueFixture.ts';
import { randomBodies } from './support/randomStream.ts';
import type { OrderEvent } from '../../engine/events.ts';
import type { PlaceOrder } from '../../engine/commands.ts';
import { instructionsOf, type OrderInstructions } from '../../engine/domain/instructions.ts';
import { Venue } from '../../engine/venue.ts';
import { precheck } from '../../engine/precheck.ts';
import type { Hex } from '../../engine/domain/hex.ts';
import { balanceOf } from '../../engine/actors/position.ts';

function setup(): { h: Harness; call: Hex } {
  const h = listedVenue();
  const call = h.atm(BTC, true);
  for (const w of [ALICE, BOB, CAROL]) h.fund(w, usdc(1_000_000));
  return { h, call };
}

const ins = (x: Partial<OrderInstructions>): { instructions: OrderInstructions } => ({ instructions: instructionsOf(x) });

function orderEvents(events: readonly { type: string }[], orderId: Hex): OrderEvent[] {
  return events.filter((e): e is OrderEvent => e.type === 'order' && (e as OrderEvent).orderId === orderId);
}

function refusal(h: Harness, orders: PlaceOrder[]): string {
  const r = h.run({ type: 'place', orders });
  return r.ok ? 'ok' : r.rejection.code;
}

t.test('IOC: fills what it can at once and cancels the rest (cancelReason ioc); nothing rests', async (t) => {
  const { h, call } = setup();
  h.ok({ type: 'place', orders: [h.order(ALICE, call, false, 2000, 1)] });
  const ioc = h.order(BOB, call, true, 2100, 1.5, ins({ timeInForce: 'IOC', clientOrderId: 'ioc-1' }));
  const r = h.ok({ type: 'place', orders: [ioc] });
  t.match(r.value, { outcomes: [{ status: 'cancelled', filled: wad(1), remaining: 0n }] });
  const [ev] = orderEvents(r.events, ioc.orderId);
  t.match(ev, { status: 'cancelled', cancelReason: 'ioc', filled: wad(1), remaining: 0n, instructions: { timeInForce: 'IOC', clientOrderId: 'ioc-1' } });
  t.notOk(h.venue.state.orderIndex.has(ioc.orderId), 'the rest does not rest');
  t.equal(h.venue.state.series.get(call)!.book.orderCount(), 0);
  t.equal(h.venue.state.accounts.portfolio(BOB, 1)!.openOrders.size, 0, 'no reservation left');
  const none = h.order(BOB, call, true, 1000, 1, ins({ timeInForce: 'IOC' }));
  const r2 = h.ok({ type: 'place', orders: [none] });
  t.match(orderEvents(r2.events, none.orderId), [{ status: 'cancelled', cancelReason: 'ioc', filled: 0n }]);
  t.equal(h.venue.state.series.get(call)!.book.orderCount(), 0, 'an IOC that cannot fill does not rest');
});

t.test('FOK: fills all at once across levels', async (t) => {
  const { h, call } = setup();
  h.ok({ type: 'place', orders: [h.order(ALICE, call, false, 2000, 1), h.order(CAROL, call, false, 2050, 1)] });
  const fok = h.order(BOB, call, true, 2100, 1.5, ins({ timeInForce: 'FOK' }));
  const r = h.ok({ type: 'place', orders: [fok] });
  t.match(r.value, { outcomes: [{ status: 'filled', filled: wad(1.5), remaining: 0n }] });
  t.equal(balanceOf(h.venue.state.accounts.portfolio(BOB, 1)!.positions.get(call)!), wad(1.5));
});

t.test('FOK that cannot fill changes nothing but its nonce (cancelReason fok)', async (t) => {
  const { h, call } = setup();
  const ask = h.order(ALICE, call, false, 2000, 1);
  h.ok({ type: 'place', orders: [ask] });
  const state = h.venue.state;
  const before = { refs: state.nextRef, depth: state.series.get(call)!.book.depth(false, 10), deposit: state.accounts.depositOf(state.accounts.portfolio(BOB, 1)!) };
  const fok = h.order(BOB, call, true, 2100, 1.5, ins({ timeInForce: 'FOK', clientOrderId: 'f' }));
  const r = h.ok({ type: 'place', orders: [fok] });
  t.match(r.value, { outcomes: [{ status: 'cancelled', filled: 0n, remaining: 0n, trades: [] }] });
  t.match(orderEvents(r.events, fok.orderId), [{ status: 'cancelled', cancelReason: 'fok', filled: 0n, instructions: { timeInForce: 'FOK', clientOrderId: 'f' } }]);
  t.equal(r.events.filter((e) => e.type === 'trade' || e.type === 'depth').length, 0, 'no trade, no depth change');
  t.equal(state.nextRef, before.refs, 'no book ref used');
  t.same(state.series.get(call)!.book.depth(false, 10), before.depth, 'the book is as it was');
  t.equal(state.accounts.depositOf(state.accounts.portfolio(BOB, 1)!), before.deposit);
  const held = state.accounts.portfolio(BOB, 1)!.positions.get(call);
  t.equal(held === undefined ? 0n : balanceOf(held), 0n);
  t.ok(state.orderIndex.has(ask.orderId));
  t.notOk(state.orderIndex.has(fok.orderId));
  t.equal(refusal(h, [fok]), 'nonce_used', 'the killed FOK used its nonce (it was accepted, then cancelled)');
});

t.test('FOK and self-trade prevention: own resting orders do not count as liquidity', async (t) => {
  const { h, call } = setup();
  const own = h.order(BOB, call, false, 2000, 0.5);
  h.ok({ type: 'place', orders: [own, h.order(ALICE, call, false, 2050, 0.5)] });
  const short = h.order(BOB, call, true, 2100, 1, ins({ timeInForce: 'FOK' }));
  const r = h.ok({ type: 'place', orders: [short] });
  t.match(r.value, { outcomes: [{ status: 'cancelled', filled: 0n }] }, 'only 0.5 of others: killed');
  t.ok(h.venue.state.orderIndex.has(own.orderId), 'its own ask is not cancelled by a killed FOK');
  h.ok({ type: 'place', orders: [h.order(CAROL, call, false, 2080, 0.5)] });
  const fits = h.order(BOB, call, true, 2100, 1, ins({ timeInForce: 'FOK' }));
  const r2 = h.ok({ type: 'place', orders: [fits] });
  t.match(r2.value, { outcomes: [{ status: 'filled', filled: wad(1) }] }, 'others hold 1: fills');
  t.match(orderEvents(r2.events, own.orderId), [{ status: 'cancelled', cancelReason: 'self_trade' }], 'its own ask met on the way is removed by STP');
});

t.test('post-only: refused when it would take (nothing changes), rests when it does not', async (t) => {
  const { h, call } = setup();
  h.ok({ type: 'place', orders: [h.order(ALICE, call, false, 2000, 1)] });
  const crossing = h.order(BOB, call, true, 2000, 1, ins({ postOnly: true }));
  const r = h.run({ type: 'place', orders: [crossing] });
  t.match(r, { ok: false, rejection: { code: 'post_only_would_take', details: { field: 'postOnly' } } });
  t.notOk(h.venue.state.accounts.nonces[h.venue.state.accounts.walletOf(BOB)]!.isUsed(crossing.nonce), 'a refused order does not use its nonce');
  t.equal(h.venue.state.series.get(call)!.book.orderCount(), 1, 'nothing rests');
  t.equal(precheck(h.venue.state, { type: 'place', orders: [crossing], seq: h.seq + 1, ts: h.ts + 1 })?.code, 'post_only_would_take', 'the pre-check gives it early');
  const resting = h.order(BOB, call, true, 1990, 1, ins({ postOnly: true }));
  h.ok({ type: 'place', orders: [resting] });
  t.equal(h.venue.state.accounts.orders.instructions[h.venue.state.orderIndex.get(resting.orderId)!]!.postOnly, true);
  const batch = [h.order(CAROL, call, false, 1995, 1), h.order(CAROL, call, true, 1995, 1, ins({ postOnly: true }))];
  t.equal(refusal(h, batch), 'post_only_would_take', 'an earlier entry of the same command counts');
});

t.test('reduce-only: up to the position minus the other open reduce-only orders on that side, refused one lot beyond', async (t) => {
  const { h, call } = setup();
  h.ok({ type: 'place', orders: [h.order(ALICE, call, false, 2000, 1)] });
  h.ok({ type: 'place', orders: [h.order(BOB, call, true, 2000, 1)] }); // BOB long 1
  t.equal(refusal(h, [h.order(BOB, call, true, 1000, 0.01, ins({ reduceOnly: true }))]), 'reduce_only_would_increase', 'a buy cannot reduce a long');
  t.equal(refusal(h, [h.order(CAROL, call, false, 3000, 0.01, ins({ reduceOnly: true }))]), 'reduce_only_would_increase', 'no position: nothing to reduce');
  h.ok({ type: 'place', orders: [h.order(BOB, call, false, 3000, 0.6, ins({ reduceOnly: true }))] });
  h.ok({ type: 'place', orders: [h.order(BOB, call, false, 3100, 0.3)] }); // not reduce-only: not counted
  const beyond = h.order(BOB, call, false, 3000, 0.41, ins({ reduceOnly: true }));
  t.match(h.run({ type: 'place', orders: [beyond] }), { ok: false, rejection: { code: 'reduce_only_would_increase', details: { position: wad(1).toString(), openReduceOnly: wad(0.6).toString() } } });
  t.equal(precheck(h.venue.state, { type: 'place', orders: [beyond], seq: h.seq + 1, ts: h.ts + 1 })?.code, 'reduce_only_would_increase');
  t.equal(refusal(h, [h.order(BOB, call, false, 3000, 0.2, ins({ reduceOnly: true })), h.order(BOB, call, false, 3000, 0.21, ins({ reduceOnly: true }))]), 'reduce_only_would_increase', 'earlier entries of the command count');
  h.ok({ type: 'place', orders: [h.order(BOB, call, false, 3000, 0.4, ins({ reduceOnly: true }))] });
  t.equal(h.venue.state.accounts.portfolio(BOB, 1)!.openOrders.size, 3);
});

t.test('clientOrderId: unique among the wallet open orders, reusable once the first is done; echoed; cancel reasons', async (t) => {
  const { h, call } = setup();
  const first = h.order(BOB, call, true, 1500, 1, ins({ clientOrderId: 'my-order_1', mmp: true }));
  const placed = h.ok({ type: 'place', orders: [first] });
  t.match(orderEvents(placed.events, first.orderId), [{ status: 'open', cancelReason: null, instructions: { clientOrderId: 'my-order_1', mmp: true, timeInForce: 'GTC' } }]);
  const dup = h.order(BOB, call, true, 1400, 1, ins({ clientOrderId: 'my-order_1' }));
  t.match(h.run({ type: 'place', orders: [dup] }), { ok: false, rejection: { code: 'duplicate_client_order_id', details: { field: 'clientOrderId', clientOrderId: 'my-order_1' } } });
  t.equal(precheck(h.venue.state, { type: 'place', orders: [dup], seq: h.seq + 1, ts: h.ts + 1 })?.code, 'duplicate_client_order_id');
  t.equal(refusal(h, [h.order(ALICE, call, true, 1400, 1, ins({ clientOrderId: 'my-order_1' }))]), 'ok', 'another wallet may use the same id');
  t.equal(refusal(h, [h.order(BOB, call, true, 1400, 1, ins({ clientOrderId: 'x' })), h.order(BOB, call, true, 1300, 1, ins({ clientOrderId: 'x' }))]), 'duplicate_client_order_id', 'twice in one command');
  // A replace may keep the id of the order it cancels.
  const moved = h.order(BOB, call, true, 1600, 1, ins({ clientOrderId: 'my-order_1' }));
  const rep = h.ok({ type: 'replace', pairs: [{ cancel: { orderId: first.orderId, owner: BOB, nonce: h.nextNonce(BOB), deadline: Math.floor(h.ts / 1000) + 300 }, place: moved }] });
  t.match(orderEvents(rep.events, first.orderId), [{ status: 'cancelled', cancelReason: 'replace', instructions: { clientOrderId: 'my-order_1' } }]);
  const cancel = h.ok({ type: 'cancel', cancels: [{ orderId: moved.orderId, owner: BOB, nonce: h.nextNonce(BOB), deadline: Math.floor(h.ts / 1000) + 300 }] });
  t.match(orderEvents(cancel.events, moved.orderId), [{ status: 'cancelled', cancelReason: 'user' }]);
  t.equal(refusal(h, [h.order(BOB, call, true, 1400, 1, ins({ clientOrderId: 'my-order_1' }))]), 'ok', 'reusable after the first is done');
});

t.test('snapshot round trip and replay keep the instructions', async (t) => {
  const { h, call } = setup();
  h.ok({ type: 'place', orders: [h.order(ALICE, call, false, 2000, 1)] });
  h.ok({ type: 'place', orders: [h.order(BOB, call, true, 2000, 1)] });
  const kept = h.order(BOB, call, false, 3000, 0.5, ins({ reduceOnly: true, postOnly: true, mmp: true, clientOrderId: 'keep' }));
  h.ok({ type: 'place', orders: [kept, h.order(CAROL, call, true, 1000, 1)] });
  h.ok({ type: 'place', orders: [h.order(CAROL, call, false, 1000, 2, ins({ timeInForce: 'IOC' }))] });
  h.ok({ type: 'place', orders: [h.order(ALICE, call, true, 2900, 2, ins({ timeInForce: 'FOK' }))] });
  const restored = Venue.restore(h.venue.serialize());
  t.equal(restored.stateHash(), h.venue.stateHash(), 'snapshot round trip');
  t.same(restored.state.accounts.orders.instructions[restored.state.orderIndex.get(kept.orderId)!], { timeInForce: 'GTC', postOnly: true, reduceOnly: true, mmp: true, clientOrderId: 'keep' });
  const dup = h.order(BOB, call, false, 3000, 0.1, ins({ clientOrderId: 'keep' }));
  const cmd = { type: 'place' as const, orders: [dup], seq: h.seq + 1, ts: h.ts + 1 };
  t.match(restored.apply(cmd), { ok: false, rejection: { code: 'duplicate_client_order_id' } }, 'the restored venue still knows the id');
  const replayed = Venue.create(h.venue.state.config);
  for (const c of h.log) replayed.apply(c);
  t.equal(replayed.stateHash(), h.venue.stateHash(), 'replay is deterministic');
});

t.test('a seeded stream with instructions: every outcome met, replay and snapshots agree', async (t) => {
  const h = new Harness();
  const seen = new Map<string, number>();
  const count = (k: string): void => void seen.set(k, (seen.get(k) ?? 0) + 1);
  let snapshotAt: { bytes: Uint8Array; logLength: number } | null = null;
  let i = 0;
  for (const { body, advance } of randomBodies(h, 11, 3000)) {
    const r = h.run(body, advance);
    if (!r.ok) count(r.rejection.code);
    else for (const e of r.events) if (e.type === 'order' && e.cancelReason !== null) count(`cancel:${e.cancelReason}`);
    if (++i === 1500) snapshotAt = { bytes: h.venue.serialize(), logLength: h.log.length };
  }
  for (const k of ['cancel:ioc', 'cancel:fok', 'cancel:user', 'cancel:replace', 'post_only_would_take', 'reduce_only_would_increase', 'duplicate_client_order_id']) {
    t.ok((seen.get(k) ?? 0) > 0, `the stream met ${k} (${seen.get(k) ?? 0})`);
  }
  const replayed = Venue.create(h.venue.state.config);
  for (const c of h.log) replayed.apply(c);
  t.equal(replayed.stateHash(), h.venue.stateHash(), 'replay from the start gives the same state');
  const resumed = Venue.restore(snapshotAt!.bytes);
  for (const c of h.log.slice(snapshotAt!.logLength)) resumed.apply(c);
  t.equal(resumed.stateHash(), h.venue.stateHash(), 'a snapshot mid-stream plus the rest gives the same state');
});

t.test('a snapshot written before instructions (records without them) restores with the defaults', async (t) => {
  const { h, call } = setup();
  h.ok({ type: 'place', orders: [h.order(ALICE, call, false, 2000, 1), h.order(BOB, call, true, 1500, 1)] });
  const bytes = h.venue.serialize();
  const dump = JSON.parse(new TextDecoder().decode(bytes)) as { series: { records: Record<string, unknown>[] }[] };
  let stripped = 0;
  for (const s of dump.series) for (const r of s.records) stripped += delete r['instructions'] ? 1 : 0;
  t.equal(stripped, 2, 'the two open orders lose their instructions');
  const old = new TextEncoder().encode(JSON.stringify(dump));
  t.not(Buffer.from(old).toString(), Buffer.from(bytes).toString());
  const restored = Venue.restore(old);
  t.same([...restored.state.orderIndex.values()].map((o) => restored.state.accounts.orders.instructions[o]), [instructionsOf(undefined), instructionsOf(undefined)]);
  t.equal(restored.stateHash(), h.venue.stateHash(), 'the same venue as one that had them');
});
