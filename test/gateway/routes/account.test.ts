/**
 * Account reads against the real server after real trading (orders entered into the
 * engine): field shapes and units of interface.md, numbers equal to the engine's account
 * actor, both forms, trade pagination, a market maker's portfolio 0, and ownership: a
 * wallet tries every account route with another wallet's ids.
 */
import t from 'tap';
import { getAddress } from 'viem';
import { startTestApp, request } from '../support/testApp.ts';
import { login, loginEarlier, newWallet, relaxedAuthLimits } from '../auth/siweClient.ts';
import { atTheMoney, placeDirect, priceNearMark, USDC, WAD } from '../auth/venueOrders.ts';

const app = await startTestApp({ memory: true, env: relaxedAuthLimits });
t.teardown(() => app.close());
const url = app.url;
const state = app.app.engine.state;

const alice = newWallet();
const bob = newWallet();
const alic = await login(url, alice);
const bobt = await login(url, bob);
const post = (path: string, token: string, body?: unknown) => request(url + path, { method: 'POST', token, ...(body !== undefined ? { body } : {}) });
const get = (path: string, token: string) => request(url + path, { token });

// Alice: portfolios 1 and 2, 100k USDC in 1. Bob: portfolio 1 with 100k USDC.
for (const [token, count] of [[alic, 2], [bobt, 1]] as const) for (let i = 0; i < count; i++) await post('/api/portfolio/create', token);
await post('/api/portfolio/deposit', alic, { portfolioId: 1, amount: String(100_000n * USDC) });
await post('/api/portfolio/deposit', bobt, { portfolioId: 1, amount: String(100_000n * USDC) });

const series = atTheMoney(app.app);
const price = priceNearMark(app.app, series);
const half = WAD / 2n;
// Bob rests a sell of 1 contract; Alice takes half of it; Alice rests a buy below.
await placeDirect(app.app, { owner: bob.address, portfolioId: 1, series, isBuy: false, price, size: WAD });
await placeDirect(app.app, { owner: alice.address, portfolioId: 1, series, isBuy: true, price, size: half });
const tickSize = 10n ** BigInt(18 - state.pairs.get(series.spec.pairId)!.tickDecimals);
const lowPrice = (price / 2n / tickSize) * tickSize;
const resting = await placeDirect(app.app, { owner: alice.address, portfolioId: 1, series, isBuy: true, price: lowPrice, size: WAD / 5n });
const spot = state.oracles.get(series.spec.pairId)!.spot;
const spotOf = (owner: string) => app.app.engine.whatIf(getAddress(owner), 1, [])!.before.liquidationSpot?.toString() ?? null;
const risk = (owner: string, id: number) => state.accounts.risk(state.accounts.portfolio(getAddress(owner), id)!);

t.test('portfolio detail: the engine numbers, cash in COLLATERAL6 and margin in WAD', async (t) => {
  const r = await get('/api/account/portfolios/1', alic);
  t.equal(r.status, 200);
  const e = risk(alice.address, 1);
  t.same(r.body, {
    id: 1,
    deposit: e.deposit.toString(),
    equity: e.equity.toString(),
    unrealizedPnl: e.unrealizedPnl.toString(),
    maxWithdraw: e.maxWithdraw.toString(),
    initialMargin: (e.initialMargin * 10n ** 12n).toString(),
    maintenanceMargin: (e.maintenanceMargin * 10n ** 12n).toString(),
    healthRatio: e.healthRatio.toString(),
    isHealthy: e.isHealthy,
    isLiquidatable: !e.isHealthy,
    positionCount: 1,
    createdAt: Math.floor(app.clock.now / 1000),
    liquidationSpot: spotOf(alice.address),
  });
  t.equal(BigInt(r.body.equity), BigInt(r.body.deposit) + BigInt(r.body.unrealizedPnl), 'equity = deposit + unrealized PnL');
  const b = (await get('/api/account/portfolios/1', bobt)).body;
  t.ok(BigInt(b.initialMargin) > 0n, 'the short side needs margin');
  t.equal(BigInt(b.maintenanceMargin), ((BigInt(b.initialMargin) / 10n ** 12n) * 8n + 9n) / 10n * 10n ** 12n, 'maintenance = 80% of initial (rounded up in COLLATERAL6)');
  t.equal(BigInt(b.healthRatio), (BigInt(b.equity) * WAD) / (BigInt(b.maintenanceMargin) / 10n ** 12n), 'healthRatio = equity / maintenance, WAD');
  t.ok(b.liquidationSpot !== null, 'the short side has a liquidation spot');
  t.equal(b.liquidationSpot, spotOf(bob.address), "the folded reads' liquidation spot is the engine's (its margin what-if)");
});

t.test('positions: balance, deferred premium, entry, mark, notional, PnL and Greeks', async (t) => {
  const r = await get('/api/account/portfolios/1/positions', alic);
  t.equal(r.body.positions.length, 1);
  const p = r.body.positions[0];
  const premium = -(half * price) / 10n ** 30n;
  const mark = series.marks!.mark;
  t.same(p, {
    seriesId: series.spec.seriesId,
    symbol: series.spec.symbol,
    optionBalance: half.toString(),
    premiumBalance: premium.toString(),
    entryPrice: price.toString(),
    realizedPnl: '0',
    markPrice: mark.toString(),
    notional: ((half * spot) / WAD).toString(),
    marketValue: ((half * mark) / WAD).toString(),
    unrealizedPnl: ((half * mark) / 10n ** 30n + premium).toString(),
    delta: ((series.marks!.delta * half) / WAD).toString(),
    gamma: ((series.marks!.gamma * half) / WAD).toString(),
    vega: ((series.marks!.vega * half) / WAD).toString(),
    theta: ((series.marks!.theta * half) / WAD).toString(),
  });
  t.equal(p.unrealizedPnl, (await get('/api/account/portfolios/1', alic)).body.unrealizedPnl, 'positions add up to the portfolio');
  const short = (await get('/api/account/portfolios/1/positions', bobt)).body.positions[0];
  t.same([short.optionBalance, short.premiumBalance, short.entryPrice], [(-half).toString(), (-premium).toString(), price.toString()], 'the short side, owed the premium');
  t.same((await get('/api/account/portfolios/2/positions', alic)).body, { positions: [] });
});

t.test('collateral, summaries, profile and the portfolio list', async (t) => {
  const c = (await get('/api/account/portfolios/1/collateral', alic)).body;
  const fee = BigInt((await get('/api/account/fees', alic)).body.takerFees);
  t.ok(fee > 0n);
  t.equal(c.deposit, (100_000n * USDC - fee).toString(), 'the deposit less the taker fee charged at the fill');
  t.equal(BigInt(c.locked), BigInt(c.deposit) - BigInt(c.maxWithdraw), 'locked = deposit - maxWithdraw');
  t.ok(BigInt(c.locked) > 0n, 'the open buy and the owed premium hold cash');
  const list = (await get('/api/account/portfolios', alic)).body.portfolios;
  t.same(list.map((p: { id: number }) => p.id), [0, 1, 2], 'portfolio 0 (cash) exists once a trading portfolio does');
  t.match(list[1], { id: 1, positionCount: 1, deposit: c.deposit, isHealthy: true, createdAt: Number });
  const me = (await get('/api/account/me', alic)).body;
  t.match(me, { address: alice.address, portfolioCount: 3, positionCount: 1, isHealthy: true, totalDeposit: c.deposit });
  t.equal(BigInt(me.totalEquity), BigInt(me.totalDeposit) + BigInt(me.totalUnrealizedPnl));
  const pl = (await get('/api/portfolio/list', alic)).body.portfolios;
  t.same(pl[1], { id: 1, owner: alice.address, cashBalance: c.deposit, marginUsed: risk(alice.address, 1).initialMarginWithOrders.toString(), createdAt: new Date(Math.floor(app.clock.now / 1000) * 1000).toISOString() });
});

t.test('open orders', async (t) => {
  const r = (await get('/api/account/orders', alic)).body.orders;
  t.same(r, [
    {
      orderId: resting.orderId,
      seriesId: series.spec.seriesId,
      symbol: series.spec.symbol,
      portfolioId: 1,
      side: 'buy',
      price: lowPrice.toString(),
      size: (WAD / 5n).toString(),
      filled: '0',
      remaining: (WAD / 5n).toString(),
      status: 'open',
      createdAt: Math.floor(app.clock.now / 1000),
      expiry: series.spec.expiry,
      timeInForce: 'GTC',
      postOnly: false,
      reduceOnly: false,
      mmp: false,
      clientOrderId: null,
    },
  ]);
  const bobs = (await get('/api/account/orders?portfolioId=1', bobt)).body.orders;
  t.same(bobs.map((o: { status: string; filled: string; remaining: string; side: string }) => [o.side, o.status, o.filled, o.remaining]), [['sell', 'partial', half.toString(), half.toString()]]);
  t.same((await get('/api/account/orders?portfolioId=2', alic)).body, { orders: [] });
});

t.test('trades and fees: taker pays, maker does not; pages newest first', async (t) => {
  const a = (await get('/api/account/trades', alic)).body;
  t.equal(a.trades.length, 1);
  t.equal(a.nextCursor, null);
  const fee = BigInt(a.trades[0].fee);
  t.ok(fee > 0n, 'taker fee');
  t.match(a.trades[0], { seriesId: series.spec.seriesId, symbol: series.spec.symbol, portfolioId: 1, side: 'buy', price: price.toString(), size: half.toString(), liquidity: 'taker', timestamp: Math.floor(app.clock.now / 1000) });
  const b = (await get('/api/account/trades', bobt)).body.trades;
  t.match(b, [{ id: a.trades[0].id, side: 'sell', liquidity: 'maker', fee: '0' }], 'the same trade from the other side');
  t.same((await get('/api/account/fees', alic)).body, { totalFeesPaid: fee.toString(), fees24h: fee.toString(), makerFees: '0', takerFees: fee.toString(), rebatesReceived: '0' });
  t.same((await get('/api/account/fees', bobt)).body, { totalFeesPaid: '0', fees24h: '0', makerFees: '0', takerFees: '0', rebatesReceived: '0' });

  // Four more fills, then page through five trades two at a time.
  await placeDirect(app.app, { owner: bob.address, portfolioId: 1, series, isBuy: false, price, size: WAD });
  for (let i = 0; i < 4; i++) await placeDirect(app.app, { owner: alice.address, portfolioId: 1, series, isBuy: true, price, size: WAD / 10n });
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const param: string = cursor === null ? '' : pages % 2 === 0 ? `&before=${cursor}` : `&cursor=${cursor}`;
    const page: { body: { trades: { id: string }[]; nextCursor: string | null } } = await get(`/api/account/trades?limit=2${param}`, alic);
    ids.push(...page.body.trades.map((x) => x.id));
    cursor = page.body.nextCursor;
    pages++;
  } while (cursor !== null && pages < 10);
  t.equal(pages, 3);
  t.equal(ids.length, 5);
  t.same(ids, [...ids].sort((x, y) => Number(y) - Number(x)), 'newest first, no repeats');
  t.same((await get('/api/account/trades?portfolioId=2', alic)).body, { trades: [], nextCursor: null });
});

t.test('the earlier form serves the same bodies with the cookie', async (t) => {
  const { cookie } = await loginEarlier(url, alice);
  const headers = { cookie: `session=${cookie}` };
  for (const path of ['/account/me', '/account/portfolios', '/account/portfolios/1', '/account/portfolios/1/positions', '/account/portfolios/1/collateral', '/account/orders', '/account/trades?limit=3', '/account/fees', '/portfolio/list']) {
    const old = await request(url + path, { headers });
    const cur = await get('/api' + path, alic);
    t.same([old.status, old.body], [200, cur.body], path);
    t.equal(old.headers.get('x-ratelimit-limit'), null, 'no rate-limit headers in the earlier form');
    t.ok(cur.headers.get('x-ratelimit-limit'), 'rate-limit headers on authenticated current replies');
  }
});

t.test("ownership: bob tries every account route with alice's ids", async (t) => {
  // Alice has portfolio 2, bob does not; every read and write naming it is 404 for bob.
  const reads = ['/api/account/portfolios/2', '/api/account/portfolios/2/positions', '/api/account/portfolios/2/collateral', '/api/account/orders?portfolioId=2', '/api/account/trades?portfolioId=2'];
  for (const path of reads) {
    const r = await get(path, bobt);
    t.same([r.status, r.body], [404, { code: 'not_found', message: 'Portfolio not found: 2', details: { portfolioId: 2 } }], path);
  }
  const writes: [string, unknown][] = [
    ['/api/portfolio/deposit', { portfolioId: 2, amount: '1000000' }],
    ['/api/portfolio/withdraw', { portfolioId: 2, amount: '1000000' }],
    ['/api/portfolio/transfer', { fromPortfolioId: 1, toPortfolioId: 2, amount: '1000000' }],
    ['/api/portfolio/transfer', { fromPortfolioId: 2, toPortfolioId: 1, amount: '1000000' }],
  ];
  for (const [path, body] of writes) {
    const r = await post(path, bobt, body);
    t.same([r.status, r.body.code, r.body.message], [404, 'not_found', 'Portfolio not found: 2'], `${path} ${JSON.stringify(body)}`);
  }
  t.equal((await get('/api/account/portfolios/2', alic)).status, 200, 'alice still has it');
  // Same id, different owners: bob's portfolio 1 is bob's.
  const bob1 = (await get('/api/account/portfolios/1/positions', bobt)).body.positions;
  t.ok(bob1.length > 0, 'bob holds a position in his portfolio 1');
  t.ok(bob1.every((p: { optionBalance: string }) => BigInt(p.optionBalance) < 0n), "bob's portfolio 1 holds bob's short, not alice's long");
  const bobOrders = (await get('/api/account/orders', bobt)).body.orders.map((o: { orderId: string }) => o.orderId);
  t.notOk(bobOrders.includes(resting.orderId), "alice's orders are not listed for bob");
  const bobTrades = (await get('/api/account/trades?limit=100', bobt)).body.trades as { side: string }[];
  t.ok(bobTrades.length > 0, 'bob has trades');
  t.ok(bobTrades.every((x) => x.side === 'sell'), 'only his own side of the trades');
  const stranger = await login(url, newWallet());
  t.same((await get('/api/account/me', stranger)).body, { address: (await request(`${url}/api/auth/session`, { token: stranger })).body.user.address, portfolioCount: 0, totalEquity: '0', totalDeposit: '0', totalUnrealizedPnl: '0', isHealthy: true, positionCount: 0 });
  t.same((await get('/api/account/portfolios', stranger)).body, { portfolios: [] });
  t.same((await get('/api/account/orders', stranger)).body, { orders: [] });
  t.equal((await get('/api/account/portfolios/0', stranger)).status, 404);
});

t.test("a market maker's internal portfolios show as its portfolio 0", async (t) => {
  const mm = newWallet();
  const token = await login(url, mm);
  await app.app.services.pipeline.submit({ type: 'set_mmm', address: mm.address, isMmm: true });
  await post('/api/portfolio/deposit', token, { portfolioId: 0, amount: String(100_000n * USDC) });
  await placeDirect(app.app, { owner: mm.address, portfolioId: 0, series, isBuy: true, price, size: WAD / 10n });
  const list = (await get('/api/account/portfolios', token)).body.portfolios;
  t.same(list.map((p: { id: number; positionCount: number }) => [p.id, p.positionCount]), [[0, 1]], 'one public portfolio, with the position');
  const positions = (await get('/api/account/portfolios/0/positions', token)).body.positions;
  t.same(positions.map((p: { seriesId: string; optionBalance: string }) => [p.seriesId, p.optionBalance]), [[series.spec.seriesId, (WAD / 10n).toString()]]);
  const trades = (await get('/api/account/trades', token)).body.trades;
  t.equal(trades[0].portfolioId, 0);
});

t.test('bad input answers 400 naming the field', async (t) => {
  const cases: [string, string][] = [
    ['/api/account/portfolios/abc', 'id must be a non-negative integer'],
    ['/api/account/portfolios/-1', 'id must be a non-negative integer'],
    ['/api/account/trades?limit=0', 'limit must be greater than 0 and at most 100'],
    ['/api/account/trades?limit=101', 'limit must be greater than 0 and at most 100'],
    ['/api/account/trades?before=abc', 'before must be a trade id (nextCursor)'],
    ['/api/account/orders?portfolioId=1.5', 'portfolioId must be a non-negative integer'],
  ];
  for (const [path, message] of cases) {
    const r = await get(path, alic);
    t.same([r.status, r.body.code, r.body.message], [400, 'invalid_argument', message], path);
  }
  t.same((await request(`${url}/account/portfolios`)).body, { error: 'unauthorized', message: 'No auth data available' });
});

t.test('fees24h is a rolling day (runs last: the clock jump expires the sessions above)', async (t) => {
  const before = (await get('/api/account/fees', alic)).body;
  t.ok(BigInt(before.fees24h) > 0n);
  app.clock.advance(24 * 3600_000 + 1000);
  const token = await login(url, alice);
  const after = (await get('/api/account/fees', token)).body;
  t.same(after, { ...before, fees24h: '0' }, 'totals stay, the 24-hour figure rolls off');
});
