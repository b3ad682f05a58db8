/**
 * Chain webhooks against the real server (extensions.md "Webhooks"): the HMAC over timestamp
 * + "." + raw body, 401 for a missing or bad signature and a stale timestamp, 400 for an
 * unknown type or bad data, 503 without WEBHOOK_SECRET; a deposit credits collateral (on
 * mainnet too); relay events show in order reads as relayTx/relayStatus; withdrawal_confirmed
 * is recorded; idempotent by id, in both forms, also after a restart (LMDB data directory).
 */
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, request, type TestApp } from '../support/testApp.ts';
import { webhookSignature } from '../../../gateway/routes/webhooks.ts';
import { liveSeries, place, trader, usdc } from './ordersFixture.ts';
import { Venue } from '../../../engine/index.ts';

const SECRET = 'whsec_test_secret';
const dataDir = mkdtempSync(join(tmpdir(), 'venue-webhooks-'));
t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
// mainnet: deposits arrive this way on every network.
const env = { WEBHOOK_SECRET: SECRET, NETWORK: 'mainnet', SIWE_DOMAIN: 'venue.example' };
let app: TestApp = await startTestApp({ dataDir, env });
t.teardown(() => app.close());

function send(body: unknown, opts: { secret?: string; timestamp?: number; signature?: string | null; form?: 'current' | 'earlier' } = {}) {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  const ts = String(opts.timestamp ?? app.clock.now);
  const headers: Record<string, string> = { 'x-webhook-timestamp': ts };
  if (opts.signature !== null) headers['x-webhook-signature'] = opts.signature ?? webhookSignature(opts.secret ?? SECRET, ts, raw);
  return request(`${app.url}${opts.form === 'earlier' ? '' : '/api'}/webhooks/chain`, { method: 'POST', body: raw, headers });
}

const alice = await trader(app, 'webhook alice', { deposit: 1_000 });
const cash = (portfolioId: number): bigint => {
  const p = app.app.engine.state.accounts.portfolio(alice.address, portfolioId);
  return p === undefined ? 0n : app.app.engine.state.accounts.depositOf(p);
};
const tx = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const deposit = (id: string, amount: bigint, portfolioId = alice.portfolioId) => ({ id, type: 'deposit', data: { owner: alice.address.toLowerCase(), portfolioId, amount: amount.toString(), txHash: tx(1) } });

t.test('a signed deposit credits collateral once; a repeat answers duplicate and changes nothing (both forms)', async (t) => {
  const before = cash(alice.portfolioId);
  const r = await send(deposit('evt-dep-1', usdc(250)));
  t.same([r.status, r.body], [200, { id: 'evt-dep-1', duplicate: false }]);
  t.equal(cash(alice.portfolioId), before + usdc(250), 'credited');
  const engine = app.app.engine;
  const seq = engine.seq;
  const state = Venue.restore(engine.serialize());
  for (const form of ['current', 'earlier'] as const) {
    const again = await send(deposit('evt-dep-1', usdc(250)), { form });
    t.same([again.status, again.body], [200, { id: 'evt-dep-1', duplicate: true }], `${form}: duplicate`);
  }
  t.equal(cash(alice.portfolioId), before + usdc(250), 'credited once');
  t.equal(engine.seq, seq + 2, 'the repeats were refused commands');
  // A refused command still moves seq and the clock: move the copy the same way, and compare.
  const now = Venue.restore(engine.serialize());
  for (const v of [state, now]) v.apply({ type: 'clock', seq: engine.seq + 1, ts: engine.now });
  t.equal(now.stateHash(), state.stateHash(), 'the repeats changed nothing: the state hash is as before them');
  const portfolio0 = await send(deposit('evt-dep-0', usdc(5), 0), { form: 'earlier' });
  t.same([portfolio0.status, portfolio0.body], [200, { id: 'evt-dep-0', duplicate: false }], 'earlier form; portfolio 0');
  t.equal(cash(0), usdc(5));
  const account = await request(`${app.url}/api/account/portfolios/${alice.portfolioId}`, { token: alice.token });
  t.equal(account.body.deposit, String(before + usdc(250)), 'the account read shows it (a fold of the portfolio event)');
});

t.test('refusals: 401 signature and timestamp, 400 type and data, in both forms; nothing changes', async (t) => {
  const before = cash(alice.portfolioId);
  const body = deposit('evt-bad', usdc(1));
  const cases: [string, Promise<{ status: number; body: any }>, number, string][] = [
    ['missing signature', send(body, { signature: null }), 401, 'missing webhook signature'],
    ['wrong secret', send(body, { secret: 'other' }), 401, 'invalid webhook signature'],
    ['malformed signature', send(body, { signature: 'sha256=zz' }), 401, 'invalid webhook signature'],
    ['signature of another body', send(body, { signature: webhookSignature(SECRET, String(app.clock.now), JSON.stringify(deposit('evt-bad', usdc(2)))) }), 401, 'invalid webhook signature'],
    ['stale timestamp', send(body, { timestamp: app.clock.now - 5 * 60_000 - 1 }), 401, 'stale webhook timestamp'],
    ['future timestamp', send(body, { timestamp: app.clock.now + 5 * 60_000 + 1 }), 401, 'stale webhook timestamp'],
    ['unknown type', send({ id: 'evt-x', type: 'airdrop', data: {} }), 400, 'unknown webhook type: airdrop (one of deposit, withdrawal_confirmed, relay_confirmed, relay_failed)'],
    ['bad amount', send({ ...body, data: { ...body.data, amount: '-5' } }), 400, 'amount must be a positive numeric string'],
    ['bad owner', send({ ...body, data: { ...body.data, owner: 'nobody' } }), 400, 'Invalid wallet address'],
    ['no portfolio', send(deposit('evt-nope', usdc(1), 77)), 404, 'Portfolio not found'],
    ['signed, no id', send({ type: 'deposit', data: body.data }), 400, 'id is required'],
    ['signed, data not an object', send({ id: 'evt-y', type: 'deposit', data: 5 }), 400, 'data must be an object'],
    ['signed, type not a string', send({ id: 'evt-y', type: 7, data: {} }), 400, 'type must be a string'],
    ['signed, type too long', send({ id: 'evt-y', type: 'x'.repeat(65), data: {} }), 400, 'type must be at most 64 characters long'],
    ['a malformed body is judged after the signature: missing', send({ type: 7 }, { signature: null }), 401, 'missing webhook signature'],
    ['a malformed body is judged after the signature: wrong', send({}, { secret: 'other' }), 401, 'invalid webhook signature'],
  ];
  for (const [what, pending, status, message] of cases) {
    const r = await pending;
    t.equal(r.status, status, `${what}: ${status}`);
    t.equal(r.body.message, message, what);
    t.equal(typeof r.body.code, 'string', 'current error shape');
  }
  const earlier = await send(body, { signature: null, form: 'earlier' });
  t.match([earlier.status, earlier.body], [401, { error: 'unauthorized', message: 'missing webhook signature' }], 'earlier error shape');
  t.equal(cash(alice.portfolioId), before, 'nothing credited');
  const later = await send(deposit('evt-nope', usdc(1)));
  t.same([later.status, later.body.duplicate], [200, false], 'a refused event id was not taken');
});

t.test('relay_confirmed / relay_failed show in order reads; withdrawal_confirmed is recorded', async (t) => {
  const series = liveSeries(app);
  const a = await place(app, alice, { seriesId: series.spec.seriesId, isBuy: true, size: '1', price: '1' });
  const b = await place(app, alice, { seriesId: series.spec.seriesId, isBuy: true, size: '1', price: '2' });
  t.equal(a.relay.status, 200);
  const idA = a.typed.body.orderId as string;
  const idB = b.typed.body.orderId as string;
  const read = async (id: string) => (await request(`${app.url}/api/mm/orders/${id}`, { token: alice.token })).body;
  t.match(await read(idA), { relayTx: null, relayStatus: null }, 'nothing reported yet');
  t.same((await send({ id: 'evt-relay-1', type: 'relay_confirmed', data: { orderIds: [idA], txHash: tx(2) } })).body, { id: 'evt-relay-1', duplicate: false });
  t.same((await send({ id: 'evt-relay-2', type: 'relay_failed', data: { orderIds: [idB], txHash: tx(3), reason: 'reverted' } }, { form: 'earlier' })).body, { id: 'evt-relay-2', duplicate: false });
  t.match(await read(idA), { relayTx: tx(2), relayStatus: 'confirmed' });
  t.match(await read(idB), { relayTx: tx(3), relayStatus: 'failed' });
  const list = (await request(`${app.url}/api/mm/orders`, { token: alice.token })).body.orders;
  t.match(list.find((o: any) => o.orderId === idA), { relayTx: tx(2), relayStatus: 'confirmed' }, 'in the list too');
  const w = await send({ id: 'evt-wd-1', type: 'withdrawal_confirmed', data: { owner: alice.address, withdrawalId: 'w-1', txHash: tx(4) } });
  t.same([w.status, w.body], [200, { id: 'evt-wd-1', duplicate: false }]);
  const recorded = app.app.engine.state.chainEvents;
  t.ok(recorded.has('evt-wd-1') && recorded.has('evt-relay-1'), 'recorded as engine state');
  t.equal((await send({ id: 'evt-relay-bad', type: 'relay_confirmed', data: { orderIds: ['0x12'], txHash: tx(2) } })).status, 400, 'bad order ids: 400');
});

t.test('after a restart: the ids are still taken, the relay still shown', async (t) => {
  const before = cash(alice.portfolioId);
  const orders = (await request(`${app.url}/api/mm/orders`, { token: alice.token })).body.orders;
  await app.close();
  app = await startTestApp({ dataDir, env });
  for (const id of ['evt-dep-1', 'evt-relay-1', 'evt-wd-1']) {
    const r = await send(id === 'evt-dep-1' ? deposit(id, usdc(250)) : { id, type: 'withdrawal_confirmed', data: { owner: alice.address, withdrawalId: 'w-1', txHash: tx(4) } });
    t.same([r.status, r.body], [200, { id, duplicate: true }], `${id}: still a duplicate`);
  }
  t.equal(cash(alice.portfolioId), before, 'no second credit');
  const token = await app.session(alice.address);
  t.same((await request(`${app.url}/api/mm/orders`, { token })).body.orders, orders, 'order reads with their relays, as before');
});

t.test('without WEBHOOK_SECRET the group answers 503 unavailable', async (t) => {
  const bare = await startTestApp({ memory: true });
  t.teardown(() => bare.close());
  for (const path of ['/api/webhooks/chain', '/webhooks/chain']) {
    for (const body of [deposit('evt-1', usdc(1)), {}, { id: 5 }]) {
      const r = await request(bare.url + path, { method: 'POST', body, headers: { 'x-webhook-timestamp': String(bare.clock.now), 'x-webhook-signature': 'sha256=00' } });
      t.equal(r.status, 503, `${path} ${JSON.stringify(body).slice(0, 40)}`);
      t.equal(r.body.message, 'webhooks are not configured (WEBHOOK_SECRET)');
    }
  }
});
