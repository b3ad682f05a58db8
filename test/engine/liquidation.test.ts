/**
 * The liquidation pass and the insurance fund (extensions.md "Liquidation and the insurance
 * fund"), driven by price shocks with the oracle in manual mode (oracle commands in the test).
 * Each scenario is calibrated first: built once with a large deposit and shocked, so that the
 * deposit of the real run puts the portfolio's equity after the shock exactly where the
 * scenario needs it (equity moves one for one with the deposit; margin does not depend on it).
 * A fill that leaves a portfolio due (a large maker fee at a higher spot) is liquidated in
 * the command of the fill. Every scenario also checks the pass's properties: nothing sold below the band or intrinsic
 * value nor bought above the band, no open order left, the fee within the equity left, money
 * conserved but for recorded bad debt, and the engine's indexes consistent.
 */
import t, { type Test } from 'tap';
import { balanceOf, premiumOf } from '../../engine/actors/position.ts';
import type { Hex } from '../../engine/domain/hex.ts';
import { WAD } from '../../engine/domain/fixed.ts';
import type { LiquidationEvent, OracleEvent, OrderEvent, VenueEvent, TradeEvent } from '../../engine/events.ts';
import type { Portfolio } from '../../engine/actors/portfolio.ts';
import { INSURANCE_FUND_OWNER } from '../../engine/actors/insuranceFund.ts';
import { SCENARIOS } from '../../engine/risk/margin.ts';
import { Venue } from '../../engine/venue.ts';
import type { VenueConfig } from '../../engine/config.ts';
import { listedVenue, ALICE, BOB, MM, BTC, usdc, type Harness } from './support/venueFixture.ts';

// Each scenario builds its venue twice (calibration, then the run): about 10 s of CPU, more wall time on a loaded host.
t.setTimeout(300_000);

const VOL = (6n * WAD) / 10n;
const RATE = WAD / 20n;
const BIG = usdc(10_000_000);
const NO_FEES = { takerFeeRate: 0n, makerFeeRate: 0n };

const shockBody = (spot: bigint) => ({ type: 'oracle' as const, pairId: BTC, spot, volatility: VOL, riskFreeRate: RATE, marks: [] });

/** A series of BTC: the `rank`th expiry (0 = nearest), the strike nearest spot x (1 + offset). */
function seriesAt(h: Harness, isCall: boolean, rank: number, offset = 0): Hex {
  const s = h.venue.state;
  const spot = Number(s.oracles.get(BTC)!.spot) / 1e18;
  const live = [...s.series.values()].filter((a) => a.spec.pairId === BTC && a.spec.isCall === isCall && !a.settled);
  const expiries = [...new Set(live.map((a) => a.spec.expiry))].sort((a, b) => a - b);
  const at = live.filter((a) => a.spec.expiry === expiries[rank]);
  at.sort((a, b) => Math.abs(Number(a.spec.strike) / 1e18 - spot * (1 + offset)) - Math.abs(Number(b.spec.strike) / 1e18 - spot * (1 + offset)));
  return at[0]!.spec.seriesId;
}

const markOf = (h: Harness, seriesId: Hex) => Number(h.venue.state.series.get(seriesId)!.marks!.mark) / 1e18;
const portfolioOf = (h: Harness, owner: string, id = 1): Portfolio => h.venue.state.accounts.portfolio(owner, id)!;

/** Money as the venue holds it: every portfolio's cash plus its deferred premium (C6). */
function money(h: Harness): bigint {
  let sum = 0n;
  for (const p of h.venue.state.accounts.allPortfolios()) {
    sum += h.venue.state.accounts.depositOf(p);
    for (const pos of p.positions.values()) sum += premiumOf(pos);
  }
  return sum;
}

type Build = (h: Harness, deposit: bigint) => { owner: string; portfolioId: number };
type Scenario = { config?: Partial<VenueConfig>; fund: bigint; build: Build; shock: bigint; target: (f: Figures) => bigint; before?: (h: Harness, calibrated: Harness) => void };
type Figures = { equity: bigint; mm: bigint; mmWithOrders: bigint };

function figures(h: Harness, owner: string, id: number): Figures {
  const r = h.venue.state.accounts.risk(portfolioOf(h, owner, id));
  return { equity: r.equity, mm: r.maintenanceMargin, mmWithOrders: (r.initialMarginWithOrders * 8n + 9n) / 10n };
}

type Run = { h: Harness; events: readonly VenueEvent[]; liq: LiquidationEvent | undefined; owner: string; portfolioId: number; before: bigint; after: bigint };

/** Calibrate, then run the scenario for real; returns the shock's events. */
function run(sc: Scenario): Run {
  const probe = listedVenue(sc.config);
  const { owner, portfolioId } = sc.build(probe, BIG);
  probe.ok(shockBody(sc.shock));
  const f = figures(probe, owner, portfolioId);
  t.ok(f.equity >= f.mmWithOrders, 'calibration: the large deposit is not liquidated');
  const deposit = BIG - (f.equity - sc.target(f));
  const h = listedVenue(sc.config);
  h.ok({ type: 'insurance_fund_deposit', amount: sc.fund, reason: 'seed' });
  sc.build(h, deposit);
  sc.before?.(h, probe);
  const before = money(h);
  const r = h.ok(shockBody(sc.shock));
  const liq = r.events.find((e): e is LiquidationEvent => e.type === 'liquidation');
  return { h, events: r.events, liq, owner, portfolioId, before, after: money(h) };
}

/** ALICE sells `size` of `seriesId` to BOB at the mark (BOB's bid rests first). */
function shortTo(h: Harness, seriesId: Hex, size: number, portfolioId = 1, owner = ALICE): void {
  const px = Math.round(markOf(h, seriesId));
  h.ok({ type: 'place', orders: [h.order(BOB, seriesId, true, px, size)] });
  h.ok({ type: 'place', orders: [h.order(owner, seriesId, false, px, size, { portfolioId })] });
}

/** ALICE buys `size` of `seriesId` from BOB at the mark. */
function longFrom(h: Harness, seriesId: Hex, size: number): void {
  const px = Math.round(markOf(h, seriesId));
  h.ok({ type: 'place', orders: [h.order(BOB, seriesId, false, px, size)] });
  h.ok({ type: 'place', orders: [h.order(ALICE, seriesId, true, px, size)] });
}

function fundAll(h: Harness, deposit: bigint, owner = ALICE): void {
  h.fund(owner, deposit);
  h.fund(BOB, usdc(50_000_000));
}

/** The properties every liquidation keeps. */
function checkProperties(t: Test, r: Run): void {
  const { h, events, liq } = r;
  if (liq === undefined) return void t.fail('a liquidation');
  const oracle = events.find((e): e is OracleEvent => e.type === 'oracle')!;
  const spot = oracle.spot;
  const band = BigInt(h.venue.config.liquidationBandBps);
  for (const c of liq.closes) {
    const mark = oracle.marks.find((m) => m.seriesId === c.seriesId)!.mark;
    const spec = h.venue.state.series.get(c.seriesId)!.spec;
    const intrinsic = spec.isCall ? (spot > spec.strike ? spot - spec.strike : 0n) : spec.strike > spot ? spec.strike - spot : 0n;
    if (c.side === 'sell') {
      const lower = mark - (mark * band) / 10_000n;
      t.ok(c.price >= lower, `a sale at ${c.price} is not below the band (${lower})`);
      t.ok(c.price >= (intrinsic < mark ? intrinsic : mark), 'nor below intrinsic value');
    } else t.ok(c.price <= mark + (mark * band) / 10_000n, `a purchase at ${c.price} is not above the band`);
  }
  const left = [...h.venue.state.orderIndex.values()].filter((o) => h.venue.state.accounts.marginAnchor(h.venue.state.accounts.holderOf(o)) === h.venue.state.accounts.marginAnchor(portfolioOf(h, r.owner, r.portfolioId)));
  t.equal(left.length, 0, 'no open order of the portfolio is left');
  const cancelled = events.filter((e): e is OrderEvent => e.type === 'order' && e.cancelReason === 'liquidation');
  t.same(cancelled.map((e) => e.orderId).sort(), [...liq.cancelledOrders].sort(), 'each cancelled order has its event, cancelReason liquidation');
  const equity = h.venue.state.accounts.risk(portfolioOf(h, r.owner, r.portfolioId)).equity;
  t.ok(equity >= 0n, 'equity left is not negative (the fee is capped, a deficit is made good)');
  const full = (liq.closes.reduce((a, c) => a + (spot * c.size) / WAD / 10n ** 12n, 0n) * BigInt(h.venue.config.liquidationFeeBps)) / 10_000n;
  t.ok(liq.fee === full || (liq.fee < full && equity === 0n), `the fee (${liq.fee}) is LIQUIDATION_FEE_BPS of index price x size closed (${full}), or all the equity left`);
  t.equal(liq.fundPaid + liq.badDebt, liq.deficit, 'the deficit is the fund paid plus bad debt');
  t.equal(r.after - r.before, liq.badDebt, 'money is conserved but for recorded bad debt');
  t.equal(h.venue.state.verifyOrderIndex(), null, 'order index consistent');
  t.equal(h.venue.state.accounts.margin.verify(h.venue.state.accounts.allPortfolios()), null, 'margin book consistent');
  const restored = Venue.restore(h.venue.serialize());
  t.equal(restored.stateHash(), h.venue.stateHash(), 'the state after survives a snapshot');
}

t.test('orders only: cancelling the open orders restores health', async (t) => {
  let call: Hex = '0x';
  const r = run({
    fund: usdc(1_000_000),
    shock: 115_000n * WAD,
    build: (h, d) => {
      fundAll(h, d);
      call = seriesAt(h, true, 0);
      shortTo(h, call, 0.5);
      // Open sells far above the mark: no fill, but a large loss if they filled after a rise.
      for (let i = 0; i < 2; i++) h.ok({ type: 'place', orders: [h.order(ALICE, call, false, Math.round(markOf(h, call) * 1.5), 2)] });
      return { owner: ALICE, portfolioId: 1 };
    },
    target: (f) => (f.mmWithOrders * 95n) / 100n,
  });
  const { liq } = r;
  t.ok(liq, 'liquidated');
  t.equal(liq!.cancelledOrders.length, 2, 'both open orders cancelled');
  t.same(liq!.closes, [], 'no position closed');
  t.equal(liq!.fee, 0n, 'no fee: nothing closed');
  t.ok(liq!.trigger.equity < liq!.trigger.maintenanceMargin, 'the trigger: equity below maintenance margin with orders');
  t.equal(balanceOf(portfolioOf(r.h, ALICE).positions.get(call)!), -WAD / 2n, 'the position is untouched');
  t.ok(r.h.venue.state.accounts.risk(portfolioOf(r.h, ALICE)).isHealthy, 'healthy after the cancels');
  checkProperties(t, r);
});

t.test('a fill can make a portfolio due: the pass runs after it, in the same command', async (t) => {
  // A 10% maker fee (of index price x size), counted by the pre-trade check at the spot of the
  // time, is paid at the spot of the fill: after a rise, the fill of a resting sell costs more
  // than the headroom the oracle update left. The deposit is calibrated between the two.
  const config = { makerFeeRate: WAD / 10n, takerFeeRate: 0n };
  let call: Hex = '0x';
  let ask = 0;
  const build = (h: Harness, deposit: bigint) => {
    h.ok({ type: 'insurance_fund_deposit', amount: usdc(1_000_000), reason: 'seed' });
    fundAll(h, deposit);
    call = seriesAt(h, true, 1);
    shortTo(h, call, 1);
    ask = Math.round(markOf(h, call) * 1.5);
    h.ok({ type: 'place', orders: [h.order(ALICE, call, false, ask, 1)] });
  };
  const take = (h: Harness) => h.ok({ type: 'place', orders: [h.order(BOB, call, true, ask, 1)] });
  const probe = listedVenue(config);
  build(probe, BIG);
  probe.ok(shockBody(108_000n * WAD));
  const shocked = figures(probe, ALICE, 1);
  take(probe);
  const filled = figures(probe, ALICE, 1);
  const afterShock = shocked.equity - shocked.mmWithOrders;
  const afterFill = filled.equity - filled.mm;
  t.ok(afterFill < afterShock, 'the fill costs headroom (the maker fee)');
  const h = listedVenue(config);
  build(h, BIG - afterShock + (afterShock - afterFill) / 2n);
  const oracle = h.ok(shockBody(108_000n * WAD));
  t.notOk(oracle.events.some((e) => e.type === 'liquidation'), 'the rise alone leaves it due to nothing');
  const before = money(h);
  const r = take(h);
  const trade = r.events.findIndex((e) => e.type === 'trade');
  const at = r.events.findIndex((e) => e.type === 'liquidation');
  t.ok(trade >= 0 && at > trade, 'the fill, then the liquidation, in the command of the fill');
  const liq = r.events[at] as LiquidationEvent;
  t.equal(liq.owner, ALICE);
  t.ok(liq.trigger.equity < liq.trigger.maintenanceMargin, 'due after the fill');
  const fees = r.events.filter((e): e is TradeEvent => e.type === 'trade').reduce((a, e) => a + e.makerFee + e.takerFee, 0n);
  t.ok(fees > 0n, 'the maker fee was paid');
  // Money: what was there less the fill's fees (which leave the portfolios), but for bad debt.
  checkProperties(t, { h, events: [...oracle.events, ...r.events], liq, owner: ALICE, portfolioId: 1, before: before - fees, after: money(h) });
});

t.test('a healthy portfolio is left alone, and so is the fund', async (t) => {
  const h = listedVenue();
  h.ok({ type: 'insurance_fund_deposit', amount: usdc(1000), reason: 'seed' });
  fundAll(h, usdc(1_000_000));
  shortTo(h, seriesAt(h, true, 0), 1);
  const r = h.ok(shockBody(103_000n * WAD));
  t.notOk(r.events.some((e) => e.type === 'liquidation'), 'no liquidation');
  const bad = h.run({ type: 'insurance_fund_deposit', amount: 0n, reason: 'deposit' });
  t.equal(bad.ok ? null : bad.rejection.code, 'bad_amount', 'a deposit of 0 is refused');
  const ok = h.ok({ type: 'insurance_fund_deposit', amount: usdc(5), reason: 'deposit' });
  t.match(ok.events.find((e) => e.type === 'insurance_fund'), { reason: 'deposit', amount: usdc(5), balance: usdc(1005), badDebt: 0n });
  t.equal(h.venue.state.accounts.depositOf(portfolioOf(h, INSURANCE_FUND_OWNER)), usdc(1005), 'the fund is portfolio 1 of its wallet');
});

/** Partial closes: the equity just below maintenance margin, one step closes enough. */
function partial(withBook: boolean, t: Test, bandBps = 1000) {
  let call: Hex = '0x';
  let askPrice = 0;
  const r = run({
    config: { ...NO_FEES, liquidationBandBps: bandBps },
    fund: usdc(1_000_000),
    shock: 110_000n * WAD,
    build: (h, d) => {
      fundAll(h, d);
      call = seriesAt(h, true, 0);
      shortTo(h, call, 4);
      return { owner: ALICE, portfolioId: 1 };
    },
    target: (f) => (f.mm * 97n) / 100n,
    before: (h, probe) => {
      if (!withBook) return;
      askPrice = Math.round(markOf(probe, call) * 1.04);
      h.ok({ type: 'place', orders: [h.order(BOB, call, false, askPrice, 0.5)] });
    },
  });
  const { liq, h } = r;
  t.ok(liq, 'liquidated');
  t.ok(liq!.closes.length >= 1, 'something closed');
  const counterparty = liq!.closes[0]!.counterparty;
  t.equal(counterparty, withBook ? 'book' : 'fund', `the first close is against the ${withBook ? 'book' : 'fund'}`);
  if (withBook) t.equal(liq!.closes[0]!.price, BigInt(askPrice) * WAD, 'at the resting ask');
  else {
    const mark = (r.events.find((e): e is OracleEvent => e.type === 'oracle')!).marks.find((m) => m.seriesId === call)!.mark;
    const edge = ((mark + (mark * BigInt(bandBps)) / 10_000n) / 10n ** 16n) * 10n ** 16n;
    t.equal(liq!.closes[0]!.price, edge, `at the band edge (mark + ${bandBps / 100}%, on the tick grid)`);
    const trade = r.events.find((e): e is TradeEvent => e.type === 'trade' && e.source === 'liquidation')!;
    t.equal(trade.maker, INSURANCE_FUND_OWNER, 'the fund is the counterparty');
    t.equal(balanceOf(portfolioOf(h, INSURANCE_FUND_OWNER).positions.get(call)!), -liq!.closes[0]!.size, 'the fund holds what it took over');
  }
  const pos = portfolioOf(h, ALICE).positions.get(call)!;
  t.ok(balanceOf(pos) < 0n && balanceOf(pos) > -4n * WAD, 'a partial close: part of the short is left');
  const now = h.venue.state.accounts.risk(portfolioOf(h, ALICE));
  t.ok(now.isHealthy, 'maintenance margin met after');
  // It stopped as soon as that was so: without its last closing order (every close of it
  // reversed at its price) the portfolio was still below maintenance margin.
  const closing = r.events.filter((e): e is OrderEvent => e.type === 'order' && e.orderId.startsWith('0x11') && e.owner === ALICE);
  t.ok(closing.every((e) => e.status === 'filled' && e.instructions.timeInForce === 'IOC'), "the venue's closing orders are IOC and filled whole (book and fund)");
  let stepLeft = closing.at(-1)!.size;
  const undo: { seriesId: Hex; isBuy: boolean; size: bigint; price: bigint }[] = [];
  for (const c of [...liq!.closes].reverse()) {
    if (stepLeft <= 0n) break;
    undo.push({ seriesId: c.seriesId, isBuy: c.side === 'sell', size: c.size, price: c.price });
    stepLeft -= c.size;
  }
  const wi = h.venue.whatIf(ALICE, 1, undo)!;
  t.ok(wi.after.equity + liq!.fee < wi.after.maintenanceMargin, 'before its last closing order it was below maintenance margin');
  checkProperties(t, r);
}

t.test('a position larger than four of the largest orders closes in orders of at most maxOrderLots', async (t) => {
  let call: Hex = '0x';
  const r = run({
    config: { ...NO_FEES, maxOrderLots: 50 }, // 0.5 contract an order at most
    fund: usdc(1_000_000),
    shock: 110_000n * WAD,
    build: (h, d) => {
      fundAll(h, d);
      call = seriesAt(h, true, 0);
      for (let i = 0; i < 8; i++) shortTo(h, call, 0.5); // short 4 contracts: a quarter is 100 lots
      return { owner: ALICE, portfolioId: 1 };
    },
    target: (f) => (f.mm * 97n) / 100n,
  });
  const closing = r.events.filter((e): e is OrderEvent => e.type === 'order' && e.orderId.startsWith('0x11') && e.owner === ALICE);
  t.ok(closing.length >= 1, `closed (${closing.length} orders)`);
  // A quarter of the position (the usual step) is 100 lots: each order is capped at 50.
  t.ok(closing.every((e) => e.size <= WAD / 2n), `none above 50 lots of 0.01 (${closing.map((e) => e.size).join(', ')})`);
  t.ok(closing.every((e) => e.status === 'filled'), 'each filled whole');
  checkProperties(t, r);
});

t.test('partial close by the book', async (t) => partial(true, t));
t.test('no liquidity: the fund takes it at the band edge', async (t) => partial(false, t));
t.test('no liquidity, a band of 5% (LIQUIDATION_BAND_BPS 500): the fund takes it at that edge', async (t) => partial(false, t, 500));

function bankrupt(fund: bigint, t: Test): Run {
  let call: Hex = '0x';
  const r = run({
    fund,
    shock: 140_000n * WAD,
    build: (h, d) => {
      fundAll(h, d);
      call = seriesAt(h, true, 0);
      shortTo(h, call, 2);
      return { owner: ALICE, portfolioId: 1 };
    },
    target: () => -usdc(5_000),
  });
  const { liq, h } = r;
  t.ok(liq, 'liquidated');
  t.equal(portfolioOf(h, ALICE).positions.size, 0, 'every position closed');
  t.ok(liq!.deficit > 0n, 'bankrupt: a deficit');
  t.equal(liq!.fee, 0n, 'no fee out of negative equity');
  t.equal(h.venue.state.accounts.risk(portfolioOf(h, ALICE)).equity, 0n, 'the portfolio ends at zero');
  checkProperties(t, r);
  return r;
}

t.test('bankruptcy covered by the fund', async (t) => {
  const r = bankrupt(usdc(1_000_000), t);
  t.equal(r.liq!.fundPaid, r.liq!.deficit, 'the fund pays it all');
  t.equal(r.liq!.badDebt, 0n, 'no bad debt');
  t.notOk(r.events.some((e) => e.type === 'bad_debt'), 'no alert');
  t.match(r.events.find((e) => e.type === 'insurance_fund'), { reason: 'liquidation', amount: -r.liq!.deficit });
});

t.test('bankruptcy beyond the fund: bad debt and an alert', async (t) => {
  const r = bankrupt(usdc(1_000), t);
  t.equal(r.liq!.fundPaid, usdc(1_000), 'the fund pays what it has');
  t.equal(r.liq!.badDebt, r.liq!.deficit - usdc(1_000), 'the rest is bad debt');
  t.match(r.events.find((e) => e.type === 'bad_debt'), { liquidationId: r.liq!.liquidationId, owner: ALICE, amount: r.liq!.badDebt, totalBadDebt: r.liq!.badDebt });
  t.equal(r.h.venue.state.insurance.badDebt, r.liq!.badDebt, 'recorded in the engine state');
  t.equal(r.h.venue.state.accounts.depositOf(portfolioOf(r.h, INSURANCE_FUND_OWNER)), 0n, 'the fund is empty');
  const restored = Venue.restore(r.h.venue.serialize());
  t.equal(restored.state.insurance.badDebt, r.liq!.badDebt, 'bad debt survives a snapshot');
});

t.test('the fee is capped at the equity left after the closes', async (t) => {
  // The bankrupt scenario once more, with the equity after the shock set so that closing
  // everything (at the fund's band edge: the same closes whatever the equity, as the account
  // stays below maintenance margin until flat) leaves half the full fee.
  const probe = bankrupt(usdc(1_000_000), t);
  const loss = probe.liq!.deficit - usdc(5_000); // what the closes cost (the shock left -5,000 USDC)
  const spot = probe.events.find((e): e is OracleEvent => e.type === 'oracle')!.spot;
  const closed = probe.liq!.closes.reduce((a, c) => a + c.size, 0n);
  const fullFee = ((spot * closed) / WAD / 10n ** 12n) * BigInt(probe.h.venue.config.liquidationFeeBps) / 10_000n;
  t.ok(fullFee > 0n, 'a full fee to cap');
  const r = run({
    fund: usdc(1_000_000),
    shock: 140_000n * WAD,
    build: (h, d) => {
      fundAll(h, d);
      shortTo(h, seriesAt(h, true, 0), 2);
      return { owner: ALICE, portfolioId: 1 };
    },
    target: () => loss + fullFee / 2n,
  });
  const { liq, h } = r;
  if (liq === undefined) return void t.fail('liquidated');
  t.same(liq.closes, probe.liq!.closes, 'the same closes as the bankrupt run');
  t.equal(liq.fee, fullFee / 2n, 'the fee is the equity left, not the full fee');
  t.ok(liq.fee < fullFee, 'less than the full fee');
  t.equal(liq.deficit, 0n, 'so no deficit');
  t.equal(h.venue.state.accounts.risk(portfolioOf(h, ALICE)).equity, 0n, 'the portfolio ends at zero');
  checkProperties(t, r);
});

t.test("a market maker's internal trading portfolio", async (t) => {
  let call: Hex = '0x';
  const r = run({
    fund: usdc(1_000_000),
    shock: 110_000n * WAD,
    build: (h, d) => {
      h.ok({ type: 'set_mmm', address: MM, isMmm: true });
      h.ok({ type: 'deposit', owner: MM, portfolioId: 0, amount: d });
      h.fund(BOB, usdc(50_000_000));
      call = seriesAt(h, true, 0);
      shortTo(h, call, 3, 0, MM);
      // A resting sell far above the mark, and a bid on the put side: its open orders, which the pass cancels.
      h.ok({ type: 'place', orders: [h.order(MM, call, false, Math.round(markOf(h, call) * 1.5), 0.1, { portfolioId: 0 })] });
      const put = seriesAt(h, false, 0);
      h.ok({ type: 'place', orders: [h.order(MM, put, true, Math.max(1, Math.round(markOf(h, put) * 0.5)), 0.1, { portfolioId: 0 })] });
      return { owner: MM, portfolioId: 0 };
    },
    target: (f) => (f.mm * 9n) / 10n,
  });
  const { liq, h } = r;
  t.ok(liq, 'liquidated');
  t.equal(liq!.owner, MM);
  t.equal(liq!.portfolioId, 0, 'shown as its portfolio 0');
  t.equal(liq!.cancelledOrders.length, 2, 'its open orders (held by its internal portfolio) cancelled');
  t.ok(liq!.closes.length > 0, 'closes');
  const internal = [...h.venue.state.accounts.walletPortfolios(h.venue.state.accounts.walletOf(MM))].find((p) => p.internalPair === BTC)!;
  t.ok(balanceOf(internal.positions.get(call)!) > -3n * WAD, "the internal portfolio's short is reduced");
  t.ok(h.venue.state.accounts.risk(portfolioOf(h, MM, 0)).isHealthy, 'the margin account is healthy after');
  checkProperties(t, r);
});

/** The index of the worst of the 15 scenarios of the account's positions. */
function worstScenario(h: Harness, p: Portfolio): number {
  const totals = new Array<number>(SCENARIOS).fill(0);
  for (const pos of p.positions.values()) {
    const q = h.venue.state.marks.quote(pos.seriesId)!;
    for (let s = 0; s < SCENARIOS; s++) totals[s]! += (Number(balanceOf(pos)) / 1e18) * (q.scenarios[s]! - q.mark);
  }
  return totals.indexOf(Math.min(...totals));
}

type Leg = { isCall: boolean; rank: number; offset: number; size: number; long: boolean };

/** ALICE's two legs (the series of `seriesAt`), bought from or sold to BOB at the mark, then the shock: the scenario's run and the legs' series. */
function twoLegs(shock: bigint, legs: readonly [Leg, Leg], target: (f: Figures) => bigint, before: Scenario['before'] = () => {}): { r: Run; ids: [Hex, Hex] } {
  const ids: Hex[] = [];
  const r = run({
    fund: usdc(1_000_000),
    shock,
    build: (h, d) => {
      fundAll(h, d);
      ids.length = 0;
      for (const l of legs) ids.push(seriesAt(h, l.isCall, l.rank, l.offset));
      legs.forEach((l, i) => (l.long ? longFrom(h, ids[i]!, l.size) : shortTo(h, ids[i]!, l.size)));
      return { owner: ALICE, portfolioId: 1 };
    },
    target,
    before,
  });
  return { r, ids: ids as [Hex, Hex] };
}

/** Short calls 20% out of the money and `puts` long at-the-money puts, two expiries out; a 35% rise. */
const CFG = { rank: 2, callOffset: 0.2, putOffset: 0, calls: 2, puts: 20, target: 25, shock: 135_000n * WAD };
const flipLegs = (puts: number): [Leg, Leg] => [
  { isCall: true, rank: CFG.rank, offset: CFG.callOffset, size: CFG.calls, long: false },
  { isCall: false, rank: CFG.rank, offset: CFG.putOffset, size: puts, long: true },
];

t.test('short calls and long puts: the worst scenario flips side during the pass', async (t) => {
  let worstBefore = -1;
  const { r, ids: [call] } = twoLegs(CFG.shock, flipLegs(CFG.puts), (f) => (f.mm * BigInt(CFG.target)) / 100n,
    // The worst scenario at the shock, before any close: the calibration run's (not liquidated).
    (_h, probe) => void (worstBefore = worstScenario(probe, portfolioOf(probe, ALICE))),
  );
  const { liq, h } = r;
  t.ok(liq, 'liquidated');
  t.equal(liq!.closes[0]!.seriesId, call, 'the short calls go first: the largest contribution');
  t.equal(liq!.closes[0]!.side, 'buy');
  const p = portfolioOf(h, ALICE);
  const worstAfter = p.positions.size > 0 ? worstScenario(h, p) : -1;
  // Spot +30% with volatility +50% (the short calls' worst) before; a volatility fall (the long puts' worst) after.
  t.equal(worstBefore % 3, 2, 'before: the worst scenario is a volatility rise');
  t.equal(worstAfter % 3, 0, 'after the calls are bought back: a volatility fall');
  t.ok(liq!.closes.every((c) => c.seriesId === call), 'the pass stopped once healthy: the puts are kept');
  checkLargestFirst(t, r, balancesBefore(r));
  t.ok(h.venue.state.accounts.risk(p).isHealthy, 'healthy after');
  checkProperties(t, r);
});

t.test('short calls and long puts, further below maintenance margin: after the flip the pass sells the puts at the band edge', async (t) => {
  const { r, ids: [, put] } = twoLegs(CFG.shock, flipLegs(60), (f) => (f.mm * 2n) / 100n);
  const { liq } = r;
  if (liq === undefined) return void t.fail('liquidated');
  const worsts = checkLargestFirst(t, r, balancesBefore(r));
  t.equal(worsts[0]! % 3, 2, 'first the worst scenario is a volatility rise (the short calls)');
  t.equal(worsts.at(-1)! % 3, 0, 'then a volatility fall (the long puts): it flipped during the pass');
  const sales = liq.closes.filter((c) => c.seriesId === put);
  t.ok(sales.length > 0 && sales.every((c) => c.side === 'sell'), 'the puts are sold');
  const mark = r.events.find((e): e is OracleEvent => e.type === 'oracle')!.marks.find((m) => m.seriesId === put)!.mark;
  const edge = ((mark - mark / 10n + 10n ** 16n - 1n) / 10n ** 16n) * 10n ** 16n;
  t.ok(sales.every((c) => c.counterparty === 'fund' && c.price === edge), 'by the fund at the band edge (mark - 10%, onto the tick grid upward)');
  checkProperties(t, r);
});

t.test('long deep in-the-money calls sold: never below intrinsic value, even inside the band', async (t) => {
  const legs: [Leg, Leg] = [
    { isCall: true, rank: 0, offset: -0.4, size: 5, long: true },
    { isCall: false, rank: 0, offset: 0, size: 1, long: false },
  ];
  const { r, ids: [call] } = twoLegs(72_000n * WAD, legs, (f) => f.mm / 2n);
  const { liq, h } = r;
  if (liq === undefined) return void t.fail('liquidated');
  checkLargestFirst(t, r, balancesBefore(r));
  const sales = liq.closes.filter((c) => c.seriesId === call);
  t.ok(sales.length > 0 && sales.every((c) => c.side === 'sell' && c.counterparty === 'fund'), 'calls sold to the fund');
  const oracle = r.events.find((e): e is OracleEvent => e.type === 'oracle')!;
  const mark = oracle.marks.find((m) => m.seriesId === call)!.mark;
  const intrinsic = oracle.spot - h.venue.state.series.get(call)!.spec.strike;
  t.ok(intrinsic > mark - mark / 10n && intrinsic < mark, 'intrinsic value is inside the band: it is the floor');
  const floor = ((intrinsic + 10n ** 16n - 1n) / 10n ** 16n) * 10n ** 16n;
  t.ok(sales.every((c) => c.price === floor), `at intrinsic value (${Number(floor) / 1e18}), not the band edge`);
  checkProperties(t, r);
});

t.test('liquidationSpot: a shock just short of it leaves the portfolio alone, one just past it liquidates', async (t) => {
  let call: Hex = '0x';
  const setup = () => {
    const h = listedVenue();
    h.ok({ type: 'insurance_fund_deposit', amount: usdc(1_000_000), reason: 'seed' });
    fundAll(h, usdc(40_000));
    call = seriesAt(h, true, 1);
    shortTo(h, call, 1);
    return h;
  };
  const h = setup();
  const wi = h.venue.whatIf(ALICE, 1, [])!;
  const spot = wi.before.liquidationSpot;
  if (spot === null) return void t.fail('a short call has a liquidation spot');
  t.ok(spot > 100_000n * WAD && spot < 130_000n * WAD, `above the spot, for a short call (${Number(spot) / 1e18})`);
  const short = h.ok(shockBody((spot * 995n) / 1000n));
  t.notOk(short.events.some((e) => e.type === 'liquidation'), '0.5% below it: healthy');
  const past = setup();
  const r = past.ok(shockBody((spot * 1005n) / 1000n));
  t.ok(r.events.some((e) => e.type === 'liquidation'), '0.5% above it: liquidated');
  const after = h.venue.whatIf(ALICE, 1, [{ seriesId: call, isBuy: true, size: WAD, price: 1n * WAD }])!;
  t.equal(after.after.liquidationSpot, null, 'buying the call back: no position, no liquidation spot');
});

/** `n` wallets (addresses in a shuffled order, portfolios 1 and 2) each short one call, all due after one shock. */
function manyDue(n: number): { events: readonly VenueEvent[]; due: { owner: string; portfolioId: number }[] } {
  const shock = 130_000n * WAD;
  const probe = listedVenue(NO_FEES);
  fundAll(probe, BIG);
  shortTo(probe, seriesAt(probe, true, 0), 1);
  probe.ok(shockBody(shock));
  const f = figures(probe, ALICE, 1);
  const deposit = BIG - (f.equity - f.mm / 2n);
  const h = listedVenue(NO_FEES);
  h.ok({ type: 'insurance_fund_deposit', amount: usdc(100_000_000), reason: 'seed' });
  h.fund(BOB, usdc(500_000_000));
  const call = seriesAt(h, true, 0);
  const due: { owner: string; portfolioId: number }[] = [];
  for (let i = 0; i < n; i++) {
    const owner = `0x${((i * 7919 + 13) % 9973).toString(16).padStart(40, 'c')}`; // not in address order
    const portfolioId = i % 3 === 0 ? 2 : 1;
    if (portfolioId === 2) h.ok({ type: 'create_portfolio', owner });
    h.fund(owner, deposit, portfolioId);
    shortTo(h, call, 1, portfolioId, owner);
    due.push({ owner, portfolioId });
  }
  return { events: h.ok(shockBody(shock)).events, due };
}

for (const n of [5, 40]) {
  t.test(`${n} accounts due at once: each liquidated, in portfolio-id order then owner`, async (t) => {
    const { events, due } = manyDue(n);
    const liquidated = events.filter((e): e is LiquidationEvent => e.type === 'liquidation').map((e) => ({ owner: e.owner, portfolioId: e.portfolioId }));
    const expected = [...due].sort((a, b) => a.portfolioId - b.portfolioId || (a.owner < b.owner ? -1 : 1));
    t.same(liquidated, expected, 'every one, in order');
  });
}

/** Each position's margin contribution (extensions.md: loss in the account's worst scenario now, or its short floor): the rule's oracle, over a map of balances. */
function contributions(h: Harness, balances: ReadonlyMap<Hex, bigint>): { worst: number; bySeries: Map<Hex, number> } {
  const s = h.venue.state;
  const totals = new Array<number>(SCENARIOS).fill(0);
  for (const [seriesId, balance] of balances) {
    const q = s.marks.quote(seriesId)!;
    for (let k = 0; k < SCENARIOS; k++) totals[k]! += (Number(balance) / 1e18) * (q.scenarios[k]! - q.mark);
  }
  const worst = totals.indexOf(Math.min(...totals));
  const floorRate = Number(s.config.shortFloorRate) / 1e18;
  const bySeries = new Map<Hex, number>();
  for (const [seriesId, balance] of balances) {
    if (balance === 0n) continue;
    const q = s.marks.quote(seriesId)!;
    const b = Number(balance) / 1e18;
    bySeries.set(seriesId, Math.max(-b * (q.scenarios[worst]! - q.mark), b < 0 ? floorRate * q.spot * -b : 0));
  }
  return { worst, bySeries };
}

/** The account's balances before the pass: after it, with every close undone. */
function balancesBefore(r: Run): Map<Hex, bigint> {
  const start = new Map([...portfolioOf(r.h, r.owner, r.portfolioId).positions.values()].map((p) => [p.seriesId, balanceOf(p)]));
  for (const c of r.liq?.closes ?? []) start.set(c.seriesId, (start.get(c.seriesId) ?? 0n) + (c.side === 'buy' ? -c.size : c.size));
  return start;
}

/** Replays the pass's closing orders from the balances before it: each one is for the position with the largest contribution then. Returns the worst scenario before each. */
function checkLargestFirst(t: Test, r: Run, start: ReadonlyMap<Hex, bigint>): number[] {
  const balances = new Map(start);
  const worsts: number[] = [];
  const closing = r.events.filter((e): e is OrderEvent => e.type === 'order' && e.orderId.startsWith('0x11') && e.owner === r.owner);
  for (const o of closing) {
    const { worst, bySeries } = contributions(r.h, balances);
    worsts.push(worst);
    const largest = Math.max(...bySeries.values());
    t.equal(bySeries.get(o.seriesId), largest, `closing order ${o.orderId.slice(-2)}: the largest contribution (worst scenario ${worst})`);
    const b = balances.get(o.seriesId)!;
    balances.set(o.seriesId, b < 0n ? b + o.size : b - o.size);
  }
  return worsts;
}

