/**
 * Open orders as slots (engine/actors/openOrders.ts): a portfolio's list through the slots
 * against an array model (the same members in the same insertion order through a long seeded
 * run of adds and deletes at the head, the tail and the middle, with slots freed and reused);
 * a slot in one list only, held by one portfolio; the margin book's audit catches a broken
 * exposure link; and a restore refuses a snapshot whose reservation is not its series' order.
 */
import { DEFAULT_INSTRUCTIONS } from '../../../engine/domain/instructions.ts';
import t from 'tap';
import type { Hex } from '../../../engine/domain/hex.ts';
import { OpenOrders, OrderSlots } from '../../../engine/actors/openOrders.ts';
import type { OrderRecord } from '../../../engine/actors/orderRecord.ts';
import { prng, randInt } from '../domain/prng.ts';
import { listedVenue, BTC, usdc } from '../support/venueFixture.ts';
import { Venue } from '../../../engine/venue.ts';

const SERIES = `0x${'5'.repeat(64)}` as Hex;
const PAIR = `0x${'6'.repeat(64)}` as Hex;
const OWNER = `0x${'b'.repeat(40)}`;
const record = (n: number): OrderRecord => ({ orderId: `0x${n.toString(16).padStart(64, '0')}` as Hex, seriesId: SERIES, ref: n, owner: OWNER, ownerIndex: 0, portfolioId: 1, routedPortfolioId: 1, isBuy: n % 2 === 0, tick: 100 + n, lots: n, filledLots: 0, status: 'open', expiry: 2_000_000_000 + n, createdAt: 0, instructions: DEFAULT_INSTRUCTIONS });
const open = (slots: OrderSlots, n: number, holder = 0): number => slots.open(record(n), { pairId: PAIR, holder, lots: n, price: BigInt(n) * 10n ** 16n, px: n / 100, lot: 10n ** 16n, lotNumber: 1e16, perLotTick: 0 });

t.test("a portfolio's list keeps its members in insertion order like an array; slots are freed and reused", async (t) => {
  const rnd = prng(11);
  const slots = new OrderSlots();
  const list = new OpenOrders(0);
  const other = new OpenOrders(1);
  // The model: the order number each listed slot holds, in order.
  const model: { slot: number; n: number }[] = [];
  let next = 1;
  let reused = 0;
  let peak = 0;
  let most = 0;
  for (let step = 0; step < 40_000; step++) {
    const r = rnd();
    if (r < 0.45 || model.length === 0) {
      const n = next++;
      const slot = open(slots, n);
      if (slot < peak) reused++;
      peak = Math.max(peak, slot + 1);
      slots.add(list, slot);
      model.push({ slot, n });
      most = Math.max(most, model.length);
    } else if (r < 0.9) {
      const i = [0, model.length - 1, randInt(rnd, 0, model.length - 1)][randInt(rnd, 0, 2)]!;
      const [x] = model.splice(i, 1);
      if (slots.delete(other, x!.slot)) t.fail(`step ${step}: deleted from a list it is not in`);
      if (!slots.delete(list, x!.slot)) t.fail(`step ${step}: delete of a member returned false`);
      if (slots.delete(list, x!.slot)) t.fail(`step ${step}: second delete returned true`);
      slots.close(x!.slot);
      if (slots.has(list, x!.slot)) t.fail(`step ${step}: a freed slot is still a member`);
    } else {
      const x = model[randInt(rnd, 0, model.length - 1)]!;
      // Each member's fields are its own order's, whatever slot it reused.
      if (slots.orderId[x.slot] !== record(x.n).orderId || slots.lots[x.slot] !== x.n || slots.tick[x.slot] !== 100 + x.n || slots.price[x.slot] !== BigInt(x.n) * 10n ** 16n || (slots.buy[x.slot] === 1) !== (x.n % 2 === 0)) t.fail(`step ${step}: slot ${x.slot} holds another order's fields`);
    }
    if (list.size !== model.length || list.head !== (model[0]?.slot ?? -1) || list.tail !== (model.at(-1)?.slot ?? -1) || slots.live !== model.length) {
      t.fail(`step ${step}: size or ends differ from the model`);
      return;
    }
    if (step % 997 === 0) {
      t.same([...slots.values(list)], model.map((x) => x.slot), `step ${step}: forward walk`);
      const backward: number[] = [];
      for (let x = list.tail; x !== -1; x = slots.pPrev[x]!) backward.push(x);
      t.same(backward.reverse(), model.map((x) => x.slot), `step ${step}: backward walk`);
    }
  }
  t.equal(other.size, 0);
  t.ok(reused > 1000, `freed slots are reused (${reused} times, ${peak} slots for ${next - 1} orders)`);
  t.equal(peak, most, 'the store holds as many slots as the most orders open at once');
});

t.test('a slot is in one list only, its holder\'s, and is closed once', async (t) => {
  const slots = new OrderSlots();
  const a = new OpenOrders(0);
  const b = new OpenOrders(0);
  const elsewhere = new OpenOrders(7);
  const x = open(slots, 1);
  t.throws(() => slots.add(elsewhere, x), /held by portfolio 0, not 7/);
  slots.add(a, x);
  t.throws(() => slots.add(b, x), /already listed/);
  t.throws(() => slots.add(a, x), /already listed/);
  t.throws(() => slots.close(x), /closed while listed/);
  t.equal(b.size, 0);
  t.equal(a.size, 1);
  t.ok(slots.delete(a, x));
  slots.add(b, x);
  t.ok(slots.has(b, x));
  t.ok(slots.delete(b, x));
  slots.close(x);
  t.throws(() => slots.close(x), /closed twice/);
  t.notOk(slots.isOpen(x));
});

t.test("the margin book's audit notices an order missing from its exposure's list", async (t) => {
  const h = listedVenue();
  const owner = `0x${'a'.repeat(40)}`;
  h.fund(owner, usdc(1_000_000));
  const seriesId = h.atm(BTC, true);
  for (let i = 0; i < 3; i++) h.ok({ type: 'place', orders: [h.order(owner, seriesId, true, 10 + i, 0.1)] });
  const state = h.venue.state;
  const portfolios = () => state.accounts.allPortfolios();
  t.equal(state.accounts.margin.verify(portfolios()), null, 'consistent after three orders');
  const middle = [...state.accounts.orders.values(state.accounts.portfolio(owner, 1)!.openOrders)][1]!;
  const rows = state.accounts.margin.exposures;
  const e = rows.exposureOf(middle);
  rows.removeOrder(middle); // unlinked behind the book's back: the sums still agree, the lists do not
  t.match(state.accounts.margin.verify(portfolios()), /not in its exposure's list/);
  rows.addOrder(e, middle, state.accounts.orders.orderId[middle]!);
  t.equal(state.accounts.margin.verify(portfolios()), null, 'consistent again once relinked');
});

t.test("a snapshot whose reservation is not its series' remaining order is refused on restore", async (t) => {
  const h = listedVenue();
  const owner = `0x${'c'.repeat(40)}`;
  h.fund(owner, usdc(1_000_000));
  const seriesId = h.atm(BTC, true);
  h.ok({ type: 'place', orders: [h.order(owner, seriesId, true, 10, 0.1)] });
  const bytes = h.venue.serialize();
  t.ok(Venue.restore(bytes), 'as written: restored');
  type Dump = { accounts: { portfolios: { openOrders: { orderId: string; remaining: { $b: string } }[] }[] }[] };
  const dump = JSON.parse(new TextDecoder().decode(bytes)) as Dump;
  const held = dump.accounts.flatMap((a) => a.portfolios).flatMap((p) => p.openOrders);
  t.equal(held.length, 1);
  t.equal(held[0]!.remaining.$b, String(10n ** 17n), '0.1 contract reserved, in WAD');
  held[0]!.remaining.$b = String(2n * 10n ** 17n); // on the grid, but not what the series holds
  t.throws(() => Venue.restore(new TextEncoder().encode(JSON.stringify(dump))), /reserves 200000000000000000 of order 0x[0-9a-f]+, its series holds 10 lots/);
  held[0]!.remaining.$b = String(10n ** 17n + 1n); // off the grid
  t.throws(() => Venue.restore(new TextEncoder().encode(JSON.stringify(dump))), /its series holds 10 lots/);
});
