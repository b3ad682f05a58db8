/**
 * The private stream and the order controls served at an edge gateway (EDGE=1,
 * gateway/cluster/edge.ts), against one NATS node, an engine leader and two edges, each a
 * real venue at a fixed start time:
 *   - AUTH with an API key on an edge's /ws/private; an order placed through that edge (REST)
 *     and filled by one placed through the other edge: its private order and fill events
 *     arrive on the edge's stream;
 *   - PLACE and CANCEL over an edge's /ws/private: the leader's engine holds the result;
 *   - cancel on disconnect: a socket to an edge dropped, its orders are cancelled in the
 *     leader's state (the edge sends the engine command), `cancelReason: disconnect` at the
 *     other edge too;
 *   - the dead-man switch armed, refreshed and disarmed through the edges; the leader's clock
 *     (a clock command as its driver sends, at an injected time) fires it, `dead_man`.
 * Sessions and API keys are made at the edge that checks them (the stores are per node).
 */
import t from 'tap';
import { until } from './support/until.ts';
import { within } from '../support/within.ts';
import { putKey, startEdgeCluster } from './support/edgeCluster.ts';
import { request, type TestApp } from '../gateway/support/testApp.ts';
import { liveSeries, place, post, signServed, trader, type Trader } from '../gateway/routes/ordersFixture.ts';
import { callMethod, connect, privateSocket, wsEnv, type Client } from '../gateway/streams/support.ts';
import { hmacHex } from '../../gateway/auth/authenticator.ts';
import type { Hex } from '../../engine/index.ts';

const WAIT = 60_000;
wsEnv({ WS_MESSAGES_PER_MINUTE: '10000' });
const cluster = await startEdgeCluster(t, 'EDGECTL', 2);
const { leader } = cluster;
const [edge1, edge2] = cluster.edges as [TestApp, TestApp];
const series = liveSeries(edge1);
const seriesId = series.spec.seriesId;

/** An order as a node's order-history fold holds it. */
const orderAt = (node: TestApp, tr: Trader, id: string) => node.app.services.reads.orders.get(tr.address, id as Hex);
/** Whether the order rests in the leader engine's book. */
const restsAtLeader = (id: string) => leader.app.engine.state.orderIndex.has(id as Hex);
/** Waits until `node` folded the order's end with `reason`. */
const endedAt = (node: TestApp, tr: Trader, id: string, status: string, reason: string | null) =>
  until(`${status} (${reason}) at ${node.app.edge === null ? 'the leader' : 'an edge'}`, () => orderAt(node, tr, id)?.status === status && orderAt(node, tr, id)?.cancelReason === reason, WAIT);

let price = 10;
/** An order placed over `c` (both phases over the socket); its orderId. */
async function placeWs(c: Client, tr: Trader): Promise<string> {
  const typed = await callMethod(c, 'PLACE', { seriesId, isBuy: true, size: '0.1', price: String(price++), portfolioId: tr.portfolioId });
  const relay = await callMethod(c, 'PLACE', await signServed(tr.account, typed['result'].typedData));
  if (relay['result']?.mode !== 'relay' || relay['result'].orders[0].status !== 'open') throw new Error(`PLACE: ${JSON.stringify(relay)}`);
  return typed['result'].orderId as string;
}

/** An order placed over REST at `node`; its orderId. */
async function placeRest(node: TestApp, tr: Trader): Promise<string> {
  const { typed, relay } = await place(node, tr, { seriesId, isBuy: true, size: '0.1', price: String(price++) });
  if (relay.status !== 200) throw new Error(`place: ${JSON.stringify(relay.body)}`);
  return typed.body.orderId as string;
}

/** The leader's clock moves `ms` on and it sends a clock command, as its clock driver does; the edges fold it. */
async function tick(ms: number): Promise<void> {
  leader.clock.advance(ms);
  const r = await leader.app.services.pipeline.submit({ type: 'clock' });
  if (!r.ok) throw new Error(`clock: ${r.rejection.code}`);
  await cluster.caughtUp();
}

t.test('private stream at an edge: API-key AUTH, the order and fill events of orders placed through the edges', async (t) => {
  const alice = await trader(edge1, 'edge-ctl-alice', { deposit: 1_000_000 });
  const bob = await trader(edge2, 'edge-ctl-bob', { deposit: 1_000_000 });
  const keyId = `ok_${'e1'.repeat(12)}`;
  const secret = 'cd'.repeat(32);
  await putKey(edge1, { keyId, secret, owner: alice.address });
  const c = await connect(edge1, '/ws/private');
  t.teardown(() => c.close());
  const ts = edge1.clock.now;
  c.send({ type: 'AUTH', apiKey: keyId, timestamp: ts, signature: hmacHex(secret, String(ts)) });
  t.match(await c.next((f) => f['type'] === 'AUTH_SUCCESS', 'AUTH_SUCCESS'), { address: alice.address }, 'the API key made at the edge authenticates there');
  t.same((await callMethod(c, 'SUBSCRIBE', ['account@orders', 'account@fills']))['channels'], ['account@orders', 'account@fills']);

  const buy = await place(edge1, alice, { seriesId, isBuy: true, size: '0.1', price: '30' });
  t.equal(buy.relay.status, 200, 'a signed order through the edge (REST)', { body: buy.relay.body });
  const orderId = buy.typed.body.orderId as string;
  t.ok(restsAtLeader(orderId), 'it rests in the leader book');
  const opened = await c.next((f) => f['channel'] === 'account@orders' && f['data'].orderId === orderId, 'the open order event', WAIT);
  t.match(opened['data'], { orderId, seriesId, status: 'open', filled: '0', reason: null }, 'account@orders: open');

  const sell = await place(edge2, bob, { seriesId, isBuy: false, size: '0.1', price: '30' });
  t.equal(sell.relay.status, 200, 'the other edge takes the crossing order', { body: sell.relay.body });
  t.equal(sell.relay.body.orders?.[0]?.status, 'filled', 'filled against the resting order');
  const fill = await c.next((f) => f['channel'] === 'account@fills' && f['data'].orderId === orderId, 'the fill event', WAIT);
  t.match(fill['data'], { orderId, seriesId, liquidity: 'maker', portfolioId: alice.portfolioId }, 'account@fills: the maker fill');
  const filled = await c.next((f) => f['channel'] === 'account@orders' && f['data'].orderId === orderId && f['data'].status === 'filled', 'the filled order event', WAIT);
  t.equal(filled['data'].remaining, '0', 'account@orders: filled');
  t.notOk(restsAtLeader(orderId), 'no longer in the leader book');
  const bobsOrder = sell.typed.body.orderId as string;
  t.notOk(c.frames.some((f) => f['channel'] !== undefined && f['data'].orderId === bobsOrder), "nothing of the other wallet's order on this stream");
});

t.test('order entry over an edge /ws/private: PLACE and CANCEL; the leader engine holds the result', async (t) => {
  const carol = await trader(edge2, 'edge-ctl-carol', { deposit: 1_000_000 });
  const c = await privateSocket(edge2, carol.token);
  t.teardown(() => c.close());
  const orderId = await placeWs(c, carol);
  t.ok(restsAtLeader(orderId), 'PLACE: the order rests in the leader book');
  t.equal(orderAt(leader, carol, orderId)?.status, 'open');

  const typed = await callMethod(c, 'CANCEL', { orderId });
  t.equal(typed['result']?.mode, 'typed_data', 'CANCEL phase one: typed data', { frame: typed });
  const cancelled = await callMethod(c, 'CANCEL', await signServed(carol.account, typed['result'].cancellations[0].typedData));
  t.match(cancelled['result'], { mode: 'relay', orders: [{ orderId, status: 'cancelled' }] }, 'CANCEL phase two: cancelled');
  t.notOk(restsAtLeader(orderId), 'gone from the leader book');
  t.equal(orderAt(leader, carol, orderId)?.status, 'cancelled', 'cancelled in the leader fold');
  await endedAt(edge1, carol, orderId, 'cancelled', 'user');
});

t.test('cancel on disconnect through an edge: the socket drops, the leader cancels its orders', async (t) => {
  const dave = await trader(edge1, 'edge-ctl-dave', { deposit: 1_000_000 });
  const c = await privateSocket(edge1, dave.token);
  t.same((await callMethod(c, 'SET_CANCEL_ON_DISCONNECT', { enabled: true, scope: 'connection' }))['result'], { enabled: true, scope: 'connection' });
  const viaSocket = [await placeWs(c, dave), await placeWs(c, dave)];
  const viaRest = await placeRest(edge1, dave);
  t.ok([...viaSocket, viaRest].every(restsAtLeader), 'all three rest in the leader book');

  c.ws.terminate(); // a network drop: no close frame
  await within(c.closed, WAIT, 'the socket closed');
  for (const id of viaSocket) {
    await endedAt(leader, dave, id, 'cancelled', 'disconnect');
    t.notOk(restsAtLeader(id), `${id.slice(0, 10)} cancelled in the leader state`);
    await endedAt(edge2, dave, id, 'cancelled', 'disconnect');
  }
  t.pass('cancelReason disconnect at the leader and at the other edge');
  await cluster.caughtUp();
  t.ok(restsAtLeader(viaRest), 'the order placed over REST stays (scope connection)');
  const got = await request(`${edge2.url}/api/mm/orders/${viaSocket[0]}`, { token: await edge2.session(dave.address) });
  t.match(got.body, { status: 'cancelled', cancelReason: 'disconnect' }, 'as the other edge answers over REST');
});

t.test('dead-man switch through the edges: armed, refreshed, disarmed; fired by the leader clock', async (t) => {
  const erin = await trader(edge2, 'edge-ctl-erin', { deposit: 1_000_000 });
  const c = await privateSocket(edge2, erin.token);
  t.teardown(() => c.close());
  await callMethod(c, 'SUBSCRIBE', ['account@orders']);
  const ids = [await placeWs(c, erin), await placeRest(edge2, erin)];
  const armedAt = (): number | undefined => leader.app.engine.state.cancelAfter.get(erin.address);

  const armed = (await callMethod(c, 'CANCEL_AFTER', { timeoutMs: 5_000 }))['result'];
  t.equal(armed.cancelAt, leader.app.services.pipeline.now() + 5_000, 'armed over the edge socket: the deadline is 5 s after the leader clock');
  t.equal(armedAt(), armed.cancelAt, 'held by the leader engine');

  await tick(3_000);
  const refreshed = (await callMethod(c, 'CANCEL_AFTER', { timeoutMs: 5_000 }))['result'];
  t.equal(refreshed.cancelAt, armed.cancelAt + 3_000, 'refreshed: moved on with the leader clock');
  await tick(3_000); // past the first deadline, before the refreshed one
  t.ok(ids.every(restsAtLeader), 'the refreshed switch did not fire at the first deadline');

  const disarmed = await post(edge1, '/api/mm/orders/cancel-after', await edge1.session(erin.address), { timeoutMs: 0 });
  t.same(disarmed.body, { cancelAt: null }, 'disarmed over REST at the other edge');
  t.equal(armedAt(), undefined, 'disarmed in the leader engine');
  await tick(10_000);
  t.ok(ids.every(restsAtLeader), 'a disarmed switch does not fire');

  const again = await post(edge2, '/api/mm/orders/cancel-after', erin.token, { timeoutMs: 2_000 });
  t.equal(again.body.cancelAt, leader.app.services.pipeline.now() + 2_000, 'armed again over REST');
  await tick(1_000);
  t.ok(ids.every(restsAtLeader), 'not yet');
  await tick(1_000); // the leader clock reaches the deadline
  for (const id of ids) {
    t.notOk(restsAtLeader(id), `${id.slice(0, 10)} cancelled in the leader state`);
    await endedAt(edge1, erin, id, 'cancelled', 'dead_man');
  }
  t.equal(armedAt(), undefined, 'the switch disarmed once fired');
  for (const id of ids) {
    const f = await c.next((x) => x['channel'] === 'account@orders' && x['data'].orderId === id && x['data'].status === 'cancelled', 'the cancel on the edge private stream', WAIT);
    t.equal(f['data'].reason, 'cancelled_by_dead_man', 'account@orders at the edge: cancelled by the dead-man switch');
  }
});

t.test("an edge stopping is not the venue's shutdown: its cancel-on-disconnect sockets cancel at the leader", async (t) => {
  const fay = await trader(edge1, 'edge-ctl-fay', { deposit: 1_000_000 });
  const gus = await trader(edge1, 'edge-ctl-gus', { deposit: 1_000_000 });
  const c = await privateSocket(edge1, fay.token);
  await callMethod(c, 'SET_CANCEL_ON_DISCONNECT', { enabled: true, scope: 'wallet' });
  const ids = [await placeWs(c, fay), await placeRest(edge1, fay)];
  const g = await privateSocket(edge1, gus.token); // no cancel on disconnect
  const kept = await placeWs(g, gus);
  await edge1.close();
  t.equal((await within(c.closed, WAIT, 'the socket closed by the edge')).code, 1001, 'the edge closed the socket as it stopped');
  for (const id of ids) t.notOk(restsAtLeader(id), `${id.slice(0, 10)} cancelled in the leader state before the edge finished stopping`);
  t.equal(orderAt(leader, fay, ids[0]!)?.cancelReason, 'disconnect', 'cancelReason disconnect');
  await endedAt(edge2, fay, ids[1]!, 'cancelled', 'disconnect');
  t.ok(restsAtLeader(kept), 'the order of a socket without cancel on disconnect stays');
});
