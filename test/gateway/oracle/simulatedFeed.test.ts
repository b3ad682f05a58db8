import t from 'tap';
import { SimulatedFeed } from '../../../gateway/oracle/simulatedFeed.ts';

const path = (seed: number, steps: number, volatility: number, dt: number) => {
  const feed = new SimulatedFeed(seed);
  const out = [100];
  for (let i = 0; i < steps; i++) out.push(feed.step({ spot: out[out.length - 1]!, volatility }, dt));
  return out;
};

t.test('same seed, same path; another seed, another path', async (t) => {
  t.same(path(7, 500, 0.6, 5), path(7, 500, 0.6, 5));
  t.not(path(7, 500, 0.6, 5).at(-1), path(8, 500, 0.6, 5).at(-1));
});

t.test('log returns have the configured volatility and no drift', async (t) => {
  const dt = 60;
  const p = path(1, 20_000, 0.8, dt);
  const r = p.slice(1).map((x, i) => Math.log(x / p[i]!));
  const mean = r.reduce((a, b) => a + b, 0) / r.length;
  const variance = r.reduce((a, b) => a + (b - mean) ** 2, 0) / (r.length - 1);
  const annualised = Math.sqrt(variance / (dt / (365 * 24 * 3600)));
  t.ok(Math.abs(annualised - 0.8) < 0.03, `annualised volatility ${annualised.toFixed(3)} near 0.8`);
  t.ok(p.every((x) => x > 0 && Number.isFinite(x)), 'prices stay positive and finite');
});
