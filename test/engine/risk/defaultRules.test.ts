/**
 * The venue's default rules pinned to exact values (engine/config.ts): the 10% short-option
 * margin floor and the 12.5%-of-premium cap of the taker fee. A far out-of-the-money short
 * has a tiny scenario loss, so its initial margin is the floor alone; a cheap fill has a
 * premium so small that the cap, not 0.03% of notional, sets the taker fee.
 */
import t from 'tap';
import type { Hex } from '../../../engine/domain/hex.ts';
import type { TradeEvent } from '../../../engine/events.ts';
import { listedVenue, BTC, ALICE, BOB, usdc, type Harness } from '../support/venueFixture.ts';

/** The nearest expiry's highest-strike BTC call: far out of the money (spot 100,000). */
function farCall(h: Harness): { id: Hex; strike: bigint } {
  let best: { id: Hex; strike: bigint; expiry: number } | null = null;
  for (const s of h.venue.state.series.values()) {
    if (s.spec.pairId !== BTC || !s.spec.isCall || s.settled) continue;
    if (!best || s.spec.expiry < best.expiry || (s.spec.expiry === best.expiry && s.spec.strike > best.strike)) best = { id: s.spec.seriesId, strike: s.spec.strike, expiry: s.spec.expiry };
  }
  if (best === null) throw new Error('no BTC call listed');
  return best;
}

t.test('a far out-of-the-money short: initial margin is exactly 10% of spot x size', async (t) => {
  const h = listedVenue();
  const call = farCall(h);
  t.equal(call.strike, 130_000n * 10n ** 18n, 'strike 130,000: the top of the +-30% grid');
  h.fund(ALICE, usdc(100_000));
  h.fund(BOB, usdc(100_000));
  const s = h.venue.state;
  h.ok({ type: 'place', orders: [h.order(ALICE, call.id, false, 1, 1)] });
  const resting = s.accounts.risk(s.accounts.portfolio(ALICE, 1)!);
  t.equal(resting.initialMargin, 0n, 'no position yet');
  t.equal(resting.initialMarginWithOrders, usdc(10_000), 'an open sell of 1 counts the floor it would need: 10% x 100,000 x 1');
  h.ok({ type: 'place', orders: [h.order(BOB, call.id, true, 1, 1)] });
  const short = s.accounts.risk(s.accounts.portfolio(ALICE, 1)!);
  t.equal(short.initialMargin, usdc(10_000), 'short 1 BTC call: initial margin = 10% x 100,000 x 1');
  t.equal(short.maintenanceMargin, usdc(8_000), 'maintenance = 80% of it');
  t.equal(short.maxWithdraw, short.equity - usdc(10_000), 'the floor is held back from withdrawals');
});

t.test('a cheap fill: the taker fee is capped at exactly 12.5% of the premium', async (t) => {
  const h = listedVenue();
  const call = farCall(h);
  h.fund(ALICE, usdc(100_000));
  h.fund(BOB, usdc(100_000));
  h.ok({ type: 'place', orders: [h.order(ALICE, call.id, false, 1, 1)] });
  const r = h.ok({ type: 'place', orders: [h.order(BOB, call.id, true, 1, 1)] });
  const trade = r.events.find((e): e is TradeEvent => e.type === 'trade');
  if (trade === undefined) throw new Error('no trade');
  t.equal(trade.price, 10n ** 18n, 'filled at 1 USDC');
  // 0.03% of the notional (100,000 x 1) would be 30 USDC; the premium is 1 USDC.
  t.equal(trade.takerFee, 125_000n, 'taker fee = 12.5% x 1 USDC = 0.125 USDC, not 30 USDC');
  t.equal(trade.makerFee, 0n);
  t.equal(h.venue.state.accounts.depositOf(h.venue.state.accounts.portfolio(BOB, 1)!), usdc(100_000) - 125_000n, "and that is what the taker's account paid");
});
