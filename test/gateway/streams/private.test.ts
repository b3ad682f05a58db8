/**
 * /ws/private: AUTH with a login token or an API key (success and every failure), then the
 * account channels fed by real trades, with isolation: a wallet never hears another's
 * events. Frames are checked against the served AsyncAPI document.
 */
import { instructionsOf } from '../../../engine/domain/instructions.ts';
import t from 'tap';
import { balanceOf, premiumOf } from '../../../engine/actors/position.ts';
import { startTestApp, request } from '../support/testApp.ts';
import { hmacHex } from '../../../gateway/auth/authenticator.ts';
import { wsEnv, connect, priceMarks, fund, atmSeries, order, cancel, wallet, wad, asyncApiValidator, type Client, type Frame } from './support.ts';

wsEnv({ WS_MESSAGES_PER_MINUTE: '10000', WS_AUTH_TIMEOUT_MS: '1500' });
const app = await startTestApp({ memory: true });
t.teardown(() => app.close());
await priceMarks(app);
const alice = wallet(0xa11ce);
const bob = wallet(0xb0b);
const carol = wallet(0xca401);
for (const w of [alice, bob, carol]) await fund(app, w);
const series = atmSeries(app);
const mark = Number(series.marks!.mark) / 1e18;
const api = await asyncApiValidator(app);
const submit = (c: Parameters<typeof app.app.services.pipeline.submit>[0]) => app.app.services.pipeline.submit(c);

async function putKey(owner: string, scopes: string[]): Promise<{ keyId: string; secret: string }> {
  const keyId = `ok_${Math.random().toString(16).slice(2, 14).padEnd(24, '0')}`;
  const secret = 'ab'.repeat(32);
  await app.app.services.stores.apiKeys.put({ keyId, owner, label: 'ws test', scopes, createdAt: app.clock.now, lastUsedAt: null, secret });
  return { keyId, secret };
}

async function authed(address: string, channels: string[] = []): Promise<Client> {
  const c = await connect(app, '/ws/private');
  c.send({ type: 'AUTH', token: await app.session(address) });
  await c.next((f) => f['type'] === 'AUTH_SUCCESS', 'AUTH_SUCCESS');
  if (channels.length > 0) {
    c.send({ method: 'SUBSCRIBE', params: channels, id: 'sub' });
    await c.next((f) => f['id'] === 'sub', 'subscribe ack');
  }
  return c;
}

async function refused(c: Client, what: string): Promise<{ failed: Frame; close: { code: number; reason: string } }> {
  const failed = await c.next((f) => f['type'] === 'AUTH_FAILED', `AUTH_FAILED (${what})`);
  return { failed, close: await c.closed };
}

t.test('AUTH with a login token', async (t) => {
  const c = await connect(app, '/ws/private');
  c.send({ type: 'AUTH', token: await app.session(alice) });
  const ok = await c.next((f) => f['type'] === 'AUTH_SUCCESS');
  const user = await app.app.services.stores.users.byAddress(alice);
  t.same(ok, { type: 'AUTH_SUCCESS', userId: user!.id, address: alice });
  t.equal(api.check('auth.authSuccess', ok), null, 'validates');
  c.send({ method: 'SUBSCRIBE', params: ['ACCOUNT@fills', 'account@positions', 'account@portfolios', 'account@orders'], id: 1 });
  t.same((await c.next((f) => f['id'] === 1))['channels'], ['account@fills', 'account@positions', 'account@portfolios', 'account@orders']);
  c.send({ method: 'SUBSCRIBE', params: [`${series.spec.symbol}@depth`], id: 2 });
  t.match((await c.next((f) => f['id'] === 2))['error'], { code: 4004, msg: /public channels are on \/ws\/public/ }, 'public channels are not served here');
  c.send({ method: 'SUBSCRIBE', params: ['account@balances'], id: 3 });
  t.equal((await c.next((f) => f['id'] === 3))['error'].code, 4004, 'unknown account channel');
  c.send({ type: 'AUTH', token: await app.session(alice) });
  t.equal((await c.next((f) => f['type'] === 'AUTH_SUCCESS' && f !== ok))['userId'], user!.id, 'a repeated AUTH for the same wallet is accepted');
  c.send({ type: 'AUTH', token: await app.session(bob) });
  const other = await refused(c, 'switching wallets');
  t.match(other.failed, { code: 'unauthenticated', message: 'Already authenticated as another wallet' });
  t.equal(other.close.code, 4001);
});

t.test('AUTH with an API key (HMAC of the timestamp), and its scope', async (t) => {
  const key = await putKey(alice, ['read']);
  const ts = app.clock.now;
  const c = await connect(app, '/ws/private');
  c.send({ type: 'AUTH', apiKey: key.keyId, timestamp: ts, signature: hmacHex(key.secret, String(ts)) });
  t.match(await c.next((f) => f['type'] === 'AUTH_SUCCESS'), { type: 'AUTH_SUCCESS', address: alice });
  c.close();
  const replay = await connect(app, '/ws/private');
  replay.send({ type: 'AUTH', apiKey: key.keyId, timestamp: String(ts), signature: hmacHex(key.secret, String(ts)) });
  const r = await refused(replay, 'replayed signature');
  t.match(r.failed['message'], /already used/, 'a signed timestamp is accepted once, as on REST');
  t.equal(r.close.code, 4001);
  const tradeOnly = await putKey(alice, ['trade']);
  const s = await connect(app, '/ws/private');
  s.send({ type: 'AUTH', apiKey: tradeOnly.keyId, timestamp: ts + 1, signature: hmacHex(tradeOnly.secret, String(ts + 1)) });
  const scope = await refused(s, 'missing scope');
  t.same(scope.failed, { type: 'AUTH_FAILED', code: 'permission_denied', message: 'Missing required scope: read' });
  t.equal(scope.close.code, 4003, 'valid credentials without the scope: 4003');
  t.equal(api.check('auth.authFailed', scope.failed), null, 'validates');
});

t.test('every AUTH failure: AUTH_FAILED with a message, then close 4001', async (t) => {
  const key = await putKey(bob, ['read']);
  const cases: [unknown, RegExp, string][] = [
    [{ type: 'AUTH', token: 'not-a-token' }, /Invalid or expired token/, 'unknown token'],
    [{ method: 'SUBSCRIBE', params: ['account@fills'], id: 1 }, /AUTH required/, 'SUBSCRIBE before AUTH'],
    ['{{{', /AUTH required/, 'garbage before AUTH'],
    [{ type: 'AUTH' }, /AUTH needs token, or apiKey/, 'no credentials'],
    [{ type: 'AUTH', token: 42 }, /token must be a non-empty string/, 'token not a string'],
    [{ type: 'AUTH', apiKey: key.keyId, timestamp: app.clock.now - 60_000, signature: hmacHex(key.secret, String(app.clock.now - 60_000)) }, /more than 30 seconds/, 'stale timestamp'],
    [{ type: 'AUTH', apiKey: key.keyId, timestamp: app.clock.now, signature: 'ff'.repeat(32) }, /Invalid API key signature/, 'bad signature'],
    [{ type: 'AUTH', apiKey: key.keyId, timestamp: 'soon', signature: 'x' }, /timestamp must be Unix milliseconds/, 'bad timestamp'],
    [{ type: 'AUTH', apiKey: 'ok_unknown', timestamp: app.clock.now, signature: 'ab' }, /Invalid API key/, 'unknown key'],
  ];
  for (const [msg, re, what] of cases) {
    const c = await connect(app, '/ws/private');
    c.send(msg);
    const r = await refused(c, what);
    t.equal(r.failed['code'], 'unauthenticated', `${what}: code`);
    t.match(r.failed['message'], re, `${what}: message`);
    t.equal(r.close.code, 4001, `${what}: closed with 4001`);
    t.equal(c.frames.length, 1, `${what}: nothing but AUTH_FAILED`);
  }
  const silent = await connect(app, '/ws/private');
  const r = await refused(silent, 'no AUTH at all');
  t.match(r.failed, { code: 'unauthenticated', message: 'AUTH not received within 1500 ms' });
  t.equal(r.close.code, 4001, 'a socket that never authenticates is closed');
});

t.test('account channels: own fills (taker and maker payloads), positions, portfolios and orders only', async (t) => {
  const all = ['account@fills', 'account@positions', 'account@portfolios', 'account@orders'];
  const a = await authed(alice, all);
  const b = await authed(bob, all);
  const c = await authed(carol, all);
  const price = Math.round(mark);
  const sell = order(app, bob, series, false, price, 0.2);
  await submit({ type: 'place', orders: [sell] });
  const buy = order(app, alice, series, true, price, 0.05);
  const r = await submit({ type: 'place', orders: [buy] });
  const trade = r.ok ? r.events.find((e) => e.type === 'trade') : undefined;
  if (!trade || trade.type !== 'trade') throw new Error('expected a trade');
  const rest = { ...order(app, alice, series, true, Math.round(mark * 0.5), 0.01), instructions: instructionsOf({ clientOrderId: 'rest-1', mmp: true }) };
  await submit({ type: 'place', orders: [rest] });
  await submit({ type: 'cancel', cancels: [cancel(app, alice, rest.orderId)] });

  const takerFill = await a.next((f) => f['channel'] === 'account@fills', 'alice fill');
  t.same(takerFill['data'], {
    tradeId: trade.tradeId,
    size: wad(0.05).toString(),
    price: wad(price).toString(),
    timestamp: new Date(trade.ts).toISOString(),
    symbol: series.spec.symbol,
    seriesId: series.spec.seriesId,
    source: 'book',
    side: 'buy',
    fee: trade.takerFee.toString(),
    portfolioId: 1,
    orderId: buy.orderId,
    liquidity: 'taker',
    // With a settlement chain (the suite under TEST_CHAIN), a fill is pending on chain when it happens.
    ...(app.app.services.config.chain !== null ? { relayStatus: 'pending', relayTx: null } : {}),
  }, 'taker: the trader payload');
  const makerFill = await b.next((f) => f['channel'] === 'account@fills', 'bob fill');
  t.match(makerFill['data'], { tradeId: trade.tradeId, seriesId: series.spec.seriesId, size: wad(0.05).toString(), price: wad(price).toString(), side: 'maker', direction: 'sell', orderId: sell.orderId, liquidity: 'maker' }, 'maker: the market-maker payload');
  t.equal(api.check('accountFills.traderFill', takerFill), null, 'trader fill validates');
  t.equal(api.check('accountFills.makerFill', makerFill), null, 'maker fill validates');

  const pos = await a.next((f) => f['channel'] === 'account@positions', 'alice position');
  const p = app.app.engine.state.accounts.portfolio(alice, 1)!.positions.get(series.spec.seriesId)!;
  const expectedPnl = premiumOf(p) + (balanceOf(p) * series.marks!.mark) / 10n ** 30n;
  t.same(pos['data'], { portfolioId: 1, seriesId: series.spec.seriesId, symbol: series.spec.symbol, size: wad(0.05).toString(), unrealizedPnl: expectedPnl.toString(), timestamp: new Date(trade.ts).toISOString() });
  t.match((await b.next((f) => f['channel'] === 'account@positions'))['data'], { portfolioId: 1, size: (-wad(0.05)).toString() }, 'the short side');
  t.equal(api.check('accountPositions.position', pos), null, 'position validates');

  const port = await a.next((f) => f['channel'] === 'account@portfolios' && f['data'].portfolioId === 1, 'alice portfolio');
  t.equal(api.check('accountPortfolios.portfolio', port), null, 'portfolio validates');
  const detail = await request(`${app.url}/api/account/portfolios/1`, { token: await app.session(alice) });
  t.equal(detail.status, 200, 'REST portfolio detail');
  {
    t.equal(port['data'].deposit, detail.body.deposit, 'deposit as REST shows it');
    t.equal(port['data'].equity, detail.body.equity, 'equity as REST shows it');
  }
  t.ok(BigInt(port['data'].initialMargin) % 10n ** 12n === 0n, 'margins in WAD (from COLLATERAL6)');

  const statuses = async (client: Client, orderId: string, n: number) => {
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push((await client.next((f) => f['channel'] === 'account@orders' && f['data'].orderId === orderId, `order ${orderId} #${i}`))['data'].status);
    return out;
  };
  t.same(await statuses(a, buy.orderId, 1), ['filled'], 'the taker order filled');
  t.same(await statuses(b, sell.orderId, 2), ['open', 'partial'], 'the maker order: open, then partial');
  t.same(await statuses(a, rest.orderId, 2), ['open', 'cancelled'], 'placed then cancelled');
  const cancelled = a.frames.filter((f) => f['channel'] === 'account@orders' && f['data'].orderId === rest.orderId).pop()!;
  t.equal(cancelled['data'].reason, 'cancelled_by_owner');
  t.match(cancelled['data'], { cancelReason: 'user', clientOrderId: 'rest-1', mmp: true, timeInForce: 'GTC', postOnly: false, reduceOnly: false }, 'the order instructions and the cancel reason');
  t.equal(api.check('accountOrders.order', cancelled), null, 'order update validates');

  // Isolation: every frame names only the wallet's own orders and trades; carol hears nothing.
  const aliceOrders = new Set([buy.orderId, rest.orderId]);
  const bobOrders = new Set([sell.orderId]);
  for (const [who, client, own] of [['alice', a, aliceOrders], ['bob', b, bobOrders]] as const) {
    const data = client.frames.filter((f) => f['channel']?.startsWith('account@')).map((f) => f['data']);
    t.ok(data.length >= 5, `${who} received their events (${data.length})`);
    t.ok(data.every((d) => d.orderId === undefined || d.orderId === null || own.has(d.orderId)), `${who} sees only their own orders`);
  }
  await priceMarks(app);
  await a.next((f) => f['channel'] === 'account@portfolios' && f['data'].portfolioId === 1 && f !== port, 'portfolio refresh after the oracle moved');
  c.send({ method: 'PING', id: 'last' });
  await c.next((f) => f['id'] === 'last');
  t.same(c.frames.filter((f) => f['channel'] !== undefined), [], 'carol, who did not trade, received no account event');
  for (const x of [a, b, c]) x.close();
});
