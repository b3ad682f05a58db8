/**
 * Implied volatility: solves per second, ours (impliedVol, one call per option, as a
 * caller would use it) against the `implied-volatility` npm package on the same prices,
 * alternating in one run (performance.md). Budget >= 1,000,000 solves/s per core, error
 * < 1e-8, ratio >= 10x. Both error levels (max abs vol error) are reported in `extra`.
 */
import { createRequire } from 'node:module';
import { report } from './lib/report.ts';
import { alternate, nowNs } from './lib/stats.ts';
import { bsGreeks, bsPrice } from '../engine/pricing/blackScholes.ts';
import { IV_IN_STRIDE, impliedVol, impliedVolBatch } from '../engine/pricing/impliedVol.ts';

const require = createRequire(import.meta.url);
const peerIv = require('implied-volatility') as {
  getImpliedVolatility(price: number, s: number, k: number, t: number, r: number, cp: 'call' | 'put', estimate?: number): number;
};

const N = 50_000;
const ROUND_MS = 400;
const ROUNDS = 5;

let seed = 0x1234567;
function rnd(): number {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = Math.imul(seed ^ (seed >>> 15), seed | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

// A realistic chain: moneyness 0.7-1.3, a day to a year, vol 20%-150%, q = 0 (the peer has none).
const isCall = new Uint8Array(N);
const S = new Float64Array(N), K = new Float64Array(N), T = new Float64Array(N), R = new Float64Array(N);
const price = new Float64Array(N), trueVol = new Float64Array(N);
/**
 * Whether the price pins the vol down to 1e-9: its own rounding (relative 1e-13, plus
 * ~4e-16 of S + K for the intrinsic part) divided by vega. Deep in-the-money options days
 * from expiry fail this: their time value is below the price's last digit, any vol in a
 * wide range reprices them, and no solver can recover the vol that made them.
 */
const wellPosed = new Uint8Array(N);
const batchIn = new Float64Array(N * IV_IN_STRIDE);
for (let i = 0; i < N; i++) {
  isCall[i] = rnd() < 0.5 ? 1 : 0;
  S[i] = 1000 + rnd() * 99000;
  K[i] = S[i]! * (0.7 + rnd() * 0.6);
  T[i] = 1 / 365 + rnd();
  R[i] = rnd() * 0.08;
  trueVol[i] = 0.2 + rnd() * 1.3;
  price[i] = bsPrice(isCall[i] === 1, S[i]!, K[i]!, T[i]!, R[i]!, 0, trueVol[i]!);
  const vega = bsGreeks(isCall[i] === 1, S[i]!, K[i]!, T[i]!, R[i]!, 0, trueVol[i]!).vega;
  wellPosed[i] = (4e-16 * (S[i]! + K[i]!) + 1e-13 * price[i]!) / vega < 1e-9 ? 1 : 0;
  batchIn.set([isCall[i]!, price[i]!, S[i]!, K[i]!, T[i]!, R[i]!, 0], i * IV_IN_STRIDE);
}

const ourVol = new Float64Array(N);
const peerVol = new Float64Array(N).fill(NaN);
let iterations = 0;

function ours(): number {
  const start = nowNs();
  let done = 0;
  iterations = 0;
  while (nowNs() - start < ROUND_MS * 1e6) {
    for (let i = 0; i < N; i++) {
      const r = impliedVol(isCall[i] === 1, price[i]!, S[i]!, K[i]!, T[i]!, R[i]!, 0);
      if (r.ok) {
        ourVol[i] = r.vol;
        iterations += r.iterations;
      } else ourVol[i] = NaN;
    }
    done += N;
  }
  iterations /= done;
  return done / ((nowNs() - start) / 1e9);
}

const batchOut = new Float64Array(N);
function oursBatch(): number {
  const start = nowNs();
  let done = 0;
  while (nowNs() - start < ROUND_MS * 1e6) {
    impliedVolBatch(batchIn, batchOut, N);
    done += N;
  }
  return done / ((nowNs() - start) / 1e9);
}

let peerCursor = 0;
function peer(): number {
  const start = nowNs();
  let done = 0;
  while (nowNs() - start < ROUND_MS * 1e6) {
    for (let k = 0; k < 20; k++) {
      const i = peerCursor;
      peerCursor = (peerCursor + 1) % N;
      peerVol[i] = peerIv.getImpliedVolatility(price[i]!, S[i]!, K[i]!, T[i]!, R[i]!, isCall[i] === 1 ? 'call' : 'put');
      done++;
    }
  }
  return done / ((nowNs() - start) / 1e9);
}

ours(); // warm up
const { ours: value, peer: peerValue } = await alternate(ROUNDS, ours, peer);
let batchRate = 0;
for (let i = 0; i < 3; i++) batchRate = Math.max(batchRate, oursBatch());

let ourErr = 0, ourErrSamePeer = 0, peerErr = 0, ourFail = 0, peerCount = 0, illPosed = 0;
for (let i = 0; i < N; i++) {
  if (wellPosed[i] === 0) {
    illPosed++;
    continue;
  }
  const e = Math.abs(ourVol[i]! - trueVol[i]!);
  if (Number.isNaN(e)) ourFail++;
  else ourErr = Math.max(ourErr, e);
  if (!Number.isNaN(peerVol[i]!)) {
    peerCount++;
    ourErrSamePeer = Math.max(ourErrSamePeer, e);
    peerErr = Math.max(peerErr, Math.abs(peerVol[i]! - trueVol[i]!));
  }
}

console.log(`# ours ${Math.round(value)} solves/s (batch ${Math.round(batchRate)}), peer ${Math.round(peerValue ?? 0)} solves/s; max |vol error| ours ${ourErr.toExponential(2)}, peer ${peerErr.toExponential(2)}`);
report({
  bench: 'iv',
  metric: 'solves_per_s',
  unit: 'solves/s',
  value,
  peer: 'implied-volatility',
  peerValue,
  ratio: peerValue ? value / peerValue : null,
  p50_us: null,
  p99_us: null,
  extra: {
    budget: 1_000_000,
    ratioBudget: 10,
    ourMaxAbsVolError: ourErr,
    peerMaxAbsVolError: peerErr,
    ourMaxAbsVolErrorOnPeerSubset: ourErrSamePeer,
    errorsOver: 'options whose price determines the vol to 1e-9 (see wellPosed); the peer only over the ones it reached',
    illPosedOptions: illPosed,
    ourFailures: ourFail,
    ourMeanIterations: Number(iterations.toFixed(3)),
    batchSolvesPerS: Math.round(batchRate),
    options: N,
    peerOptionsCompared: peerCount,
    note: 'one process, alternating rounds of ~0.4 s; the peer bisects (up to 100 Black-Scholes evaluations per solve, each N(x) a 100-term series)',
  },
});
