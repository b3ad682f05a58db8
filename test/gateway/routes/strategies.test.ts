/**
 * Strategy templates and quotes against the real server (extensions.md "Strategies"): the
 * templates; a butterfly quoted against resting books (per-leg sizes, best prices, available
 * size, net premium walked over the levels, Greeks from the marks, margin from the what-if);
 * a middle leg without enough size is not executable; refusals; both forms.
 */
import t from 'tap';
import { startTestApp, request } from '../support/testApp.ts';
import { liveSeries, trader, wad, usdc } from './ordersFixture.ts';
import { placeDirect } from '../auth/venueOrders.ts';
import { strategyTemplates } from '../../../gateway/routes/strategies.ts';

const app = await startTestApp({ memory: true });
t.teardown(() => app.close());
const maker = await trader(app, 'strategy maker', { deposit: 10_000_000 });
const taker = await trader(app, 'strategy taker', { deposit: 1_000_000 });
const cookie = await app.session(taker.address, 'earlier');
const [low, mid, high] = [-1, 0, 1].map((k) => liveSeries(app, true, 'BTC-USDC', k)) as [ReturnType<typeof liveSeries>, ReturnType<typeof liveSeries>, ReturnType<typeof liveSeries>];
const price = (n: number) => wad(n);
// Asks on the wings, bids in the middle: 2 contracts at two levels each.
await placeDirect(app.app, { owner: maker.address, portfolioId: maker.portfolioId, series: low, isBuy: false, price: price(3000), size: wad(1) });
await placeDirect(app.app, { owner: maker.address, portfolioId: maker.portfolioId, series: low, isBuy: false, price: price(3100), size: wad(1) });
await placeDirect(app.app, { owner: maker.address, portfolioId: maker.portfolioId, series: mid, isBuy: true, price: price(1500), size: wad(3) });
await placeDirect(app.app, { owner: maker.address, portfolioId: maker.portfolioId, series: high, isBuy: false, price: price(500), size: wad(2) });

const quote = (body: unknown, form: 'current' | 'earlier' = 'current') =>
  form === 'current' ? request(`${app.url}/api/strategies/quote`, { body, token: taker.token }) : request(`${app.url}/strategies/quote`, { body, headers: { cookie: `session=${cookie}` } });
const butterfly = (size: string) => ({ legs: [{ seriesId: low.spec.seriesId, ratio: 1 }, { seriesId: mid.spec.seriesId, ratio: -2 }, { seriesId: high.spec.seriesId, ratio: 1 }], size });

t.test('templates, both forms', async (t) => {
  const r = await request(`${app.url}/api/strategies/templates`, { token: taker.token });
  t.equal(r.status, 200);
  t.same(r.body.templates.map((x: any) => x.name), ['call_spread', 'put_spread', 'straddle', 'strangle', 'butterfly', 'iron_condor', 'calendar', 'risk_reversal']);
  t.same(r.body.templates.find((x: any) => x.name === 'butterfly').legs, [
    { type: 'call', strikeOffset: -1, expiryOffset: 0, ratio: 1 },
    { type: 'call', strikeOffset: 0, expiryOffset: 0, ratio: -2 },
    { type: 'call', strikeOffset: 1, expiryOffset: 0, ratio: 1 },
  ]);
  t.same((await request(`${app.url}/strategies/templates`, { headers: { cookie: `session=${cookie}` } })).body, r.body, 'earlier form');
  t.equal(strategyTemplates.length, 8);
  t.equal((await request(`${app.url}/api/strategies/templates`)).status, 401, 'auth required');
  t.match(await request(`${app.url}/strategies/templates`).then((x) => [x.status, x.body]), [401, { error: 'unauthorized' }], 'the earlier form too, in its error shape');
});

t.test('a butterfly that can fill: legs, net premium over the levels, marks, Greeks, margin', async (t) => {
  const r = await quote(butterfly('1.5'));
  t.equal(r.status, 200, 'ok', { body: r.body });
  t.same(r.body.legs, [
    { seriesId: low.spec.seriesId, side: 'buy', size: wad(1.5).toString(), bestPrice: price(3000).toString(), markPrice: low.marks!.mark.toString(), available: wad(2).toString() },
    { seriesId: mid.spec.seriesId, side: 'sell', size: wad(3).toString(), bestPrice: price(1500).toString(), markPrice: mid.marks!.mark.toString(), available: wad(3).toString() },
    { seriesId: high.spec.seriesId, side: 'buy', size: wad(1.5).toString(), bestPrice: price(500).toString(), markPrice: high.marks!.mark.toString(), available: wad(2).toString() },
  ]);
  // 1 x 3000 + 0.5 x 3100 - 3 x 1500 + 1.5 x 500 = 800 USDC
  t.equal(r.body.netPremium, usdc(800).toString());
  const w = 10n ** 18n;
  const mark = (1500n * low.marks!.mark - 3000n * mid.marks!.mark + 1500n * high.marks!.mark) / 1000n;
  t.equal(r.body.netMark, (mark / 10n ** 12n).toString(), 'net mark in COLLATERAL6');
  const delta = (wad(1.5) * low.marks!.delta) / w - (wad(3) * mid.marks!.delta) / w + (wad(1.5) * high.marks!.delta) / w;
  t.equal(r.body.greeks.delta, delta.toString());
  t.ok(BigInt(r.body.initialMarginAfter) > 0n, 'the margin the package would need');
  t.equal(r.body.executable, true);
  t.same((await quote(butterfly('1.5'), 'earlier')).body, r.body, 'earlier form: the same');
});

t.test('a middle leg without enough size: not executable, no net premium', async (t) => {
  const r = await quote(butterfly('2'));
  t.equal(r.status, 200);
  t.equal(r.body.legs[1].available, wad(3).toString());
  t.equal(r.body.legs[1].size, wad(4).toString());
  t.equal(r.body.executable, false);
  t.equal(r.body.netPremium, null);
  t.equal(r.body.initialMarginAfter, null);
});

t.test('refusals, both forms', async (t) => {
  const cases: [unknown, number, string][] = [
    [{ legs: [{ seriesId: `0x${'1'.repeat(64)}`, ratio: 1 }], size: '1' }, 404, 'not_found'],
    [{ legs: [{ seriesId: low.spec.seriesId, ratio: 0 }], size: '1' }, 400, 'invalid_argument'],
    [{ legs: [{ seriesId: low.spec.seriesId, ratio: 11 }], size: '1' }, 400, 'invalid_argument'],
    [{ legs: [{ seriesId: low.spec.seriesId, ratio: 1 }, { seriesId: low.spec.seriesId, ratio: -1 }], size: '1' }, 400, 'invalid_argument'],
    [{ legs: [], size: '1' }, 400, 'invalid_argument'],
    [{ legs: [{ seriesId: low.spec.seriesId, ratio: 1 }], size: '-1' }, 400, 'invalid_argument'],
    [{ legs: [{ seriesId: low.spec.seriesId, ratio: 1 }], size: 'lots' }, 400, 'invalid_argument'],
  ];
  for (const [body, status, code] of cases) {
    const c = await quote(body);
    t.equal(c.status, status, JSON.stringify(body));
    t.equal(c.body.code, code);
    const e = await quote(body, 'earlier');
    t.equal(e.status, status, 'earlier form');
    t.equal(e.body.message, c.body.message);
  }
  t.equal((await request(`${app.url}/api/strategies/quote`, { body: butterfly('1') })).status, 401);
  t.match(await request(`${app.url}/strategies/quote`, { body: butterfly('1') }).then((x) => [x.status, x.body]), [401, { error: 'unauthorized' }], 'earlier form');
});
