import t from 'tap';
import { join } from 'node:path';
import { open } from 'lmdb';
import { hashToken } from '../../../persistence/stores.ts';
import { bothKinds } from '../fixtures/storesHarness.ts';

const token = 'opaque-token-0123456789';
const session = { userId: '1', address: '0xAbCdEf0000000000000000000000000000000001', createdAt: 0, expiresAt: 86_400_000, form: 'current' as const };

t.test('hashToken is the SHA-256 hex of the token', async (t) => {
  t.equal(hashToken('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
});

bothKinds(t, 'put, get, expiry, revoke', async (t, h) => {
  const key = hashToken(token);
  await h.stores.sessions.put(key, session);
  t.same(h.stores.sessions.get(key, 1_000), { ...session, address: session.address.toLowerCase() });
  t.equal(h.stores.sessions.get(key, 86_400_000), null, 'expired at expiresAt');
  t.equal(h.stores.sessions.get(hashToken('other'), 1), null);
  t.equal(await h.stores.sessions.revoke(key), true);
  t.equal(h.stores.sessions.get(key, 1_000), null);
  t.equal(await h.stores.sessions.revoke(key), false, 'nothing left to revoke');
});

bothKinds(t, 'a raw token is refused as a key', async (t, h) => {
  await t.rejects(h.stores.sessions.put(token, session), /hashToken/);
  await t.rejects(h.stores.sessions.put(hashToken(token).toUpperCase(), session), /hashToken/);
});

bothKinds(t, 'revokeAllFor revokes every session of a wallet, any letter case', async (t, h) => {
  const keys = ['a', 'b', 'c'].map(hashToken);
  await h.stores.sessions.put(keys[0]!, session);
  await h.stores.sessions.put(keys[1]!, { ...session, form: 'earlier' });
  await h.stores.sessions.put(keys[2]!, { ...session, address: '0x2222222222222222222222222222222222222222' });
  t.equal(await h.stores.sessions.revokeAllFor(session.address.toUpperCase().replace('0X', '0x')), 2);
  t.equal(h.stores.sessions.get(keys[0]!, 1), null);
  t.equal(h.stores.sessions.get(keys[1]!, 1), null);
  t.not(h.stores.sessions.get(keys[2]!, 1), null, 'another wallet untouched');
  t.equal(await h.stores.sessions.revokeAllFor(session.address), 0);
});

bothKinds(t, 'sweep deletes expired sessions', async (t, h) => {
  await h.stores.sessions.put(hashToken('x'), { ...session, expiresAt: 10 });
  await h.stores.sessions.put(hashToken('y'), { ...session, expiresAt: 1_000 });
  t.equal(await h.stores.sessions.sweep(500), 1);
  t.not(h.stores.sessions.get(hashToken('y'), 500), null);
  t.equal(await h.stores.sessions.revokeAllFor(session.address), 1, 'the index was cleaned too');
});

bothKinds(t, 'reads made while a write is in flight never outlive it (the LMDB store caches sessions)', async (t, h) => {
  const key = hashToken(token);
  await h.stores.sessions.put(key, session);
  t.equal(h.stores.sessions.get(key, 1)?.form, 'current', 'read once: cached by the LMDB store');
  const revoking = h.stores.sessions.revoke(key);
  h.stores.sessions.get(key, 1); // may still see the session: the revoke is not committed yet
  t.equal(await revoking, true);
  t.equal(h.stores.sessions.get(key, 1), null, 'revoked means gone for every later read');
  const putting = h.stores.sessions.put(key, { ...session, form: 'earlier' });
  h.stores.sessions.get(key, 1);
  await putting;
  t.equal(h.stores.sessions.get(key, 1)?.form, 'earlier', 'a put replaces what was read before it');
  await h.stores.sessions.put(key, { ...session, expiresAt: 5 });
  t.equal(h.stores.sessions.get(key, 5), null, 'expiry is checked on every read');
  const all = h.stores.sessions.revokeAllFor(session.address);
  h.stores.sessions.get(key, 1);
  t.equal(await all, 1);
  t.equal(h.stores.sessions.get(key, 1), null);
  await h.stores.sessions.put(key, { ...session, expiresAt: 10 });
  t.not(h.stores.sessions.get(key, 1), null);
  const sweeping = h.stores.sessions.sweep(500);
  h.stores.sessions.get(key, 1);
  t.equal(await sweeping, 1);
  t.equal(h.stores.sessions.get(key, 1), null, 'swept means gone');
});

bothKinds(t, 'sessions survive a restart', async (t, h) => {
  await h.stores.sessions.put(hashToken(token), session);
  const stores = await h.restart();
  if (stores === null) {
    t.equal(h.kind, 'memory', 'nothing to restart in memory');
    return;
  }
  t.equal(stores.sessions.get(hashToken(token), 1)?.userId, '1');
});

t.test('the raw token is not stored', async (t) => {
  // Checked on the LMDB file: every key and value of the sessions databases.
  const { openStorage } = await import('../../../persistence/storage.ts');
  const { tempDir } = await import('../fixtures/tempDir.ts');
  const { captureLogger } = await import('../fixtures/captureLogger.ts');
  const dir = tempDir(t);
  const storage = openStorage({ dataDir: dir, log: captureLogger() });
  await storage.stores.sessions.put(hashToken(token), session);
  await storage.close();
  const env = open({ path: join(dir, 'lmdb'), maxDbs: 24 });
  let found = 0;
  for (const name of ['sessions', 'sessions-by-address']) {
    const db = env.openDB(name, { encoding: 'binary' });
    for (const { key, value } of db.getRange()) if (JSON.stringify(key).includes(token) || Buffer.from(value).includes(token)) found++;
  }
  await env.close();
  t.equal(found, 0);
});
