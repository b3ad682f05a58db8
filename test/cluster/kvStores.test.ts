/**
 * The shared stores on JetStream KV (persistence/kvStores.ts), one nats-server started here:
 * every store contract case that memory and LMDB pass (test/persistence/fixtures/storeCases;
 * order nonces stay local and are not shared), then what only sharing adds: two store
 * instances on two connections (two nodes) see each other's writes at once, one-time things
 * are accepted once across them, and secrets are sealed in the bucket.
 */
import t, { type Test } from 'tap';
import { connect, type NatsConnection } from 'nats';
import { startNatsCluster } from '../../gateway/cluster/natsServers.ts';
import { openKvStores, type KvStores } from '../../persistence/kvStores.ts';
import { hashToken } from '../../persistence/stores.ts';
import { memoryOrderNonceStore } from '../../persistence/stores/orderNonceStore.ts';
import { secretBox } from '../../persistence/stores/secretBox.ts';
import { createAuthenticator, hmacHex } from '../../gateway/auth/authenticator.ts';
import type { RouteRef } from '../../gateway/http/auth.ts';
import { TEST_KEY, type StoreCase, type StoresHarness } from '../persistence/fixtures/storesHarness.ts';
import { captureLogger } from '../persistence/fixtures/captureLogger.ts';
import { tempDir } from '../persistence/fixtures/tempDir.ts';
import { cases as apiKeyCases, key } from '../persistence/fixtures/storeCases/apiKeys.ts';
import { cases as nonceCases } from '../persistence/fixtures/storeCases/nonces.ts';
import { cases as seenCases } from '../persistence/fixtures/storeCases/seenRequests.ts';
import { cases as sessionCases, session } from '../persistence/fixtures/storeCases/sessions.ts';
import { cases as userCases } from '../persistence/fixtures/storeCases/users.ts';
import { until } from './support/until.ts';

const nats = await startNatsCluster(tempDir(t, 'nats-'), 1);
t.teardown(() => nats.stop());
const box = secretBox(Buffer.from(TEST_KEY, 'hex'));
let buckets = 0;

/** One node's stores on its own connection; closed (and its connection) when the test ends. */
async function node(t: Test, prefix: string, now = 0): Promise<{ stores: KvStores; nc: NatsConnection; close(): Promise<void> }> {
  const nc = await connect({ servers: nats.urls });
  const stores = await openKvStores({ connection: nc, prefix, replicas: 1, box, log: captureLogger(), now, orderNonces: memoryOrderNonceStore(), timeoutMs: 15_000 });
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await stores.close();
    await nc.close();
  };
  t.teardown(close);
  return { stores, nc, close };
}

function kvKind(t: Test, c: StoreCase): void {
  t.test(`${c.name} (kv)`, async (t) => {
    const prefix = `S${++buckets}`;
    let n = await node(t, prefix);
    const h: StoresHarness = {
      kind: 'kv',
      stores: n.stores,
      async restart(now?: number) {
        await n.close();
        n = await node(t, prefix, now);
        h.stores = n.stores;
        return n.stores;
      },
      logged: () => [],
    };
    await c.body(t, h);
  });
}

for (const c of [...apiKeyCases, ...nonceCases, ...seenCases, ...sessionCases, ...userCases]) kvKind(t, c);

const route: RouteRef = { method: 'GET', path: '/api/account', form: 'current', group: 'account', auth: 'required', scope: 'read' };
const NOW = 1_800_000_000_000;
const signedHeaders = (keyId: string, secret: string, ts: number) => ({ 'x-api-key': keyId, 'x-api-timestamp': String(ts), 'x-api-signature': hmacHex(secret, String(ts)) });

t.test('two nodes: a key or session created at one authenticates at the other as soon as the create returns', async (t) => {
  const prefix = `X${++buckets}`;
  const [a, b] = [await node(t, prefix), await node(t, prefix)];
  const authB = createAuthenticator(b.stores, () => NOW);
  for (let i = 0; i < 20; i++) {
    const k = key(`ok_${'0'.repeat(20)}${i.toString(16).padStart(4, '0')}`, '0x00000000000000000000000000000000000000a1', NOW);
    await a.stores.apiKeys.put(k);
    const auth = await authB(signedHeaders(k.keyId, k.secret, NOW + i), {}, route);
    t.match(auth, { kind: 'user', keyId: k.keyId, via: 'apikey' }, `key ${i}`);
    const token = `token-${i}`;
    await a.stores.sessions.put(hashToken(token), { ...session, createdAt: NOW, expiresAt: NOW + 86_400_000 });
    t.match(await authB({ authorization: `Bearer ${token}` }, {}, route), { kind: 'user', userId: session.userId, via: 'bearer' }, `session ${i}`);
  }
  const user = await a.stores.users.getOrCreate('0x00000000000000000000000000000000000000A1', NOW);
  t.same(await b.stores.users.byAddress('0x00000000000000000000000000000000000000a1'), user, 'a user created at one node is found at the other');
  t.match(await authB(signedHeaders(`ok_${'0'.repeat(24)}`, key('ok_x', 'x', 0).secret, NOW + 100), {}, route), { kind: 'invalid', message: 'Invalid API key' }, 'an unknown key is still refused');

  // Revoked at A: B's mirror drops it when the watch delivers the delete.
  const k = key(`ok_${'f'.repeat(24)}`, '0x00000000000000000000000000000000000000a1', NOW);
  await a.stores.apiKeys.put(k);
  t.not(await b.stores.apiKeys.get(k.keyId), null);
  t.equal(await a.stores.apiKeys.revoke(k.keyId), true);
  await until('the revoke to reach the other node', () => b.stores.apiKeys.get(k.keyId) === null, 10_000);
  t.match(await authB(signedHeaders(k.keyId, k.secret, NOW + 200), {}, route), { kind: 'invalid', message: 'Invalid API key' });
});

t.test('two nodes racing: a SIWE nonce, a replay-window pair, a first sign-in are each accepted once', async (t) => {
  const prefix = `R${++buckets}`;
  const [a, b] = [await node(t, prefix, NOW), await node(t, prefix, NOW)];
  const record = { address: null, chainId: 10143, expiresAt: NOW + 60_000 };
  for (let i = 0; i < 25; i++) {
    await a.stores.nonces.issue(`nonce${i}`, record);
    const consumed = await Promise.all([a.stores.nonces.consume(`nonce${i}`, NOW), b.stores.nonces.consume(`nonce${i}`, NOW), b.stores.nonces.consume(`nonce${i}`, NOW)]);
    t.equal(consumed.filter((r) => r !== null).length, 1, `nonce ${i}: one consume wins`);
    const seen = await Promise.all([a.stores.seenRequests.markSeen('ok_race', NOW + i, NOW), b.stores.seenRequests.markSeen('ok_race', NOW + i, NOW)]);
    t.equal(seen.filter(Boolean).length, 1, `request ${i}: accepted by one node only`);
    const wallet = `0x${i.toString(16).padStart(40, '0')}`;
    const [x, y] = await Promise.all([a.stores.users.getOrCreate(wallet, NOW), b.stores.users.getOrCreate(wallet, NOW)]);
    t.same(x, y, `wallet ${i}: one user`);
  }
  // The pair a node has not seen itself is refused too: the bucket remembers it.
  t.equal(await a.stores.seenRequests.markSeen('ok_one', NOW, NOW), true);
  t.equal(await b.stores.seenRequests.markSeen('ok_one', NOW, NOW), false, 'a request accepted at A is a replay at B');
  const ids = new Set<string>();
  for (let i = 0; i < 25; i++) ids.add((await a.stores.users.byAddress(`0x${i.toString(16).padStart(40, '0')}`))!.id);
  t.equal(ids.size, 25, 'distinct wallets got distinct ids across nodes');
});

t.test('API-key secrets are sealed in the bucket; session tokens are not in it', async (t) => {
  const prefix = `E${++buckets}`;
  const a = await node(t, prefix);
  const k = key(`ok_${'c'.repeat(24)}`, 'dave', 1);
  await a.stores.apiKeys.put(k);
  const token = 'raw-session-token-0123456789';
  await a.stores.sessions.put(hashToken(token), session);
  const raw: Buffer[] = [];
  const jsm = await a.nc.jetstreamManager();
  for (const name of a.stores.buckets) {
    const info = await jsm.streams.info(`KV_${name}`);
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
      const m = await jsm.streams.getMessage(`KV_${name}`, { seq }).catch(() => null);
      if (m !== null) raw.push(Buffer.from(m.subject), Buffer.from(m.data));
    }
  }
  t.ok(raw.length >= 4);
  t.notOk(raw.some((v) => v.includes(k.secret)), 'no secret text');
  t.notOk(raw.some((v) => v.includes(Buffer.from(k.secret, 'hex'))), 'no secret bytes');
  t.notOk(raw.some((v) => v.includes(token)), 'no session token');
  t.ok(raw.some((v) => v.includes('dave')), 'while the rest of the record is readable (this check can fail)');

  // Another master key (a node started with a different KEY_ENCRYPTION_KEY) cannot open it.
  const nc = await connect({ servers: nats.urls });
  t.teardown(() => nc.close());
  const log = captureLogger();
  const other = await openKvStores({ connection: nc, prefix, replicas: 1, box: secretBox(Buffer.from('22'.repeat(32), 'hex')), log, now: 0, orderNonces: memoryOrderNonceStore() });
  t.teardown(() => other.close());
  t.equal(await other.apiKeys.get(k.keyId), null);
  t.match(log.text('error'), /cannot be decrypted: it was sealed with master key/);
});
