/**
 * The book's tick range (uint32) in the engine's own rules: an order whose tick lies past it
 * is refused with `tick_too_large` (the gateway refuses such a price before, but a command may
 * reach the engine another way), and the liquidation pass, whose band edge can lie past it on
 * a pair with many tick decimals once a mark has run up, closes without sending such a tick to
 * the book (a purchase meets the book at the range's top, the fund takes the rest at the edge).
 */
import t from 'tap';
import { WAD } from '../../engine/domain/fixed.ts';
import { pairIdOf } from '../../engine/domain/ids.ts';
import { MAX_TICK } from '../../engine/book/assertArgs.ts';
import { tickToPrice } from '../../engine/domain/ticks.ts';
import type { LiquidationEvent } from '../../engine/events.ts';
import { Harness, listedVenue, ALICE, BOB, BTC, usdc } from './support/venueFixture.ts';
import { balanceOf } from '../../engine/actors/position.ts';

t.test('an order past the tick range is refused, one at its top is taken', async (t) => {
  const h = listedVenue();
  h.fund(ALICE, usdc(1_000_000_000));
  const seriesId = h.atm(BTC, true);
  const past = { ...h.order(ALICE, seriesId, false, 1, 0.01), tick: MAX_TICK + 1 };
  const open = h.venue.state.orderIndex.size;
  const r = h.run({ type: 'place', orders: [past] });
  t.equal(r.ok, false);
  t.match(!r.ok && r.rejection, { code: 'tick_too_large', details: { field: 'tick', maxTick: MAX_TICK } });
  t.equal(h.venue.state.orderIndex.size, open, 'no order rests');
  const top = { ...h.order(ALICE, seriesId, false, 1, 0.01), tick: MAX_TICK };
  t.equal(h.run({ type: 'place', orders: [top] }).ok, true, 'a sell at the range top rests');
});

t.test('liquidation past the tick range: a short call of an 8-decimal pair after a run-up', async (t) => {
  const XYZ = pairIdOf('XYZ-USDC');
  const h = new Harness();
  h.ok({ type: 'list_pair', pair: { symbol: 'XYZ-USDC', underlying: 'XYZ', quote: 'USDC', tickDecimals: 8, minSize: WAD / 100n, sizeStep: WAD / 100n, maxCallOI: 0n, maxPutOI: 0n } });
  const oracle = (spot: bigint) => ({ type: 'oracle' as const, pairId: XYZ, spot, volatility: (6n * WAD) / 10n, riskFreeRate: WAD / 20n, marks: [] });
  h.ok(oracle(10n * WAD));
  h.ok({ type: 'clock' });
  const seriesId = h.atm(XYZ, true);
  const mark = Number(h.venue.state.series.get(seriesId)!.marks!.mark) / 1e18;
  const price = Math.round(mark * 100) / 100;
  t.ok(price * 1e8 < MAX_TICK, `the call trades inside the range at first (${price})`);
  h.fund(ALICE, usdc(1_000_000));
  h.fund(BOB, usdc(200));
  h.ok({ type: 'place', orders: [h.order(ALICE, seriesId, true, price, 1)] });
  h.ok({ type: 'place', orders: [h.order(BOB, seriesId, false, price, 1)] });
  t.equal(balanceOf(h.venue.state.accounts.portfolio(BOB, 1)!.positions.get(seriesId)!), -WAD, 'bob is short one call');
  // The underlying runs up a hundredfold: the call's mark, and its band edge, lie past the range.
  const r = h.run(oracle(1_000n * WAD));
  t.equal(r.ok, true, 'the oracle update and its liquidation pass complete');
  const liq = r.events.find((e): e is LiquidationEvent & { seq: number; ts: number } => e.type === 'liquidation' && e.owner === BOB);
  t.ok(liq, 'bob is liquidated');
  const close = liq?.closes[0];
  t.equal(close?.counterparty, 'fund', 'no ask: the fund takes the purchase');
  t.ok(close !== undefined && close.price > tickToPrice(MAX_TICK, 8), `at the band edge, past the range's top price (${close?.price})`);
  t.equal(h.venue.state.accounts.portfolio(BOB, 1)!.positions.get(seriesId), undefined, 'the short is closed');
});
