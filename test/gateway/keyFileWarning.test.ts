/**
 * On testnet and mainnet the venue warns at start when the key-encryption key is the file
 * inside DATA_DIR: a copy of the directory then carries both the sealed API-key secrets and
 * their key. Not on local, not with KEY_ENCRYPTION_KEY.
 */
import t from 'tap';
import { startTestApp } from './support/testApp.ts';
import type { Logger } from '../../gateway/http/log.ts';

const START_AT = Date.UTC(2026, 0, 5, 12, 0, 0);

function capture(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, info: () => {}, error: () => {}, warn: (m) => void warnings.push(m) };
}

const keyWarning = /^keys: the key-encryption key is the file .*\/keys\/master\.key, inside DATA_DIR, on (testnet|mainnet): a copy of DATA_DIR carries both/;

for (const network of ['testnet', 'mainnet'] as const) {
  t.test(`${network} with the key file inside DATA_DIR: one warning`, async (t) => {
    const log = capture();
    const app = await startTestApp({ startAt: START_AT, log, env: { NETWORK: network, SIWE_DOMAIN: 'venue.example.com' } });
    await app.close();
    t.equal(log.warnings.filter((w) => keyWarning.test(w)).length, 1, log.warnings.join('\n'));
    t.match(log.warnings.find((w) => keyWarning.test(w)), `on ${network}:`);
  });
}

t.test('local: no warning', async (t) => {
  const log = capture();
  const app = await startTestApp({ startAt: START_AT, log });
  await app.close();
  t.same(log.warnings.filter((w) => w.startsWith('keys:')), []);
});

t.test('testnet with KEY_ENCRYPTION_KEY: no warning', async (t) => {
  process.env.KEY_ENCRYPTION_KEY = 'cd'.repeat(32);
  t.teardown(() => void delete process.env.KEY_ENCRYPTION_KEY);
  const log = capture();
  const app = await startTestApp({ startAt: START_AT, log, env: { NETWORK: 'testnet', SIWE_DOMAIN: 'venue.example.com' } });
  await app.close();
  t.same(log.warnings.filter((w) => w.startsWith('keys:')), []);
});
