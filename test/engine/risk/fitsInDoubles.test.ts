/**
 * The pre-trade check decided in doubles (MarginBook.fitsInDoubles): true only where the bigint
 * check (MarginBook.requirement: cash with buys, margin with orders) passes, and where every
 * figure is within 2^53 - 1 COLLATERAL6 it decides every case the bigint check passes. At each
 * bound (the deposit, the cash needed, an order's premium and fee) it answers in doubles up to
 * 2^53 - 1 and leaves 2^53 to the bigint check (false), never a rounded answer.
 */
import t from 'tap';
import type { Hex } from '../../../engine/domain/hex.ts';
import { WAD } from '../../../engine/domain/fixed.ts';
import { MarginBook, type ProspectiveOrder } from '../../../engine/risk/marginBook.ts';
import { QuoteBoard, type RiskQuote } from '../../../engine/risk/riskQuote.ts';
import { SCENARIOS } from '../../../engine/risk/margin.ts';
import { CashRows } from '../../../engine/actors/cashRows.ts';
import { newPortfolio, type Portfolio } from '../../../engine/actors/portfolio.ts';
import { OrderSlots } from '../../../engine/actors/openOrders.ts';
import { openTestOrder } from '../support/restOrder.ts';
import type { OrderRecord } from '../../../engine/actors/orderRecord.ts';
import { collateralOf, newPosition } from '../../../engine/actors/position.ts';
import { DEFAULT_INSTRUCTIONS } from '../../../engine/domain/instructions.ts';

const SAFE = 2n ** 53n - 1n;
const series = (n: number): Hex => `0x${n.toString(16).padStart(64, '0')}` as Hex;

/** The deposits of the one portfolio (handle 0) each test's book reads. */
let cash = new CashRows();
const setDeposit = (p: Portfolio, v: bigint): void => cash.set(p.handle, v);

function book(): { margin: MarginBook; p: Portfolio; quotes: QuoteBoard } {
  const quotes = new QuoteBoard();
  cash = new CashRows();
  cash.ensure(0);
  return { margin: new MarginBook(quotes, cash, new OrderSlots(), (p) => p, (p) => [p], 0.1), p: newPortfolio(`0x${'d'.repeat(40)}`, 0, 0, 1, 0), quotes };
}

function quote(mark: number, spread: (s: number) => number): RiskQuote {
  const scenarios = new Float64Array(SCENARIOS);
  for (let s = 0; s < SCENARIOS; s++) scenarios[s] = Math.max(0, mark + spread(s));
  return { markWad: BigInt(Math.round(mark * 1e6)) * 10n ** 12n, mark, scenarios, spot: mark * 10, spotWad: BigInt(Math.round(mark * 10e6)) * 10n ** 12n };
}

/** A prospective order with its doubles (as flows/orders.ts writes them), its premium size x price. */
function order(seriesId: Hex, isBuy: boolean, size: bigint, price: bigint, worstFee: bigint): ProspectiveOrder {
  const premium = collateralOf(size, price);
  return { seriesId, isBuy, size, price, worstFee, premium, premiumN: Number(premium) <= Number.MAX_SAFE_INTEGER ? Number(premium) : -1, worstFeeN: Number(worstFee) <= Number.MAX_SAFE_INTEGER ? Number(worstFee) : -1 };
}

function rest(margin: MarginBook, p: Portfolio, seriesId: Hex, id: number, isBuy: boolean, remaining: bigint, price: bigint): number {
  const o = openTestOrder(margin.orders, p, { orderId: series(5000 + id), seriesId, ref: id, isBuy, remaining, price });
  margin.addOrder(p, o);
  return o;
}

/** The bigint check's verdict (flows/orders.ts checkAccount without its under-water rule). */
function passesInBigint(margin: MarginBook, p: Portfolio, orders: ProspectiveOrder[], exclude: number[]): boolean {
  const r = margin.requirement(p, orders, exclude);
  if (orders.some((o) => o.isBuy) && r.deposit < r.cashNeeded) return false;
  return r.equity >= r.initialMarginWithOrders;
}

t.test('the deposit at the bound: 2^53 - 1 decided in doubles, 2^53 left to bigint', async (t) => {
  const { margin, p, quotes } = book();
  quotes.publish(series(1), quote(1, () => 0));
  const o = order(series(1), true, SAFE * 10n ** 12n, WAD, 0n); // premium 2^53 - 1
  setDeposit(p, SAFE);
  t.ok(margin.fitsInDoubles(p, true, [o], [], 1, 0), 'cash needed = deposit = 2^53 - 1: passes in doubles');
  t.ok(passesInBigint(margin, p, [o], []));
  setDeposit(p, SAFE - 1n);
  t.notOk(margin.fitsInDoubles(p, true, [o], [], 1, 0), 'one unit short: not passed');
  t.notOk(passesInBigint(margin, p, [o], []), 'and the bigint check refuses');
  setDeposit(p, SAFE + 1n);
  t.notOk(margin.fitsInDoubles(p, true, [o], [], 1, 0), 'a deposit of 2^53 (wide): left to bigint');
  t.ok(passesInBigint(margin, p, [o], []), 'which passes it');
});

t.test("an order's premium and fee at the bound", async (t) => {
  const { margin, p, quotes } = book();
  quotes.publish(series(1), quote(1, () => 0));
  setDeposit(p, SAFE);
  const fee1 = order(series(1), true, (SAFE - 1n) * 10n ** 12n, WAD, 1n); // premium 2^53 - 2, fee 1: the sum 2^53 - 1
  t.ok(margin.fitsInDoubles(p, true, [fee1], [], 1, 0), 'premium + fee = 2^53 - 1: in doubles');
  const fee2 = order(series(1), true, (SAFE - 1n) * 10n ** 12n, WAD, 2n); // the sum 2^53
  t.notOk(margin.fitsInDoubles(p, true, [fee2], [], 1, 0), 'premium + fee = 2^53: left to bigint');
  t.notOk(passesInBigint(margin, p, [fee2], []), 'which refuses it (one unit more than the deposit)');
  const two = [order(series(1), true, 2n ** 52n * 10n ** 12n, WAD, 0n), order(series(1), true, 2n ** 52n * 10n ** 12n, WAD, 0n)];
  t.notOk(margin.fitsInDoubles(p, true, two, [], 2, 0), 'two orders whose cash sums to 2^53: left to bigint');
  const noDoubles: ProspectiveOrder = { seriesId: series(1), isBuy: true, size: WAD, price: WAD, worstFee: 0n };
  t.notOk(margin.fitsInDoubles(p, true, [noDoubles], [], 1, 0), 'an order without its doubles: left to bigint');
});

t.test('seeded checks: a pass in doubles is a pass in bigint, and within the bound every pass is found', async (t) => {
  let seed = 20261127;
  const rnd = (): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const big = (max: number): bigint => BigInt(Math.floor(rnd() * max));
  let passes = 0;
  let refusals = 0;
  let disagreements = 0;
  let unsound = 0;
  for (let c = 0; c < 3000; c++) {
    const { margin, p, quotes } = book();
    for (let k = 1; k <= 3; k++) quotes.publish(series(k), quote(0.5 + rnd() * 2, (s) => (s - 7) * 0.1 * rnd()));
    setDeposit(p, big(6e7));
    const resting: number[] = [];
    for (let k = 1; k <= 3; k++) {
      if (rnd() < 0.5) {
        p.positions.set(series(k), newPosition(series(k), 10n ** 16n, (big(2000) - 1000n) * 10n ** 16n, -big(1e8), 0n));
        margin.positionChanged(p, series(k));
      }
      for (let j = 0; j < 2; j++) if (rnd() < 0.5) resting.push(rest(margin, p, series(k), c * 10 + k * 2 + j, rnd() < 0.5, big(500) * 10n ** 16n + 10n ** 16n, big(3e6) * 10n ** 12n));
    }
    const n = 1 + Math.floor(rnd() * 3);
    const orders: ProspectiveOrder[] = [];
    for (let i = 0; i < n; i++) orders.push(order(series(1 + Math.floor(rnd() * 3)), rnd() < 0.5, big(800) * 10n ** 16n + 10n ** 16n, big(3e6) * 10n ** 12n, big(1e6)));
    const exclude = resting.filter(() => rnd() < 0.3);
    const buys = orders.some((o) => o.isBuy);
    const fast = margin.fitsInDoubles(p, buys, orders, exclude, orders.length, exclude.length);
    const slow = passesInBigint(margin, p, orders, exclude);
    if (fast && !slow) unsound++;
    if (fast !== slow) disagreements++;
    if (slow) passes++;
    else refusals++;
  }
  t.equal(unsound, 0, 'never a pass in doubles that bigint refuses');
  t.equal(disagreements, 0, 'within the bound, the same verdict every time');
  t.ok(passes > 300 && refusals > 300, `both verdicts exercised (${passes} passes, ${refusals} refusals)`);
});
