import t from 'tap';
import { join } from 'node:path';
import { open } from 'lmdb';
import { hashToken } from '../../../persistence/stores.ts';
import { bothKinds } from '../fixtures/storesHarness.ts';
import { cases, token, session } from '../fixtures/storeCases/sessions.ts';

for (const c of cases) bothKinds(t, c.name, c.body);

t.test('hashToken is the SHA-256 hex of the token', async (t) => {
  t.equal(hashToken('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
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
