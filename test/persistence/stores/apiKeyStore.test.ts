import t from 'tap';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { open } from 'lmdb';
import { openStorage } from '../../../persistence/storage.ts';
import { bothKinds } from '../fixtures/storesHarness.ts';
import { cases, SECRET, key } from '../fixtures/storeCases/apiKeys.ts';
import { captureLogger } from '../fixtures/captureLogger.ts';
import { tempDir } from '../fixtures/tempDir.ts';

for (const c of cases) bothKinds(t, c.name, c.body);

function rawValues(dir: string): Buffer[] {
  const env = open({ path: join(dir, 'lmdb'), maxDbs: 24, readOnly: true });
  const out: Buffer[] = [];
  for (const name of ['api-keys', 'api-keys-by-owner']) {
    for (const { key: k, value } of env.openDB(name, { encoding: 'binary' }).getRange()) out.push(Buffer.from(JSON.stringify(k)), Buffer.from(value));
  }
  void env.close();
  return out;
}

t.test('encryption at rest: neither the secret text nor its bytes are in LMDB', async (t) => {
  const dir = tempDir(t);
  const storage = openStorage({ dataDir: dir, log: captureLogger() });
  const a = key('ok_cccccccccccccccccccc0001', 'dave', 1);
  await storage.stores.apiKeys.put(a);
  await storage.close();
  const raw = rawValues(dir);
  t.ok(raw.length > 0);
  t.notOk(raw.some((v) => v.includes(a.secret)), 'no secret text');
  t.notOk(raw.some((v) => v.includes(Buffer.from(a.secret, 'hex'))), 'no secret bytes');
  t.ok(raw.some((v) => v.includes('dave')), 'while the rest of the record is readable (this check can fail)');
});

t.test('the generated master key: DATA_DIR/keys/master.key, mode 0600, directory 0700, reused', async (t) => {
  const dir = tempDir(t);
  const log = captureLogger();
  let storage = openStorage({ dataDir: dir, log });
  const a = key('ok_dddddddddddddddddddd0001', 'erin', 1);
  await storage.stores.apiKeys.put(a);
  await storage.close();
  t.equal(statSync(join(dir, 'keys', 'master.key')).mode & 0o777, 0o600);
  t.equal(statSync(join(dir, 'keys')).mode & 0o777, 0o700);
  t.match(log.text('info'), /generated a new master key/);
  storage = openStorage({ dataDir: dir, log });
  t.same(storage.stores.apiKeys.get(a.keyId), a, 'decrypts after a restart with the same file');
  await storage.close();
});

t.test('KEY_ENCRYPTION_KEY: used instead of a file; a wrong or malformed key is handled', async (t) => {
  const dir = tempDir(t);
  const k1 = '11'.repeat(32);
  let storage = openStorage({ dataDir: dir, log: captureLogger(), keyEncryptionKey: k1 });
  const a = key('ok_eeeeeeeeeeeeeeeeeeee0001', 'frank', 1);
  await storage.stores.apiKeys.put(a);
  await storage.close();
  t.notOk(readdirSync(dir).includes('keys'), 'no key file written when the env key is given');

  const log = captureLogger();
  storage = openStorage({ dataDir: dir, log, keyEncryptionKey: '22'.repeat(32) });
  t.equal(storage.stores.apiKeys.get(a.keyId), null, 'another key cannot decrypt');
  t.match(log.text('error'), /API key ok_eeeeeeeeeeeeeeeeeeee0001 cannot be decrypted: it was sealed with master key [0-9a-f]{16}, the current one is [0-9a-f]{16}/);
  t.notOk(JSON.stringify(log.lines).includes(a.secret), 'the secret is never logged');
  t.same(storage.stores.apiKeys.list('frank').map((k) => k.keyId), [a.keyId], 'listing still works');
  await storage.close();

  t.throws(() => openStorage({ dataDir: dir, log: captureLogger(), keyEncryptionKey: 'abc' }), /KEY_ENCRYPTION_KEY must be 64 hex characters/);
  storage = openStorage({ dataDir: dir, log: captureLogger(), keyEncryptionKey: k1 });
  t.same(storage.stores.apiKeys.get(a.keyId), a, 'the right key still works (the refused open released the lock)');
  await storage.close();
});

t.test('a sealed secret moved onto another key id does not decrypt', async (t) => {
  const dir = tempDir(t);
  let storage = openStorage({ dataDir: dir, log: captureLogger() });
  const a = key('ok_ffffffffffffffffffff0001', 'gina', 1);
  const b = key('ok_ffffffffffffffffffff0002', 'mallory', 1);
  await storage.stores.apiKeys.put(a);
  await storage.stores.apiKeys.put(b);
  await storage.close();
  // Swap a's sealed secret into b's record (keeping b's checksummed frame valid).
  const { decodeFrame, encodeFrame } = await import('../../../persistence/frame.ts');
  const env = open({ path: join(dir, 'lmdb'), maxDbs: 24 });
  const db = env.openDB('api-keys', { encoding: 'binary' });
  const ra = decodeFrame(db.getBinary(a.keyId)!);
  const rb = decodeFrame(db.getBinary(b.keyId)!);
  if (!ra.ok || !rb.ok) throw new Error('setup');
  await db.put(b.keyId, encodeFrame({ ...(rb.value as object), sealed: (ra.value as { sealed: Uint8Array }).sealed }));
  await env.close();
  const log = captureLogger();
  storage = openStorage({ dataDir: dir, log });
  t.equal(storage.stores.apiKeys.get(b.keyId), null);
  t.match(log.text('error'), /ok_ffffffffffffffffffff0002 cannot be decrypted: the ciphertext does not authenticate/);
  t.same(storage.stores.apiKeys.get(a.keyId), a);
  await storage.close();
});
