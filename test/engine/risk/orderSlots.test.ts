/**
 * Open orders counted from their slots (engine/actors/openOrders.ts) in lots and ticks, against
 * the WAD formulas they replace: a buy's reservation (lots x tick x the pair's factor in doubles)
 * equals collateralOf(remaining WAD, price WAD) to the unit, exact to 2^53 - 1 and NaN (the
 * bigint count) beyond; an exposure's open sells in lots pass 2^53 - 1 lots into bigint and its
 * short floor stays Number(WAD) / 1e18's; a partial fill recounts from the lots left.
 */
import t from 'tap';
import type { Hex } from '../../../engine/domain/hex.ts';
import { MarginBook } from '../../../engine/risk/marginBook.ts';
import { floorUnits } from '../../../engine/risk/marginBook.ts';
import { QuoteBoard, type RiskQuote } from '../../../engine/risk/riskQuote.ts';
import { SCENARIOS } from '../../../engine/risk/margin.ts';
import { exactOf } from '../../../engine/risk/exactCash.ts';
import { CashRows } from '../../../engine/actors/cashRows.ts';
import { OrderSlots } from '../../../engine/actors/openOrders.ts';
import { newPortfolio, type Portfolio } from '../../../engine/actors/portfolio.ts';
import type { OrderRecord } from '../../../engine/actors/orderRecord.ts';
import { collateralOf } from '../../../engine/actors/position.ts';
import { lotNumberOf } from '../../../engine/domain/lots.ts';
import { premiumPerLotTick } from '../../../engine/domain/premium.ts';
import { tickToPrice, tickToPx } from '../../../engine/domain/ticks.ts';
import { DEFAULT_INSTRUCTIONS } from '../../../engine/domain/instructions.ts';
import { prng, randInt } from '../domain/prng.ts';

const SAFE = 2 ** 53 - 1;
const series = (n: number): Hex => `0x${n.toString(16).padStart(64, '0')}` as Hex;

function book(): { margin: MarginBook; p: Portfolio; quotes: QuoteBoard } {
  const quotes = new QuoteBoard();
  const cash = new CashRows();
  cash.ensure(0);
  return { margin: new MarginBook(quotes, cash, new OrderSlots(), (p) => p, (p) => [p], 0.1), p: newPortfolio(`0x${'e'.repeat(40)}`, 0, 0, 1, 0), quotes };
}

let nextId = 1;
/** Rest `lots` lots at `tick` on a pair of size step `lot` and `tickDecimals`, as the account actor does (the factor used when the price is the tick's). */
function rest(margin: MarginBook, p: Portfolio, seriesId: Hex, isBuy: boolean, lots: number, tick: number, lot: bigint, tickDecimals: number): number {
  const id = nextId++;
  const record = { orderId: series(9000 + id), seriesId, ref: id, owner: p.owner, ownerIndex: 0, portfolioId: p.id, routedPortfolioId: p.id, isBuy, tick, lots, filledLots: 0, status: 'open', expiry: 0, createdAt: 0, instructions: DEFAULT_INSTRUCTIONS } satisfies OrderRecord;
  const o = margin.orders.open(record, { pairId: series(0), holder: p.handle, lots, price: tickToPrice(tick, tickDecimals), px: tickToPx(tick, tickDecimals), lot, lotNumber: lotNumberOf(lot), perLotTick: premiumPerLotTick(lot, tickDecimals) });
  margin.addOrder(p, o);
  return o;
}

const want = (lots: number, tick: number, lot: bigint, tickDecimals: number): number => exactOf(collateralOf(BigInt(lots) * lot, tickToPrice(tick, tickDecimals)));
const same = (a: number, b: number): boolean => a === b || (Number.isNaN(a) && Number.isNaN(b));

t.test("a buy's reservation from lots and ticks: collateralOf's to the unit, at the bound and beyond", async (t) => {
  const { margin, p } = book();
  // Size step 10^14 WAD and ticks of 0.01: one lot-tick is 1 COLLATERAL6, so lots x tick is the reservation.
  const lot = 10n ** 14n;
  t.equal(premiumPerLotTick(lot, 2), 1);
  // 2^53 - 1 = 6361 x 69431 x 20394401.
  const atBound = rest(margin, p, series(1), true, 6361 * 69431, 20394401, lot, 2);
  t.equal(margin.exposures.oReserve[atBound], SAFE, '2^53 - 1: in a double');
  t.equal(margin.cash(p).buyReserve, BigInt(SAFE));
  margin.dropOrder(p, atBound);
  margin.orders.close(atBound);
  const beyond = rest(margin, p, series(1), true, 2 ** 26, 2 ** 27, lot, 2);
  t.ok(Number.isNaN(margin.exposures.oReserve[beyond]!), '2^53: not a double, counted in bigint');
  t.equal(margin.cash(p).buyReserve, 2n ** 53n, 'the account counts it to the unit');
  t.equal(margin.verify([p]), null);
  margin.reduceOrder(p, beyond, 1);
  t.equal(margin.exposures.oReserve[beyond], 2 ** 53 - 2 ** 27, 'a partial fill: recounted from the lots left, back in doubles');
  t.equal(margin.verify([p]), null);

  // Seeded orders across size steps and tick sizes, the factor whole or not (0: the bigint formula).
  const rnd = prng(31);
  const steps = [10n ** 16n, 10n ** 14n, 10n ** 12n, 5n * 10n ** 15n, 10n ** 18n, 1n];
  let bad = 0;
  let inDoubles = 0;
  for (let i = 0; i < 20_000; i++) {
    const q = book();
    const lot = steps[randInt(rnd, 0, steps.length - 1)]!;
    const tickDecimals = randInt(rnd, 0, 6);
    const lots = rnd() < 0.1 ? randInt(rnd, 2 ** 20, 2 ** 40) : randInt(rnd, 1, 10_000);
    const tick = rnd() < 0.1 ? randInt(rnd, 2 ** 20, 2 ** 32 - 1) : randInt(rnd, 1, 100_000);
    const o = rest(q.margin, q.p, series(2), true, lots, tick, lot, tickDecimals);
    const got = q.margin.exposures.oReserve[o]!;
    if (!same(got, want(lots, tick, lot, tickDecimals))) bad++;
    if (premiumPerLotTick(lot, tickDecimals) !== 0 && !Number.isNaN(got)) inDoubles++;
  }
  t.equal(bad, 0, "every reservation equals collateralOf's");
  t.ok(inDoubles > 5_000, `most through the double path (${inDoubles})`);
});

/** Scenarios around a mark with a spot: enough for floors. */
function quote(): RiskQuote {
  const scenarios = new Float64Array(SCENARIOS);
  for (let s = 0; s < SCENARIOS; s++) scenarios[s] = 50 + s;
  return { markWad: 50n * 10n ** 18n, mark: 50, scenarios, spot: 1000, spotWad: 1000n * 10n ** 18n };
}

t.test("an exposure's open sells in lots, beyond 2^53 - 1 lots in bigint; its floor Number(WAD) / 1e18's", async (t) => {
  const { margin, p, quotes } = book();
  const s = series(3);
  quotes.publish(s, quote());
  const lot = 1n; // 1 WAD a lot: 2^53 lots are 0.009 contract
  const floorOf = (sellWad: bigint): number => floorUnits(0.1, 1000, Number(sellWad) / 1e18);
  const a = rest(margin, p, s, false, SAFE, 1, lot, 18);
  t.equal(margin.exposureSums(p, s)!.sellWad, BigInt(SAFE));
  t.equal(margin.exposureSums(p, s)!.floorOrd, floorOf(BigInt(SAFE)));
  const b = rest(margin, p, s, false, 2, 1, lot, 18);
  t.equal(margin.exposureSums(p, s)!.sellWad, BigInt(SAFE) + 2n, '2^53 + 1 lots (not a double): summed in bigint, exactly');
  t.equal(margin.exposureSums(p, s)!.floorOrd, floorOf(BigInt(SAFE) + 2n));
  t.equal(margin.verify([p]), null, 'a rebuild counts the same');
  margin.reduceOrder(p, b, 1);
  t.equal(margin.exposureSums(p, s)!.sellWad, BigInt(SAFE) + 1n, 'a partial fill: 2^53 lots, still in bigint');
  margin.dropOrder(p, a);
  t.equal(margin.exposureSums(p, s)!.sellWad, 1n, 'back within the bound');
  t.equal(margin.exposureSums(p, s)!.floorOrd, floorOf(1n));
  margin.dropOrder(p, b);
  t.equal(margin.exposureSums(p, s), null, 'nothing left: the exposure dropped');
  t.equal(margin.verify([p]), null);
});
