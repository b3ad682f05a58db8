/**
 * Greeks throughput: price + delta, gamma, vega, theta, rho for a batch of options, ours
 * (greeksBatch over Float64Arrays) against the `black-scholes` + `greeks` npm packages on
 * the same inputs, alternating in one run (performance.md). Budget >= 5,000,000 options/s
 * per worker, ratio >= 3x. The peer has no dividend yield, so q = 0 here.
 */
import { createRequire } from 'node:module';
import { report } from './lib/report.ts';
import { alternate, nowNs } from './lib/stats.ts';
import { GREEKS_IN_STRIDE, GREEKS_OUT_STRIDE, greeksBatch } from '../engine/pricing/batch.ts';

type CallPut = 'call' | 'put';
const require = createRequire(import.meta.url);
const bs = require('black-scholes') as { blackScholes(s: number, k: number, t: number, v: number, r: number, cp: CallPut): number };
const greeks = require('greeks') as {
  getDelta(s: number, k: number, t: number, v: number, r: number, cp: CallPut): number;
  getGamma(s: number, k: number, t: number, v: number, r: number): number;
  getVega(s: number, k: number, t: number, v: number, r: number): number;
  getTheta(s: number, k: number, t: number, v: number, r: number, cp: CallPut): number;
  getRho(s: number, k: number, t: number, v: number, r: number, cp: CallPut): number;
};

const N = 100_000;
const ROUND_MS = 400;
const ROUNDS = 5;

// Seeded inputs: a realistic chain (moneyness 0.7-1.3, a day to a year, vol 20%-150%).
let seed = 0x9e3779b9;
function rnd(): number {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = Math.imul(seed ^ (seed >>> 15), seed | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const input = new Float64Array(N * GREEKS_IN_STRIDE);
for (let i = 0; i < N; i++) {
  const S = 1000 + rnd() * 99000;
  input.set([rnd() < 0.5 ? 1 : 0, S, S * (0.7 + rnd() * 0.6), 1 / 365 + rnd(), rnd() * 0.08, 0, 0.2 + rnd() * 1.3], i * GREEKS_IN_STRIDE);
}
const out = new Float64Array(N * GREEKS_OUT_STRIDE);
const peerOut = new Float64Array(N * GREEKS_OUT_STRIDE);
let sink = 0;

/** Whole batches until the round's time is up; options per second. */
function ours(): number {
  const start = nowNs();
  let done = 0;
  while (nowNs() - start < ROUND_MS * 1e6) {
    greeksBatch(input, out, N);
    done += N;
  }
  sink += out[0]!;
  return done / ((nowNs() - start) / 1e9);
}

let peerCursor = 0;
/** One option at a time (the peer has no batch form); per-Greek units converted to ours. */
function peer(): number {
  const start = nowNs();
  let done = 0;
  while (nowNs() - start < ROUND_MS * 1e6) {
    for (let k = 0; k < 200; k++) {
      const i = peerCursor;
      peerCursor = (peerCursor + 1) % N;
      const a = i * GREEKS_IN_STRIDE, b = i * GREEKS_OUT_STRIDE;
      const cp: CallPut = input[a] === 1 ? 'call' : 'put';
      const s = input[a + 1]!, kk = input[a + 2]!, t = input[a + 3]!, r = input[a + 4]!, v = input[a + 6]!;
      peerOut[b] = bs.blackScholes(s, kk, t, v, r, cp);
      peerOut[b + 1] = greeks.getDelta(s, kk, t, v, r, cp);
      peerOut[b + 2] = greeks.getGamma(s, kk, t, v, r);
      peerOut[b + 3] = greeks.getVega(s, kk, t, v, r) * 100; // peer: per 1% of vol
      peerOut[b + 4] = greeks.getTheta(s, kk, t, v, r, cp) * 365; // peer: per day
      peerOut[b + 5] = greeks.getRho(s, kk, t, v, r, cp) * 100; // peer: per 1% of rate
      done++;
    }
  }
  return done / ((nowNs() - start) / 1e9);
}

ours(); // warm up before alternating
const { ours: value, peer: peerValue } = await alternate(ROUNDS, ours, peer);

// Agreement on the options the peer priced (relative to the spot, per contract).
greeksBatch(input, out, N);
const names = ['price', 'delta', 'gamma', 'vega', 'theta', 'rho'] as const;
const maxDiff: Record<string, number> = {};
const checked = Math.min(peerCursor === 0 ? N : peerCursor, N);
for (let k = 0; k < 6; k++) {
  let worst = 0;
  for (let i = 0; i < checked; i++) {
    const scale = k === 1 ? 1 : k === 2 ? 1 / input[i * GREEKS_IN_STRIDE + 1]! : input[i * GREEKS_IN_STRIDE + 1]!;
    worst = Math.max(worst, Math.abs(out[i * GREEKS_OUT_STRIDE + k]! - peerOut[i * GREEKS_OUT_STRIDE + k]!) / scale);
  }
  maxDiff[names[k]!] = Number(worst.toExponential(2));
}

console.log(`# ours ${Math.round(value)} options/s, peer ${Math.round(peerValue ?? 0)} options/s (sink ${sink > 0})`);
report({
  bench: 'greeks',
  metric: 'options_per_s',
  unit: 'options/s',
  value,
  peer: 'black-scholes+greeks',
  peerValue,
  ratio: peerValue ? value / peerValue : null,
  p50_us: null,
  p99_us: null,
  extra: {
    budget: 5_000_000,
    ratioBudget: 3,
    batch: N,
    rounds: ROUNDS,
    peerOptionsCompared: checked,
    maxDiffVsPeerPerSpot: maxDiff,
    note: 'one process, alternating rounds of ~0.4 s; the peer has no batch form and is called per option',
  },
});
