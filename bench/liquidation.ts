/**
 * The liquidation pass under a shock that makes N portfolios (default 10,000) liquidatable at
 * once (docs/engine.md "Liquidation and the insurance fund"), in process, through `Venue.apply`.
 *
 * N thin wallets each sell one call near the money into a liquidity provider's bid and rest a
 * far sell (so the pass cancels an order and closes a position for each); the provider also
 * rests asks inside the band, so the first closes fill against the book and the rest go to the
 * insurance fund. Then one oracle command moves spot up 15%: its apply runs the whole pass.
 *
 * Reported: the pass's time (the shock command's apply; wall and, since the host is shared,
 * CPU time too), liquidations per second; the peer in
 * the same run is the same shock on a venue where the same portfolios are funded well enough
 * not to be liquidated (the oracle update's own cost: revaluing the exposed accounts and their
 * portfolio events). The order route's p99 while the pass runs: the engine is one thread, so
 * an order arriving during the pass waits for its end; `order_p99_us` is the apply p99 of
 * orders with no pass, `order_wait_p99_ms_during_pass` the p99 wait of orders arriving at
 * uniformly random instants of the pass (0.99 x its time, plus the order's own apply).
 * Usage: npm run bench -- liquidation [N]
 */
import { report } from './lib/report.ts';
import { percentile, nowNs } from './lib/stats.ts';
import { listedVenue, BTC, usdc, type Harness } from '../test/engine/support/venueFixture.ts';

import type { Hex } from '../engine/domain/hex.ts';

const N = Number(process.argv[2] ?? 10_000);
const LP = '0x0000000000000000000000000000000000000F0F';
const TRADER = '0x0000000000000000000000000000000000000E0E';
const wallets = Array.from({ length: N }, (_, i) => `0x${(0x100000 + i).toString(16).padStart(40, '0')}`);

function nearCall(h: Harness): Hex {
  const s = h.venue.state;
  const spot = s.oracles.get(BTC)!.spot;
  const calls = [...s.series.values()].filter((a) => a.spec.pairId === BTC && a.spec.isCall && !a.settled);
  const expiries = [...new Set(calls.map((a) => a.spec.expiry))].sort((a, b) => a - b);
  const at = calls.filter((a) => a.spec.expiry === expiries[1]);
  at.sort((a, b) => Number((a.spec.strike > spot ? a.spec.strike - spot : spot - a.spec.strike) - (b.spec.strike > spot ? b.spec.strike - spot : spot - b.spec.strike)));
  return at[0]!.spec.seriesId;
}

/** A venue with N thin wallets short one call each, funded with `deposit` (C6). */
function build(deposit: bigint): { h: Harness; call: Hex; mark: number } {
  const h = listedVenue();
  h.ok({ type: 'insurance_fund_deposit', amount: usdc(1_000_000_000), reason: 'seed' });
  for (const owner of [LP, TRADER]) h.fund(owner, usdc(10_000_000_000));
  const call = nearCall(h);
  const mark = Math.round(Number(h.venue.state.series.get(call)!.marks!.mark) / 1e18);
  for (const owner of wallets) {
    h.fund(owner, deposit);
    h.ok({ type: 'place', orders: [h.order(LP, call, true, mark, 0.1)] });
    h.ok({ type: 'place', orders: [h.order(owner, call, false, mark, 0.1)] });
    h.ok({ type: 'place', orders: [h.order(owner, call, false, mark * 3, 0.01)] });
  }
  return { h, call, mark };
}

/** The requirement of one wallet's portfolio, to fund the others just above it. */
function requirement(): bigint {
  const { h } = build(usdc(1_000_000));
  const r = h.venue.state.accounts.risk(h.venue.state.accounts.portfolio(wallets[0]!, 1)!);
  return r.initialMarginWithOrders;
}

const shock = (h: Harness) => {
  const o = h.venue.state.oracles.get(BTC)!;
  return { type: 'oracle' as const, pairId: BTC, spot: (o.spot * 115n) / 100n, volatility: o.volatility, riskFreeRate: o.riskFreeRate, marks: [] };
};

/** Apply times (us) of `count` orders of the trader, a buy and its cancel each time, away from the touch. */
function orderTimes(h: Harness, call: Hex, count: number): Float64Array {
  const out = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const o = h.order(TRADER, call, true, 1, 0.01);
    const t0 = nowNs();
    h.run({ type: 'place', orders: [o] });
    out[i] = (nowNs() - t0) / 1000;
    h.run({ type: 'cancel', cancels: [{ orderId: o.orderId, owner: TRADER, nonce: h.nextNonce(TRADER), deadline: Math.floor(h.ts / 1000) + 60 }] });
  }
  return out;
}

const setupStart = nowNs();
const need = requirement();
const thin = (need * 102n) / 100n + usdc(50);
const { h, call, mark } = build(thin);
// Liquidity inside the band: asks a little above the mark after the shock is not known yet; 5% above today's mark x 1.1 covers part.
for (let i = 0; i < 50; i++) h.ok({ type: 'place', orders: [h.order(LP, call, false, Math.round(mark * 1.6), 0.5)] });
const setupSec = (nowNs() - setupStart) / 1e9;

const before = orderTimes(h, call, 2_000);
const cpuMs = (c: NodeJS.CpuUsage) => (c.user + c.system) / 1000;
const t0 = nowNs();
const c0 = process.cpuUsage();
const r = h.run(shock(h));
const passCpuMs = cpuMs(process.cpuUsage(c0));
const passMs = (nowNs() - t0) / 1e6;
if (!r.ok) throw new Error(`shock refused: ${r.rejection.code}`);
const liqs = r.events.filter((e) => e.type === 'liquidation');
let book = 0;
let fund = 0;
for (const e of liqs) if (e.type === 'liquidation') for (const c of e.closes) c.counterparty === 'book' ? book++ : fund++;
const after = orderTimes(h, call, 2_000);

// Peer: the same venue funded 10x, the same shock liquidates nobody.
const peer = build(thin * 10n);
const p0 = nowNs();
const pc0 = process.cpuUsage();
const pr = peer.h.run(shock(peer.h));
const peerCpuMs = cpuMs(process.cpuUsage(pc0));
const peerMs = (nowNs() - p0) / 1e6;
if (pr.ok && pr.events.some((e) => e.type === 'liquidation')) throw new Error('the peer venue liquidated');

const orderP99 = percentile(before, 99);
const waitP99Ms = 0.99 * passMs + orderP99 / 1000;
console.log(`# ${N} portfolios, setup ${setupSec.toFixed(1)} s; pass ${passMs.toFixed(1)} ms wall, ${passCpuMs.toFixed(1)} ms CPU, for ${liqs.length} liquidations (${book} book closes, ${fund} fund closes), ${r.events.length} events; the same shock without liquidations ${peerMs.toFixed(1)} ms wall, ${peerCpuMs.toFixed(1)} ms CPU`);
console.log(`# order apply p99 ${orderP99.toFixed(1)} us before, ${percentile(after, 99).toFixed(1)} us after; an order arriving during the pass waits up to ${passMs.toFixed(1)} ms (p99 ${waitP99Ms.toFixed(1)} ms)`);
report({
  bench: 'liquidation',
  metric: 'liquidation_pass_ms',
  unit: 'ms',
  value: passMs,
  peer: 'the same oracle shock on the same portfolios funded 10x (no liquidation): revaluation and portfolio events only',
  peerValue: peerMs,
  ratio: passMs / peerMs,
  p50_us: percentile(before, 50),
  p99_us: orderP99,
  extra: {
    portfolios: N,
    pass_cpu_ms: passCpuMs,
    peer_cpu_ms: peerCpuMs,
    liquidations: liqs.length,
    liquidationsPerSec: liqs.length / (passMs / 1000),
    bookCloses: book,
    fundCloses: fund,
    events: r.events.length,
    order_p99_us: orderP99,
    order_p99_us_after: percentile(after, 99),
    order_wait_p99_ms_during_pass: waitP99Ms,
    note: 'in process, one thread: an order that arrives during the pass waits for its end; the host is a busy 2-core machine',
  },
});

