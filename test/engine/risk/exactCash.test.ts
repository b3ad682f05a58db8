/**
 * The margin book's cash figures in doubles (engine/risk/exactCash.ts, marginBook.ts): kept
 * in doubles while every figure and every sum is at most 2^53 - 1 COLLATERAL6 in magnitude,
 * recounted in bigint for an account from the first figure or sum that is not (never a
 * silent rounding), and equal to the bigint arithmetic to the unit on both sides of each bound.
 */
import t from 'tap';
import type { Hex } from '../../../engine/domain/hex.ts';
import { WAD } from '../../../engine/domain/fixed.ts';
import { MAX_EXACT, bigSum, exact, exactOf } from '../../../engine/risk/exactCash.ts';
import { MarginBook } from '../../../engine/risk/marginBook.ts';
import { QuoteBoard, type RiskQuote } from '../../../engine/risk/riskQuote.ts';
import { SCENARIOS } from '../../../engine/risk/margin.ts';
import { newPortfolio, type Portfolio } from '../../../engine/actors/portfolio.ts';
import { OrderSlots } from '../../../engine/actors/openOrders.ts';
import { openTestOrder } from '../support/restOrder.ts';
import type { OrderRecord } from '../../../engine/actors/orderRecord.ts';
import { CashRows } from '../../../engine/actors/cashRows.ts';
import { newPosition } from '../../../engine/actors/position.ts';
import { DEFAULT_INSTRUCTIONS } from '../../../engine/domain/instructions.ts';

const SAFE = 2n ** 53n - 1n; // Number.MAX_SAFE_INTEGER
const C6_TO_WAD = 10n ** 12n; // a size of n x 1e12 WAD at a price of 1 (WAD) costs n COLLATERAL6

const series = (n: number): Hex => `0x${n.toString(16).padStart(64, '0')}` as Hex;

function book(): { margin: MarginBook; p: Portfolio; quotes: QuoteBoard } {
  const quotes = new QuoteBoard();
  const margin = new MarginBook(quotes, new CashRows(), new OrderSlots(), (p) => p, (p) => [p], 0.1);
  return { margin, p: newPortfolio(`0x${'c'.repeat(40)}`, 0, 0, 1, 0), quotes };
}

/** A quote at mark 1 (WAD), every scenario at the mark. */
function flatQuote(): RiskQuote {
  return { markWad: WAD, mark: 1, scenarios: new Float64Array(SCENARIOS).fill(1), spot: 1, spotWad: WAD };
}

/** A position of `balance` WAD on a pair of size step `lot` (1 WAD by default: any balance, beyond 2^53 - 1 lots from 0.009 contract). */
function setPosition(margin: MarginBook, p: Portfolio, seriesId: Hex, balance: bigint, premium: bigint, lot = 1n): void {
  p.positions.set(seriesId, newPosition(seriesId, lot, balance, premium, 0n));
  margin.positionChanged(p, seriesId);
}

/** An open buy of `remaining` WAD at price 1 (WAD), in lots of `lot`. */
function buy(margin: MarginBook, p: Portfolio, seriesId: Hex, id: number, remaining: bigint, lot = C6_TO_WAD): number {
  return openTestOrder(margin.orders, p, { orderId: series(1000 + id), seriesId, ref: id, isBuy: true, remaining, price: WAD, lot });
}

t.test('the helpers: exact to 2^53 - 1, NaN beyond, sums checked', async (t) => {
  t.equal(MAX_EXACT, 2 ** 53 - 1);
  t.equal(exactOf(SAFE), 2 ** 53 - 1, 'the largest exact figure');
  t.equal(exactOf(-SAFE), -(2 ** 53 - 1));
  t.ok(Number.isNaN(exactOf(SAFE + 1n)), '2^53: not kept in doubles');
  t.ok(Number.isNaN(exactOf(-SAFE - 1n)));
  t.ok(Number.isNaN(exactOf(SAFE + 2n)), '2^53 + 1 (which a double cannot hold)');
  t.ok(exact(2 ** 53 - 1));
  t.notOk(exact(2 ** 53));
  t.notOk(exact(NaN));
  t.notOk(exact(NaN + 1), 'NaN stays NaN through a sum');
  t.equal(bigSum(2 ** 52, 2 ** 52 - 1), SAFE, 'a sum at the bound: exact in doubles');
  t.equal(bigSum(2 ** 53 - 1, 2), SAFE + 2n, 'a sum beyond it: in bigint, to the unit (in doubles it would round to 2^53)');
  t.equal(bigSum(2 ** 53 - 1, 1), SAFE + 1n);
  t.equal(bigSum(-(2 ** 53 - 1), -2), -SAFE - 2n);
});

t.test('one figure at the bound: owed premium of 2^53 - 1 in doubles, 2^53 and 2^53 + 1 recounted in bigint', async (t) => {
  const { margin, p } = book();
  setPosition(margin, p, series(1), 0n, -SAFE);
  t.ok(margin.cashInDoubles(p), '2^53 - 1: in doubles');
  t.equal(margin.requirement(p).cashNeeded, SAFE);
  t.equal(margin.requirement(p).unrealizedPnl, -SAFE);
  t.same(margin.cash(p), { premium: -SAFE, owed: SAFE, markValue: 0n, buyReserve: 0n });

  setPosition(margin, p, series(1), 0n, -SAFE - 1n);
  t.notOk(margin.cashInDoubles(p), '2^53: the account leaves the doubles');
  t.equal(margin.requirement(p).cashNeeded, SAFE + 1n);
  setPosition(margin, p, series(1), 0n, -SAFE - 2n);
  t.equal(margin.requirement(p).cashNeeded, SAFE + 2n, '2^53 + 1, which no double holds: exact');
  t.equal(margin.requirement(p).unrealizedPnl, -SAFE - 2n);
  t.equal(margin.verify([p]), null, 'kept (bigint) = rebuilt');

  setPosition(margin, p, series(1), 0n, -5n);
  t.equal(margin.requirement(p).cashNeeded, 5n, 'back below the bound: still exact (the account stays on bigint until a rebuild)');
  t.notOk(margin.cashInDoubles(p));
  margin.rebuild([p]);
  t.ok(margin.cashInDoubles(p), 'a rebuild counts it in doubles again');
  t.equal(margin.requirement(p).cashNeeded, 5n);
});

t.test('a sum at the bound: two positions owing 2^52 and 2^52 - 1, then 2^52 and 2^52', async (t) => {
  const { margin, p } = book();
  setPosition(margin, p, series(1), 0n, -(2n ** 52n));
  setPosition(margin, p, series(2), 0n, -(2n ** 52n - 1n));
  t.ok(margin.cashInDoubles(p), 'the account sum 2^53 - 1: in doubles');
  t.equal(margin.requirement(p).cashNeeded, SAFE);
  setPosition(margin, p, series(2), 0n, -(2n ** 52n));
  t.notOk(margin.cashInDoubles(p), 'the account sum 2^53: in bigint');
  t.equal(margin.requirement(p).cashNeeded, SAFE + 1n);
  setPosition(margin, p, series(3), 0n, -1n);
  t.equal(margin.requirement(p).cashNeeded, SAFE + 2n, '2^53 + 1 to the unit');
  t.equal(margin.verify([p]), null);
});

t.test("an open buy's reserve at the bound, and the requirement's own sums", async (t) => {
  const { margin, p, quotes } = book();
  quotes.publish(series(1), flatQuote());
  const a = buy(margin, p, series(1), 1, SAFE * C6_TO_WAD);
  margin.addOrder(p, a);
  t.equal(margin.exposures.oReserve[a], 2 ** 53 - 1, "the order's reserve in doubles");
  t.ok(margin.cashInDoubles(p));
  t.equal(margin.requirement(p).cashNeeded, SAFE);
  const b = buy(margin, p, series(1), 2, 1n * C6_TO_WAD);
  margin.addOrder(p, b);
  t.notOk(margin.cashInDoubles(p), 'one unit more reserved: the sum leaves the doubles');
  t.equal(margin.requirement(p).cashNeeded, SAFE + 1n);
  margin.reduceOrder(p, a, 1); // one lot of 10^12 WAD
  t.equal(margin.requirement(p).cashNeeded, SAFE, 'a partial fill, recounted in bigint');
  t.equal(margin.verify([p]), null);
  margin.dropOrder(p, a);
  margin.dropOrder(p, b);
  t.equal(margin.requirement(p).cashNeeded, 0n);

  const { margin: m2, p: p2, quotes: q2 } = book();
  q2.publish(series(1), flatQuote());
  const big = buy(m2, p2, series(1), 3, (SAFE + 1n) * C6_TO_WAD, 2n * C6_TO_WAD);
  m2.addOrder(p2, big);
  t.ok(Number.isNaN(m2.exposures.oReserve[big]), 'a reserve of 2^53: not held in a double');
  t.notOk(m2.cashInDoubles(p2));
  t.equal(m2.requirement(p2).cashNeeded, SAFE + 1n);
  t.equal(m2.verify([p2]), null);

  // Premium and mark value each within the bound, their sum (unrealised PnL) beyond it: converted in bigint.
  const { margin: m3, p: p3, quotes: q3 } = book();
  q3.publish(series(1), flatQuote());
  setPosition(m3, p3, series(1), SAFE * C6_TO_WAD, SAFE);
  t.ok(m3.cashInDoubles(p3), 'premium and mark value 2^53 - 1 each: in doubles');
  t.same(m3.cash(p3), { premium: SAFE, owed: 0n, markValue: SAFE, buyReserve: 0n });
  t.equal(m3.requirement(p3).unrealizedPnl, 2n * SAFE, 'their sum, exact');
  setPosition(m3, p3, series(1), (SAFE + 1n) * C6_TO_WAD, 0n);
  t.notOk(m3.cashInDoubles(p3), 'a mark value of 2^53: in bigint');
  t.equal(m3.requirement(p3).unrealizedPnl, SAFE + 1n);
  t.equal(m3.verify([p3]), null);
});

t.test('the mark value from lots: lots x (step x mark / 10^30) in doubles while the product is below 2^53, the bigint formula beyond', async (t) => {
  const quoteAt = (markWad: bigint): RiskQuote => ({ markWad, mark: Number(markWad) / 1e18, scenarios: new Float64Array(SCENARIOS).fill(Number(markWad) / 1e18), spot: 1, spotWad: WAD });
  const markValue = (lot: bigint, lots: bigint, markWad: bigint): { got: bigint; inDoubles: boolean; verified: boolean } => {
    const { margin, p, quotes } = book();
    quotes.publish(series(1), quoteAt(markWad));
    setPosition(margin, p, series(1), lots * lot, 0n, lot);
    return { got: margin.cash(p).markValue, inDoubles: margin.cashInDoubles(p), verified: margin.verify([p]) === null };
  };
  const third = SAFE / 3n; // step x mark / 10^30 = 3: a product of 3 x third <= 2^53 - 1, 3 x (third + 1) beyond
  for (const [lots, what] of [
    [third, 'a product of 2^53 - 3: in doubles'],
    [-third, 'and short'],
    [third + 1n, 'a product beyond 2^53 - 1: the bigint formula (and a mark value past the bound: the account in bigint)'],
    [-(third + 1n), 'and short'],
  ] as const) {
    const r = markValue(3n * 10n ** 12n, lots, WAD);
    t.same(r, { got: 3n * lots, inDoubles: lots === third || lots === -third, verified: true }, what);
  }
  const rand = ((seed: number) => () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31))(17);
  let bad = 0;
  for (let i = 0; i < 400; i++) {
    const lot = BigInt(1 + Math.floor(rand() * 1000)) * 10n ** BigInt(9 + Math.floor(rand() * 8));
    const lots = BigInt(Math.floor(rand() * 2 ** Math.floor(rand() * 56))) * (rand() < 0.5 ? -1n : 1n);
    const markWad = BigInt(Math.floor(rand() * 2 ** 40)) * 10n ** BigInt(Math.floor(rand() * 8));
    const want = (lots * lot * markWad) / 10n ** 30n;
    const r = markValue(lot, lots, markWad);
    if (r.got !== want || !r.verified) bad++;
  }
  t.equal(bad, 0, "seeded steps, balances and marks: the bigint formula's value to the unit");
});
