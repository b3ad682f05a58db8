/**
 * Clients of a killed edge fail over to another (gateway/cluster/edge.ts, client/stream.ts
 * `alternateUrls`), against one NATS node, an engine leader and two edges: edge A is a child
 * process, killed with SIGKILL (no close frame, no goodbye to NATS); edge B runs in this
 * process. A public-stream client of the typed client, subscribed to a depth channel at A,
 * reconnects to B, re-subscribes, gets B's snapshot and then deltas whose prevSeq continues
 * it; its rebuilt book equals the leader's, with the orders placed through B while A was
 * dead and after. A private-stream client (an API key both edges hold: keys are per node)
 * fails over too: authenticated again at B, it hears its orders placed through B.
 */
import t from 'tap';
import { until } from './support/until.ts';
import { putKey, startEdgeCluster, startEdgeProcess, type TestKey } from './support/edgeCluster.ts';
import { tempDir } from '../persistence/fixtures/tempDir.ts';
import { request } from '../gateway/support/testApp.ts';
import { liveSeries, place, trader, wallet } from '../gateway/routes/ordersFixture.ts';
import { wsEnv } from '../gateway/streams/support.ts';
import { VenueClient, VenueStream } from '../../client/index.ts';

const WAIT = 60_000;

type Level = [string, string];
/** A node's book over REST, as [price, size] levels. */
async function restBook(node: string, seriesId: string): Promise<{ bids: Level[]; asks: Level[] }> {
  const r = await request(`${node}/api/markets/orderbook/${seriesId}?depth=500`);
  const levels = (side: { price: string; size: string }[]) => side.map((l): Level => [l.price, l.size]);
  return { bids: levels(r.body.bids), asks: levels(r.body.asks) };
}

t.test('depth and private clients of a killed edge reconnect to another and resync', async (t) => {
  wsEnv();
  const cluster = await startEdgeCluster(t, 'EDGEFO', 1);
  const { leader } = cluster;
  const b = cluster.edges[0]!;
  const key: TestKey = { keyId: `ok_${'f0'.repeat(12)}`, secret: 'ef'.repeat(32), owner: wallet('edge-fo-bob').address };
  await putKey(b, key);
  const a = await startEdgeProcess(cluster.env('edge-a', true), tempDir(t, 'venue-edge-a-'), [key]);
  t.teardown(() => a.kill());
  const series = liveSeries(b);
  const seriesId = series.spec.seriesId;
  const bob = await trader(b, 'edge-fo-bob', { deposit: 1_000_000 });
  const placeAtB = async (price: string): Promise<string> => {
    const r = await place(b, bob, { seriesId, isBuy: true, size: '0.1', price });
    t.equal(r.relay.status, 200, `an order at ${price} through edge B`, { body: r.relay.body });
    return r.typed.body.orderId as string;
  };
  await placeAtB('25');
  const leaderBook = () => restBook(leader.url, seriesId);
  const sameAsLeader = async (node: string): Promise<boolean> => JSON.stringify(await restBook(node, seriesId)) === JSON.stringify(await leaderBook());
  for (const end = Date.now() + WAIT; !(await sameAsLeader(a.url)); ) {
    if (Date.now() > end) throw new Error('edge A did not catch up with the leader');
    await new Promise((r) => setTimeout(r, 50));
  }

  const pub = await VenueStream.open({ baseUrl: a.url, alternateUrls: [b.url], path: '/ws/public', reconnect: { minMs: 20, maxMs: 200 } });
  t.teardown(() => pub.close());
  const frames: { url: string; type: string; seq: number; prevSeq?: number }[] = [];
  pub.onData((channel, data) => {
    if (channel.endsWith('@depth')) frames.push({ url: pub.url, type: data.type, seq: data.seq, ...(data.type === 'delta' ? { prevSeq: data.prevSeq } : {}) });
  });
  const book = await pub.depth(series.spec.symbol);
  await until('the snapshot at edge A', () => book.synced);
  t.same(book.bids(), (await leaderBook()).bids, 'the book from edge A is the leader book');
  const channels = pub.subscriptions();

  const priv = await new VenueClient({ baseUrl: a.url, apiKey: key, now: () => b.clock.now }).stream('/ws/private', { alternateUrls: [b.url], reconnect: { minMs: 20, maxMs: 200 } });
  t.teardown(() => priv.close());
  const heard: { url: string; orderId: string; status: string }[] = [];
  priv.onData((channel, data) => channel === 'account@orders' && heard.push({ url: priv.url, orderId: data.orderId, status: data.status }));
  await priv.subscribe(['account@orders']);
  const before = await placeAtB('26');
  await until('the private event at edge A', () => heard.some((h) => h.orderId === before && h.url === a.url), WAIT);
  let privReconnected = false;
  priv.onReconnect(() => (privReconnected = true));

  let reconnected = false;
  pub.onReconnect(() => (reconnected = true));
  await a.kill(); // SIGKILL: the socket just drops
  await placeAtB('24'); // placed while the client may still be reconnecting
  await until('the failover to edge B', () => reconnected && book.synced, WAIT);
  t.equal(pub.url, b.url, 'the client is on edge B');
  t.same(pub.subscriptions(), channels, 'the same channels, re-subscribed');
  await until('the private stream failover to edge B', () => privReconnected, WAIT);
  t.equal(priv.url, b.url, 'the private client is on edge B, authenticated with the same key');
  const after = await placeAtB('23'); // after the failover
  await until('the private event at edge B', () => heard.some((h) => h.orderId === after && h.url === b.url && h.status === 'open'), WAIT);
  await cluster.caughtUp();
  const expected = await leaderBook();
  t.equal(expected.bids.length, 4, 'the leader book holds the four orders');
  await until('the book to show the orders placed through B', () => JSON.stringify(book.bids()) === JSON.stringify(expected.bids), WAIT);
  t.same({ bids: book.bids(), asks: book.asks() }, expected, "the rebuilt book equals the leader's");

  const atB = frames.filter((f) => f.url === b.url);
  t.equal(atB[0]?.type, 'snapshot', 'edge B sent a snapshot first');
  const breaks = atB.slice(1).filter((f, i) => f.type !== 'delta' || f.prevSeq !== atB[i]!.seq);
  t.same(breaks, [], 'then deltas whose prevSeq continues the last seq');
  t.ok(atB.length >= 2, `deltas arrived from edge B (${atB.length - 1})`);
  t.ok(book.synced, 'the book is in sync');
});
