import t from 'tap';
import { balanceOf, premiumOf, realizedOf } from '../../engine/actors/position.ts';
import { listedVenue, BTC, ETH, ALICE, BOB, CAROL, MM, usdc, wad, T0 } from './support/venueFixture.ts';
import { listingExpiries } from '../../engine/domain/expiries.ts';
import { WAD } from '../../engine/domain/fixed.ts';
import type { OrderEvent, TradeEvent } from '../../engine/events.ts';
import { Venue } from '../../engine/venue.ts';
import { defaultVenueConfig } from '../../engine/config.ts';
import { EXPIRY_SLACK } from '../../engine/state.ts';
import type { Hex } from '../../engine/domain/hex.ts';

t.test('listing: every scheduled expiry on a +-30% strike grid, priced', async (t) => {
  const h = listedVenue();
  const s = h.venue.state;
  const expiries = new Set([...s.series.values()].filter((a) => a.spec.pairId === BTC).map((a) => a.spec.expiry));
  t.same([...expiries].sort(), listingExpiries(Math.floor(h.ts / 1000)), 'expiries follow the schedule');
  for (const a of s.series.values()) {
    const spot = s.oracles.get(a.spec.pairId)!.spot;
    t.ok(a.spec.strike >= (spot * 7n) / 10n && a.spec.strike <= (spot * 13n) / 10n, 'strike within 30% of spot');
    t.ok(a.marks && a.marks.mark >= 0n && a.marks.scenarios.length === 15, 'series has marks and 15 scenarios');
    if (t.passing() === false) break;
  }
  const again = h.ok({ type: 'clock' }, 1000);
  t.equal(again.events.filter((e) => e.type === 'series_listed').length, 0, 'a second clock lists nothing new');
});

t.test('cash: deposit, withdraw, transfer and their refusals', async (t) => {
  const h = listedVenue();
  h.fund(ALICE, usdc(1000));
  const p1 = () => h.venue.state.accounts.portfolio(ALICE, 1)!;
  t.equal(h.venue.state.accounts.depositOf(p1()), usdc(1000));
  t.equal((h.run({ type: 'deposit', owner: ALICE, portfolioId: 1, amount: 0n }) as { rejection: { code: string } }).rejection.code, 'bad_amount');
  t.equal((h.run({ type: 'deposit', owner: ALICE, portfolioId: 7, amount: 1n }) as { rejection: { code: string } }).rejection.code, 'unknown_portfolio');
  t.equal((h.run({ type: 'withdraw', owner: ALICE, portfolioId: 1, amount: usdc(1001) }) as { rejection: { code: string } }).rejection.code, 'insufficient_funds');
  h.ok({ type: 'withdraw', owner: ALICE, portfolioId: 1, amount: usdc(100) });
  t.equal(h.venue.state.accounts.depositOf(p1()), usdc(900));
  h.ok({ type: 'transfer', owner: ALICE, fromPortfolioId: 1, toPortfolioId: 0, amount: usdc(400) });
  t.equal(h.venue.state.accounts.depositOf(h.venue.state.accounts.portfolio(ALICE, 0)!), usdc(400));
  t.equal((h.run({ type: 'transfer', owner: ALICE, fromPortfolioId: 1, toPortfolioId: 1, amount: 1n }) as { rejection: { code: string } }).rejection.code, 'same_portfolio');
  t.equal((h.run({ type: 'transfer', owner: BOB, fromPortfolioId: 0, toPortfolioId: 1, amount: 1n }) as { rejection: { code: string } }).rejection.code, 'unknown_portfolio', 'another wallet has no portfolio 1');
});

t.test('matching: cross, partial fill, premium, fees, positions, open interest', async (t) => {
  const h = listedVenue();
  const call = h.atm(BTC, true);
  h.fund(ALICE, usdc(100_000));
  h.fund(BOB, usdc(100_000));
  const ask = h.order(ALICE, call, false, 2000, 1);
  const placed = h.ok({ type: 'place', orders: [ask] });
  t.match(placed.value, { outcomes: [{ status: 'open', filled: 0n, remaining: wad(1) }] });
  const bid = h.order(BOB, call, true, 2100, 0.4);
  const r = h.ok({ type: 'place', orders: [bid] });
  t.match(r.value, { outcomes: [{ status: 'filled', filled: wad(0.4), remaining: 0n, trades: [{ price: 2000n * WAD, size: wad(0.4) }] }] });
  const trade = r.events.find((e): e is TradeEvent => e.type === 'trade')!;
  t.equal(trade.price, 2000n * WAD, 'fills at the maker price');
  t.equal(trade.takerFee, usdc(12), 'taker fee = 0.03% x 100,000 x 0.4 (under the 12.5% premium cap)');
  t.equal(trade.makerFee, 0n);
  const makerEvent = r.events.find((e): e is OrderEvent => e.type === 'order' && e.orderId === ask.orderId)!;
  t.equal(makerEvent.status, 'partial');
  t.equal(makerEvent.remaining, wad(0.6));
  const a = h.venue.state.accounts;
  t.equal(balanceOf(a.portfolio(BOB, 1)!.positions.get(call)!), wad(0.4));
  t.equal(a.portfolio(BOB, 1)!.positions.get(call)!.premium, Number(-usdc(800)), 'long owes the deferred premium');
  t.equal(a.portfolio(ALICE, 1)!.positions.get(call)!.premium, Number(usdc(800)), 'short is owed it');
  t.equal(a.depositOf(a.portfolio(BOB, 1)!), usdc(100_000) - usdc(12), 'only the fee moved cash');
  t.equal(h.venue.state.openInterestWad(h.venue.state.series.get(call)!), wad(0.4));
  t.ok(r.events.some((e) => e.type === 'depth' && e.seriesId === call), 'depth change published');
});

t.test('price-time priority and self-trade prevention', async (t) => {
  const h = listedVenue();
  const put = h.atm(BTC, false);
  for (const w of [ALICE, BOB, CAROL]) h.fund(w, usdc(200_000));
  const first = h.order(ALICE, put, false, 1500, 1);
  const second = h.order(BOB, put, false, 1500, 1);
  const better = h.order(CAROL, put, false, 1490, 1);
  h.ok({ type: 'place', orders: [first, second, better] });
  const take = h.ok({ type: 'place', orders: [h.order(CAROL, put, true, 1500, 1.5)] });
  const trades = take.events.filter((e): e is TradeEvent => e.type === 'trade');
  t.same(trades.map((x) => x.maker), [ALICE, BOB].slice(0, 1).concat(trades.length > 1 ? [BOB] : []), 'own order skipped; then time priority');
  t.equal(trades[0]!.maker, ALICE, 'first in time at the level fills first');
  const stp = take.events.find((e): e is OrderEvent => e.type === 'order' && e.orderId === better.orderId)!;
  t.equal(stp.status, 'cancelled', 'the taker\'s own resting order is cancelled, not matched');
  t.equal(stp.reason, 'self_trade_prevention');
  t.equal(trades.reduce((s, x) => s + x.size, 0n), wad(1.5));
});

t.test('cancel, replace and their refusals', async (t) => {
  const h = listedVenue();
  const call = h.atm(ETH, true);
  h.fund(ALICE, usdc(50_000));
  h.fund(BOB, usdc(50_000));
  const o = h.order(ALICE, call, true, 50, 1);
  h.ok({ type: 'place', orders: [o] });
  const cancelBy = (owner: string, orderId = o.orderId) => ({ orderId, owner, nonce: h.nextNonce(owner), deadline: Math.floor(h.ts / 1000) + 60 });
  const foreign = h.run({ type: 'replace', pairs: [{ cancel: cancelBy(BOB), place: h.order(BOB, call, true, 51, 1) }] });
  t.equal(!foreign.ok && foreign.rejection.code, 'not_owner', 'replace of another owner\'s order');
  t.ok(h.venue.state.orderIndex.has(o.orderId), 'refused replace changed nothing');
  const unknown = h.run({ type: 'cancel', cancels: [cancelBy(ALICE, ('0x' + '1'.repeat(64)) as `0x${string}`)] });
  t.equal(!unknown.ok && unknown.rejection.code, 'unknown_order');
  const replacement = h.order(ALICE, call, true, 52, 2);
  const rep = h.ok({ type: 'replace', pairs: [{ cancel: cancelBy(ALICE), place: replacement }] });
  t.match(rep.value, { outcomes: [{ orderId: replacement.orderId, status: 'open' }] });
  t.notOk(h.venue.state.orderIndex.has(o.orderId), 'old order gone');
  const c = h.ok({ type: 'cancel', cancels: [cancelBy(ALICE, replacement.orderId)] });
  t.ok(c.events.some((e) => e.type === 'order' && e.status === 'cancelled'));
  t.equal(h.venue.state.accounts.portfolio(ALICE, 1)!.openOrders.size, 0, 'reservation released');
  const again = h.run({ type: 'cancel', cancels: [cancelBy(ALICE, replacement.orderId)] });
  t.equal(!again.ok && again.rejection.code, 'unknown_order', 'a finished order cannot be cancelled');
});

t.test('order validation refusals', async (t) => {
  const h = listedVenue();
  const call = h.atm(BTC, true);
  h.fund(ALICE, usdc(100_000));
  const code = (o: Parameters<typeof h.order>[5], price = 1000, size = 1) => {
    const r = h.run({ type: 'place', orders: [h.order(ALICE, call, true, price, size, o)] });
    return r.ok ? 'ok' : r.rejection.code;
  };
  t.equal(code({ size: wad(1) + 1n }), 'off_size_step', 'size off the size step');
  t.equal(code({ size: 0n }), 'below_min_size');
  t.equal(code({ size: wad(0.005) }), 'off_size_step');
  t.equal(code({ tick: 0 }), 'zero_price');
  t.equal(code({ seriesId: ('0x' + 'ab'.repeat(32)) as `0x${string}` }), 'unknown_series');
  t.equal(code({ deadline: Math.floor(h.ts / 1000) - 1 }), 'deadline_passed');
  t.equal(code({ expiry: Math.floor(h.ts / 1000) - 1 }), 'order_expiry_passed');
  t.equal(code({ portfolioId: 0 }), 'portfolio_reserved', 'portfolio 0 holds cash only for non-MMM wallets');
  t.equal(code({ portfolioId: 9 }), 'unknown_portfolio');
  const used = h.order(ALICE, call, true, 1000, 1);
  h.ok({ type: 'place', orders: [used] });
  t.equal(code({ nonce: used.nonce }), 'nonce_used', 'a nonce is single-use');
  const batch = Array.from({ length: 51 }, () => h.order(ALICE, call, true, 1000, 0.01));
  const big = h.run({ type: 'place', orders: batch });
  t.equal(!big.ok && big.rejection.code, 'batch_too_large');
  const mixed = [h.order(ALICE, call, true, 1000, 0.01), h.order(ALICE, call, true, 1000, 0.015)];
  const before = h.venue.stateHash();
  const m = h.run({ type: 'place', orders: mixed });
  t.equal(!m.ok && m.rejection.code, 'off_size_step', 'one bad entry rejects the batch');
  t.equal(h.venue.stateHash() === before || h.venue.state.orderIndex.has(mixed[0]!.orderId) === false, true, 'nothing of the batch applied');
});

t.test('margin, cash and open-interest refusals', async (t) => {
  const h = listedVenue();
  const call = h.atm(BTC, true);
  h.fund(ALICE, usdc(100));
  const short = h.run({ type: 'place', orders: [h.order(ALICE, call, false, 2000, 1)] });
  t.equal(!short.ok && short.rejection.code, 'insufficient_margin', 'an uncovered short needs margin');
  const buy = h.run({ type: 'place', orders: [h.order(ALICE, call, true, 2000, 1)] });
  t.equal(!buy.ok && buy.rejection.code, 'insufficient_cash', 'a buy needs cash for its premium and fee');
  h.ok({ type: 'place', orders: [h.order(ALICE, call, true, 50, 1)] });
  h.ok({ type: 'set_oi_caps', pairId: BTC, maxCallOI: wad(1), maxPutOI: 0n });
  h.fund(BOB, usdc(1_000_000));
  h.fund(CAROL, usdc(1_000_000));
  const over = h.run({ type: 'place', orders: [h.order(BOB, call, false, 1000, 2)] });
  t.equal(!over.ok && over.rejection.code, 'oi_cap', 'an order that could open beyond the cap is refused');
  h.ok({ type: 'place', orders: [h.order(BOB, call, false, 1000, 1)] });
  h.ok({ type: 'place', orders: [h.order(CAROL, call, true, 1000, 1)] });
  t.equal(h.venue.state.openInterestWad(h.venue.state.series.get(call)!), wad(1));
  const more = h.run({ type: 'place', orders: [h.order(CAROL, call, true, 1000, 0.5)] });
  t.equal(!more.ok && more.rejection.code, 'oi_cap', 'the cap is reached');
  const reduce = h.run({ type: 'place', orders: [h.order(CAROL, call, false, 900, 0.5)] });
  t.ok(reduce.ok, 'closing is allowed at the cap');
});

t.test('risk view: equity, margin, health, maxWithdraw', async (t) => {
  const h = listedVenue();
  const call = h.atm(BTC, true);
  h.fund(ALICE, usdc(100_000));
  h.fund(BOB, usdc(100_000));
  h.ok({ type: 'place', orders: [h.order(ALICE, call, false, 2000, 1)] });
  h.ok({ type: 'place', orders: [h.order(BOB, call, true, 2000, 1)] });
  const s = h.venue.state;
  const r = s.accounts.risk(s.accounts.portfolio(ALICE, 1)!);
  const mark = s.series.get(call)!.marks!.mark;
  t.equal(r.unrealizedPnl, (-1n * mark) / 10n ** 12n + usdc(2000), 'unrealized = balance x mark + premium');
  t.equal(r.equity, r.deposit + r.unrealizedPnl);
  t.ok(r.initialMargin >= usdc(10_000), 'at least the 10% short floor');
  t.equal(r.maintenanceMargin, (r.initialMargin * 8n + 9n) / 10n, 'maintenance = 80% of initial');
  t.equal(r.healthRatio, (r.equity * WAD) / r.maintenanceMargin);
  t.equal(r.maxWithdraw, r.equity - r.initialMarginWithOrders < r.deposit ? r.equity - r.initialMarginWithOrders : r.deposit);
  const empty = s.accounts.risk(s.accounts.cashPortfolio(CAROL, h.ts));
  t.ok(empty.healthRatio > 10n ** 60n && empty.isHealthy, 'no margin: a large finite health ratio');
});

t.test('closing realises PnL into cash', async (t) => {
  const h = listedVenue();
  const call = h.atm(BTC, true);
  h.fund(ALICE, usdc(100_000));
  h.fund(BOB, usdc(100_000));
  h.ok({ type: 'place', orders: [h.order(ALICE, call, false, 1000, 1)] });
  h.ok({ type: 'place', orders: [h.order(BOB, call, true, 1000, 1)] });
  const bobBefore = h.venue.state.accounts.depositOf(h.venue.state.accounts.portfolio(BOB, 1)!);
  h.ok({ type: 'place', orders: [h.order(ALICE, call, true, 1100, 0.5)] });
  const sold = h.ok({ type: 'place', orders: [h.order(BOB, call, false, 1100, 0.5)] });
  const bob = h.venue.state.accounts.portfolio(BOB, 1)!;
  const pos = bob.positions.get(call)!;
  t.equal(balanceOf(pos), wad(0.5));
  t.equal(realizedOf(pos), usdc(50), 'sold half at 1100 bought at 1000: +50');
  t.equal(premiumOf(pos), -usdc(500), 'the rest of the premium stays deferred');
  const fee = sold.events.reduce((sum, e) => sum + (e.type === 'trade' ? e.takerFee : 0n), 0n);
  t.ok(fee > 0n);
  t.equal(h.venue.state.accounts.depositOf(bob), bobBefore + usdc(50) - fee, 'cash moved by the realised PnL less the new taker fee');
});

t.test('good-till expiry leaves the book at the next clock', async (t) => {
  const h = listedVenue();
  const call = h.atm(BTC, true);
  h.fund(ALICE, usdc(100_000));
  const o = h.order(ALICE, call, true, 100, 1, { expiry: Math.floor(h.ts / 1000) + 10 });
  h.ok({ type: 'place', orders: [o] });
  t.ok(h.ok({ type: 'clock' }, 5_000).events.every((e) => e.type !== 'order'), 'not yet');
  const r = h.ok({ type: 'clock' }, 6_000);
  const ev = r.events.find((e): e is OrderEvent => e.type === 'order')!;
  t.equal(ev.status, 'expired');
  t.notOk(h.venue.state.orderIndex.has(o.orderId));
});

t.test('good-till: an order id that comes back after a cancel keeps its own good-till time', async (t) => {
  const h = listedVenue();
  const call = h.atm(BTC, true);
  h.fund(ALICE, usdc(100_000));
  const now = Math.floor(h.ts / 1000);
  const first = h.order(ALICE, call, true, 100, 1, { expiry: now + 10 });
  h.ok({ type: 'place', orders: [first] });
  h.ok({ type: 'cancel', cancels: [{ orderId: first.orderId, owner: ALICE, nonce: 1000n, deadline: now + 60 }] });
  // The engine takes ids as given (the gateway derives them from the signed message): the same id, a later good-till.
  const again = h.order(ALICE, call, true, 100, 1, { orderId: first.orderId, nonce: 1001n, expiry: now + 100 });
  h.ok({ type: 'place', orders: [again] });
  const atFirstExpiry = h.ok({ type: 'clock' }, 11_000);
  t.notOk(atFirstExpiry.events.some((e) => e.type === 'order'), 'the first order\'s good-till time does not expire the second');
  t.ok(h.venue.state.orderIndex.has(first.orderId), 'still open');
  const later = h.ok({ type: 'clock' }, 90_000);
  const ev = later.events.find((e): e is OrderEvent => e.type === 'order');
  t.equal(ev?.status, 'expired', 'it leaves at its own time');
  t.notOk(h.venue.state.orderIndex.has(first.orderId));
});

/**
 * A venue with ALICE funded on an at-the-money call, for the good-till tests, and `churn(n)`: a
 * market maker's n quotes good till an hour ahead (before the series' expiry, so each is tracked:
 * an order good till its series' expiry needs no entry), each cancelled at once; it returns the
 * heap's largest size and how many places swept it.
 */
function goodTillVenue() {
  const h = listedVenue();
  const call = h.atm(BTC, true);
  h.fund(ALICE, usdc(1_000_000));
  const s = h.venue.state;
  const now = Math.floor(h.ts / 1000);
  const cancel = (orderId: Hex) => h.ok({ type: 'cancel', cancels: [{ orderId, owner: ALICE, nonce: h.nextNonce(ALICE), deadline: now + 300 }] });
  const churn = (n: number): { largest: number; sweeps: number } => {
    if (!(now + 3_600 < s.series.get(call)!.spec.expiry)) throw new Error('the quotes must end before their series');
    let largest = 0;
    let sweeps = 0;
    for (let i = 0; i < n; i++) {
      const q = h.order(ALICE, call, false, 150, 1, { expiry: now + 3_600 });
      const before = s.expiryHeap.size;
      h.ok({ type: 'place', orders: [q] });
      if (s.expiryHeap.size <= before) sweeps++;
      cancel(q.orderId);
      largest = Math.max(largest, s.expiryHeap.size);
    }
    return { largest, sweeps };
  };
  return { h, call, s, now, cancel, churn };
}

t.test('good-till: entries of orders that left the book are swept, not kept until their time', async (t) => {
  const { h, call, now, churn } = goodTillVenue();
  const stay = [60, 120].map((dt) => h.order(ALICE, call, true, 100, 1, { expiry: now + dt }));
  h.ok({ type: 'place', orders: stay });
  const { largest, sweeps } = churn(3 * EXPIRY_SLACK);
  // Open: the two that stay and the quote just placed; a push past twice that plus the slack sweeps.
  t.ok(largest > EXPIRY_SLACK && largest <= 2 * 3 + EXPIRY_SLACK, `the heap grew to its sweep point and no further (largest ${largest})`);
  t.equal(sweeps, 2, 'swept twice over 3 x the slack of pushes');
  const left = h.ok({ type: 'clock' }, 0);
  t.notOk(left.events.some((e) => e.type === 'order'), 'nothing expires early');
  const first = h.ok({ type: 'clock' }, 61_000);
  t.same(first.events.filter((e): e is OrderEvent => e.type === 'order').map((e) => [e.orderId, e.status]), [[stay[0]!.orderId, 'expired']], 'the orders that stayed expire at their times');
  const second = h.ok({ type: 'clock' }, 60_000);
  t.same(second.events.filter((e): e is OrderEvent => e.type === 'order').map((e) => [e.orderId, e.status]), [[stay[1]!.orderId, 'expired']]);

  // Sweeps depend on the state alone: restored midway, a venue ends where the one that never stopped did.
  const mid = Math.floor(h.log.length / 2);
  const before = Venue.create(defaultVenueConfig);
  for (const c of h.log.slice(0, mid)) before.apply(c);
  const restored = Venue.restore(before.serialize());
  for (const c of h.log.slice(mid)) restored.apply(c);
  t.equal(restored.stateHash(), h.venue.stateHash(), 'same state hash after a restore midway');
});

t.test('good-till: a sweep keeps the entry of an order id that came back with the same time, its old slot taken by another order', async (t) => {
  const { h, call, s, now, cancel, churn } = goodTillVenue();
  const x = h.order(ALICE, call, true, 100, 1, { expiry: now + 600 });
  h.ok({ type: 'place', orders: [x] });
  const first = s.orderIndex.get(x.orderId)!;
  cancel(x.orderId);
  // Another order takes the freed slot; the id comes back on a new order, same good-till time, in another slot.
  h.ok({ type: 'place', orders: [h.order(ALICE, call, true, 99, 1, { expiry: now + 7_200 })] });
  h.ok({ type: 'place', orders: [{ ...h.order(ALICE, call, true, 100, 1, { expiry: now + 600 }), orderId: x.orderId }] });
  t.not(s.orderIndex.get(x.orderId), first, 'the id rests in another slot now');
  const entriesOf = () => s.expiryHeap.entries().filter(([, id]) => id === x.orderId).length;
  t.equal(entriesOf(), 2, 'both placements have their entry');
  const { sweeps } = churn(2 * EXPIRY_SLACK);
  t.ok(sweeps >= 1, `swept (${sweeps} times)`);
  // The stale entry is the id's at that time, as the index says (its slot hint no longer holds the id): kept, as before hints.
  t.equal(entriesOf(), 2, 'both entries kept by the sweep');
  const due = h.ok({ type: 'clock' }, 601_000);
  t.same(due.events.filter((e): e is OrderEvent => e.type === 'order').map((e) => [e.orderId, e.status]), [[x.orderId, 'expired']], 'the order expires once, at its time');
});

t.test('settlement at 08:00 UTC with the 30-minute TWAP', async (t) => {
  const h = listedVenue();
  const s = h.venue.state;
  const call = h.atm(BTC, true);
  const series = s.series.get(call)!;
  h.fund(ALICE, usdc(200_000));
  h.fund(BOB, usdc(200_000));
  h.ok({ type: 'place', orders: [h.order(ALICE, call, false, 1000, 1)] });
  h.ok({ type: 'place', orders: [h.order(BOB, call, true, 1000, 1)] });
  const resting = h.order(BOB, call, true, 500, 1);
  h.ok({ type: 'place', orders: [resting] });
  const expiryMs = series.spec.expiry * 1000;
  // Spot at strike+1000 for the first half of the window, strike+3000 for the second.
  const k = series.spec.strike;
  h.ts = expiryMs - 40 * 60_000;
  h.ok({ type: 'oracle', pairId: BTC, spot: k + 1000n * WAD, volatility: (6n * WAD) / 10n, riskFreeRate: WAD / 20n, marks: [] }, 0);
  h.ts = expiryMs - 15 * 60_000;
  h.ok({ type: 'oracle', pairId: BTC, spot: k + 3000n * WAD, volatility: (6n * WAD) / 10n, riskFreeRate: WAD / 20n, marks: [] }, 0);
  const bobCash = s.accounts.depositOf(s.accounts.portfolio(BOB, 1)!);
  const aliceCash = s.accounts.depositOf(s.accounts.portfolio(ALICE, 1)!);
  h.ts = expiryMs;
  const r = h.ok({ type: 'clock' }, 0);
  t.ok(series.settled, 'series settled');
  t.equal(series.settlementPrice, k + 2000n * WAD, 'TWAP of the last 30 minutes');
  t.ok(r.events.some((e) => e.type === 'series_settled'));
  t.ok(r.events.some((e) => e.type === 'order' && e.orderId === resting.orderId && e.status === 'expired'), 'open orders expire');
  t.equal(s.accounts.depositOf(s.accounts.portfolio(BOB, 1)!) - bobCash, usdc(2000) - usdc(1000), 'long: intrinsic 2000 less the deferred premium 1000');
  t.equal(s.accounts.depositOf(s.accounts.portfolio(ALICE, 1)!) - aliceCash, -usdc(2000) + usdc(1000), 'short pays intrinsic and receives its premium');
  t.notOk(s.accounts.portfolio(BOB, 1)!.positions.has(call), 'position closed');
  const after = h.run({ type: 'place', orders: [h.order(BOB, call, true, 500, 1)] });
  t.equal(!after.ok && after.rejection.code, 'series_settled');
  t.ok([...s.series.values()].some((a) => !a.settled && a.spec.expiry > series.spec.expiry), 'later expiries remain listed');
});

t.test('market makers: cash in portfolio 0, positions routed to an internal portfolio', async (t) => {
  const h = listedVenue();
  const call = h.atm(BTC, true);
  h.ok({ type: 'set_mmm', address: MM, isMmm: true });
  h.ok({ type: 'deposit', owner: MM, portfolioId: 0, amount: usdc(500_000) });
  h.fund(BOB, usdc(100_000));
  h.ok({ type: 'place', orders: [h.order(MM, call, false, 1000, 1, { portfolioId: 0 })] });
  const r = h.ok({ type: 'place', orders: [h.order(BOB, call, true, 1000, 1)] });
  const a = h.venue.state.accounts;
  const internal = [...a.walletPortfolios(a.walletOf(MM))].find((p) => p.internalPair === BTC)!;
  t.ok(internal && internal.id < 0, 'an internal trading portfolio for the pair');
  t.equal(balanceOf(internal.positions.get(call)!), -wad(1));
  t.equal(a.portfolio(MM, 0)!.positions.size, 0, 'portfolio 0 holds cash only');
  t.ok(r.events.some((e) => e.type === 'position' && e.owner === MM && e.portfolioId === 0), 'shown to clients as portfolio 0');
  t.ok(h.venue.state.accounts.risk(a.portfolio(MM, 0)!).initialMargin > 0n, 'margin counted on the cash portfolio');
});

t.test('RFQ: request, quote at the MMM nonce, fill; nonce increment cancels quotes', async (t) => {
  const h = listedVenue();
  const call = h.atm(BTC, true);
  h.ok({ type: 'set_mmm', address: MM, isMmm: true });
  h.ok({ type: 'deposit', owner: MM, portfolioId: 0, amount: usdc(500_000) });
  h.fund(ALICE, usdc(100_000));
  const nowSec = () => Math.floor(h.ts / 1000);
  const req = h.ok({ type: 'rfq_request', taker: ALICE, portfolioId: 1, seriesId: call, size: wad(1), takerIsBuying: true, expiresAt: nowSec() + 10 });
  const requestId = (req.value as { requestId: `0x${string}` }).requestId;
  t.ok(req.events.some((e) => e.type === 'rfq_created'));
  const quote = (n: number, extra = {}) => ({ quoteId: (`0x${String(n).padStart(64, '0')}`) as `0x${string}`, mmm: MM, taker: ALICE, seriesId: call, takerIsBuying: true, price: 1500n * WAD, size: wad(1), nonce: 0n, quoteExpiry: nowSec() + 20, ...extra });
  const notMmm = h.run({ type: 'rfq_quote', requestId, quote: quote(1, { mmm: BOB }) });
  t.equal(!notMmm.ok && notMmm.rejection.code, 'not_mmm');
  const stale = h.run({ type: 'rfq_quote', requestId, quote: quote(2, { nonce: 5n }) });
  t.equal(!stale.ok && stale.rejection.code, 'quote_invalid_nonce');
  const far = h.run({ type: 'rfq_quote', requestId, quote: quote(3, { quoteExpiry: nowSec() + 31 }) });
  t.equal(!far.ok && far.rejection.code, 'quote_expired', 'quoteExpiry at most 30 s ahead');
  const wrong = h.run({ type: 'rfq_quote', requestId, quote: quote(4, { takerIsBuying: false }) });
  t.equal(!wrong.ok && wrong.rejection.code, 'quote_mismatch');
  h.ok({ type: 'rfq_quote', requestId, quote: quote(5) });
  h.ok({ type: 'rfq_quote', requestId, quote: quote(6, { price: 1400n * WAD }) });
  h.ok({ type: 'mmm_nonce_increment', mmm: MM });
  const cancelled = h.run({ type: 'rfq_fill', requestId, quoteId: quote(5).quoteId, taker: ALICE, portfolioId: 1, fillSize: wad(1), nonce: 1n, deadline: nowSec() + 60 });
  t.equal(!cancelled.ok && cancelled.rejection.code, 'quote_invalid_nonce', 'InvalidNonce after the increment');
  h.ok({ type: 'rfq_quote', requestId, quote: quote(7, { nonce: 1n, price: 1450n * WAD }) });
  const fill = h.ok({ type: 'rfq_fill', requestId, quoteId: quote(7).quoteId, taker: ALICE, portfolioId: 1, fillSize: wad(1), nonce: 2n, deadline: nowSec() + 60 });
  const trade = fill.events.find((e): e is TradeEvent => e.type === 'trade')!;
  t.equal(trade.price, 1450n * WAD);
  t.equal(trade.source, 'rfq');
  t.ok(fill.events.some((e) => e.type === 'rfq_resolved' && e.status === 'filled'));
  t.equal(balanceOf(h.venue.state.accounts.portfolio(ALICE, 1)!.positions.get(call)!), wad(1));
  const r2 = h.ok({ type: 'rfq_request', taker: ALICE, portfolioId: 1, seriesId: call, size: wad(1), takerIsBuying: true, expiresAt: nowSec() + 10 });
  const expired = h.ok({ type: 'clock' }, 11_000);
  t.ok(expired.events.some((e) => e.type === 'rfq_resolved' && e.status === 'expired' && e.requestId === (r2.value as { requestId: string }).requestId));
});

t.test('clock never moves backwards', async (t) => {
  const h = listedVenue();
  const now = h.venue.state.now;
  h.ts = T0;
  h.ok({ type: 'clock' }, 0);
  t.equal(h.venue.state.now, now);
});
