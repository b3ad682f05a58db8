/**
 * The shared stores end to end (JOURNAL=nats, STORES=shared by default): a leader and two
 * edges. A wallet signs in and creates an API key through edge A; edge B knows the session
 * and accepts the key at once: a signed order placed with it through edge B rests in the
 * leader's book. A signed request accepted at one edge is a replay at the other. Without
 * KEY_ENCRYPTION_KEY a JOURNAL=nats node refuses to start, saying why.
 */
import t from 'tap';
import { startNatsCluster } from '../../gateway/cluster/natsServers.ts';
import { loadConfig } from '../../gateway/config.ts';
import { VenueClient, type RouteKey } from '../../client/index.ts';
import { tempDir } from '../persistence/fixtures/tempDir.ts';
import { startTestApp, request, type TestApp } from '../gateway/support/testApp.ts';
import { liveSeries, signServed, trader, type Trader } from '../gateway/routes/ordersFixture.ts';
import { until } from './support/until.ts';

t.test('a key created at edge A places a signed order at edge B', async (t) => {
  const nats = await startNatsCluster(tempDir(t, 'cluster-'), 1);
  t.teardown(() => nats.stop());
  const env = (node: string, edge = false) => ({ JOURNAL: 'nats', NATS_URL: nats.urls.join(','), NATS_STREAM: 'SHARED', NODE_ID: node, LEASE_TTL_MS: '3000', ...(edge ? { EDGE: '1' } : {}) });
  const leader: TestApp = await startTestApp({ env: env('engine-a'), dataDir: tempDir(t, 'venue-a-') });
  t.teardown(() => leader.close());
  t.equal(leader.app.role?.role(), 'leader');
  const edgeA: TestApp = await startTestApp({ env: env('edge-1', true), dataDir: tempDir(t, 'venue-e1-') });
  t.teardown(() => edgeA.close());
  const edgeB: TestApp = await startTestApp({ env: env('edge-2', true), dataDir: tempDir(t, 'venue-e2-') });
  t.teardown(() => edgeB.close());
  await until('both edges to fold the listing', () => edgeA.app.engine.seq === leader.app.engine.seq && edgeB.app.engine.seq === leader.app.engine.seq);

  // Signed in at edge A (its session is written to the shared bucket through edge A).
  const alice: Trader = await trader(edgeA, 'shared-alice', { deposit: 1_000_000 });
  const atB = await request(`${edgeB.url}/api/auth/session`, { token: alice.token });
  t.equal(atB.status, 200);
  t.equal(atB.body.user?.address, alice.address, 'the session made at edge A is valid at edge B', { body: atB.body });
  const created = await request(`${edgeA.url}/api/keys`, { method: 'POST', token: alice.token, body: { label: 'mm bot', scopes: ['read', 'trade'] } });
  t.equal(created.status, 200, 'the key is created at edge A', { body: created.body });
  const apiKey = { keyId: created.body.keyId as string, secret: created.body.secret as string };

  // Right after the create returned: the key at edge B, for both phases of a signed order.
  const bot = new VenueClient({ baseUrl: edgeB.url, apiKey, now: () => edgeB.clock.now });
  const series = liveSeries(edgeB);
  const order = { portfolioId: alice.portfolioId, seriesId: series.spec.seriesId, isBuy: true, size: '0.1', price: '25' };
  const typed = await bot.raw('POST /api/mm/orders/place' as RouteKey, { body: order } as never);
  t.equal(typed.status, 200, 'edge B accepts the key made at edge A', { body: typed.body });
  const signed = await signServed(alice.account, (typed.body as { typedData: unknown }).typedData);
  const placed = await bot.raw('POST /api/mm/orders/place' as RouteKey, { body: signed } as never);
  t.equal(placed.status, 200, 'the signed order placed with it at edge B is acknowledged', { body: placed.body });
  const book = await request(`${leader.url}/api/markets/orderbook/${series.spec.seriesId}`);
  t.equal(book.body.bids?.length, 1, 'and rests in the leader book');

  // One replay window for the cluster: the same signed request at edge A after edge B took it.
  const headers = bot.credentials();
  const taken = await request(`${edgeB.url}/api/mm/orders`, { headers });
  t.equal(taken.status, 200, 'the signed request is taken at edge B', { body: taken.body });
  const replay = await request(`${edgeA.url}/api/mm/orders`, { headers });
  t.equal(replay.status, 401, 'replayed at edge A: refused', { body: replay.body });
  t.match(replay.body.message, /already used/);
});

t.test('JOURNAL=nats without KEY_ENCRYPTION_KEY: a clear config error, or STORES=local', async (t) => {
  const base = { JOURNAL: 'nats', NATS_URL: 'nats://127.0.0.1:4222', DATA_DIR: '/tmp/x' };
  const refused = loadConfig(base);
  t.equal(refused.ok, false);
  if (!refused.ok) t.match(refused.errors.join('\n'), /KEY_ENCRYPTION_KEY must be set with JOURNAL=nats .*the same on every node/);
  const malformed = loadConfig({ ...base, KEY_ENCRYPTION_KEY: 'abc' });
  t.equal(malformed.ok, false);
  if (!malformed.ok) t.match(malformed.errors.join('\n'), /KEY_ENCRYPTION_KEY must be 64 hex characters/);
  const shared = loadConfig({ ...base, KEY_ENCRYPTION_KEY: 'ab'.repeat(32) });
  t.equal(shared.ok && shared.config.stores, 'shared');
  const local = loadConfig({ ...base, STORES: 'local' });
  t.equal(local.ok && local.config.stores, 'local', 'STORES=local needs no shared key');
  const lmdb = loadConfig({ DATA_DIR: '/tmp/x', STORES: 'shared' });
  t.equal(lmdb.ok, false, 'shared stores need JOURNAL=nats');
});
