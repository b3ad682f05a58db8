/**
 * The platform, leaderboard, points and user-analytics routes against the real server, in both
 * forms: their replies after real fills (alice rests, bob takes), their refusals (bad query
 * values, no credentials, an unknown wallet, ranges out of bounds) and paging.
 */
import t from 'tap';
import { startTestApp, request } from '../support/testApp.ts';
import { pairIdOf } from '../../../engine/domain/ids.ts';
import { WAD } from '../../../engine/domain/fixed.ts';
import { traders, trade, tick } from './activityFixture.ts';

const app = await startTestApp({ memory: true });
t.teardown(() => app.close());
const url = app.url;
const start = app.clock.now;
const HOUR = 3_600_000;

const before = await request(`${url}/api/platform/stats`);
const pair = await traders(app);
const { alice, bob } = pair;
await trade(app, pair, '1000'); // premium 1,000 USDC: alice 2 points (maker), bob 1 (taker)
await tick(app, HOUR); // the next hour
await trade(app, pair, '500', '2'); // premium 1,000 USDC again
await tick(app);
const spot = app.app.engine.state.oracles.get(pairIdOf('BTC-USDC'))!.spot;
const notional = (3n * spot) / 10n ** 12n; // 3 contracts x spot (WAD), in COLLATERAL6

t.test('platform stats and volume', async (t) => {
  t.equal(before.body.volume24h, '0', 'nothing traded at first');
  t.equal(before.body.trades24h, 0);
  for (const path of ['/api/platform/stats', '/platform/stats']) {
    const r = await request(url + path);
    t.equal(r.status, 200, path);
    t.equal(r.body.volume24h, notional.toString(), `${path}: 24 h volume is the fills' notional (size x spot)`);
    t.equal(r.body.trades24h, 2);
    t.equal(r.body.traders24h, 2);
    t.equal(r.body.updatedAt, app.clock.now, 'computed at the last clock command');
    t.ok(BigInt(r.body.totalCollateral) > 0n);
    const btc = r.body.pairs.find((p: { pairId: string }) => p.pairId === pairIdOf('BTC-USDC'));
    t.equal(btc.volume24h, notional.toString());
    t.equal(btc.openInterest, (3n * WAD).toString(), 'three contracts open');
    t.equal(r.body.pairs.length, 2, 'every listed pair');
  }
  const v = await request(`${url}/api/platform/volume?interval=1h&from=${start}&to=${app.clock.now}`);
  t.equal(v.status, 200);
  t.same(v.body.points.map((p: { t: number; trades: number }) => [p.t - start, p.trades]), [[0, 1], [HOUR, 1]], 'one point per hour, each with its fill');
  const earlier = await request(`${url}/platform/volume?interval=1d&from=${start}&to=${app.clock.now}`);
  t.equal(earlier.status, 200);
  t.same(earlier.body.points, [{ t: Math.floor(start / 86_400_000) * 86_400_000, volume: notional.toString(), trades: 2 }], 'one day');
  const defaults = await request(`${url}/api/platform/volume`);
  t.equal(defaults.body.points.length, 24, 'by default the last 24 hours');
});

t.test('leaderboard: ranks, values, paging, both forms', async (t) => {
  const points = await request(`${url}/api/leaderboard?metric=points&period=all`);
  t.equal(points.status, 200);
  t.same(points.body.entries, [
    { rank: 1, address: alice.address, value: 4 },
    { rank: 2, address: bob.address, value: 2 },
  ]);
  t.same({ metric: points.body.metric, period: points.body.period, nextCursor: points.body.nextCursor, updatedAt: points.body.updatedAt }, { metric: 'points', period: 'all', nextCursor: null, updatedAt: app.clock.now });
  const volume = await request(`${url}/leaderboard?metric=volume&period=24h`);
  t.equal(volume.status, 200, 'earlier form');
  t.same(volume.body.entries.map((e: { value: string }) => e.value), [notional.toString(), notional.toString()], 'both sides count the notional');
  const [first, second] = [alice.address, bob.address].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1));
  t.same(volume.body.entries.map((e: { address: string }) => e.address), [first, second], 'a tie is ordered by address');
  const page1 = await request(`${url}/api/leaderboard?metric=points&period=7d&limit=1`);
  t.same([page1.body.entries.length, page1.body.nextCursor], [1, '1']);
  const page2 = await request(`${url}/api/leaderboard?metric=points&period=7d&limit=1&cursor=${page1.body.nextCursor}`);
  t.same(page2.body.entries, [{ rank: 2, address: bob.address, value: 2 }]);
  t.equal(page2.body.nextCursor, null);
  const pnl = await request(`${url}/api/leaderboard?metric=pnl&period=30d`);
  t.same(pnl.body.entries.map((e: { value: string }) => e.value), ['0', '0'], 'nothing realized yet (positions are open)');
  const defaults = await request(`${url}/api/leaderboard`);
  t.same([defaults.body.metric, defaults.body.period], ['volume', '24h']);

  const token = await app.session(bob.address);
  for (const path of ['/api/leaderboard/me?metric=points&period=all', '/leaderboard/me?metric=points&period=all']) {
    const me = await request(url + path, { token });
    t.same(me.body, { rank: 2, value: 2, participants: 2 }, path);
  }
  const outsider = await app.session('0x9999999999999999999999999999999999999999');
  t.same((await request(`${url}/api/leaderboard/me?metric=volume`, { token: outsider })).body, { rank: null, value: '0', participants: 2 });
});

t.test('points: me and history, both forms', async (t) => {
  const token = await app.session(alice.address);
  for (const path of ['/api/points/me', '/points/me']) {
    const r = await request(url + path, { token });
    t.equal(r.status, 200, path);
    t.same(r.body, {
      address: alice.address,
      total: 4,
      epoch: { id: Math.floor((start - Date.UTC(1970, 0, 5)) / (7 * 86_400_000)), start: Date.UTC(2026, 0, 5), end: Date.UTC(2026, 0, 12), points: 4 },
      rank: 1,
      breakdown: { maker: 4, taker: 0, referral: 0 },
    });
  }
  const history = await request(`${url}/points/history`, { token });
  t.same(history.body, { epochs: [{ id: history.body.epochs[0]?.id, start: Date.UTC(2026, 0, 5), end: Date.UTC(2026, 0, 12), points: 4, rank: 1 }], nextCursor: null });
  const none = await request(`${url}/api/points/history?cursor=${history.body.epochs[0].id}`, { token });
  t.same(none.body, { epochs: [], nextCursor: null }, 'nothing before the first epoch');
});

t.test('user stats and analytics, both forms', async (t) => {
  for (const path of [`/api/user/${bob.address}/stats`, `/user/${bob.address.toLowerCase()}/stats`]) {
    const r = await request(url + path);
    t.equal(r.status, 200, path);
    t.same(r.body, { address: bob.address, volume30d: notional.toString(), trades30d: 2, realizedPnl30d: '0', firstTradeAt: start });
  }
  const token = await app.session(bob.address);
  for (const path of [`/api/user/me/analytics?interval=1h&from=${start}&to=${app.clock.now}`, `/user/me/analytics?interval=1h&from=${start}&to=${app.clock.now}`]) {
    const r = await request(url + path, { token });
    t.equal(r.status, 200, path);
    t.equal(r.body.points.length, 2);
    t.same(r.body.points.map((p: { t: number; trades: number }) => [p.t - start, p.trades]), [[0, 1], [HOUR, 1]]);
    t.ok(r.body.points.every((p: { fees: string; equity: string }) => BigInt(p.fees) > 0n && BigInt(p.equity) > 0n), 'the taker paid fees; its equity is known');
  }
});

t.test('refusals', async (t) => {
  const token = await app.session(alice.address);
  const cases: [string, number, string, string | null][] = [
    ['/api/leaderboard?metric=fame', 400, 'invalid_argument', 'metric must be one of volume, pnl, points'],
    ['/api/leaderboard?period=1y', 400, 'invalid_argument', 'period must be one of 24h, 7d, 30d, all'],
    ['/api/leaderboard?cursor=abc', 400, 'invalid_argument', 'cursor must be a nextCursor value'],
    ['/api/leaderboard?limit=0', 400, 'invalid_argument', 'limit must be greater than 0 and at most 100'],
    ['/api/leaderboard/me', 401, 'unauthenticated', null],
    ['/api/points/me', 401, 'unauthenticated', null],
    ['/api/points/history', 401, 'unauthenticated', null],
    ['/api/user/me/analytics', 401, 'unauthenticated', null],
    ['/api/user/0x123/stats', 400, 'invalid_argument', 'Invalid wallet address'],
    ['/api/user/0x4444444444444444444444444444444444444449/stats', 404, 'not_found', 'Wallet not found: 0x4444444444444444444444444444444444444449'],
    [`/api/platform/volume?from=${start + 1}&to=${start}`, 400, 'invalid_argument', 'from must be before to'],
    [`/api/platform/volume?interval=1h&from=0&to=${start}`, 400, 'invalid_argument', 'at most 1000 points per reply: narrow from and to, or use interval 1d'],
    [`/api/platform/volume?interval=1d&from=0&to=${start}`, 400, 'invalid_argument', 'at most 1000 points per reply: narrow from and to'],
    ['/api/platform/volume?interval=1w', 400, 'invalid_argument', 'interval must be one of 1h, 1d'],
    ['/api/platform/volume?from=yesterday', 400, 'invalid_argument', 'from must be a Unix time in milliseconds'],
  ];
  for (const [path, status, code, message] of cases) {
    const auth = status === 401 ? {} : { token };
    const r = await request(url + path, auth);
    t.equal(r.status, status, path);
    t.equal(r.body.code, code, `${path}: ${JSON.stringify(r.body)}`);
    if (message !== null) t.equal(r.body.message, message);
    const earlier = await request(url + path.slice(4), auth);
    t.equal(earlier.status, status, `earlier ${path}`);
    t.ok(typeof earlier.body.error === 'string' && earlier.body.code === undefined, 'the earlier error shape');
  }
  const analytics = await request(`${url}/api/user/me/analytics?from=${start + 1}&to=${start}`, { token });
  t.equal(analytics.status, 400);
});

t.test('a leaderboard read does no sorting: between clock commands it serves the ranking of the last one', async (t) => {
  const read = async () => (await request(`${url}/api/leaderboard?metric=points&period=all`)).body;
  const ranked = await read();
  await trade(app, pair, '9000', '2'); // premium 18,000 USDC: alice (maker) +36 points, bob (taker) +18
  const between = await read();
  t.same(between, ranked, 'the fill is committed, the ranking (and its updatedAt) is still the last clock\'s');
  const token = await app.session(bob.address);
  t.same((await request(`${url}/api/leaderboard/me?metric=points&period=all`, { token })).body, { rank: 2, value: 2, participants: 2 }, 'so is the rank of /me');
  await tick(app);
  const after = await read();
  t.same(after.entries.map((e: { address: string; value: number }) => [e.address, e.value]), [[alice.address, 40], [bob.address, 20]], 'ranked again at the clock');
  t.equal(after.updatedAt, app.clock.now);
});
