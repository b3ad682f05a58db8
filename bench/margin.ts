/**
 * Margin checks per second for portfolios of 1, 10 and 100 positions (issue 2/7): the
 * 15-scenario risk of a portfolio is a sum over positions of precomputed scenario values,
 * so a check should cost microseconds. Positions are built through real trades on a listed
 * venue. No peer: `peer` is null. The headline value is the 10-position rate.
 */
import { report } from './lib/report.ts';
import { percentile, nowNs } from './lib/stats.ts';
import { listedVenue, ALICE, BOB, BTC, ETH, usdc } from '../test/engine/support/venueFixture.ts';

const h = listedVenue();
h.fund(ALICE, usdc(1_000_000_000));
h.fund(BOB, usdc(1_000_000_000));
const series = [...h.venue.state.series.values()].filter((s) => s.spec.pairId === BTC || s.spec.pairId === ETH).slice(0, 100);

const results: Record<string, { perSec: number; p50: number; p99: number }> = {};
let built = 0;
for (const n of [1, 10, 100]) {
  for (; built < n; built++) {
    const s = series[built]!;
    const price = Math.max(0.1, Math.round((Number(s.marks!.mark) / 1e18) * 10) / 10);
    h.ok({ type: 'place', orders: [h.order(ALICE, s.spec.seriesId, false, price, 1)] });
    h.ok({ type: 'place', orders: [h.order(BOB, s.spec.seriesId, true, price, 1)] });
  }
  const state = h.venue.state;
  const portfolio = state.accounts.portfolio(BOB, 1)!;
  if (portfolio.positions.size !== n) throw new Error(`expected ${n} positions, have ${portfolio.positions.size}`);
  const iterations = n === 100 ? 20_000 : 200_000;
  for (let i = 0; i < 2_000; i++) state.accounts.risk(portfolio, state.marks);
  const samples = new Float64Array(Math.floor(iterations / 64));
  const start = nowNs();
  for (let b = 0; b < samples.length; b++) {
    const t0 = nowNs();
    for (let i = 0; i < 64; i++) state.accounts.risk(portfolio, state.marks);
    samples[b] = (nowNs() - t0) / 64 / 1000;
  }
  const seconds = (nowNs() - start) / 1e9;
  results[`positions_${n}`] = { perSec: (samples.length * 64) / seconds, p50: percentile(samples, 50), p99: percentile(samples, 99) };
  console.log(`# ${n} positions: ${Math.round(results[`positions_${n}`]!.perSec)} checks/s, p50 ${results[`positions_${n}`]!.p50.toFixed(2)} us (per check, batches of 64)`);
}

const headline = results.positions_10!;
report({
  bench: 'margin',
  metric: 'margin_checks_per_s_10_positions',
  unit: 'checks/s',
  value: headline.perSec,
  peer: null,
  peerValue: null,
  ratio: null,
  p50_us: headline.p50,
  p99_us: headline.p99,
  extra: results,
});
