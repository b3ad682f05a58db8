/**
 * /ws/public: the control protocol and its error frames, channel names in every form,
 * and the ticker, trades, index and RFQ channels fed by real commands. Every data frame
 * is checked against the message schemas of the served AsyncAPI document.
 */
import t from 'tap';
import { startTestApp, request } from '../support/testApp.ts';
import { userSymbol } from '../../../engine/domain/symbols.ts';
import { wsEnv, connect, priceMarks, fund, atmSeries, order, wallet, wad, asyncApiValidator, BTC, type Client, type Frame } from './support.ts';

wsEnv({ WS_MESSAGES_PER_MINUTE: '10000' });
const app = await startTestApp({ memory: true });
t.teardown(() => app.close());
await priceMarks(app);
const alice = wallet(0xa11ce);
const bob = wallet(0xb0b);
await fund(app, alice);
await fund(app, bob);
const series = atmSeries(app);
const symbol = series.spec.symbol;
const mark = Number(series.marks!.mark) / 1e18;
const api = await asyncApiValidator(app);
const submit = (c: Parameters<typeof app.app.services.pipeline.submit>[0]) => app.app.services.pipeline.submit(c);

let nextId = 100;
async function call(c: Client, msg: Record<string, unknown>): Promise<Frame> {
  const id = nextId++;
  c.send({ ...msg, id });
  return c.next((f) => f['id'] === id, `reply to ${JSON.stringify(msg)}`);
}

t.test('control messages: PING, LIST_SUBSCRIPTIONS, SUBSCRIBE, UNSUBSCRIBE', async (t) => {
  const c = await connect(app, '/ws/public');
  t.same(await call(c, { method: 'PING' }), { result: 'PONG', id: nextId - 1 });
  c.send({ method: 'PING' });
  t.same(await c.next((f) => f['result'] === 'PONG' && f['id'] === null), { result: 'PONG', id: null }, 'id is null when the client sent none');
  c.send({ method: 'ping', id: 'abc' });
  t.same(await c.next((f) => f['id'] === 'abc'), { result: 'PONG', id: 'abc' }, 'methods are case-insensitive; string ids echo');
  t.same(await call(c, { method: 'LIST_SUBSCRIPTIONS' }), { result: [], id: nextId - 1 });
  const ack = await call(c, { method: 'SUBSCRIBE', params: ['global@rfq', 'BTC-USDC@Index'] });
  t.same(ack, { result: null, id: nextId - 1, channels: ['global@rfq', 'btc-usdc@index'] }, 'ack with canonical names');
  t.equal(api.check('control.ack', ack), null, 'the ack validates');
  const list = await call(c, { method: 'LIST_SUBSCRIPTIONS' });
  t.same(list['result'], ['global@rfq', 'btc-usdc@index']);
  t.equal(api.check('control.subscriptions', list), null);
  await call(c, { method: 'UNSUBSCRIBE', params: ['GLOBAL@RFQ'] });
  t.same((await call(c, { method: 'LIST_SUBSCRIPTIONS' }))['result'], ['btc-usdc@index']);
  t.same((await call(c, { method: 'UNSUBSCRIBE', params: ['global@rfq'] }))['result'], null, 'unsubscribing a channel not held is acknowledged');
  c.close();
});

t.test('every malformed request gets an error frame and the connection stays open', async (t) => {
  const c = await connect(app, '/ws/public');
  const cases: [unknown, number, RegExp, string][] = [
    ['not json', 4000, /Invalid JSON/, 'invalid JSON'],
    ['[1,2]', 4000, /JSON objects/, 'an array'],
    [{ method: 'FOO', id: 1 }, 4000, /Unknown method/, 'unknown method'],
    [{ id: 2 }, 4000, /Unknown method/, 'no method'],
    [{ method: 'SUBSCRIBE', id: 3 }, 4000, /params must be a non-empty array/, 'no params'],
    [{ method: 'SUBSCRIBE', params: [], id: 4 }, 4000, /non-empty array/, 'empty params'],
    [{ method: 'SUBSCRIBE', params: 'x@depth', id: 5 }, 4000, /array/, 'params not an array'],
    [{ method: 'SUBSCRIBE', params: [42], id: 6 }, 4000, /non-empty strings/, 'a number as channel'],
    [{ method: 'SUBSCRIBE', params: ['BTC-1-C-1@depth'], id: 7 }, 4004, /Unknown channel "BTC-1-C-1@depth": no such series/, 'unknown series'],
    [{ method: 'SUBSCRIBE', params: [`${symbol}@candles`], id: 8 }, 4004, /unknown stream "@candles"/, 'unknown stream'],
    [{ method: 'SUBSCRIBE', params: ['doge-usdc@index'], id: 9 }, 4004, /no such pair/, 'unknown pair'],
    [{ method: 'SUBSCRIBE', params: ['candles:BTC'], id: 10 }, 4004, /orderbook:, ticker: or trades:/, 'unknown earlier prefix'],
    [{ method: 'SUBSCRIBE', params: ['account@fills'], id: 11 }, 4003, /private: connect to \/ws\/private/, 'a private channel'],
    [{ method: 'SUBSCRIBE', params: ['x'.repeat(500)], id: 12 }, 4004, /name too long/, 'a huge name'],
    [{ method: 'SUBSCRIBE', params: ['nothing'], id: 13 }, 4004, /expected <symbol>@depth/, 'no @'],
  ];
  for (const [msg, code, re, what] of cases) {
    c.send(msg);
    const id = typeof msg === 'object' ? (msg as { id: number }).id : null;
    const f = await c.next((x) => x['error'] !== undefined, what);
    t.equal(f['error'].code, code, `${what}: code ${code}`);
    t.match(f['error'].msg, re, `${what}: message`);
    t.equal(f['id'], id, `${what}: id echoed`);
    t.equal(api.check('control.error', f), null, `${what}: validates`);
  }
  c.ws.send(Buffer.from([1, 2, 3]), { binary: true });
  t.match((await c.next((x) => x['error'] !== undefined, 'binary'))['error'].msg, /Binary frames/);
  // All or nothing: one bad name refuses the whole request.
  c.send({ method: 'SUBSCRIBE', params: ['global@rfq', 'nope@depth'], id: 20 });
  t.equal((await c.next((x) => x['id'] === 20))['error'].code, 4004);
  t.same((await call(c, { method: 'LIST_SUBSCRIPTIONS' }))['result'], [], 'nothing was subscribed');
  t.equal(c.isClosed(), false, 'still open');
  c.close();
});

t.test('a series by canonical symbol, user-facing symbol or seriesId, in any case, is one channel', async (t) => {
  const c = await connect(app, '/ws/public');
  const user = userSymbol({ underlying: 'BTC', strike: series.spec.strike, isCall: series.spec.isCall, expiry: series.spec.expiry });
  const forms = [`${symbol}@ticker`, `${symbol.toLowerCase()}@TICKER`, `${user.toLowerCase()}@ticker`, `${series.spec.seriesId}@ticker`, `${series.spec.seriesId.toUpperCase().replace('0X', '0x')}@ticker`];
  for (const f of forms) t.same((await call(c, { method: 'SUBSCRIBE', params: [f] }))['channels'], [`${symbol}@ticker`], f);
  for (const [earlier, canonical] of [[`ticker:${user}`, `ticker:${symbol}`], [`TRADES:${series.spec.seriesId}`, `trades:${symbol}`], [`orderbook:${symbol.toLowerCase()}`, `orderbook:${symbol}`]] as const) {
    t.same((await call(c, { method: 'SUBSCRIBE', params: [earlier] }))['channels'], [canonical], earlier);
  }
  t.same((await call(c, { method: 'LIST_SUBSCRIPTIONS' }))['result'], [`${symbol}@ticker`, `ticker:${symbol}`, `trades:${symbol}`, `orderbook:${symbol}`], 'one subscription per canonical channel');
  c.close();
});

t.test('ticker: coalesced per turn, equal to the REST ticker, on both names', async (t) => {
  const c = await connect(app, '/ws/public');
  await call(c, { method: 'SUBSCRIBE', params: [`${symbol}@ticker`, `ticker:${symbol}`] });
  const before = c.frames.length;
  const price = Math.round(mark * 0.8);
  // Ten orders in one burst: their commands share turns, so fewer than ten tickers follow.
  await Promise.all(Array.from({ length: 10 }, (_, i) => submit({ type: 'place', orders: [order(app, alice, series, true, price + i, 0.01)] })));
  const expectedBid = wad(price + 9).toString();
  const last = await c.next((f) => f['channel'] === `${symbol}@ticker` && f['data'].bestBid === expectedBid, 'ticker with the new best bid');
  await c.next((f) => f['channel'] === `ticker:${symbol}` && f['data'].bestBid === expectedBid, 'same ticker on the earlier name');
  const tickers = c.frames.slice(before).filter((f) => f['channel'] === `${symbol}@ticker`);
  t.ok(tickers.length >= 1 && tickers.length < 10, `coalesced: ${tickers.length} tickers for 10 commands`);
  const rest = await request(`${app.url}/api/markets/ticker/${symbol}`);
  t.same(last['data'], rest.body, 'the stream ticker is the REST ticker');
  t.equal(api.check('ticker.ticker', last), null, 'validates (current name)');
  t.equal(api.check('tickerEarlier.ticker', c.frames.find((f) => f['channel'] === `ticker:${symbol}`)), null, 'validates (earlier name)');
  c.close();
});

t.test('trades: every trade on @trades and trades:, taker side, ISO timestamp', async (t) => {
  const c = await connect(app, '/ws/public');
  await call(c, { method: 'SUBSCRIBE', params: [`${symbol}@trades`, `trades:${symbol}`] });
  const price = Math.round(mark * 1.5);
  await submit({ type: 'place', orders: [order(app, bob, series, false, price, 0.05)] });
  const r = await submit({ type: 'place', orders: [order(app, alice, series, true, price, 0.03)] });
  const trade = r.ok ? r.events.find((e) => e.type === 'trade') : undefined;
  t.ok(trade, 'the orders traded');
  const f = await c.next((x) => x['channel'] === `${symbol}@trades`, 'trade frame');
  t.match(f['data'], { id: trade && trade.type === 'trade' ? trade.tradeId : 'none', seriesId: series.spec.seriesId, symbol, price: wad(price).toString(), size: wad(0.03).toString(), side: 'buy' });
  t.equal(new Date(f['data'].timestamp).toISOString(), f['data'].timestamp, 'ISO 8601 timestamp');
  const g = await c.next((x) => x['channel'] === `trades:${symbol}`, 'earlier-name trade frame');
  t.same(g['data'], f['data'], 'same payload on the earlier name');
  t.equal(api.check('trades.trade', f), null);
  t.equal(api.check('tradesEarlier.trade', g), null);
  c.close();
});

t.test('index: the oracle price and volatility on every oracle update', async (t) => {
  const c = await connect(app, '/ws/public');
  await call(c, { method: 'SUBSCRIBE', params: ['BTC-USDC@INDEX'] });
  await priceMarks(app);
  const f = await c.next((x) => x['channel'] === 'btc-usdc@index', 'index frame');
  const o = app.app.engine.state.oracles.get(BTC)!;
  t.match(f['data'], { pairId: BTC, symbol: 'BTC-USDC', price: o.spot.toString(), volatility: o.volatility.toString(), riskFreeRate: o.riskFreeRate.toString() });
  t.equal(api.check('index.index', f), null);
  c.close();
});

t.test('global@rfq: rfq_created, then rfq_resolved when the auction expires', async (t) => {
  const c = await connect(app, '/ws/public');
  await call(c, { method: 'SUBSCRIBE', params: ['global@rfq'] });
  const expiresAt = Math.floor(app.app.services.pipeline.now() / 1000) + 10;
  const r = await submit({ type: 'rfq_request', taker: alice, portfolioId: 1, seriesId: series.spec.seriesId, size: wad(1), takerIsBuying: true, expiresAt });
  t.ok(r.ok, 'request created');
  const requestId = r.ok && r.value && 'requestId' in r.value ? r.value.requestId : '';
  const created = await c.next((x) => x['data']?.type === 'rfq_created', 'rfq_created');
  t.match(created, { channel: 'global@rfq', data: { type: 'rfq_created', requestId, pairId: BTC, seriesId: series.spec.seriesId, expiresAt: new Date(expiresAt * 1000).toISOString() } });
  t.notOk('size' in created['data'] || 'takerIsBuying' in created['data'], "the public event does not reveal the taker's size or direction");
  app.clock.advance(11_000);
  await submit({ type: 'clock' });
  const resolved = await c.next((x) => x['data']?.type === 'rfq_resolved', 'rfq_resolved');
  t.match(resolved['data'], { type: 'rfq_resolved', requestId, status: 'expired', quoteId: null });
  t.equal(api.check('rfq.rfqCreated', created), null);
  t.equal(api.check('rfq.rfqResolved', resolved), null);
  c.close();
});
