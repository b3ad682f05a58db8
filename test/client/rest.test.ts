/**
 * The client (client/) against the real server, acting as users do: SIWE sign-in, API keys
 * signed with HMAC, and every route group of the current form through `call`, with the order
 * flows in both phases and in one round trip, and an RFQ from request to fill.
 */
import t from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { keccak256, toBytes } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { startTestApp } from '../gateway/support/testApp.ts';
import { VenueClient, VenueError } from '../../client/index.ts';
import { signedInFunded } from './support.ts';

const wallet = (name: string) => privateKeyToAccount(keccak256(toBytes(`client-test-${name}`)));
const adminWallet = wallet('admin');
const app = await startTestApp({
  memory: true,
  env: { ADMIN_ADDRESSES: adminWallet.address, RATE_LIMITS: JSON.stringify({ auth: { anonymous: 10000, tier1: 10000, tier2: 10000, tier3: 10000 } }) },
});
t.teardown(() => app.close());
const client = (name: string) => new VenueClient({ baseUrl: app.url, account: wallet(name), now: () => app.clock.now });

const admin = client('admin');
await admin.login();
const BTC = (await admin.call('GET /api/helpers/pair-id', { query: { name: 'BTC-USDC' } })).pairId;
// Marks for every series (the test venue lists them without): the admin sets the oracle.
const oracle = await admin.call('GET /api/markets/oracle/:pairId', { params: { pairId: BTC } });
await admin.call('POST /api/admin/oracle/:pairId', { params: { pairId: BTC }, body: { spotPrice: oracle.spotPrice, volatility: oracle.volatility } });
const live = (await admin.call('GET /api/markets', { query: { pairId: BTC, isCall: true, settled: false, limit: 100 } })).markets.filter((m) => m.expiry * 1000 > app.clock.now + 86_400_000);
const nearest = Math.min(...live.map((m) => m.expiry));
const atExpiry = live.filter((m) => m.expiry === nearest);
const series = atExpiry[Math.floor(atExpiry.length / 2)]!;

/** A signed-in trader with a funded portfolio 1 (the local faucet). */
const trader = (name: string): Promise<VenueClient> => signedInFunded(client(name), '1000000000000');

t.test('health, markets and helpers (public)', async (t) => {
  const anon = new VenueClient({ baseUrl: app.url });
  t.equal((await anon.call('GET /api/health')).status, 'ok');
  const pairs = await anon.call('GET /api/markets/pairs');
  t.ok(pairs.some((p) => p.symbol === 'BTC-USDC'));
  const book = await anon.call('GET /api/markets/orderbook/:symbol', { params: { symbol: series.symbol } });
  t.equal(book.seriesId, series.seriesId);
  const ticker = await anon.call('GET /api/markets/ticker/:symbol', { params: { symbol: series.symbol } });
  t.equal(ticker.symbol, series.symbol);
  t.same((await anon.call('GET /api/markets/trades/:symbol', { params: { symbol: series.symbol } })).trades, []);
  const chain = await anon.call('GET /api/markets/chain', { query: { pairId: BTC, expiry: nearest } });
  t.ok(chain.expiries.includes(nearest));
  t.ok(chain.strikes.some((s) => s.call.seriesId === series.seriesId));
  const contracts = await anon.call('GET /api/markets/contracts');
  t.match(contracts.domains.orderBook.name, /OptionsOrderBook$/);
  t.ok((await anon.call('GET /api/markets/contracts/abi')).orderBook.length > 0);
  t.ok((await anon.call('GET /api/markets/open-interest')).pairs.length >= 1);
  t.equal((await anon.call('GET /api/markets/open-interest/:pairId', { params: { pairId: BTC } })).data.pairId, BTC);
  t.equal((await anon.call('GET /api/helpers/series-id', { query: { pairId: BTC, strike: series.strike, expiry: series.expiry, isCall: true } })).seriesId, series.seriesId);
  const tick = await anon.call('GET /api/helpers/price-to-tick', { query: { price: '1500000000000000000', tickDecimals: 2 } });
  t.equal(tick.tick, '150');
  t.equal((await anon.call('GET /api/helpers/tick-to-price', { query: { tick: '150', tickDecimals: 2 } })).price, '1500000000000000000');
  t.equal((await anon.call('GET /api/helpers/tick-decimals/:pairId', { params: { pairId: BTC } })).tickDecimals, 2);
  t.equal((await anon.call('POST /api/helpers/symbol/translate', { body: { symbol: series.symbol } })).inputFormat, 'diffusal');
  t.equal((await anon.call('POST /api/helpers/symbol/translate/batch', { body: { symbols: [series.symbol, 'nope'] } })).errors.length, 1);
  const e = await anon.call('GET /api/markets/ticker/:symbol', { params: { symbol: 'BTC-1-C-1' } }).catch((x: unknown) => x);
  t.ok(e instanceof VenueError && e.status === 404 && e.code === 'not_found', 'a refusal is a VenueError with the code');
});

t.test('auth: SIWE sign-in, session, sign-out', async (t) => {
  const c = client('auth');
  const token = await c.login();
  t.match(token, /^\S+$/);
  const session = await c.call('GET /api/auth/session');
  t.equal(session.user?.address.toLowerCase(), wallet('auth').address.toLowerCase());
  t.ok((await c.call('GET /api/auth/siwe/nonce', { query: { walletAddress: wallet('auth').address } })).nonce);
  await c.signOut();
  const after = await new VenueClient({ baseUrl: app.url, token }).raw('GET /api/account/me');
  t.equal(after.status, 401, 'the token is revoked');
});

t.test('API keys: create, use with HMAC over REST, list, rotate, revoke', async (t) => {
  const c = client('keys');
  await c.login();
  const key = await c.createApiKey('bot', ['read', 'trade']);
  t.match(key.keyId, /^ok_[0-9a-f]{24}$/);
  const bot = new VenueClient({ baseUrl: app.url, apiKey: { keyId: key.keyId, secret: key.secret }, now: () => app.clock.now });
  t.equal((await bot.call('GET /api/account/me')).address.toLowerCase(), wallet('keys').address.toLowerCase(), 'HMAC-signed request');
  t.equal((await c.call('GET /api/keys')).keys.length, 1);
  const rotated = await c.call('POST /api/keys/:keyId/rotate', { params: { keyId: key.keyId } });
  t.equal((await bot.raw('GET /api/account/me')).status, 401, 'the old secret no longer signs');
  bot.apiKey = { keyId: rotated.keyId, secret: rotated.secret };
  t.equal((await bot.raw('GET /api/account/me')).status, 200, 'the new one does');
  await c.call('DELETE /api/keys/:keyId', { params: { keyId: rotated.keyId } });
  t.equal((await bot.raw('GET /api/account/me')).status, 401, 'revoked');
});

t.test('account and portfolio', async (t) => {
  const c = await trader('account');
  t.equal((await c.call('GET /api/portfolio/list')).portfolios.length, 2, 'cash portfolio 0 and 1');
  await c.call('POST /api/portfolio/create');
  await c.call('POST /api/portfolio/transfer', { body: { fromPortfolioId: 1, toPortfolioId: 2, amount: '1000000' } });
  const w = await c.call('POST /api/portfolio/withdraw', { body: { portfolioId: 2, amount: '1000000' } });
  t.equal(w.portfolioId, 2);
  t.ok((await c.call('GET /api/account/me')).address);
  t.equal((await c.call('GET /api/account/portfolios')).portfolios.length, 3);
  t.equal((await c.call('GET /api/account/portfolios/:id', { params: { id: 1 } })).id, 1);
  t.same((await c.call('GET /api/account/portfolios/:id/positions', { params: { id: 1 } })).positions, []);
  t.ok((await c.call('GET /api/account/portfolios/:id/collateral', { params: { id: 1 } })).deposit);
  t.same((await c.call('GET /api/account/orders')).orders, []);
  t.same((await c.call('GET /api/account/trades')).trades, []);
  t.ok(await c.call('GET /api/account/fees'));
  const wi = await c.call('POST /api/account/portfolios/:id/what-if', { params: { id: 1 }, body: { orders: [{ seriesId: series.seriesId, isBuy: true, size: '1', price: '100' }] } });
  t.equal(wi.allowed, true, 'what-if');
});

t.test('orders: both phases, one round trip, replace, batches, cancels, mass cancel, dead-man switch', async (t) => {
  const c = await trader('orders');
  const placed = await c.place({ seriesId: series.seriesId, isBuy: true, size: '1', price: '1.5', portfolioId: 1, clientOrderId: 'c-1' });
  t.equal(placed.mode, 'relay');
  const first = placed.orders[0]!;
  t.equal(first.status, 'open');
  t.equal(first.clientOrderId, 'c-1', 'instructions ride beside the signed message');
  const one = await c.placeSigned({ seriesId: series.seriesId, isBuy: true, size: '0.5', price: '1.2', portfolioId: 1 });
  t.equal(one.orders[0]!.status, 'open', 'one round trip: signed locally');
  const replaced = await c.replace({ cancel: { orderId: first.orderId }, place: { seriesId: series.seriesId, isBuy: true, size: '1', price: '1.6', portfolioId: 1 } });
  t.equal(replaced.cancelled[0]!.orderId, first.orderId);
  const batch = await c.placeBatch([
    { seriesId: series.seriesId, isBuy: true, size: '1', price: '1.1', portfolioId: 1 },
    { seriesId: series.seriesId, isBuy: true, size: '1', price: '1.0', portfolioId: 1, clientOrderId: 'c-2' },
  ]);
  t.equal(batch.count, 2);
  const rb = await c.replaceBatch([{ cancel: { orderId: batch.orders[0]!.orderId }, place: { seriesId: series.seriesId, isBuy: true, size: '1', price: '0.9', portfolioId: 1 } }]);
  t.equal(rb.count, 1);
  const cancelled = await c.cancel({ clientOrderId: 'c-2' });
  t.equal(cancelled.orders[0]!.status, 'cancelled');
  const cb = await c.cancelBatch([one.orders[0]!.orderId]);
  t.equal(cb.orders[0]!.status, 'cancelled');
  const open = await c.call('GET /api/mm/orders');
  t.equal(open.orders.length, 2, 'the replacements are open');
  t.equal((await c.call('GET /api/mm/orders/:orderId', { params: { orderId: open.orders[0]!.orderId } })).status, 'open');
  const armed = await c.call('POST /api/mm/orders/cancel-after', { body: { timeoutMs: 30_000 } });
  t.equal(armed.cancelAt, app.clock.now + 30_000);
  const all = await c.call('POST /api/mm/orders/cancel-all', { body: {} });
  t.equal(all.cancelled, 2);
  const bad = await c.raw('POST /api/mm/orders/place', { body: { seriesId: series.seriesId, isBuy: true, size: '1', price: '1.555', portfolioId: 1 } });
  t.equal(bad.status, 400, 'a price off the tick grid is refused');
});

t.test('admin, MMM, MMP and an RFQ from request to fill', async (t) => {
  const mmClient = client('mmm');
  await admin.call('POST /api/admin/mmm', { body: { address: wallet('mmm').address, isMmm: true } });
  await mmClient.login();
  await mmClient.call('POST /api/portfolio/deposit', { body: { portfolioId: 0, amount: '1000000000000' } });
  const oi = await admin.call('POST /api/admin/open-interest/:pairId', { params: { pairId: BTC }, body: { maxCallOI: '0', maxPutOI: '0' } });
  t.equal(oi.pairId, BTC);
  const mmp = await mmClient.call('POST /api/mm/mmp', { body: { pairId: BTC, windowMs: 1000, frozenMs: 5000, qtyLimit: '10000000000000000000', deltaLimit: '0', vegaLimit: '0', tradeCountLimit: 20 } });
  t.equal(mmp.pairId, BTC);
  t.equal((await mmClient.call('GET /api/mm/mmp')).configs.length, 1);
  t.equal((await mmClient.call('POST /api/mm/mmp/reset', { body: { pairId: BTC } })).frozen, false);

  const taker = await trader('taker');
  const req = await taker.call('POST /api/rfq/request', { body: { seriesId: series.seriesId, size: '1000000000000000000', takerIsBuying: true, portfolioId: 1, ttlSeconds: 30 } });
  const auction = (await mmClient.call('GET /api/rfq/active-auctions')).auctions.find((a) => a.requestId === req.requestId)!;
  t.ok(auction, 'the auction is listed');
  const { quote, signature, reply } = await mmClient.submitQuote(auction, 2n * 10n ** 18n);
  t.equal(reply.status, 'active');
  const quotes = await taker.call('GET /api/rfq/quotes/:requestId', { params: { requestId: req.requestId } });
  t.equal(quotes.quotes[0]!.quoteId, reply.quoteId);
  const fill = await taker.fillQuote({ quote, mmSignature: signature, fillSize: '1000000000000000000', portfolioId: 1 });
  t.equal(fill.mode, 'relay');
  t.equal((await taker.call('GET /api/account/portfolios/:id/positions', { params: { id: 1 } })).positions.length, 1, 'the taker holds the position');
  const n = await mmClient.call('POST /api/mm/nonce/increment');
  t.equal(BigInt(n.nonce), BigInt(n.previousNonce) + 1n);
  const at = await admin.call('POST /api/admin/advance-time', { body: { seconds: 60 } });
  t.equal(at.success, true);
});

t.test('timeoutMs: a request the venue does not answer rejects', async (t) => {
  // A server that accepts requests and never answers them.
  const silent = createServer(() => {});
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    silent.closeAllConnections();
    silent.close();
  });
  const c = new VenueClient({ baseUrl: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`, timeoutMs: 100 });
  const e = await c.raw('GET /api/health').catch((x: unknown) => x);
  t.equal((e as Error).name, 'TimeoutError', 'aborted at its bound');
});
