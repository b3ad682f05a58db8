import t from 'tap';
import { bsGreeks, bsPrice, type Greeks } from '../../../engine/pricing/blackScholes.ts';
import { prng } from '../domain/prng.ts';

type Args = [boolean, number, number, number, number, number, number];

t.test('published values (Haug as QuantLib tests them; Hull 14.1)', async (t) => {
  const close = (got: number, want: number, tol: number, what: string): void => {
    t.ok(Math.abs(got - want) <= tol, `${what}: ${got} vs ${want}`);
  };
  close(bsPrice(true, 60, 65, 0.25, 0.08, 0, 0.3), 2.1334, 1e-4, 'call price');
  close(bsPrice(false, 100, 95, 0.5, 0.1, 0.05, 0.2), 2.4648, 1e-4, 'put price');
  close(bsPrice(false, 75, 70, 0.5, 0.1, 0.05, 0.35), 4.087, 1e-4, 'put price');
  close(bsGreeks(true, 105, 100, 0.5, 0.1, 0.1, 0.36).delta, 0.5946, 1e-4, 'call delta');
  close(bsGreeks(false, 105, 100, 0.5, 0.1, 0.1, 0.36).delta, -0.3566, 1e-4, 'put delta');
  close(bsGreeks(true, 55, 60, 0.75, 0.1, 0, 0.3).gamma, 0.0278, 1e-4, 'gamma');
  close(bsGreeks(true, 55, 60, 0.75, 0.1, 0, 0.3).vega, 18.9358, 1e-4, 'vega per 1.00 of vol');
  close(bsGreeks(false, 430, 405, 1 / 12, 0.07, 0.05, 0.2).theta, -31.1924, 1e-4, 'put theta per year');
  close(bsPrice(true, 42, 40, 0.5, 0.1, 0, 0.2), 4.76, 0.005, 'Hull call');
  close(bsPrice(false, 42, 40, 0.5, 0.1, 0, 0.2), 0.81, 0.005, 'Hull put');
});

// Price and Greeks computed with mpmath at 50 digits (closed forms), including hours to
// expiry and deep out-of-the-money options.
const REF: Array<[Args, number[]]> = [
  [[true, 60, 65, 0.25, 0.08, 0, 0.3], [2.1333684449162, 0.37248279796197287, 0.042042755753785174, 11.351544053521996, -8.428174386737371, 5.053899858200543]],
  [[false, 100, 95, 0.5, 0.1, 0.05, 0.2], [2.464787646755821, -0.2641815996360724, 0.02283957429626999, 22.83957429626999, -3.000528096398054, -14.44147380518153]],
  [[false, 75, 70, 0.5, 0.1, 0.05, 0.35], [4.0869538286353535, -0.29970791756159126, 0.01846638382628984, 18.17784657900406, -4.829646228931919, -13.28252382287735]],
  [[true, 105, 100, 0.5, 0.1, 0.1, 0.36], [12.432844508202189, 0.5946286597299956, 0.01349363711052063, 26.77812284582819, -8.396839773677929, 25.001582381723676]],
  [[false, 105, 100, 0.5, 0.1, 0.1, 0.36], [7.676697385698619, -0.3566007647707184, 0.01349363711052063, 26.77812284582819, -8.872454485928285, -22.559888843312024]],
  [[true, 55, 60, 0.75, 0.1, 0, 0.3], [5.392778824120155, 0.5333413896834848, 0.027821160476940842, 18.935777349617858, -6.181255230770723, 17.95574820635363]],
  [[false, 430, 405, 0.08333333333333333, 0.07, 0.05, 0.2], [1.7570599292329478, -0.13614577677063622, 0.008784802103716693, 27.07183181628694, -31.19235030427056, -5.02497866171721]],
  [[true, 42, 40, 0.5, 0.1, 0, 0.2], [4.759422392871533, 0.779131290942669, 0.04996267040591185, 8.813415059602852, -4.559092194592627, 13.982045913360281]],
  [[false, 42, 40, 0.5, 0.1, 0, 0.2], [0.8085993729000936, -0.22086870905733105, 0.04996267040591185, 8.813415059602852, -0.7541744965897705, -5.042542576653999]],
  [[true, 95000, 82000, 0.0027397260273972603, 0.05, 0, 0.55], [13011.232179643534, 0.9999998557945425, 2.801538454177123e-10, 0.003809900411485396, -4099.820124795704, 224.62672361873427]],
  [[false, 95000, 82000, 0.0027397260273972603, 0.05, 0, 0.55], [7.227119221538143e-05, -1.4420545742885808e-07, 2.801538454177123e-10, 0.003809900411485396, -0.38173016432044876, -3.7730930542347665e-05]],
  [[true, 95000, 130000, 0.019178082191780823, 0.0, 0, 0.6], [0.17473368107153792, 9.448469534502955e-05, 4.7544256328130294e-08, 4.937438455117202, -77.23564440504765, 0.16879229215601066]],
  [[true, 3550.5, 3000, 0.00011415525114155251, 0.03, 0, 0.8], [550.5102739550103, 1.0, 5.189488805405414e-87, 5.974333940890696e-84, -89.99969178134968, 0.3424645805987431]],
  [[false, 3550.5, 3600, 0.00022831050228310502, 0.03, 0, 0.8], [52.187302695365474, -0.872602082850758, 0.004860353234563196, 11.190841480849988, -19511.843444513474, -0.7192605017938314]],
  [[true, 100, 250, 0.1, 0.02, 0, 0.3], [4.224851227500809e-22, 4.402698996285704e-22, 4.497987262483338e-22, 1.3493961787450013e-19, -2.0328151690855234e-19, 4.360450484010697e-21]],
  [[false, 100, 40, 0.1, 0.02, 0, 0.3], [1.1151440830764854e-22, -1.1557943986040878e-22, 1.197335851078779e-22, 3.592007553236337e-20, -5.364672413065808e-20, -1.1669458394348527e-21]],
  [[true, 100, 100, 2.0, 0.0, 0, 1.5], [71.11556336535152, 0.8555778168267576, 0.0010715517819920122, 32.14655345976037, -12.054957547410137, 28.884436634648488]],
  [[false, 1, 1.0001, 0.02, 0.01, 0.0, 0.05], [0.0027710830964354657, -0.492947715467448, 56.410142876110925, 0.05641014287611093, -0.06555549060949982, -0.009914375971277669]],
];

t.test('agrees with a 50-digit reference to ~1e-13', async (t) => {
  const names = ['price', 'delta', 'gamma', 'vega', 'theta', 'rho'] as const;
  for (const [args, want] of REF) {
    const g = bsGreeks(...args);
    names.forEach((name, i) => {
      const w = want[i]!;
      const err = Math.abs(g[name] - w);
      t.ok(err <= 5e-13 * Math.abs(w), `${name} ${JSON.stringify(args)}: ${g[name]} vs ${w}`);
    });
    t.equal(bsPrice(...args), g.price, 'bsPrice === bsGreeks().price');
  }
});

function randomArgs(rnd: () => number): Args {
  const S = Math.exp(Math.log(0.01) + rnd() * Math.log(1e7));
  return [
    rnd() < 0.5, S, S * Math.exp((rnd() - 0.5) * 2), Math.exp(Math.log(1 / 8760) + rnd() * Math.log(3 * 8760)),
    (rnd() - 0.3) * 0.2, rnd() < 0.5 ? 0 : rnd() * 0.1, 0.01 + rnd() * 3,
  ];
}

t.test('put-call parity over random inputs', async (t) => {
  const rnd = prng(31);
  let bad = 0;
  for (let i = 0; i < 20000; i++) {
    const [, S, K, T, r, q, vol] = randomArgs(rnd);
    const c = bsPrice(true, S, K, T, r, q, vol);
    const p = bsPrice(false, S, K, T, r, q, vol);
    const fwd = S * Math.exp(-q * T) - K * Math.exp(-r * T);
    if (Math.abs(c - p - fwd) > 1e-13 * Math.max(S, K)) bad++;
    const gc = bsGreeks(true, S, K, T, r, q, vol), gp = bsGreeks(false, S, K, T, r, q, vol);
    if (Math.abs(gc.delta - gp.delta - Math.exp(-q * T)) > 1e-14) bad++;
    if (gc.gamma !== gp.gamma || gc.vega !== gp.vega) bad++;
  }
  t.equal(bad, 0);
});

t.test('each Greek matches a central finite difference', async (t) => {
  const rnd = prng(32);
  let bad = 0;
  let checked = 0;
  const rel = (a: number, b: number, scale: number): number => Math.abs(a - b) / Math.max(Math.abs(b), scale);
  for (let i = 0; i < 3000; i++) {
    const [isCall, S, K, T, r, q, vol] = randomArgs(rnd);
    const g = bsGreeks(isCall, S, K, T, r, q, vol);
    if (g.price < 1e-6 * S || g.vega < 1e-4 * S * Math.sqrt(T)) continue; // too flat to difference
    checked++;
    const P = (s: number, k: number, tt: number, rr: number, v: number): number => bsPrice(isCall, s, k, tt, rr, q, v);
    // Steps scaled to the option's own width (vol sqrt T) so that short expiries are resolved.
    const w = vol * Math.sqrt(T);
    const hS = S * w * 1e-3, hV = vol * 1e-4, hT = T * 1e-4, hR = 1e-4;
    const delta = (P(S + hS, K, T, r, vol) - P(S - hS, K, T, r, vol)) / (2 * hS);
    const gamma = (P(S + hS, K, T, r, vol) - 2 * g.price + P(S - hS, K, T, r, vol)) / (hS * hS);
    const vega = (P(S, K, T, r, vol + hV) - P(S, K, T, r, vol - hV)) / (2 * hV);
    const theta = -(P(S, K, T + hT, r, vol) - P(S, K, T - hT, r, vol)) / (2 * hT);
    const rho = (P(S, K, T, r + hR, vol) - P(S, K, T, r - hR, vol)) / (2 * hR);
    const fails = [
      rel(g.delta, delta, 1e-3) > 1e-5, rel(g.gamma, gamma, 1e-3 / S) > 1e-3, rel(g.vega, vega, 1e-3 * S) > 1e-5,
      rel(g.theta, theta, 1e-3 * S) > 1e-4, rel(g.rho, rho, 1e-3 * S) > 1e-5,
    ];
    if (fails.some(Boolean)) {
      bad++;
      if (bad < 4) t.fail(`${JSON.stringify([isCall, S, K, T, r, q, vol])} ${JSON.stringify(g)} fd ${JSON.stringify({ delta, gamma, vega, theta, rho })}`);
    }
  }
  t.ok(checked > 1000, `checked ${checked}`);
  t.equal(bad, 0);
});

t.test('degenerate inputs: no time, no volatility', async (t) => {
  const expired = bsGreeks(true, 110, 100, 0, 0.05, 0, 0.5);
  t.same(expired, { price: 10, delta: 1, gamma: 0, vega: 0, theta: 0, rho: 0 });
  t.same(bsGreeks(false, 110, 100, -1, 0.05, 0, 0.5), { price: 0, delta: -0, gamma: 0, vega: 0, theta: 0, rho: -0 });
  t.same(bsGreeks(false, 90, 100, 0, 0.05, 0, 0.5), { price: 10, delta: -1, gamma: 0, vega: 0, theta: 0, rho: -0 });
  const atm = bsGreeks(true, 100, 100, 0, 0, 0, 0.5);
  t.equal(atm.price, 0);
  t.equal(atm.delta, 0.5, 'half at the money');
  // Zero vol with time left: discounted intrinsic on the forward, theta and rho as the vol -> 0 limits.
  const T = 0.5, r = 0.05;
  const z = bsGreeks(true, 100, 100, T, r, 0, 0);
  t.ok(Math.abs(z.price - (100 - 100 * Math.exp(-r * T))) < 1e-12);
  t.equal(z.delta, 1);
  t.ok(Math.abs(z.theta - -r * 100 * Math.exp(-r * T)) < 1e-12);
  t.ok(Math.abs(z.rho - 100 * T * Math.exp(-r * T)) < 1e-12);
  const tiny = bsGreeks(true, 100, 100, T, r, 0, 1e-9);
  t.ok(Math.abs(tiny.price - z.price) < 1e-6 && Math.abs(tiny.theta - z.theta) < 1e-3, 'continuous at vol -> 0');
  t.ok(Number.isNaN(bsPrice(true, 100, 100, NaN, 0, 0, 0.5)));
  t.ok(Number.isNaN(bsGreeks(true, 100, 100, 1, 0, 0, NaN).delta));
  t.ok(Number.isNaN(bsPrice(true, 100, 100, 1, 0, 0, Infinity)));
});

t.test('never NaN for finite positive S, K and finite T, vol', async (t) => {
  const rnd = prng(33);
  let bad = 0;
  const values = (g: Greeks): number[] => [g.price, g.delta, g.gamma, g.vega, g.theta, g.rho];
  for (let i = 0; i < 20000; i++) {
    const S = Math.exp((rnd() - 0.5) * 200), K = Math.exp((rnd() - 0.5) * 200);
    // T up to 100 years and vol up to 5000%: wide, but not where e^{-rT} itself overflows.
    const T = rnd() < 0.1 ? 0 : 100 * Math.exp(-rnd() * 25), vol = rnd() < 0.1 ? 0 : 50 * Math.exp(-rnd() * 15);
    const g = bsGreeks(rnd() < 0.5, S, K, T, (rnd() - 0.5) * 0.4, rnd() * 0.2, vol);
    if (values(g).some((v) => !Number.isFinite(v)) || g.price < 0) {
      bad++;
      if (bad < 3) t.fail(JSON.stringify([S, K, T, vol, g]));
    }
  }
  t.equal(bad, 0);
});
