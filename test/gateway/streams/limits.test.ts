/**
 * Stream limits against the real server (interface.md "Public WebSocket limits"): new
 * connections per IP per minute (the next upgrade is refused with 429 and Retry-After), inbound messages per
 * connection per minute (4029, the connection stays open), subscriptions per connection
 * (4029), and the stream metrics. The windows follow the venue clock, which the test moves.
 */
import t from 'tap';
import WebSocket from 'ws';
import { startTestApp, request } from '../support/testApp.ts';
import { wsEnv, connect, asyncApiValidator, type Client } from './support.ts';

wsEnv({ WS_CONNECTIONS_PER_MINUTE: '10' });
const app = await startTestApp({ memory: true, startAt: Date.UTC(2026, 0, 5, 12, 0, 0) });
t.teardown(() => app.close());
const api = await asyncApiValidator(app);
const nextMinute = () => app.clock.advance(61_000);
const open: Client[] = [];
t.afterEach(() => {
  for (const c of open.splice(0)) c.close();
});

/** The HTTP reply to an upgrade the server refuses (rejects if the socket opens or is dropped without one). */
function refusedUpgrade(path: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }> {
  const ws = new WebSocket(app.url.replace('http://', 'ws://') + path, { perMessageDeflate: false });
  ws.on('error', () => {});
  return new Promise((resolve, reject) => {
    ws.once('open', () => {
      ws.close();
      reject(new Error('opened'));
    });
    ws.once('close', (code) => reject(new Error(`closed without a reply (${code})`)));
    ws.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) }));
    });
  });
}

t.test('10 new connections per minute per IP; the 11th upgrade gets 429 with Retry-After; the window slides', async (t) => {
  nextMinute();
  const firstAt = app.clock.now;
  for (let i = 0; i < 10; i++) open.push(await connect(app, i % 3 === 0 ? '/ws/private' : '/ws/public'));
  app.clock.advance(20_000);
  const refused = await refusedUpgrade('/ws/public');
  t.equal(refused.status, 429, 'the 11th upgrade is answered 429, not dropped');
  t.equal(refused.headers['retry-after'], '40', 'Retry-After: seconds until the oldest connection leaves the minute');
  t.same(refused.body, { code: 'resource_exhausted', message: 'connection rate limit exceeded', details: { limit: 10, resetAt: firstAt + 60_000 } }, 'the current-form error body');
  t.equal((await refusedUpgrade('/ws/rfq/mm')).status, 429, 'the limit is per IP over all three streams');
  t.equal(open.filter((c) => c.isClosed()).length, 0, 'the ten admitted connections are untouched');
  app.clock.advance(30_000);
  t.equal((await refusedUpgrade('/ws/public')).headers['retry-after'], '10', 'still refused 50 s later');
  nextMinute();
  open.push(await connect(app, '/ws/public'));
  t.pass('accepted again once the minute has passed');
  const metrics = (await request(`${app.url}/metrics`)).body as string;
  t.match(metrics, /ws_connections_refused_total\{stream="public",reason="connection_rate"\} 2/);
  t.match(metrics, /ws_connections_refused_total\{stream="rfq",reason="connection_rate"\} 1/);
  t.match(metrics, /ws_connections\{stream="public"\} \d+/);
});

t.test('60 inbound messages per minute per connection: 4029 beyond, the connection stays open', async (t) => {
  nextMinute();
  const c = await connect(app, '/ws/public');
  open.push(c);
  for (let i = 0; i < 60; i++) c.send({ method: 'PING', id: i });
  await c.next((f) => f['id'] === 59, 'the 60th pong');
  c.send({ method: 'PING', id: 60 });
  const limited = await c.next((f) => f['id'] === 60, 'reply to the 61st message');
  t.same(limited, { error: { code: 4029, msg: 'message rate limit exceeded' }, id: 60 });
  t.equal(api.check('control.error', limited), null, 'validates');
  c.send('garbage');
  t.same(await c.next((f) => f['error']?.code === 4029 && f['id'] === null, 'limited garbage'), { error: { code: 4029, msg: 'message rate limit exceeded' }, id: null }, 'every frame counts');
  t.equal(c.isClosed(), false, 'still open');
  t.equal(c.frames.filter((f) => f['result'] === 'PONG').length, 60, 'exactly 60 answered');
  nextMinute();
  c.send({ method: 'PING', id: 61 });
  t.same(await c.next((f) => f['id'] === 61), { result: 'PONG', id: 61 }, 'answered again after the window');
  // The private stream counts its messages too, AUTH included.
  nextMinute();
  const p = await connect(app, '/ws/private');
  open.push(p);
  const token = await app.session('0x00000000000000000000000000000000000000c1');
  p.send({ type: 'AUTH', token });
  await p.next((f) => f['type'] === 'AUTH_SUCCESS');
  for (let i = 0; i < 59; i++) p.send({ method: 'PING', id: i });
  await p.next((f) => f['id'] === 58);
  p.send({ method: 'PING', id: 99 });
  t.equal((await p.next((f) => f['id'] === 99))['error'].code, 4029, '/ws/private: the 61st message (AUTH was the first) is refused');
});

t.test('25 subscriptions per connection: 4029 beyond, all or nothing', async (t) => {
  nextMinute();
  const c = await connect(app, '/ws/public');
  open.push(c);
  const symbols = [...app.app.engine.state.series.values()].slice(0, 30).map((s) => s.spec.symbol);
  c.send({ method: 'SUBSCRIBE', params: symbols.slice(0, 24).map((s) => `${s}@ticker`), id: 1 });
  t.equal((await c.next((f) => f['id'] === 1))['result'], null, '24 subscriptions');
  c.send({ method: 'SUBSCRIBE', params: [`${symbols[24]}@ticker`, `${symbols[25]}@ticker`], id: 2 });
  const refused = await c.next((f) => f['id'] === 2);
  t.same(refused, { error: { code: 4029, msg: 'subscription limit exceeded (max 25)' }, id: 2 }, 'two more would make 26: refused');
  c.send({ method: 'LIST_SUBSCRIPTIONS', id: 3 });
  t.equal((await c.next((f) => f['id'] === 3))['result'].length, 24, 'nothing of the refused request was added');
  c.send({ method: 'SUBSCRIBE', params: [`${symbols[24]}@ticker`, `${symbols[0]}@ticker`], id: 4 });
  t.equal((await c.next((f) => f['id'] === 4))['result'], null, 'the 25th (and one already held) is accepted');
  c.send({ method: 'SUBSCRIBE', params: [`${symbols[26]}@trades`], id: 5 });
  t.equal((await c.next((f) => f['id'] === 5))['error'].msg, 'subscription limit exceeded (max 25)', 'the 26th is refused');
  c.send({ method: 'UNSUBSCRIBE', params: [`${symbols[0]}@ticker`], id: 6 });
  await c.next((f) => f['id'] === 6);
  c.send({ method: 'SUBSCRIBE', params: [`${symbols[26]}@trades`], id: 7 });
  t.equal((await c.next((f) => f['id'] === 7))['result'], null, 'after an UNSUBSCRIBE there is room again');
  t.equal(c.isClosed(), false, 'still open');
});

t.test('metrics: connections by stream, messages sent and received', async (t) => {
  nextMinute();
  const c = await connect(app, '/ws/public');
  open.push(c);
  c.send({ method: 'PING', id: 1 });
  await c.next((f) => f['id'] === 1);
  const text = (await request(`${app.url}/metrics`)).body as string;
  const value = (re: RegExp) => Number(re.exec(text)?.[1] ?? NaN);
  t.ok(value(/ws_connections\{stream="public"\} (\d+)/) >= 1, 'open public connections');
  t.ok(value(/ws_messages_received_total\{stream="public"\} (\d+)/) >= 60, 'messages received');
  t.ok(value(/ws_messages_sent_total\{stream="public"\} (\d+)/) >= 60, 'messages sent');
  t.match(text, /ws_slow_consumer_closes_total/, 'slow-consumer closes are exported');
});
