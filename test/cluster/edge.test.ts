/**
 * Edge gateways (EDGE=1, gateway/cluster/edge.ts): an edge follows the stream, serves reads
 * and the public streams from its own folds, and forwards writes to the leader. A signed
 * order placed at the edge (REST, both phases) is acknowledged, is in the leader's state, and
 * the edge's REST book and depth stream show it; an edge restarted while the leader keeps
 * writing catches up and its depth stream resumes with a snapshot and continuous sequences.
 * With no leader, a write at the edge is 503 `unavailable`.
 */
import t from 'tap';
import { until } from './support/until.ts';
import { startNatsCluster } from '../../gateway/cluster/natsServers.ts';
import { tempDir } from '../persistence/fixtures/tempDir.ts';
import { startTestApp, request, type TestApp } from '../gateway/support/testApp.ts';
import { liveSeries, place, trader, type Trader } from '../gateway/routes/ordersFixture.ts';
import { connect, wsEnv, type Client, type Frame } from '../gateway/streams/support.ts';

const WAIT = 60_000;


/** The depth frames of one channel: a snapshot first, then deltas whose prevSeq continues the last seq. */
async function depth(app: TestApp, channel: string): Promise<{ client: Client; snapshot: Frame; gaps: string[]; levels: Map<string, string>; last: () => number }> {
  const client = await connect(app, '/ws/public');
  const gaps: string[] = [];
  const levels = new Map<string, string>();
  let seq = -1;
  client.ws.on('message', (data) => {
    const f = JSON.parse(data.toString()) as Frame;
    if (f['channel'] !== channel) return;
    const d = f['data'];
    if (d.type === 'snapshot') {
      levels.clear();
      seq = d.seq;
    } else {
      if (d.prevSeq !== seq) gaps.push(`prevSeq ${d.prevSeq} after seq ${seq}`);
      seq = d.seq;
    }
    for (const [p, s] of d.bids as [string, string][]) (s === '0' ? levels.delete(`b${p}`) : levels.set(`b${p}`, s));
    for (const [p, s] of d.asks as [string, string][]) (s === '0' ? levels.delete(`a${p}`) : levels.set(`a${p}`, s));
  });
  client.send({ method: 'SUBSCRIBE', params: [channel], id: 1 });
  await client.next((f) => f['id'] === 1, 'ack');
  const snapshot = await client.next((f) => f['channel'] === channel && f['data']?.type === 'snapshot', 'snapshot', WAIT);
  return { client, snapshot, gaps, levels, last: () => seq };
}

const restBook = async (app: TestApp, seriesId: string) => {
  const r = await request(`${app.url}/api/markets/orderbook/${seriesId}?depth=500`);
  return { seq: r.body.seq as number, bids: r.body.bids as { price: string; size: string }[], asks: r.body.asks as { price: string; size: string }[] };
};

t.test('an edge follows the leader, serves reads and streams, forwards writes', async (t) => {
  wsEnv();
  const nats = await startNatsCluster(tempDir(t, 'cluster-'), 1);
  t.teardown(() => nats.stop());
  const env = (node: string, edge = false) => ({ JOURNAL: 'nats', NATS_URL: nats.urls.join(','), NATS_STREAM: 'EDGE', NODE_ID: node, LEASE_TTL_MS: '3000', ...(edge ? { EDGE: '1' } : {}) });

  // No leader yet: the edge follows an empty stream and a write through it is 503.
  const edgeDir = tempDir(t, 'venue-edge-');
  let edge: TestApp = await startTestApp({ env: env('edge-1', true), dataDir: edgeDir });
  t.teardown(() => edge.close());
  t.equal(edge.app.role, null, 'an edge has no engine role (never takes the lease)');
  t.ok(edge.app.edge !== null);
  const token = await edge.session('0x00000000000000000000000000000000000000e1');
  const noLeader = await request(`${edge.url}/api/portfolio/deposit`, { method: 'POST', token, body: { portfolioId: 0, amount: '1000000' } });
  t.equal(noLeader.status, 503, 'a write with no leader answering is 503');
  t.equal(noLeader.body.code, 'unavailable', 'as unavailable', { body: noLeader.body });

  const leader: TestApp = await startTestApp({ env: env('engine-a'), dataDir: tempDir(t, 'venue-a-') });
  t.teardown(() => leader.close());
  t.equal(leader.app.role?.role(), 'leader');
  await until('the edge to fold the listing', () => edge.app.engine.seq === leader.app.engine.seq);
  t.ok(edge.app.services.reads.catalog.series.size > 0, 'the edge folded the listed series');

  // A trader set up and an order placed, all through the edge.
  const alice: Trader = await trader(edge, 'edge-alice', { deposit: 1_000_000 });
  t.equal(leader.app.engine.state.accounts.portfolio(alice.address, alice.portfolioId) !== undefined, true, 'the forwarded commands are in the leader state');
  const series = liveSeries(edge);
  const channel = `${series.spec.symbol}@depth`;
  const live = await depth(edge, channel);
  const { relay } = await place(edge, alice, { seriesId: series.spec.seriesId, isBuy: true, size: '0.1', price: '25' });
  t.equal(relay.status, 200, 'the signed order placed at the edge is acknowledged', { body: relay.body });
  t.equal(relay.body.orders?.[0]?.status, 'open');
  const [atEdge, atLeader] = await Promise.all([restBook(edge, series.spec.seriesId), restBook(leader, series.spec.seriesId)]);
  t.same(atEdge, atLeader, 'the edge REST book (read right after the write) equals the leader one');
  t.equal(atLeader.bids.length, 1, 'the order rests in the leader book');
  t.equal(atEdge.bids.length, 1, 'and the edge book shows it');
  await until('the depth delta at the edge', () => live.levels.size === 1);
  t.same(live.gaps, [], 'the edge depth stream has no gap');
  t.equal(edge.app.engine.stateHash(), leader.app.engine.stateHash(), 'the same engine state at the same seq');
  const metrics = await fetch(`${edge.url}/metrics`).then((r) => r.text());
  t.match(metrics, /cluster_edge_fold_lag_commands 0/);
  t.match(metrics, /cluster_edge_forwarded_total [1-9]/);
  t.match(metrics, /cluster_leader 0/);
  live.client.close();

  // The edge restarts while the leader keeps writing; it catches up and resumes its stream.
  const seqBeforeRestart = live.last();
  await edge.close();
  const bob: Trader = await trader(leader, 'edge-bob', { deposit: 1_000_000 });
  const placed = await place(leader, bob, { seriesId: series.spec.seriesId, isBuy: true, size: '0.2', price: '24' });
  t.equal(placed.relay.status, 200, 'the leader takes an order while the edge is down', { body: placed.relay.body });
  edge = await startTestApp({ env: env('edge-1', true), dataDir: edgeDir });
  await until('the restarted edge to catch up', () => edge.app.engine.seq === leader.app.engine.seq);
  const resumed = await depth(edge, channel);
  t.ok(resumed.snapshot['data'].seq > seqBeforeRestart, 'the snapshot after the restart is at a later seq');
  t.equal(resumed.levels.size, 2, 'the snapshot after the restart holds both orders');
  const bobAtEdge: Trader = { ...bob, token: await edge.session(bob.address) };
  const again = await place(edge, bobAtEdge, { seriesId: series.spec.seriesId, isBuy: true, size: '0.3', price: '23' });
  t.equal(again.relay.status, 200, 'the restarted edge forwards writes', { body: again.relay.body });
  await until('the depth delta after the restart', () => resumed.levels.size === 3);
  t.same(resumed.gaps, [], 'the resumed depth stream continues its sequences');
  t.same(await restBook(edge, series.spec.seriesId), await restBook(leader, series.spec.seriesId), 'the restarted edge book equals the leader one');
  resumed.client.close();
});
