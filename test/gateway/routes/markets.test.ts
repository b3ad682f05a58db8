/**
 * Public market data, helpers and health against the real server, in both forms.
 */
import t from 'tap';
import { keccak256, toBytes, encodeAbiParameters, getAddress } from 'viem';
import { startTestApp, request } from '../support/testApp.ts';
import { WAD } from '../../../engine/domain/fixed.ts';
import { userSymbol } from '../../../engine/domain/symbols.ts';

const app = await startTestApp({ memory: true });
t.teardown(() => app.close());
const url = app.url;
const BTC = keccak256(toBytes('BTC-USDC'));

t.test('health in both forms', async (t) => {
  for (const path of ['/api/health-signal', '/api/health']) {
    const r = await request(url + path);
    t.equal(r.status, 200);
    t.equal(r.body.status, 'ok');
    t.ok(!Number.isNaN(Date.parse(r.body.timestamp)) && typeof r.body.timestamp === 'string', 'ISO timestamp');
  }
  const earlier = await request(url + '/health');
  t.equal(earlier.body.status, 'ok');
  t.equal(typeof earlier.body.timestamp, 'number', 'earlier form: Unix ms');
});

t.test('pairs: array in the current form, { pairs } with base/quote currency in the earlier', async (t) => {
  const cur = await request(url + '/api/markets/pairs');
  t.ok(Array.isArray(cur.body));
  t.same(cur.body.map((p: { symbol: string }) => p.symbol), ['BTC-USDC', 'ETH-USDC']);
  t.equal(cur.body[0].pairId, BTC, 'pairId = keccak256(symbol)');
  t.equal(cur.body[0].underlying, 'BTC');
  t.equal(cur.body[0].tickDecimals, 2);
  const old = await request(url + '/markets/pairs');
  t.equal(old.body.pairs[1].baseCurrency, 'ETH');
  t.equal(old.body.pairs[1].quoteCurrency, 'USDC');
});

t.test('markets: pagination, filters, seriesId as api.md defines it', async (t) => {
  const first = await request(url + '/api/markets');
  t.equal(first.status, 200);
  t.equal(first.body.markets.length, 20, 'default limit 20');
  t.ok(first.body.total > 100);
  t.equal(first.body.hasMore, true);
  const seen = new Set<string>();
  let cursor: string | null = null;
  let pages = 0;
  do {
    const r: { body: { markets: { seriesId: string }[]; nextCursor: string | null } } = await request(`${url}/api/markets?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    for (const m of r.body.markets) seen.add(m.seriesId);
    cursor = r.body.nextCursor;
    pages++;
  } while (cursor && pages < 50);
  t.equal(seen.size, first.body.total, 'cursor pages cover every series exactly once');
  const m = first.body.markets[0];
  const expected = keccak256(encodeAbiParameters([{ type: 'bytes32' }, { type: 'uint256' }, { type: 'uint256' }, { type: 'bool' }], [m.pairId, BigInt(m.strike), BigInt(m.expiry), m.isCall]));
  t.equal(m.seriesId, expected, 'seriesId recomputes with viem');
  t.equal(new Date(m.expiry * 1000).getUTCHours(), 8, 'expiry at 08:00 UTC');
  const eth = await request(`${url}/api/markets?pairId=${keccak256(toBytes('ETH-USDC'))}&isCall=false&limit=100`);
  t.ok(eth.body.markets.length > 0, 'the filters leave some ETH puts');
  t.ok(eth.body.markets.every((x: { pairSymbol: string; isCall: boolean }) => x.pairSymbol === 'ETH-USDC' && !x.isCall), 'filters apply');
  for (const bad of ['limit=0', 'limit=101', 'limit=abc', 'pairId=0x12', 'cursor=nope']) {
    const r = await request(`${url}/api/markets?${bad}`);
    t.equal(r.status, 400, bad);
    t.equal(r.body.code, 'invalid_argument');
    t.match(r.body.message, /limit|pairId|cursor/);
  }
  const ignored = await request(`${url}/api/markets?limit=1&foo=bar`);
  t.equal(ignored.status, 200, 'unknown query parameters are ignored');
  const old = await request(`${url}/markets?limit=0`);
  t.equal(old.body.error, 'validation_error', 'earlier error shape');
});

t.test('orderbook, ticker and trades by canonical symbol, user-facing symbol and seriesId', async (t) => {
  const list = await request(`${url}/api/markets?limit=100&pairId=${BTC}&isCall=true`);
  const m = list.body.markets[Math.floor(list.body.markets.length / 2)];
  const user = userSymbol({ underlying: 'BTC', strike: BigInt(m.strike), isCall: true, expiry: m.expiry });
  for (const ref of [m.symbol, user, m.seriesId, m.seriesId.toUpperCase().replace('0X', '0x')]) {
    const book = await request(`${url}/api/markets/orderbook/${ref}`);
    t.equal(book.status, 200, `orderbook ${ref}`);
    t.equal(book.body.seriesId, m.seriesId);
    t.same(book.body.bids, []);
    t.equal(typeof book.body.timestamp, 'number');
  }
  const ticker = await request(`${url}/api/markets/ticker/${m.symbol}`);
  t.equal(ticker.status, 200);
  for (const f of ['markPrice', 'indexPrice', 'delta', 'gamma', 'vega', 'theta', 'rho', 'iv', 'volume24h', 'priceChange24h', 'openInterest']) t.match(ticker.body[f], /^-?\d+$/, `${f} is a WAD string`);
  t.equal(ticker.body.indexPrice, (100_000n * WAD).toString());
  t.ok(BigInt(ticker.body.markPrice) > 0n);
  t.ok(BigInt(ticker.body.delta) > 0n && BigInt(ticker.body.delta) < WAD, 'call delta in (0, 1)');
  t.equal(ticker.body.bestBid, null);
  t.equal(ticker.body.lastTradeAt, null);
  const trades = await request(`${url}/markets/trades/${m.symbol}`);
  t.same(trades.body, { trades: [], nextCursor: null });
  for (const path of ['/api/markets/ticker/BTC-1-C-1', '/api/markets/orderbook/nonsense', '/api/markets/trades/0x' + 'a'.repeat(64)]) {
    const r = await request(url + path);
    t.equal(r.status, 404, path);
    t.match(r.body.message, /^Series not found: /);
  }
  const deep = await request(`${url}/api/markets/orderbook/${m.symbol}?depth=501`);
  t.equal(deep.status, 400);
});

t.test('oracle, contracts, abi, open interest', async (t) => {
  const o = await request(`${url}/api/markets/oracle/${BTC}`);
  t.equal(o.body.symbol, 'BTC-USDC');
  t.equal(o.body.spotPrice, (100_000n * WAD).toString());
  t.equal(typeof o.body.lastUpdate, 'number');
  t.equal((await request(`${url}/api/markets/oracle/0x${'1'.repeat(64)}`)).status, 404);
  t.equal((await request(`${url}/api/markets/oracle/zz`)).status, 400);
  const c = await request(`${url}/api/markets/contracts`);
  t.equal(c.body.chainId, 10143);
  t.same(Object.keys(c.body.contracts).sort(), ['collateralToken', 'collateralVault', 'oracle', 'orderBook', 'positionManager', 'quoter', 'rfq', 'seriesRegistry']);
  for (const a of Object.values(c.body.contracts) as string[]) t.equal(getAddress(a), a, 'EIP-55 address');
  t.same(c.body.domains, {
    orderBook: { name: 'DiffusalOptionsOrderBook', version: '1', chainId: 10143, verifyingContract: c.body.contracts.orderBook },
    rfq: { name: 'DiffusalOptionsRFQ', version: '1', chainId: 10143, verifyingContract: c.body.contracts.rfq },
  }, 'every EIP-712 domain a client signs with');
  const abi = await request(`${url}/api/markets/contracts/abi`);
  t.same(abi.body.orderBook.map((f: { name: string }) => f.name), ['placeOrderSigned', 'replaceOrderSigned', 'batchPlaceOrders', 'batchCancelOrders', 'batchReplaceOrders']);
  t.same(abi.body.rfq.map((f: { name: string }) => f.name), ['fillQuote']);
  const oi = await request(`${url}/api/markets/open-interest`);
  t.equal(oi.body.pairs.length, 2);
  t.equal(oi.body.pairs[0].callOI, '0');
  t.equal(oi.body.pairs[0].maxCallOI, '0', '0 = unlimited');
  const one = await request(`${url}/markets/open-interest/${BTC}`);
  t.equal(one.body.data.symbol, 'BTC-USDC');
});

t.test('helpers', async (t) => {
  t.equal((await request(`${url}/api/helpers/pair-id?name=BTC-USDC`)).body.pairId, BTC);
  const sid = await request(`${url}/api/helpers/series-id?pairId=${BTC}&strike=${100_000n * WAD}&expiry=1767600000&isCall=true`);
  t.equal(sid.body.seriesId, keccak256(encodeAbiParameters([{ type: 'bytes32' }, { type: 'uint256' }, { type: 'uint256' }, { type: 'bool' }], [BTC, 100_000n * WAD, 1767600000n, true])));
  t.equal((await request(`${url}/api/helpers/series-id?pairId=${BTC}&strike=1.5&expiry=1&isCall=true`)).status, 400);
  t.equal((await request(`${url}/api/helpers/series-id?pairId=${BTC}&strike=1&expiry=1&isCall=maybe`)).status, 400);
  const td = await request(`${url}/api/helpers/tick-decimals/${BTC}`);
  t.same(td.body, { tickDecimals: 2, spotPrice: (100_000n * WAD).toString() });
  t.equal((await request(`${url}/api/helpers/tick-to-price?tick=500&tickDecimals=4`)).body.price, '50000000000000000', 'tick 500 at 4 decimals is 0.05');
  t.equal((await request(`${url}/api/helpers/price-to-tick?price=50000000000000000&tickDecimals=4`)).body.tick, '500');
  t.equal((await request(`${url}/api/helpers/price-to-tick?price=50000000000000001&tickDecimals=4&roundUp=true`)).body.tick, '501');
  t.equal((await request(`${url}/api/helpers/price-to-tick?price=50000000000000001&tickDecimals=4&roundUp=false`)).body.tick, '500');
  t.equal((await request(`${url}/api/helpers/tick-to-price?tick=4294967296&tickDecimals=2`)).status, 400, 'tick beyond uint32');
  t.equal((await request(`${url}/api/helpers/tick-to-price?tick=1&tickDecimals=19`)).status, 400);
  const tr = await request(`${url}/api/helpers/symbol/translate`, { body: { symbol: 'BTC-82000-C-1767254400-SHORT' } });
  t.equal(tr.status, 200);
  t.equal(tr.body.inputFormat, 'diffusal');
  t.equal(tr.body.outputFormat, 'external');
  t.equal(tr.body.isShort, true);
  const back = await request(`${url}/helpers/symbol/translate`, { body: { symbol: tr.body.output } });
  t.equal(back.body.outputFormat, 'diffusal');
  const bad = await request(`${url}/api/helpers/symbol/translate`, { body: { symbol: 'not-a-symbol' } });
  t.equal(bad.status, 400);
  t.equal(bad.body.message, 'Invalid symbol format');
  const batch = await request(`${url}/api/helpers/symbol/translate/batch`, { body: { symbols: ['ETH-3550_5-P-1767254400', 'nope'] } });
  t.equal(batch.body.results.length, 1);
  t.same(batch.body.errors.map((e: { index: number }) => e.index), [1]);
  const notArray = await request(`${url}/api/helpers/symbol/translate/batch`, { body: { symbols: 'BTC' } });
  t.equal(notArray.status, 400);
  t.match(notArray.body.message, /symbols must be an array/);
  const empty = await request(`${url}/api/helpers/symbol/translate/batch`, { body: { symbols: [] } });
  t.equal(empty.body.message, 'At least one symbol is required');
});
