/**
 * Margin checks per second for portfolios of 1, 10 and 100 positions (issue 2/7). A check
 * is the engine's pre-trade question: the margin account's requirement with one more order
 * (`MarginBook.requirement(portfolio, [order])`), answered from the incrementally kept
 * scenario sums (engine/risk/marginBook.ts), so its cost does not grow with the portfolio.
 * Peer, in the same run: the whole margin account recomputed from its positions and orders
 * with the float scenario kernel (test/engine/support/naiveMargin.ts, the engine's method
 * before the margin book). Positions are built through real trades on a listed venue. The
 * headline value is the 10-position rate; the ratio is ours / the recompute's.
 */
import { report } from './lib/report.ts';
import { percentile, nowNs } from './lib/stats.ts';
import { listedVenue, ALICE, BOB, BTC, ETH, usdc, wad } from '../test/engine/support/venueFixture.ts';
import { naiveMargin } from '../test/engine/support/naiveMargin.ts';
import type { ProspectiveOrder } from '../engine/risk/marginBook.ts';

const h = listedVenue();
h.fund(ALICE, usdc(1_000_000_000));
h.fund(BOB, usdc(1_000_000_000));
const series = [...h.venue.state.series.values()].filter((s) => s.spec.pairId === BTC || s.spec.pairId === ETH).slice(0, 100);

type Rate = { perSec: number; p50: number; p99: number };
/** Checks per second of `check`, timed in batches of 64 (per-check p50/p99 from the batches). */
function measure(iterations: number, check: () => void): Rate {
  for (let i = 0; i < 2_000; i++) check();
  const samples = new Float64Array(Math.floor(iterations / 64));
  const start = nowNs();
  for (let b = 0; b < samples.length; b++) {
    const t0 = nowNs();
    for (let i = 0; i < 64; i++) check();
    samples[b] = (nowNs() - t0) / 64 / 1000;
  }
  const seconds = (nowNs() - start) / 1e9;
  return { perSec: (samples.length * 64) / seconds, p50: percentile(samples, 50), p99: percentile(samples, 99) };
}

const results: Record<string, Rate> = {};
const peers: Record<string, Rate> = {};
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
  const s0 = series[0]!;
  const order: ProspectiveOrder[] = [{ seriesId: s0.spec.seriesId, isBuy: false, size: wad(1), price: s0.marks!.mark, worstFee: 1_000_000n }];
  const margin = state.accounts.margin;
  results[`positions_${n}`] = measure(n === 100 ? 200_000 : 400_000, () => margin.requirement(portfolio, order));
  peers[`positions_${n}`] = measure(n === 100 ? 20_000 : 200_000, () => naiveMargin(state, portfolio));
  const r = results[`positions_${n}`]!;
  const p = peers[`positions_${n}`]!;
  console.log(`# ${n} positions: ${Math.round(r.perSec)} checks/s (p50 ${r.p50.toFixed(2)} us); full recompute ${Math.round(p.perSec)}/s (p50 ${p.p50.toFixed(2)} us)`);
}

const headline = results.positions_10!;
report({
  bench: 'margin',
  metric: 'margin_checks_per_s_10_positions',
  unit: 'checks/s',
  value: headline.perSec,
  peer: 'the whole margin account recomputed per check (test/engine/support/naiveMargin.ts)',
  peerValue: peers.positions_10!.perSec,
  ratio: headline.perSec / peers.positions_10!.perSec,
  p50_us: headline.p50,
  p99_us: headline.p99,
  extra: { ...results, recompute: peers },
});
