/**
 * The insurance fund's seed (extensions.md "Liquidation and the insurance fund"): on `local`
 * and `testnet` the fund starts with INSURANCE_FUND_SEED at the venue's first start, once (a
 * restart on the same data replays the seed, it does not add it again); on `mainnet`, or with a
 * seed of 0, it starts empty. LIQUIDATION_BAND_BPS and LIQUIDATION_FEE_BPS reach the engine's
 * config at the first start and stay as they were after a restart with other values. Real
 * servers on temporary data directories at a fixed start time.
 */
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, request } from '../support/testApp.ts';
import { Venue } from '../../../engine/venue.ts';

async function fundOf(env: Record<string, string>, dataDir?: string): Promise<{ balance: string; badDebt: string }> {
  const app = await startTestApp({ ...(dataDir === undefined ? { memory: true } : { dataDir }), env });
  try {
    const r = await request(`${app.url}/api/platform/insurance-fund`);
    if (r.status !== 200) throw new Error(`insurance-fund: ${r.status}`);
    return r.body;
  } finally {
    await app.close();
  }
}

t.test('testnet: seeded at the first start, not again after a restart', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'venue-fund-seed-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const env = { NETWORK: 'testnet', SIWE_DOMAIN: 'venue.example', INSURANCE_FUND_SEED: '7000000' };
  t.match(await fundOf(env, dir), { balance: '7000000', badDebt: '0' }, 'the seed at the first start');
  t.match(await fundOf(env, dir), { balance: '7000000' }, 'a restart: the same fund, not seeded twice');
});

t.test('local: the default seed, 1,000,000 USDC', async (t) => {
  t.match(await fundOf({}), { balance: '1000000000000' });
});

t.test('mainnet, or a seed of 0: no seed', async (t) => {
  t.match(await fundOf({ NETWORK: 'mainnet', SIWE_DOMAIN: 'venue.example', INSURANCE_FUND_SEED: '7000000' }), { balance: '0', badDebt: '0' }, 'mainnet');
  t.match(await fundOf({ INSURANCE_FUND_SEED: '0' }), { balance: '0' }, 'local with INSURANCE_FUND_SEED=0');
});

t.test('a malformed seed stops the start with a clear message', async (t) => {
  await t.rejects(startTestApp({ memory: true, env: { INSURANCE_FUND_SEED: '1.5' } }), /INSURANCE_FUND_SEED must be a COLLATERAL6 integer string/);
});

t.test('LIQUIDATION_BAND_BPS and LIQUIDATION_FEE_BPS: the engine rules, fixed at the first start', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'venue-liq-config-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const rules = async (env: Record<string, string>) => {
    const app = await startTestApp({ dataDir: dir, env });
    const c = app.app.engine.state.config;
    await app.close();
    return [c.liquidationBandBps, c.liquidationFeeBps];
  };
  t.same(await rules({ LIQUIDATION_BAND_BPS: '500', LIQUIDATION_FEE_BPS: '20' }), [500, 20], 'from the environment');
  t.same(await rules({ LIQUIDATION_BAND_BPS: '900', LIQUIDATION_FEE_BPS: '70' }), [500, 20], 'a restart keeps the rules the state was created with');
  await t.rejects(startTestApp({ memory: true, env: { LIQUIDATION_BAND_BPS: '0' } }), /LIQUIDATION_BAND_BPS/, 'a band of 0 is refused');
});

t.test('the first start snapshots the state as created (seq 0), so a crash before any other snapshot keeps its rules', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'venue-first-snapshot-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const app = await startTestApp({ dataDir: dir, env: { LIQUIDATION_BAND_BPS: '600', LIQUIDATION_FEE_BPS: '30' } });
  try {
    // Before any close (which takes the final snapshot): what a kill -9 now would leave.
    const snapshots = app.app.storage.snapshots;
    t.same(snapshots.seqs(), [0], 'a snapshot at seq 0 exists while the venue runs');
    const first = snapshots.latestValid();
    t.equal(first?.seq, 0);
    const restored = Venue.restore(first!.state);
    t.same([restored.state.config.liquidationBandBps, restored.state.config.liquidationFeeBps], [600, 30], 'it holds the rules of the first start');
  } finally {
    await app.close();
  }
});
