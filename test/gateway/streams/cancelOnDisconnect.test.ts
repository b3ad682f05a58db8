/**
 * Cancel on disconnect (extensions.md "Cancel on disconnect and the dead-man switch") against
 * the real server: a socket closed by the client, by a network drop (its client process
 * killed) and by the venue's slow-consumer cut each cancels (cancelReason disconnect); scope
 * `connection` takes only the orders placed through the socket, `wallet` all of them; turned
 * off, nothing; a venue shutdown and restart cancels nothing. Also CANCEL_ALL and
 * CANCEL_AFTER over the socket answer what their REST routes answer.
 */
import t from 'tap';
import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, request, type TestApp } from '../support/testApp.ts';
import { within } from '../../support/within.ts';
import { liveSeries, post, signServed, trader, type Trader } from '../routes/ordersFixture.ts';
import { callMethod, order, privateSocket, wsEnv, type Client } from './support.ts';

wsEnv({ WS_MESSAGES_PER_MINUTE: '10000', WS_MAX_BUFFERED_BYTES: '65536' });
const dataDir = mkdtempSync(join(tmpdir(), 'venue-cod-'));
let app: TestApp = await startTestApp({ dataDir });
t.teardown(() => app.close());
const seriesId = () => liveSeries(app).spec.seriesId;

const call = callMethod;
const socket = (tr: Trader): Promise<Client> => privateSocket(app, tr.token);

let price = 10;
/** An order placed through the socket (both phases over it). */
async function placeWs(c: Client, tr: Trader): Promise<string> {
  const typed = await call(c, 'PLACE', { seriesId: seriesId(), isBuy: true, size: '0.1', price: String(price++), portfolioId: tr.portfolioId });
  const relay = await call(c, 'PLACE', await signServed(tr.account, typed['result'].typedData));
  if (relay['result']?.mode !== 'relay') throw new Error(JSON.stringify(relay));
  return typed['result'].orderId as string;
}

/** An order placed over REST. */
async function placeRest(tr: Trader): Promise<string> {
  const typed = await post(app, '/api/mm/orders/place', tr.token, { seriesId: seriesId(), isBuy: true, size: '0.1', price: String(price++), portfolioId: tr.portfolioId });
  const relay = await post(app, '/api/mm/orders/place', tr.token, await signServed(tr.account, typed.body.typedData));
  if (relay.status !== 200) throw new Error(JSON.stringify(relay.body));
  return typed.body.orderId as string;
}

const orderOf = async (tr: Trader, id: string) => (await request(`${app.url}/api/mm/orders/${id}`, { token: tr.token })).body;

/**
 * Waits (bounded) until the order has left the book (the server cancels once it has seen the
 * close), watching the order-history read model (polling REST would spend the orders budget);
 * then returns the order as REST reads it.
 */
async function cancelledSoon(tr: Trader, id: string): Promise<Record<string, unknown>> {
  const reads = app.app.services.reads;
  await within(
    (async () => {
      while (reads.orders.openOrder(tr.address, id as `0x${string}`) !== null) await new Promise((r) => setTimeout(r, 5));
    })(),
    30_000,
    `the cancel of ${id.slice(0, 10)} after the disconnect`,
  );
  return orderOf(tr, id);
}

t.test('closed by the client, scope connection: the orders placed through it, not the others', async (t) => {
  const tr = await trader(app, 'cod-1', { deposit: 1_000_000 });
  const c = await socket(tr);
  const set = await call(c, 'SET_CANCEL_ON_DISCONNECT', { enabled: true, scope: 'connection' });
  t.same(set['result'], { enabled: true, scope: 'connection' });
  const viaSocket = await placeWs(c, tr);
  const viaRest = await placeRest(tr);
  c.close();
  await c.closed;
  const o = await cancelledSoon(tr, viaSocket);
  t.equal(o.status, 'cancelled');
  t.equal(o.cancelReason, 'disconnect');
  t.equal((await orderOf(tr, viaRest)).status, 'open', 'the order placed over REST stays');
  const metrics = (await request(`${app.url}/metrics`)).body as string;
  t.match(metrics, /order_venue_cancels_total\{reason="disconnect"\} [1-9]/, 'counted as a disconnect cancel');
  t.match(metrics, /ws_order_messages_total\{method="place",outcome="ok"\} [1-9]/, 'the order messages by method and outcome');
});

t.test('an order method still in flight when the socket closes: its order goes too', async (t) => {
  const tr = await trader(app, 'cod-1b', { deposit: 1_000_000 });
  const c = await socket(tr);
  await call(c, 'SET_CANCEL_ON_DISCONNECT', { enabled: true, scope: 'connection' });
  const typed = await call(c, 'PLACE', { seriesId: seriesId(), isBuy: true, size: '0.1', price: String(price++), portfolioId: tr.portfolioId });
  const signed = await signServed(tr.account, typed['result'].typedData);
  // The signed order and the close leave together: the order is applied after the socket is gone.
  c.send({ method: 'PLACE', params: signed, id: 'late' });
  c.close();
  await c.closed;
  const id = typed['result'].orderId as string;
  await within(
    (async () => {
      while (app.app.services.reads.orders.get(tr.address, id as `0x${string}`)?.status !== 'cancelled') await new Promise((r) => setTimeout(r, 5));
    })(),
    30_000,
    'the late order cancelled',
  );
  t.equal((await orderOf(tr, id)).cancelReason, 'disconnect');
});

t.test('a network drop (the client process killed), scope wallet: all the wallet\'s open orders', async (t) => {
  const tr = await trader(app, 'cod-2', { deposit: 1_000_000 });
  const a = await placeRest(tr);
  const b = await placeRest(tr);
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('../support/wsDisconnectChild.ts', import.meta.url)), app.url.replace('http://', 'ws://') + '/ws/private', tr.token, 'wallet'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((r) => child.once('exit', r));
  await within(new Promise<void>((resolve) => child.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve())), 30_000, 'the child client ready');
  t.equal((await orderOf(tr, a)).status, 'open', 'open while the client lives');
  child.kill('SIGKILL');
  await exited;
  t.equal((await cancelledSoon(tr, a)).cancelReason, 'disconnect');
  t.equal((await cancelledSoon(tr, b)).cancelReason, 'disconnect');
});

t.test("the venue's slow-consumer cut cancels too", async (t) => {
  const tr = await trader(app, 'cod-3', { deposit: 5_000_000 });
  const c = await socket(tr);
  await call(c, 'SET_CANCEL_ON_DISCONNECT', { enabled: true, scope: 'wallet' });
  c.send({ method: 'SUBSCRIBE', params: ['account@orders', 'account@portfolios'], id: 'sub' });
  await c.next((f) => f['id'] === 'sub', 'subscribed');
  const first = await placeRest(tr);
  const slowCloses = async () => Number(/ws_slow_consumer_closes_total\{stream="private"\} (\d+)/.exec((await request(`${app.url}/metrics`)).body as string)?.[1] ?? 0);
  const before = await slowCloses();
  (c.ws as unknown as { _socket: Socket })._socket.pause();
  // Order updates pile up unread until the send buffer passes its bound, the kernel's socket
  // buffers on the way filled first (several MB on loopback): small batches of orders entered
  // straight into the pipeline (the REST orders budget is not what this test is about), one
  // turn's updates well under uWS's own hard limit (twice the bound), until the venue cuts it.
  const series = liveSeries(app);
  let batches = 0;
  for (; batches < 5000; batches++) {
    const orders = Array.from({ length: 10 }, (_, k) => order(app, tr.address, series, true, 1 + ((batches * 10 + k) % 50) / 100, 0.01));
    const r = await app.app.services.pipeline.submit({ type: 'place', orders });
    if (!r.ok) throw new Error(`place: ${r.rejection.code}`);
    await new Promise((r2) => setImmediate(r2));
    if (batches % 20 === 19 && (await slowCloses()) > before) break;
  }
  t.ok(batches < 5000, `the venue cut the reader after ${batches} batches`);
  (c.ws as unknown as { _socket: Socket })._socket.resume();
  const closed = await within(c.closed, 30_000, 'the slow consumer cut');
  t.equal(closed.code, 4008, 'cut as a slow consumer');
  // The cut cancelled the wallet's open orders at once (the batches placed between the cut and
  // its detection here, at most 20, came after it and stay open).
  await cancelledSoon(tr, first);
  const reads = app.app.services.reads;
  t.ok(reads.orders.open(tr.address).length <= 20 * 10, `only orders placed after the cut are open (${reads.orders.open(tr.address).length} of ${batches * 10 + 1})`);
  t.ok(reads.orders.done(tr.address).some((o) => o.cancelReason === 'disconnect'), 'cancelled with cancelReason disconnect');
});

t.test('turned off: a close cancels nothing', async (t) => {
  const tr = await trader(app, 'cod-4', { deposit: 1_000_000 });
  const c = await socket(tr);
  await call(c, 'SET_CANCEL_ON_DISCONNECT', { enabled: true });
  const id = await placeWs(c, tr);
  const off = await call(c, 'SET_CANCEL_ON_DISCONNECT', { enabled: false });
  t.same(off['result'], { enabled: false, scope: 'connection' }, 'scope defaults to connection');
  const bad = await call(c, 'SET_CANCEL_ON_DISCONNECT', { enabled: 'yes' });
  t.equal(bad['error']?.code, 'invalid_argument');
  c.close();
  await c.closed;
  // A later command's commit proves the close was handled before it (the close handler submits at once).
  await app.app.services.pipeline.submit({ type: 'clock' });
  t.equal((await orderOf(tr, id)).status, 'open');
});

t.test('CANCEL_ALL and CANCEL_AFTER over the socket answer what REST answers', async (t) => {
  const tr = await trader(app, 'cod-5', { deposit: 1_000_000 });
  const c = await socket(tr);
  const id = await placeWs(c, tr);
  const all = await call(c, 'CANCEL_ALL', { side: 'buy' });
  t.same(all['result'].orderIds, [id]);
  t.equal(all['result'].cancelled, 1);
  t.equal(all['result'].cancellations[0].typedData.primaryType, 'CancelOrder');
  t.equal((await orderOf(tr, id)).cancelReason, 'mass_cancel');
  const after = await call(c, 'CANCEL_AFTER', { timeoutMs: 0 });
  t.same(after['result'], { cancelAt: null });
  const bad = await call(c, 'CANCEL_AFTER', { timeoutMs: 5 });
  t.equal(bad['error']?.status, 400);
  c.close();
});

t.test('a venue shutdown cancels nothing: the orders are open after the restart; a dead-man deadline passed while down fires at the first clock', async (t) => {
  const tr = await trader(app, 'cod-6', { deposit: 1_000_000 });
  const c = await socket(tr);
  await call(c, 'SET_CANCEL_ON_DISCONNECT', { enabled: true, scope: 'wallet' });
  const id = await placeWs(c, tr);
  const armed = await call(c, 'CANCEL_AFTER', { timeoutMs: 5_000 });
  const cancelAt = armed['result'].cancelAt as number;
  const closedByVenue = c.closed;
  await app.close();
  t.equal((await closedByVenue).code, 1001, 'the venue closed the socket on shutdown');
  app = await startTestApp({ dataDir });
  const token = await app.session(tr.address);
  const o = (await request(`${app.url}/api/mm/orders/${id}`, { token })).body;
  t.equal(o.status, 'open', 'still open after the restart');
  // The venue was down past the switch's deadline: the first clock command after the start fires it.
  app.clock.now = cancelAt + 60_000;
  await app.app.services.pipeline.submit({ type: 'clock' });
  const fired = (await request(`${app.url}/api/mm/orders/${id}`, { token })).body;
  t.equal(fired.status, 'cancelled', 'cancelled at the first clock');
  t.equal(fired.cancelReason, 'dead_man');
});
