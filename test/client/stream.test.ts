/**
 * The client's WebSocket side against the real server: a depth book rebuilt from the
 * snapshot and the deltas, a sequence gap resynced by re-subscribing, a dropped connection
 * reconnected, authenticated again (token or API key) and re-subscribed, and order entry
 * over /ws/private with an order signed locally.
 */
import t from 'tap';
import { keccak256, toBytes } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { startTestApp } from '../gateway/support/testApp.ts';
import { within } from '../support/within.ts';
import { DepthBook, VenueClient } from '../../client/index.ts';

process.env['WS_CONNECTIONS_PER_MINUTE'] = '100000';
const wallet = (name: string) => privateKeyToAccount(keccak256(toBytes(`client-stream-${name}`)));
const app = await startTestApp({ memory: true, env: { ADMIN_ADDRESSES: wallet('admin').address } });
t.teardown(() => app.close());

const until = async (what: string, check: () => boolean): Promise<void> => {
  await within(
    (async () => {
      while (!check()) await new Promise((r) => setTimeout(r, 5));
    })(),
    10_000,
    what,
  );
};

const admin = new VenueClient({ baseUrl: app.url, account: wallet('admin'), now: () => app.clock.now });
await admin.login();
const BTC = (await admin.call('GET /api/helpers/pair-id', { query: { name: 'BTC-USDC' } })).pairId;
const o = await admin.call('GET /api/markets/oracle/:pairId', { params: { pairId: BTC } });
await admin.call('POST /api/admin/oracle/:pairId', { params: { pairId: BTC }, body: { spotPrice: o.spotPrice, volatility: o.volatility } });
const live = (await admin.call('GET /api/markets', { query: { pairId: BTC, isCall: true, settled: false, limit: 100 } })).markets.filter((m) => m.expiry * 1000 > app.clock.now + 86_400_000);
const series = live[Math.floor(live.length / 2)]!;

const trader = new VenueClient({ baseUrl: app.url, account: wallet('trader'), now: () => app.clock.now });
await trader.login();
await trader.call('POST /api/portfolio/create');
await trader.call('POST /api/portfolio/deposit', { body: { portfolioId: 1, amount: '1000000000000' } });

t.test('DepthBook: snapshot, deltas, a gap', async (t) => {
  const b = new DepthBook();
  t.equal(b.apply({ type: 'delta', seq: 1, prevSeq: 0, bids: [], asks: [], timestamp: '' }), 'ignored', 'nothing before a snapshot');
  b.apply({ type: 'snapshot', symbol: 'X', seriesId: '0x', seq: 5, bids: [['100', '1'], ['90', '2']], asks: [['110', '1']], timestamp: '' });
  t.equal(b.apply({ type: 'delta', seq: 6, prevSeq: 5, bids: [['100', '0'], ['95', '3']], asks: [], timestamp: '' }), 'ok');
  t.same(b.bids(), [['95', '3'], ['90', '2']], 'a level removed, one added, best first');
  t.equal(b.apply({ type: 'delta', seq: 8, prevSeq: 7, bids: [], asks: [], timestamp: '' }), 'gap');
  t.equal(b.synced, false);
  t.equal(b.apply({ type: 'delta', seq: 9, prevSeq: 8, bids: [['1', '1']], asks: [], timestamp: '' }), 'ignored', 'nothing applied until the next snapshot');
});

t.test('public depth: built from the stream, resynced after a gap and after a reconnect', async (t) => {
  const pub = await trader.stream('/ws/public', { reconnect: { minMs: 10, maxMs: 50 } });
  t.teardown(() => pub.close());
  const book = await pub.depth(series.symbol);
  await until('the snapshot', () => book.synced);
  const placed = await trader.place({ seriesId: series.seriesId, isBuy: true, size: '1', price: '1.5', portfolioId: 1 });
  await until('the bid in the book', () => book.bids().length === 1);
  t.same(book.bids(), [['1500000000000000000', '1000000000000000000']]);
  const channel = pub.subscriptions()[0]!;

  // A delta that does not follow: the book goes stale and the client re-subscribes for a snapshot.
  const seqBefore = book.seq;
  pub.handle({ channel, data: { type: 'delta', seq: book.seq + 5, prevSeq: book.seq + 4, bids: [['1', '1']], asks: [], timestamp: '' } });
  t.equal(book.synced, false, 'the gap is seen');
  await until('the resync snapshot', () => book.synced);
  t.equal(book.seq, seqBefore);
  t.same(book.bids(), [['1500000000000000000', '1000000000000000000']], 'the book as the venue has it');

  // The connection drops: the client reconnects and re-subscribes; the snapshot rebuilds the book.
  let reconnected = false;
  pub.onReconnect(() => (reconnected = true));
  pub.drop();
  await until('the reconnect', () => reconnected && book.synced);
  t.equal(pub.connections, 2);
  await trader.cancel({ orderId: placed.orders[0]!.orderId });
  await until('the cancel in the rebuilt book', () => book.bids().length === 0);
  t.pass('deltas after the reconnect apply');
});

t.test('private: re-authenticates with an API key and re-subscribes after a reconnect; order entry', async (t) => {
  const key = await trader.createApiKey('ws', ['read', 'trade']);
  const bot = new VenueClient({ baseUrl: app.url, account: wallet('trader'), apiKey: { keyId: key.keyId, secret: key.secret }, now: () => app.clock.now });
  const priv = await bot.stream('/ws/private', { reconnect: { minMs: 10, maxMs: 50 } });
  t.teardown(() => priv.close());
  t.equal(priv.user?.address.toLowerCase(), wallet('trader').address.toLowerCase());
  await priv.subscribe(['account@orders']);
  const seen: string[] = [];
  priv.onData((channel, data) => {
    if (channel === 'account@orders') seen.push(data.status as string);
  });
  let reconnected = false;
  priv.onReconnect(() => (reconnected = true));
  priv.drop();
  await until('the reconnect', () => reconnected);
  t.same((await priv.request('LIST_SUBSCRIPTIONS'))['result'], ['account@orders'], 're-subscribed on the new connection');
  const result = await priv.call('PLACE', await bot.signPlace({ seriesId: series.seriesId, isBuy: true, size: '1', price: '1.1', portfolioId: 1 }));
  t.equal(result.mode, 'relay', 'PLACE in one message');
  await until('the order on account@orders', () => seen.includes('open'));
  const err = await priv.call('PLACE', { seriesId: series.seriesId }).catch((e: unknown) => e);
  t.match(String(err), /invalid_argument/, 'a refusal rejects with the REST code');
});
