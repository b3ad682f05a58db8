/**
 * VenueStream's `alternateUrls` (docs/client.md "Streams"): each reconnect attempt goes to the
 * next gateway of the list. Against two real venues in this process: a public depth stream
 * whose gateway shuts down fails over (past a URL that refuses) to the other, re-subscribes
 * and rebuilds the book from that gateway's snapshot; a reconnect attempt whose AUTH is
 * refused (the token unknown there) does not end the reconnecting: the next URL is tried.
 * The cluster form (an edge killed with SIGKILL) is test/cluster/edgeFailover.test.ts.
 */
import t from 'tap';
import { startTestApp, request, type TestApp } from '../gateway/support/testApp.ts';
import { freePort } from '../../gateway/cluster/natsServers.ts';
import { liveSeries, place, trader } from '../gateway/routes/ordersFixture.ts';
import { within } from '../support/within.ts';
import { VenueClient, VenueStream } from '../../client/index.ts';

process.env['WS_CONNECTIONS_PER_MINUTE'] = '100000';
const until = (what: string, check: () => boolean): Promise<void> =>
  within(
    (async () => {
      while (!check()) await new Promise((r) => setTimeout(r, 5));
    })(),
    20_000,
    what,
  );
const fast = { minMs: 10, maxMs: 50 } as const;

const a: TestApp = await startTestApp({ memory: true });
const b: TestApp = await startTestApp({ memory: true });
t.teardown(async () => {
  await a.close();
  await b.close();
});
const series = liveSeries(b);

t.test('a private stream whose next gateway refuses its AUTH goes on to the one after', async (t) => {
  const token = await a.session('0x00000000000000000000000000000000000000a1'); // known at a only
  const priv = await new VenueClient({ baseUrl: a.url, token }).stream('/ws/private', { alternateUrls: [b.url], reconnect: fast });
  t.teardown(() => priv.close());
  await priv.subscribe(['account@orders']);
  let reconnected = 0;
  priv.onReconnect(() => reconnected++);
  priv.drop();
  await until('the reconnect past the refused AUTH', () => reconnected === 1);
  t.equal(priv.url, a.url, 'back on the gateway that knows the token');
  t.equal(priv.connections, 3, 'three sockets opened: at a, at b (its AUTH refused), at a again');
  t.same(priv.subscriptions(), ['account@orders'], 'the channels held');
  t.same((await priv.request('PING'))['result'], 'PONG', 'the stream answers');
});

t.test('a public depth stream fails over when its gateway goes away', async (t) => {
  const dead = `http://127.0.0.1:${await freePort()}`; // nothing listens there
  const pub = await VenueStream.open({ baseUrl: a.url, alternateUrls: [dead, b.url], path: '/ws/public', reconnect: fast });
  t.teardown(() => pub.close());
  t.equal(pub.url, a.url, 'connected to the first URL');
  const book = await pub.depth(series.spec.symbol);
  await until('the first snapshot', () => book.synced);
  t.same(book.bids(), [], 'the book at a is empty');

  const bob = await trader(b, 'failover-bob', { deposit: 1_000_000 });
  const first = await place(b, bob, { seriesId: series.spec.seriesId, isBuy: true, size: '0.1', price: '25' });
  t.equal(first.relay.status, 200, 'an order rests at b', { body: first.relay.body });
  let reconnected = false;
  pub.onReconnect(() => (reconnected = true));
  await a.close(); // its sockets are closed (1001): the client reconnects
  await until('the failover to b', () => reconnected && book.synced);
  t.equal(pub.url, b.url, 'past the URL that refused, on b');
  const rest = (await request(`${b.url}/api/markets/orderbook/${series.spec.seriesId}`)).body;
  t.same(book.bids(), rest.bids.map((l: { price: string; size: string }) => [l.price, l.size]), "the book rebuilt from b's snapshot is b's book");

  const second = await place(b, bob, { seriesId: series.spec.seriesId, isBuy: true, size: '0.2', price: '24' });
  t.equal(second.relay.status, 200);
  await until('the delta from b', () => book.bids().length === 2);
  t.ok(book.synced, 'the deltas from b follow its snapshot');
});
