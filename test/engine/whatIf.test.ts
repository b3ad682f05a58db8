/**
 * Margin what-if (extensions.md "Margin what-if"): `before` is the portfolio's figures as its
 * portfolio event carries them; `after` is what the engine itself shows once the orders
 * really fill at those prices (a copy of the venue fills them); the query changes nothing;
 * `allowed` is the pre-trade check's answer.
 */
import t from 'tap';
import { Venue, type PortfolioEvent } from '../../engine/index.ts';
import { listedVenue, wireApply, ALICE, BOB, BTC, usdc, wad } from './support/venueFixture.ts';

t.test('before and after: the engine figures now, and after the fill really happens', async (t) => {
  const h = listedVenue();
  h.fund(ALICE, usdc(200_000));
  h.fund(BOB, usdc(200_000));
  const call = h.atm(BTC, true);
  const put = h.atm(BTC, false);
  const mark = Number(h.venue.state.series.get(call)!.marks!.mark) / 1e18;
  const price = Math.round(mark * 1.02 * 100) / 100;
  // Bob rests the asks Alice would take.
  h.ok({ type: 'place', orders: [h.order(BOB, call, false, price, 0.5), h.order(BOB, put, false, Math.round((Number(h.venue.state.series.get(put)!.marks!.mark) / 1e18) * 1.02 * 100) / 100, 0.3)] });
  const hash = h.venue.stateHash();
  const orders = [{ seriesId: call, isBuy: true, size: wad(0.5), price: BigInt(Math.round(price * 100)) * 10n ** 16n }];
  const w = h.venue.whatIf(ALICE, 1, orders)!;
  t.equal(h.venue.stateHash(), hash, 'the query changes nothing');
  t.equal(w.allowed, true);
  t.equal(w.reason, null);

  // `before` is what the portfolio event says now.
  const copy = Venue.restore(h.venue.serialize());
  const noop = wireApply(copy)({ type: 'deposit', owner: ALICE, portfolioId: 1, amount: 1n, seq: h.seq + 1, ts: h.ts + 1 });
  const ev = noop.events.find((e): e is PortfolioEvent => e.type === 'portfolio')!;
  t.equal(w.before.equity + 1n, ev.equity, 'before: equity (one micro unit deposited since)');
  t.equal(w.before.initialMargin, ev.initialMargin, 'before: initial margin');
  t.equal(w.before.maintenanceMargin, ev.maintenanceMargin, 'before: maintenance margin');

  // `after` is what the engine shows once Alice's order really fills at that price.
  const real = Venue.restore(h.venue.serialize());
  const fill = wireApply(real)({ type: 'place', orders: [{ ...h.order(ALICE, call, true, price, 0.5) }], seq: h.seq + 1, ts: h.ts });
  t.ok(fill.ok && fill.events.some((e) => e.type === 'trade'), 'the order fills against the ask');
  const after = fill.events.find((e): e is PortfolioEvent => e.type === 'portfolio' && e.owner === ALICE)!;
  t.equal(w.after.equity, after.equity, 'after: equity as the engine has it');
  t.equal(w.after.initialMargin, after.initialMargin, 'after: initial margin');
  t.equal(w.after.maintenanceMargin, after.maintenanceMargin, 'after: maintenance margin');
  t.equal(w.after.healthRatio, after.healthRatio, 'after: health');
  t.equal(w.after.maxWithdraw, after.maxWithdraw, 'after: max withdraw');
  t.equal(w.after.worstScenario.spotShock, -0.3, 'a long call loses most when spot falls');
  t.ok(w.after.worstScenario.pnl < 0n, 'and loses there');
  t.equal(w.before.worstScenario.pnl, 0n, 'no position before: nothing to lose');
});

t.test('allowed is the pre-trade check: a short far beyond the margin is refused', async (t) => {
  const h = listedVenue();
  h.fund(ALICE, usdc(1_000));
  const put = h.atm(BTC, false);
  const w = h.venue.whatIf(ALICE, 1, [{ seriesId: put, isBuy: false, size: wad(50), price: 10n ** 18n }])!;
  t.equal(w.allowed, false);
  t.equal(w.reason, 'insufficient_margin');
  t.ok(w.after.initialMargin > w.after.equity, 'the margin after exceeds the equity');
  t.ok(w.after.healthRatio < 10n ** 18n, 'unhealthy after');
  const cash = h.venue.whatIf(ALICE, 1, [{ seriesId: put, isBuy: true, size: wad(50), price: 1_000n * 10n ** 18n }])!;
  t.equal(cash.reason, 'insufficient_cash', 'a buy beyond the cash');
  t.equal(h.venue.whatIf(ALICE, 9, []), null, 'a portfolio the wallet does not have');
});
