/**
 * Admin actions against the real server: only ADMIN_ADDRESSES wallets, each action as an
 * engine command with a visible effect (MMM membership, oracle with recomputed marks,
 * open-interest caps, and on NETWORK=local time travel through an expiry).
 */
import t from 'tap';
import { getAddress } from 'viem';
import { startTestApp, request } from '../support/testApp.ts';
import { hmacHeaders, login, newWallet, relaxedAuthLimits } from '../auth/siweClient.ts';
import { atTheMoney, placeDirect, priceNearMark, USDC, WAD } from '../auth/venueOrders.ts';
import { pairIdOf } from '../../../engine/domain/ids.ts';

const admin = newWallet();
const startAt = Date.UTC(2026, 0, 5, 12, 0, 0);
const app = await startTestApp({ memory: true, startAt, env: { ...relaxedAuthLimits, ADMIN_ADDRESSES: admin.address.toLowerCase() } });
t.teardown(() => app.close());
const url = app.url;
const state = app.app.engine.state;
const BTC = pairIdOf('BTC-USDC');
let adminToken = await login(url, admin);
const userToken = await login(url, newWallet());

const routes: [string, unknown][] = [
  ['/api/admin/mmm', { address: admin.address, isMmm: true }],
  [`/api/admin/oracle/${BTC}`, { spotPrice: String(100_000n * WAD) }],
  [`/api/admin/open-interest/${BTC}`, { maxCallOI: '0', maxPutOI: '0' }],
  ['/api/admin/advance-time', { seconds: 1 }],
];

t.test('non-admins get 403 Admin access required; anonymous callers 401', async (t) => {
  for (const [path, body] of routes) {
    const r = await request(url + path, { token: userToken, body });
    t.same([r.status, r.body], [403, { code: 'permission_denied', message: 'Admin access required', details: null }], path);
    t.equal((await request(url + path, { body })).status, 401, `${path} anonymous`);
  }
});

/** What only an MMM may do, through the API: cancel its quotes by incrementing its MMM nonce. */
const incrementNonce = (token: string, baseUrl = url) => request(`${baseUrl}/api/mm/nonce/increment`, { method: 'POST', token });
const notMmm = { code: 'permission_denied', message: 'MMM membership required', details: { reason: 'not_mmm' } };

t.test('mmm: grant and revoke membership', async (t) => {
  const mm = newWallet();
  const mmToken = await app.session(mm.address);
  t.same(await incrementNonce(mmToken).then((r) => [r.status, r.body]), [403, notMmm], 'not an MMM yet');
  const r = await request(`${url}/api/admin/mmm`, { token: adminToken, body: { address: mm.address.toLowerCase(), isMmm: true } });
  t.same([r.status, r.body], [200, { address: mm.address, isMmm: true }], 'answered checksummed');
  t.equal(state.accounts.isMmm[state.accounts.walletOf(getAddress(mm.address))], 1);
  t.same(await incrementNonce(mmToken).then((r) => [r.status, r.body]), [200, { nonce: '1', previousNonce: '0' }], 'the wallet now acts as an MMM');
  t.equal((await request(`${url}/api/mm/nonce`, { token: mmToken })).body.nonce, '1');
  const revoke = await request(`${url}/api/admin/mmm`, { token: adminToken, body: { address: mm.address, isMmm: false } });
  t.same([revoke.status, revoke.body], [200, { address: mm.address, isMmm: false }]);
  t.equal(state.accounts.isMmm[state.accounts.walletOf(getAddress(mm.address))], 0);
  t.same(await incrementNonce(mmToken).then((r) => [r.status, r.body]), [403, notMmm], 'and no longer after the revocation');
  const bad = await request(`${url}/api/admin/mmm`, { token: adminToken, body: { address: '0x12', isMmm: true } });
  t.same([bad.status, bad.body.message], [400, 'Invalid wallet address']);
  const notBool = await request(`${url}/api/admin/mmm`, { token: adminToken, body: { address: mm.address, isMmm: 'yes' } });
  t.same([notBool.status, notBool.body.message], [400, 'isMmm must be true or false']);
});

t.test('oracle: new values, marks recomputed, defaults kept', async (t) => {
  const series = atTheMoney(app.app);
  const before = series.marks!.mark;
  const old = state.oracles.get(BTC)!;
  const spot = (old.spot * 11n) / 10n;
  const r = await request(`${url}/api/admin/oracle/${BTC}`, { token: adminToken, body: { spotPrice: spot.toString() } });
  t.equal(r.status, 200);
  t.same(r.body, { pairId: BTC, symbol: 'BTC-USDC', spotPrice: spot.toString(), volatility: old.volatility.toString(), riskFreeRate: old.riskFreeRate.toString(), lastUpdate: state.nowSec });
  t.ok(series.marks!.mark > before, 'a call is worth more after spot rose 10%');
  const pub = await request(`${url}/api/markets/oracle/${BTC}`);
  t.equal(pub.body.spotPrice, spot.toString(), 'the public oracle shows it');
  const vol = await request(`${url}/api/admin/oracle/${BTC}`, { token: adminToken, body: { spotPrice: spot.toString(), volatility: String(WAD / 2n), riskFreeRate: '-10000000000000000' } });
  t.same([vol.body.volatility, vol.body.riskFreeRate], [String(WAD / 2n), '-10000000000000000'], 'a negative rate is allowed');
  for (const [body, message] of [
    [{ spotPrice: '0' }, 'spotPrice must be a positive numeric string'],
    [{ spotPrice: '1.5' }, 'spotPrice must be an integer string in fixed point (no decimal point)'],
    [{ spotPrice: '1', volatility: '0' }, 'volatility must be a positive numeric string'],
  ] as const) {
    const bad = await request(`${url}/api/admin/oracle/${BTC}`, { token: adminToken, body });
    t.same([bad.status, bad.body.message], [400, message], JSON.stringify(body));
  }
  const unknown = await request(`${url}/api/admin/oracle/0x${'1'.repeat(64)}`, { token: adminToken, body: { spotPrice: '1' } });
  t.same([unknown.status, unknown.body.code], [404, 'not_found']);
});

t.test('open-interest caps apply to new orders', async (t) => {
  const r = await request(`${url}/api/admin/open-interest/${BTC}`, { token: adminToken, body: { maxCallOI: String(WAD), maxPutOI: '0' } });
  t.equal(r.status, 200);
  t.match(r.body, { pairId: BTC, maxCallOI: String(WAD), maxPutOI: '0' });
  t.same((await request(`${url}/api/markets/open-interest/${BTC}`)).body.data.maxCallOI, String(WAD));
  const w = newWallet();
  const token = await login(url, w);
  await request(`${url}/api/portfolio/create`, { method: 'POST', token });
  await request(`${url}/api/portfolio/deposit`, { token, body: { portfolioId: 1, amount: String(1_000_000n * USDC) } });
  const series = atTheMoney(app.app);
  await t.rejects(placeDirect(app.app, { owner: w.address, portfolioId: 1, series, isBuy: true, price: priceNearMark(app.app, series), size: 2n * WAD }), /oi_cap/, 'an order that could open 2 calls is refused');
  await request(`${url}/api/admin/open-interest/${BTC}`, { token: adminToken, body: { maxCallOI: '0', maxPutOI: '0' } });
  const neg = await request(`${url}/api/admin/open-interest/${BTC}`, { token: adminToken, body: { maxCallOI: '-1', maxPutOI: '0' } });
  t.same([neg.status, neg.body.message], [400, 'maxCallOI must not be negative']);
});

t.test('an admin wallet\'s API key acts only with scope admin', async (t) => {
  const readKey = (await request(`${url}/api/keys`, { token: adminToken, body: { label: 'reader', scopes: ['read', 'trade', 'withdraw'] } })).body;
  const adminKey = (await request(`${url}/api/keys`, { token: adminToken, body: { label: 'ops', scopes: ['admin'] } })).body;
  const mm = newWallet();
  const mmToken = await app.session(mm.address);
  const refused = await request(`${url}/api/admin/mmm`, { headers: hmacHeaders(readKey.keyId, readKey.secret, app.clock.now), body: { address: mm.address, isMmm: true } });
  t.same([refused.status, refused.body], [403, { code: 'permission_denied', message: 'Missing required scope: admin', details: null }], 'read, trade and withdraw are not admin');
  t.same(await incrementNonce(mmToken).then((r) => [r.status, r.body]), [403, notMmm], 'nothing was granted');
  const r = await request(`${url}/api/admin/mmm`, { headers: hmacHeaders(adminKey.keyId, adminKey.secret, app.clock.now), body: { address: mm.address, isMmm: true } });
  t.same([r.status, r.body], [200, { address: mm.address, isMmm: true }]);
  t.same(await incrementNonce(mmToken).then((r) => [r.status, r.body]), [200, { nonce: '1', previousNonce: '0' }], 'granted by the admin key');
});

t.test('advance-time (local): the venue clock jumps, series expire and settle, positions are paid', async (t) => {
  const w = newWallet();
  const token = await login(url, w);
  await request(`${url}/api/portfolio/create`, { method: 'POST', token });
  await request(`${url}/api/portfolio/deposit`, { token, body: { portfolioId: 1, amount: String(100_000n * USDC) } });
  const maker = newWallet();
  await app.app.services.pipeline.submit({ type: 'create_portfolio', owner: maker.address });
  await app.app.services.pipeline.submit({ type: 'deposit', owner: maker.address, portfolioId: 1, amount: 100_000n * USDC });
  const series = atTheMoney(app.app);
  const price = priceNearMark(app.app, series);
  await placeDirect(app.app, { owner: maker.address, portfolioId: 1, series, isBuy: false, price, size: WAD / 10n });
  await placeDirect(app.app, { owner: w.address, portfolioId: 1, series, isBuy: true, price, size: WAD / 10n });
  t.equal((await request(`${url}/api/account/portfolios/1/positions`, { token })).body.positions.length, 1);

  const before = app.app.services.pipeline.now();
  const seconds = series.spec.expiry - Math.floor(before / 1000) + 60;
  const r = await request(`${url}/api/admin/advance-time`, { token: adminToken, body: { seconds } });
  t.equal(r.status, 200);
  t.match(r.body, { success: true, seconds, timestamp: Math.floor((before + seconds * 1000) / 1000) });
  t.ok(r.body.settledSeries > 0, 'series at that expiry settled');
  t.ok(app.app.services.pipeline.now() >= before + seconds * 1000, 'the pipeline clock moved');
  t.equal(series.settled, true);
  const market = await request(`${url}/api/markets/ticker/${series.spec.seriesId}`);
  t.equal(market.body.isSettled, true);
  // Sessions are checked against the same clock: a jump past 24 hours would end them.
  const after = await login(url, w);
  adminToken = await login(url, admin);
  t.same((await request(`${url}/api/account/portfolios/1/positions`, { token: after })).body, { positions: [] }, 'the settled position was paid out and closed');
  const trades = (await request(`${url}/api/account/trades`, { token: after })).body.trades;
  t.equal(trades.length, 1, 'the trade history stays');
  const bad = await request(`${url}/api/admin/advance-time`, { token: adminToken, body: { seconds: 0 } });
  t.same([bad.status, bad.body.message], [400, 'seconds must be an integer from 1 to 31622400']);
});

t.test('advance-time exists only on NETWORK=local', async (t) => {
  const testnet = await startTestApp({ memory: true, startAt, env: { ...relaxedAuthLimits, NETWORK: 'testnet', SIWE_DOMAIN: 'venue.example.com', ADMIN_ADDRESSES: admin.address } });
  t.teardown(() => testnet.close());
  const token = await login(testnet.url, admin, { domain: 'venue.example.com' });
  const r = await request(`${testnet.url}/api/admin/advance-time`, { token, body: { seconds: 60 } });
  t.same([r.status, r.body.code], [404, 'not_found']);
  const doc = (await request(`${testnet.url}/openapi/json`)).body;
  t.notOk(doc.paths['/api/admin/advance-time'], 'not documented there either');
  t.same(await incrementNonce(token, testnet.url).then((r) => [r.status, r.body]), [403, notMmm]);
  const grant = await request(`${testnet.url}/api/admin/mmm`, { token, body: { address: admin.address, isMmm: true } });
  t.same([grant.status, grant.body], [200, { address: admin.address, isMmm: true }], 'other admin actions work');
  t.same(await incrementNonce(token, testnet.url).then((r) => [r.status, r.body]), [200, { nonce: '1', previousNonce: '0' }], 'with their effect');
  await request(`${testnet.url}/api/portfolio/create`, { method: 'POST', token });
  t.equal((await request(`${testnet.url}/api/portfolio/deposit`, { token, body: { portfolioId: 1, amount: '1000000' } })).status, 200, 'testnet has the faucet');
});
