/**
 * /ws/monitor against the real server: admission (an admin's login or its key with scope
 * admin; anyone else the 4003 error frame and close; bad credentials AUTH_FAILED 4001),
 * venue@health on each driven tick (no real time: the test calls the tick; the app schedules
 * it every 1,000 ms through its `every` option, whose ticks the test runs), venue@alerts
 * (recovery kept from the start, an alert raised through the bus, a rate-limit storm from real
 * 429s), frames checked against the served AsyncAPI document.
 */
import t from 'tap';
import { startTestApp, request } from '../support/testApp.ts';
import type { Every } from '../../../gateway/app.ts';
import { hmacHex } from '../../../gateway/auth/authenticator.ts';
import { wsEnv, connect, wallet, asyncApiValidator, type Client } from './support.ts';

wsEnv({ WS_MESSAGES_PER_MINUTE: '10000', WS_AUTH_TIMEOUT_MS: '1500', MONITOR_RATE_LIMIT_STORM: '5' });
const admin = wallet(0xad);
const someone = wallet(0x50e);
/** What the app scheduled through its `every` option: the period, the function, whether it was stopped. */
type Scheduled = { ms: number; fn: () => void; stopped: boolean };
const recorder = (into: Scheduled[]): Every => (ms, fn) => {
  const entry = { ms, fn, stopped: false };
  into.push(entry);
  return () => (entry.stopped = true);
};
const scheduled: Scheduled[] = [];
const app = await startTestApp({ memory: true, every: recorder(scheduled), env: { ADMIN_ADDRESSES: admin.toLowerCase(), RATE_LIMITS: JSON.stringify({ helpers: { anonymous: 2 } }) } });
t.teardown(() => app.close());
const api = await asyncApiValidator(app);
const ADMIN_REQUIRED = 'Admin access required for monitoring stream';

async function putKey(owner: string, scopes: string[]): Promise<{ keyId: string; secret: string }> {
  const keyId = `ok_${Math.random().toString(16).slice(2, 14).padEnd(24, '0')}`;
  const secret = 'cd'.repeat(32);
  await app.app.services.stores.apiKeys.put({ keyId, owner, label: 'monitor test', scopes, createdAt: app.clock.now, lastUsedAt: null, secret });
  return { keyId, secret };
}

async function monitor(channels: string[]): Promise<Client> {
  const c = await connect(app, '/ws/monitor');
  c.send({ type: 'AUTH', token: await app.session(admin) });
  await c.next((f) => f['type'] === 'AUTH_SUCCESS', 'AUTH_SUCCESS');
  c.send({ method: 'SUBSCRIBE', params: channels, id: 'sub' });
  t.same((await c.next((f) => f['id'] === 'sub', 'ack'))['channels'], channels);
  return c;
}

t.test('anyone but an admin: the error frame and a close', async (t) => {
  const c = await connect(app, '/ws/monitor');
  c.send({ type: 'AUTH', token: await app.session(someone) });
  const f = await c.next((x) => x['error'] !== undefined, 'error frame');
  t.same(f, { error: { code: 4003, msg: ADMIN_REQUIRED }, id: null });
  t.equal(api.check('control.error', f), null, 'validates');
  t.equal((await c.closed).code, 4003);

  const { keyId, secret } = await putKey(admin, ['read', 'trade']);
  let ts = app.clock.now - 10_000;
  const keyAuth = (id: string, s: string) => {
    const timestamp = String(++ts);
    return { type: 'AUTH', apiKey: id, timestamp, signature: hmacHex(s, timestamp) };
  };
  const k = await connect(app, '/ws/monitor');
  k.send(keyAuth(keyId, secret));
  const kf = await k.next((x) => x['error'] !== undefined || x['type'] !== undefined, 'answer to an admin key without scope admin');
  t.same(kf, { error: { code: 4003, msg: ADMIN_REQUIRED }, id: null }, "an admin's key without scope admin");
  t.equal((await k.closed).code, 4003);

  const notAdmin = await putKey(someone, ['read', 'trade', 'admin']);
  const n = await connect(app, '/ws/monitor');
  n.send(keyAuth(notAdmin.keyId, notAdmin.secret));
  t.same(await n.next((x) => x['error'] !== undefined || x['type'] !== undefined, 'answer to a key with scope admin of a wallet that is not an admin'), { error: { code: 4003, msg: ADMIN_REQUIRED }, id: null }, 'scope admin of a non-admin wallet');
  t.equal((await n.closed).code, 4003);

  const adminKey = await putKey(admin, ['admin']);
  const ok = await connect(app, '/ws/monitor');
  ok.send(keyAuth(adminKey.keyId, adminKey.secret));
  t.equal((await ok.next((x) => x['type'] !== undefined, 'AUTH answer'))['type'], 'AUTH_SUCCESS', "an admin's key with scope admin");
  ok.close();

  const bad = await connect(app, '/ws/monitor');
  bad.send({ type: 'AUTH', token: 'not-a-session' });
  t.equal((await bad.next((x) => x['type'] === 'AUTH_FAILED'))['code'], 'unauthenticated');
  t.equal((await bad.closed).code, 4001, 'bad credentials: as on /ws/private');

  const early = await connect(app, '/ws/monitor');
  early.send({ method: 'SUBSCRIBE', params: ['venue@health'] });
  t.equal((await early.next((x) => x['type'] === 'AUTH_FAILED'))['code'], 'unauthenticated', 'nothing before AUTH');
  t.equal((await early.closed).code, 4001);

  const pub = await connect(app, '/ws/public');
  pub.send({ method: 'SUBSCRIBE', params: ['venue@health'], id: 1 });
  t.equal((await pub.next((x) => x['id'] === 1))['error'].code, 4003, 'not on /ws/public');
  pub.close();
});

t.test('venue@health on each tick', async (t) => {
  const c = await monitor(['venue@health']);
  c.send({ method: 'SUBSCRIBE', params: ['venue@weather'], id: 'x' });
  t.equal((await c.next((f) => f['id'] === 'x'))['error'].code, 4004, 'unknown channel');
  app.app.monitor.tick(); // starts a fresh second
  await c.next((f) => f['channel'] === 'venue@health', 'first health');
  const owner = wallet(0xf00d);
  for (let i = 0; i < 3; i++) await app.app.services.pipeline.submit({ type: 'deposit', owner, portfolioId: 0, amount: 1_000_000n });
  app.clock.advance(2000);
  const sent = app.app.monitor.tick();
  const f = await c.next((x) => x['channel'] === 'venue@health', 'health');
  t.equal(api.check('venueHealth.health', f), null, 'validates');
  t.same(f['data'], JSON.parse(JSON.stringify(sent)), 'the tick sent what it computed');
  const h = f['data'];
  const commands = h.commands as number;
  t.equal(commands, 3, 'the three deposits were counted');
  t.equal(h.commandsPerSecond, commands / 2, 'per second of venue time between the ticks');
  t.ok(typeof h.journalCommitP99Ms === 'number' && h.journalCommitP99Ms >= 0);
  t.equal(h.connections.monitor, 1, 'this socket');
  t.equal(h.openOrders, 0);
  t.ok(h.heap.usedBytes > 0 && h.heap.totalBytes >= h.heap.usedBytes);
  t.equal(h.timestamp, app.clock.now);
  app.clock.advance(1000);
  const idle = app.app.monitor.tick();
  t.same([idle.commands, idle.journalCommitP99Ms], [0, null], 'nothing committed in the last second');
  c.close();
});

t.test('venue@health is scheduled every second: each scheduled run sends a frame; a close stops it', async (t) => {
  t.same(scheduled.map((x) => [x.ms, x.stopped]), [[1000, false]], 'one schedule, every 1,000 ms');
  const c = await monitor(['venue@health']);
  for (let i = 0; i < 2; i++) {
    app.clock.advance(1000);
    scheduled[0]!.fn();
    const f = await c.next((x) => x['channel'] === 'venue@health', `health after scheduled run ${i + 1}`);
    t.equal(f['data'].timestamp, app.clock.now, 'sent by that run');
  }
  c.close();
  const other: Scheduled[] = [];
  const second = await startTestApp({ memory: true, every: recorder(other) });
  t.same(other.map((x) => x.stopped), [false]);
  await second.close();
  t.same(other.map((x) => x.stopped), [true], 'closing the app stops it');
});

t.test('venue@alerts: kept alerts on subscribe, raised alerts, a rate-limit storm', async (t) => {
  const c = await monitor(['venue@alerts']);
  const recovery = await c.next((f) => f['channel'] === 'venue@alerts' && f['data'].kind === 'recovery', 'the recovery alert of the start');
  t.equal(api.check('venueAlerts.alert', recovery), null, 'validates');
  t.match(recovery['data'], { severity: 'info', details: { snapshotSeq: 0, replayed: 0 } });

  app.app.services.alerts.raise({ kind: 'bad_debt', severity: 'critical', message: 'the fund could not cover a deficit', details: { amount: '5' } });
  const raised = await c.next((f) => f['data']?.kind === 'bad_debt', 'a raised alert');
  t.match(raised['data'], { severity: 'critical', message: 'the fund could not cover a deficit', details: { amount: '5' }, timestamp: app.clock.now });
  t.ok(raised['data'].id > recovery['data'].id, 'ids increase');

  // Real 429s: the helpers group allows 2 per minute here; the storm threshold is 5 per tick.
  app.app.monitor.tick();
  let refused = 0;
  for (let i = 0; i < 10; i++) if ((await request(`${app.url}/api/helpers/pair-id?name=BTC-USDC`)).status === 429) refused++;
  t.ok(refused >= 5, `${refused} refused`);
  app.clock.advance(1000);
  app.app.monitor.tick();
  const storm = await c.next((f) => f['data']?.kind === 'rate_limit_storm', 'storm alert');
  t.equal(storm['data'].details.refused, refused);
  app.clock.advance(1000);
  app.app.monitor.tick();
  t.equal(app.app.services.alerts.recent().filter((a) => a.kind === 'rate_limit_storm').length, 1, 'a quiet second raises none');

  const late = await monitor(['venue@alerts']);
  const replay = await late.next((f) => f['data']?.kind === 'rate_limit_storm', 'kept alerts for a late subscriber');
  t.equal(replay['data'].id, storm['data'].id);
  c.close();
  late.close();
});
