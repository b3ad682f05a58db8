/**
 * The margin what-if route against the real server, both forms: `before` is the portfolio
 * detail's figures, `after` moves with the orders (liquidationSpot too), nothing changes,
 * refusals and 404s.
 */
import t from 'tap';
import { startTestApp, request } from '../support/testApp.ts';
import { liveSeries, post, trader } from './ordersFixture.ts';
import { WAD } from '../../../engine/index.ts';

const app = await startTestApp({ memory: true });
t.teardown(() => app.close());

t.test('before is the portfolio now, after the orders filled; both forms; nothing changes', async (t) => {
  const tr = await trader(app, 'whatif', { deposit: 50_000 });
  const call = liveSeries(app, true);
  const detail = (await request(`${app.url}/api/account/portfolios/${tr.portfolioId}`, { token: tr.token })).body;
  const seq = app.app.engine.seq;
  const above = (Math.ceil((Number(call.marks!.mark) / 1e18) * 2 * 100) / 100).toFixed(2); // twice the mark
  const body = { orders: [{ seriesId: call.spec.seriesId, isBuy: true, size: '0.5', price: above }] };
  const r = await post(app, `/api/account/portfolios/${tr.portfolioId}/what-if`, tr.token, body);
  t.equal(r.status, 200);
  for (const k of ['equity', 'initialMargin', 'maintenanceMargin', 'healthRatio', 'maxWithdraw']) t.equal(r.body.before[k], detail[k], `before.${k} is the portfolio detail's`);
  t.same(r.body.before.worstScenario, { spotShock: -0.3, volShock: -0.3, pnl: '0' }, 'no position: nothing to lose');
  t.ok(BigInt(r.body.after.initialMargin) > 0n, 'a long call needs margin after');
  t.ok(BigInt(r.body.after.equity) < BigInt(r.body.before.equity), 'a premium over the mark and the fee lower the equity');
  t.equal(r.body.after.worstScenario.spotShock, -0.3, 'its worst scenario is spot down');
  t.equal(r.body.before.liquidationSpot, null, 'no position: no liquidation spot');
  t.equal(r.body.before.liquidationSpot, detail.liquidationSpot, "before.liquidationSpot is the portfolio detail's");
  t.equal(r.body.allowed, true);
  t.notOk('reason' in r.body, 'no reason when allowed');
  const short = { orders: [{ seriesId: call.spec.seriesId, isBuy: false, size: '0.5', price: (Number(call.marks!.mark) / 1e18).toFixed(2) }] };
  const sr = await post(app, `/api/account/portfolios/${tr.portfolioId}/what-if`, tr.token, short);
  const engine = app.app.engine.whatIf(tr.address, tr.portfolioId, [{ seriesId: call.spec.seriesId, isBuy: false, size: WAD / 2n, price: BigInt(Math.round(Number(short.orders[0]!.price) * 100)) * 10n ** 16n }])!;
  t.ok(sr.body.after.liquidationSpot !== null && BigInt(sr.body.after.liquidationSpot) > call.spec.strike, `a short call: liquidated above the strike (${sr.body.after.liquidationSpot})`);
  t.equal(sr.body.after.liquidationSpot, engine.after.liquidationSpot?.toString(), "after.liquidationSpot is the engine's");
  t.equal(app.app.engine.seq, seq, 'no command was submitted');
  t.equal((await request(`${app.url}/api/account/portfolios/${tr.portfolioId}`, { token: tr.token })).body.equity, detail.equity, 'the portfolio is unchanged');

  const earlierToken = await app.session(tr.address, 'earlier');
  const old = await request(`${app.url}/account/portfolios/${tr.portfolioId}/what-if`, { method: 'POST', token: earlierToken, body });
  t.equal(old.status, 200, 'the earlier form');
  t.same(old.body, r.body, 'the same reply');

  const big = await post(app, `/api/account/portfolios/${tr.portfolioId}/what-if`, tr.token, { orders: [{ seriesId: call.spec.seriesId, isBuy: false, size: '500', price: '1' }] });
  t.equal(big.body.allowed, false);
  t.equal(big.body.reason, 'insufficient_margin');
});

t.test('refusals: unknown portfolio or series, bad sizes, no credentials', async (t) => {
  const tr = await trader(app, 'whatif-2', { deposit: 1_000 });
  const call = liveSeries(app, true);
  const nf = await post(app, '/api/account/portfolios/42/what-if', tr.token, { orders: [] });
  t.equal(nf.status, 404);
  t.match(nf.body.message, /^Portfolio not found: 42/);
  const ns = await post(app, `/api/account/portfolios/${tr.portfolioId}/what-if`, tr.token, { orders: [{ seriesId: `0x${'ef'.repeat(32)}`, isBuy: true, size: '1', price: '1' }] });
  t.equal(ns.status, 404);
  t.match(ns.body.message, /^Series not found/);
  for (const size of ['0', '-1', 'abc', '1.0000000000000000001']) {
    const bad = await post(app, `/api/account/portfolios/${tr.portfolioId}/what-if`, tr.token, { orders: [{ seriesId: call.spec.seriesId, isBuy: true, size, price: '1' }] });
    t.equal(bad.status, 400, `size ${size}`);
    t.equal(bad.body.details?.field, 'orders[0].size');
  }
  const anon = await request(`${app.url}/api/account/portfolios/1/what-if`, { method: 'POST', body: { orders: [] } });
  t.equal(anon.status, 401, 'credentials required');
});
