/**
 * A portfolio's open orders as an intrusive list (engine/actors/portfolio.ts) against an array
 * model: the same members in the same (insertion) order through a long seeded run of adds and
 * deletes at the head, the tail and the middle; and the margin book's audit catches a broken
 * exposure link.
 */
import { DEFAULT_INSTRUCTIONS } from '../../../engine/domain/instructions.ts';
import t from 'tap';
import type { Hex } from '../../../engine/domain/hex.ts';
import { OpenOrders, newPortfolio, openOrder, type OpenOrder } from '../../../engine/actors/portfolio.ts';
import { SeriesActor } from '../../../engine/actors/series.ts';
import { createFastBook } from '../../../engine/book/fastBook.ts';
import { prng, randInt } from '../domain/prng.ts';
import { listedVenue, BTC, usdc } from '../support/venueFixture.ts';

const SERIES = `0x${'5'.repeat(64)}` as Hex;
const OWNER = `0x${'b'.repeat(40)}`;
const series = new SeriesActor(
  { seriesId: SERIES, pairId: `0x${'6'.repeat(64)}` as Hex, pairSymbol: 'BTC-USDC', underlying: 'BTC', strike: 10n ** 22n, expiry: 2_000_000_000, isCall: true, symbol: 'BTC-X', listedAt: 0 },
  createFastBook(),
);
const portfolio = newPortfolio(OWNER, 0, 0, 1, 0);
const ref = (n: number): OpenOrder => {
  const orderId = `0x${n.toString(16).padStart(64, '0')}` as Hex;
  const isBuy = n % 2 === 0;
  const record = { orderId, seriesId: SERIES, ref: n, owner: OWNER, ownerIndex: 0, portfolioId: 1, routedPortfolioId: 1, isBuy, tick: 100, lots: 1, filledLots: 0, status: 'open' as const, expiry: 2_000_000_000, createdAt: 0, instructions: DEFAULT_INSTRUCTIONS };
  return openOrder(record, series.spec.pairId, portfolio, 10n ** 16n, 10n ** 20n);
};

t.test('OpenOrders keeps its members in insertion order like an array', async (t) => {
  const rnd = prng(11);
  const list = new OpenOrders();
  const other = new OpenOrders();
  const model: OpenOrder[] = [];
  const outside: OpenOrder[] = [];
  let next = 1;
  for (let step = 0; step < 40_000; step++) {
    const r = rnd();
    if (r < 0.45 || model.length === 0) {
      const x = outside.length > 0 && rnd() < 0.3 ? outside.pop()! : ref(next++);
      list.add(x);
      model.push(x);
    } else if (r < 0.9) {
      const i = [0, model.length - 1, randInt(rnd, 0, model.length - 1)][randInt(rnd, 0, 2)]!;
      const [x] = model.splice(i, 1);
      if (other.delete(x!)) t.fail(`step ${step}: deleted from a list it is not in`);
      if (!list.delete(x!)) t.fail(`step ${step}: delete of a member returned false`);
      if (list.delete(x!)) t.fail(`step ${step}: second delete returned true`);
      outside.push(x!);
    } else {
      const x = outside.at(-1);
      if (x !== undefined && list.has(x)) t.fail(`step ${step}: a removed order is still a member`);
    }
    if (list.size !== model.length || list.head !== (model[0] ?? null) || list.tail !== (model.at(-1) ?? null)) {
      t.fail(`step ${step}: size or ends differ from the model`);
      return;
    }
    if (step % 997 === 0) {
      t.same([...list.values()], model, `step ${step}: forward walk`);
      const backward: OpenOrder[] = [];
      for (let x = list.tail; x !== null; x = x.pPrev) backward.push(x);
      t.same(backward.reverse(), model, `step ${step}: backward walk`);
    }
  }
  t.equal(other.size, 0);
});

t.test('an order cannot be in two portfolio lists at once', async (t) => {
  const a = new OpenOrders();
  const b = new OpenOrders();
  const x = ref(1);
  a.add(x);
  t.throws(() => b.add(x), /already listed/);
  t.throws(() => a.add(x), /already listed/);
  t.equal(b.size, 0);
  t.equal(a.size, 1);
  t.ok(a.delete(x));
  b.add(x);
  t.ok(b.has(x));
  t.notOk(a.has(x));
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
  const middle = [...state.accounts.portfolio(owner, 1)!.openOrders.values()][1]!;
  const rows = state.accounts.margin.exposures;
  const e = middle.exposure;
  rows.removeOrder(middle); // unlinked behind the book's back: the sums still agree, the lists do not
  t.match(state.accounts.margin.verify(portfolios()), /not in its exposure's list/);
  rows.addOrder(e, middle);
  t.equal(state.accounts.margin.verify(portfolios()), null, 'consistent again once relinked');
});
