/**
 * Liquidation and the insurance fund through the real server (extensions.md): the fund's seed
 * at the first start on local, the admin deposit route, a price shock (the oracle set by hand)
 * that liquidates a thinly funded wallet, and the reads: GET /api/account/liquidations and GET
 * /api/platform/insurance-fund in both forms, account@liquidations and global@liquidations
 * frames checked against the served AsyncAPI document, and the metrics; a bankruptcy beyond the
 * fund (bad debt on the fund read, the metric, and the critical alert on venue@alerts). The
 * venue clock is injected: no real time passes.
 */
import t from 'tap';
import { startTestApp, request } from '../support/testApp.ts';
import { submitOracle } from '../../../gateway/drivers.ts';
import type { Command, CommandBody } from '../../../engine/commands.ts';
import { wsEnv, connect, priceMarks, fund, atmSeries, order, wallet, usdc, asyncApiValidator, BTC, type Client } from '../streams/support.ts';

wsEnv({ WS_MESSAGES_PER_MINUTE: '10000' });
const admin = wallet(0xad1);
const app = await startTestApp({ memory: true, env: { ADMIN_ADDRESSES: admin, INSURANCE_FUND_SEED: '5000000000' } });
t.teardown(() => app.close());
await priceMarks(app);
const maker = wallet(0x44a1);
const thin = wallet(0x44b2);
await fund(app, maker);
await fund(app, thin, usdc(32_000));
const series = atmSeries(app);
const api = await asyncApiValidator(app);
const submit = (c: CommandBody) => app.app.services.pipeline.submit(c as Command);
const adminToken = await app.session(admin);
const token = await app.session(thin);
const cookie = await app.session(thin, 'earlier');

t.test('the fund is seeded at the first start, admins add to it', async (t) => {
  const fundRead = await request(`${app.url}/api/platform/insurance-fund`);
  t.same([fundRead.status, fundRead.body], [200, { balance: '5000000000', badDebt: '0', liquidations24h: 0, feesCollected24h: '0' }], 'INSURANCE_FUND_SEED on local');
  const earlier = await request(`${app.url}/platform/insurance-fund`);
  t.same([earlier.status, earlier.body], [200, fundRead.body], 'the earlier form');
  const dep = await request(`${app.url}/api/admin/insurance-fund/deposit`, { token: adminToken, body: { amount: '1000000' } });
  t.same([dep.status, dep.body.balance], [200, '5001000000'], 'an admin deposit');
  const bad = await request(`${app.url}/api/admin/insurance-fund/deposit`, { token: adminToken, body: { amount: '-5' } });
  t.match([bad.status, bad.body], [400, { code: 'invalid_argument', details: { field: 'amount' } }]);
  const zero = await request(`${app.url}/api/admin/insurance-fund/deposit`, { token: adminToken, body: { amount: '0' } });
  t.match([zero.status, zero.body], [400, { code: 'invalid_argument', message: /positive/ }]);
  const notAdmin = await request(`${app.url}/api/admin/insurance-fund/deposit`, { token, body: { amount: '1' } });
  t.equal(notAdmin.status, 403, 'not an admin');
});

async function socket(path: string, channels: string[], auth?: string): Promise<Client> {
  const c = await connect(app, path);
  if (auth !== undefined) {
    c.send({ type: 'AUTH', token: auth });
    await c.next((f) => f['type'] === 'AUTH_SUCCESS', 'AUTH_SUCCESS');
  }
  c.send({ method: 'SUBSCRIBE', params: channels, id: 'sub' });
  await c.next((f) => f['id'] === 'sub', 'subscribe ack');
  return c;
}

t.test('a shock liquidates: the reads, the streams and the metrics', async (t) => {
  const mark = Math.round(Number(series.marks!.mark) / 1e18);
  const bid = await submit({ type: 'place', orders: [order(app, maker, series, true, mark, 1)] });
  t.ok(bid.ok);
  const sold = await submit({ type: 'place', orders: [order(app, thin, series, false, mark, 1)] });
  t.ok(sold.ok, 'the thin wallet is short one call');
  const own = await socket('/ws/private', ['account@liquidations'], token);
  const pub = await socket('/ws/public', ['global@liquidations']);
  t.teardown(() => {
    own.close();
    pub.close();
  });

  const o = app.app.services.reads.catalog.oracles.get(BTC)!;
  const shocked = await submitOracle(app.app.services.pipeline, app.app.services.reads, app.app.services.marks, BTC, (o.spot * 112n) / 100n, o.volatility, o.riskFreeRate);
  t.ok(shocked.ok, 'spot +12%');

  const frame = await own.next((f) => f['channel'] === 'account@liquidations', 'account@liquidations');
  t.equal(api.check('accountLiquidations.liquidation', frame), null, 'the frame validates against the AsyncAPI document');
  const liq = frame['data'];
  t.equal(liq.portfolioId, 1);
  t.ok(liq.closes.length > 0, 'positions closed');
  t.ok(BigInt(liq.trigger.equity) * 10n ** 12n < BigInt(liq.trigger.maintenanceMargin), 'the trigger: equity (C6) below maintenance margin (WAD)');
  const close = await pub.next((f) => f['channel'] === 'global@liquidations', 'global@liquidations');
  t.equal(api.check('liquidations.liquidationClose', close), null, 'the public frame validates');
  t.same(Object.keys(close['data']).sort(), ['price', 'seriesId', 'side', 'size', 'timestamp'], 'no owner in the public frame');
  t.equal(close['data'].side, 'buy', 'the venue bought back the short call');

  const list = await request(`${app.url}/api/account/liquidations`, { token });
  t.equal(list.status, 200);
  t.same(list.body.liquidations, [{ ...liq, timestamp: undefined }].map(({ timestamp: _, ...rest }) => rest), 'the route lists what the stream sent');
  t.equal(list.body.nextCursor, null);
  const earlier = await request(`${app.url}/account/liquidations`, { headers: { cookie: `session=${cookie}` } });
  t.same([earlier.status, earlier.body], [200, list.body], 'the earlier form');
  const page = await request(`${app.url}/api/account/liquidations?cursor=${liq.id}`, { token });
  t.same(page.body, { liquidations: [], nextCursor: null }, 'nothing older than the first');
  const badCursor = await request(`${app.url}/api/account/liquidations?cursor=x`, { token });
  t.equal(badCursor.status, 400);
  const stranger = await request(`${app.url}/api/account/liquidations`, { token: await app.session(maker) });
  t.same(stranger.body.liquidations, [], "another wallet does not see it");

  const fundAfter = await request(`${app.url}/api/platform/insurance-fund`);
  t.equal(fundAfter.body.liquidations24h, 1);
  t.equal(fundAfter.body.feesCollected24h, liq.fee);
  const metrics = await (await fetch(`${app.url}/metrics`)).text();
  t.match(metrics, /^liquidations_total 1$/m, 'liquidations_total');
  const closes = liq.closes.length;
  const byFund = liq.closes.filter((c: { counterparty: string }) => c.counterparty === 'fund').length;
  t.match(metrics, new RegExp(`^liquidation_closes_total\\{counterparty="fund"\\} ${byFund}$`, 'm'));
  t.match(metrics, new RegExp(`^liquidation_closes_total\\{counterparty="book"\\} ${closes - byFund}$`, 'm'));
  t.match(metrics, new RegExp(`^insurance_fund_balance_usdc ${Number(fundAfter.body.balance) / 1e6}$`, 'm'));
  t.match(metrics, /^insurance_fund_bad_debt_usdc 0$/m);
});

t.test('bankruptcy beyond the fund: bad debt on the fund read, the metric and venue@alerts', async (t) => {
  const broke = wallet(0x44c3);
  await fund(app, broke, usdc(40_000));
  const call = atmSeries(app);
  const mark = Math.round(Number(call.marks!.mark) / 1e18);
  t.ok((await submit({ type: 'place', orders: [order(app, maker, call, true, mark, 1)] })).ok);
  t.ok((await submit({ type: 'place', orders: [order(app, broke, call, false, mark, 1)] })).ok, 'short one call');
  const monitor = await connect(app, '/ws/monitor');
  t.teardown(() => monitor.close());
  monitor.send({ type: 'AUTH', token: adminToken });
  await monitor.next((f) => f['type'] === 'AUTH_SUCCESS', 'AUTH_SUCCESS');
  monitor.send({ method: 'SUBSCRIBE', params: ['venue@alerts'], id: 'sub' });
  await monitor.next((f) => f['id'] === 'sub', 'subscribe ack');

  const o = app.app.services.reads.catalog.oracles.get(BTC)!;
  t.ok((await submitOracle(app.app.services.pipeline, app.app.services.reads, app.app.services.marks, BTC, (o.spot * 160n) / 100n, o.volatility, o.riskFreeRate)).ok, 'spot +60%');
  // The thin wallet of the test before, still short, is liquidated in the same pass (in address order).
  const alert = await monitor.next((f) => f['channel'] === 'venue@alerts' && f['data']?.kind === 'bad_debt' && f['data'].details.owner === broke, 'the bad_debt alert');
  t.equal(api.check('venueAlerts.alert', alert), null, 'the alert validates against the AsyncAPI document');
  t.match(alert['data'], { severity: 'critical', details: { owner: broke, portfolioId: 1 } });
  const fundRead = await request(`${app.url}/api/platform/insurance-fund`);
  t.ok(BigInt(fundRead.body.badDebt) > 0n, `bad debt recorded (${fundRead.body.badDebt})`);
  const last = alert['data'].details.totalBadDebt === fundRead.body.badDebt ? alert : await monitor.next((f) => f['channel'] === 'venue@alerts' && f['data']?.kind === 'bad_debt' && f['data'].details.totalBadDebt === fundRead.body.badDebt, "the pass's last bad_debt alert");
  t.equal(fundRead.body.badDebt, last['data'].details.totalBadDebt, "the last alert's total is the fund's");
  t.equal(fundRead.body.balance, '0', 'the fund paid what it had');
  const own = await request(`${app.url}/api/account/liquidations`, { token: await app.session(broke) });
  t.ok(BigInt(own.body.liquidations[0].deficit) > 0n, 'the liquidation shows the deficit');
  // The thin wallet now has two: pages of one, newest first.
  const all = (await request(`${app.url}/api/account/liquidations`, { token })).body.liquidations;
  t.equal(all.length, 2, 'the thin wallet was liquidated twice');
  t.ok(BigInt(all[0].id) > BigInt(all[1].id), 'newest first');
  const first = await request(`${app.url}/api/account/liquidations?limit=1`, { token });
  t.same([first.body.liquidations, first.body.nextCursor], [[all[0]], all[0].id], 'a page of one and its cursor');
  const second = await request(`${app.url}/api/account/liquidations?limit=1&cursor=${first.body.nextCursor}`, { token });
  t.same([second.body.liquidations, second.body.nextCursor], [[all[1]], null], 'the next page, the last');
  const metrics = await (await fetch(`${app.url}/metrics`)).text();
  t.match(metrics, new RegExp(`^insurance_fund_bad_debt_usdc ${Number(fundRead.body.badDebt) / 1e6}$`, 'm'), 'insurance_fund_bad_debt_usdc');
});
