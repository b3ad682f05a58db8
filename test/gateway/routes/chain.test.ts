/**
 * The option chain (extensions.md "Option chain"): one read for a whole expiry, both forms,
 * built from the read models: strikes ascending with call and put, the touch with its sizes
 * as the book shows it, marks and Greeks as the ticker shows them; 404s as documented.
 */
import t from 'tap';
import { getAddress } from 'viem';
import { startTestApp, request } from '../support/testApp.ts';
import { atTheMoney, placeDirect, priceNearMark, USDC, WAD } from '../auth/venueOrders.ts';

const app = await startTestApp({ memory: true });
t.teardown(() => app.close());
const url = app.url;

t.test('the chain of the nearest expiry, with the book and the ticker of every side', async (t) => {
  const series = atTheMoney(app.app);
  const pairId = series.spec.pairId;
  const trader = getAddress('0x00000000000000000000000000000000000C4A17');
  const { pipeline } = app.app.services;
  await pipeline.submit({ type: 'create_portfolio', owner: trader });
  await pipeline.submit({ type: 'deposit', owner: trader, portfolioId: 1, amount: 1_000_000n * USDC });
  const price = priceNearMark(app.app, series);
  const bid = await placeDirect(app.app, { owner: trader, portfolioId: 1, series, isBuy: true, price, size: WAD / 10n });
  t.ok(bid.result.ok, 'a bid rests');
  await placeDirect(app.app, { owner: trader, portfolioId: 1, series, isBuy: true, price, size: WAD / 5n });

  for (const base of ['/api/markets/chain', '/markets/chain']) {
    const r = await request(`${url}${base}?pairId=${pairId}`);
    t.equal(r.status, 200, base);
    const c = r.body;
    const live = [...app.app.engine.state.series.values()].filter((s) => s.spec.pairId === pairId && !s.settled && s.spec.expiry * 1000 > app.clock.now);
    const nearest = Math.min(...live.map((s) => s.spec.expiry));
    t.equal(c.pairId, pairId);
    t.equal(c.underlying, 'BTC');
    t.equal(c.expiry, nearest, 'the nearest live expiry by default');
    t.same(c.expiries, [...new Set(live.map((s) => s.spec.expiry))].sort((a, b) => a - b), 'every live expiry, ascending');
    t.equal(c.timestamp, app.clock.now, 'Unix ms of the read');
    const strikes = live.filter((s) => s.spec.expiry === nearest && s.spec.isCall).map((s) => s.spec.strike).sort((a, b) => (a < b ? -1 : 1));
    t.same(c.strikes.map((x: { strike: string }) => BigInt(x.strike)), strikes, 'every strike of the expiry, ascending');
    const row = c.strikes.find((x: { call: { seriesId: string } }) => x.call.seriesId === series.spec.seriesId);
    t.ok(row, 'the traded series is in the chain');
    t.equal(row.call.bestBid, price.toString(), 'the best bid');
    t.equal(row.call.bestBidSize, ((3n * WAD) / 10n).toString(), 'and the size resting at it (both bids)');
    t.equal(row.call.bestAsk, null, 'an empty side is null');
    t.equal(row.call.bestAskSize, null);
    const ticker = (await request(`${url}/api/markets/ticker/${series.spec.symbol}`)).body;
    for (const k of ['markPrice', 'iv', 'delta', 'gamma', 'vega', 'theta', 'openInterest', 'volume24h', 'symbol', 'seriesId']) t.equal(row.call[k], ticker[k], `call ${k} as the ticker`);
    const put = [...app.app.engine.state.series.values()].find((s) => s.spec.pairId === pairId && s.spec.expiry === nearest && s.spec.strike === series.spec.strike && !s.spec.isCall)!;
    t.equal(row.put.seriesId, put.spec.seriesId, 'the put of the same strike');
    t.equal(row.put.bestBid, null);
  }
});

t.test('an expiry named, and the 404s', async (t) => {
  const series = atTheMoney(app.app);
  const pairId = series.spec.pairId;
  const all = (await request(`${url}/api/markets/chain?pairId=${pairId}`)).body.expiries as number[];
  const later = all[all.length - 1]!;
  const r = await request(`${url}/api/markets/chain?pairId=${pairId}&expiry=${later}`);
  t.equal(r.status, 200);
  t.equal(r.body.expiry, later, 'the expiry asked for');
  t.ok(r.body.strikes.length > 0);
  const notLive = await request(`${url}/api/markets/chain?pairId=${pairId}&expiry=${later + 1}`);
  t.equal(notLive.status, 404);
  t.equal(notLive.body.code, 'not_found');
  t.match(notLive.body.message, /^Expiry not found: /);
  const unknown = await request(`${url}/api/markets/chain?pairId=0x${'ab'.repeat(32)}`);
  t.equal(unknown.status, 404);
  t.match(unknown.body.message, /^Pair not found: /);
  const earlier = await request(`${url}/markets/chain?pairId=0x${'ab'.repeat(32)}`);
  t.equal(earlier.status, 404);
  t.equal(earlier.body.error, 'not_found', 'the earlier form: { error, message }');
  t.match(earlier.body.message, /^Pair not found: /);
  const bad = await request(`${url}/api/markets/chain?pairId=nope`);
  t.equal(bad.status, 400, 'a malformed pairId');
  const missing = await request(`${url}/api/markets/chain`);
  t.equal(missing.status, 400, 'pairId is required');
});
