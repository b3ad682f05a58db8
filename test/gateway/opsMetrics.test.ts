/**
 * The families the operators' alerts read (gateway/http/opsMetrics.ts, ops/alerts.yml):
 * rate-limit refusals are counted, each pair's last oracle update is the venue time of its
 * committed update, journal commits are counted, and a start whose recovery passed over a
 * damaged snapshot says so in `recovery_warnings`.
 */
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { startTestApp, TEST_START_AT } from './support/testApp.ts';

/** The value of one sample line (`name{labels} value`), or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const scrape = async (url: string): Promise<string> => (await fetch(url + '/metrics')).text();

t.test('rate-limit hits, oracle updates, journal commits, in-flight commands', async (t) => {
  const app = await startTestApp({ memory: true, env: { RATE_LIMITS: '{"markets":{"anonymous":2}}' } });
  t.teardown(() => app.close());
  const statuses: number[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await fetch(app.url + '/api/markets/pairs');
    await res.arrayBuffer();
    statuses.push(res.status);
  }
  t.same(statuses, [200, 200, 429], 'the third request is refused');
  const text = await scrape(app.url);
  t.equal(sample(text, 'rate_limit_hits_total{group="markets",caller="ip"}'), 1, 'one refusal counted for anonymous markets callers');
  t.equal(sample(text, 'rate_limit_hits_total{group="orders",caller="wallet"}'), 0, 'other groups are at zero');
  t.equal(sample(text, 'oracle_last_update_timestamp_seconds{pair="BTC-USDC"}'), TEST_START_AT / 1000, "BTC-USDC's oracle update at the venue's start");
  t.ok((sample(text, 'journal_fsyncs_total') ?? 0) >= 1, 'the listing commands were committed');
  t.equal(sample(text, 'engine_commands_in_flight'), 0, 'nothing awaits its commit');
  t.equal(sample(text, 'recovery_warnings'), 0, 'a fresh start has no recovery warnings');
});

t.test('recovery_warnings counts a damaged snapshot passed over', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'venue-ops-'));
  // Two snapshots at different seqs (each close takes one): the journal is kept back to the older.
  for (let run = 0; run < 2; run++) {
    const app = await startTestApp({ dataDir: dir });
    await app.app.services.pipeline.submit({ type: 'clock' });
    await app.close();
  }
  const env = open({ path: join(dir, 'lmdb'), maxDbs: 24 });
  const db = env.openDB('snapshots', { encoding: 'binary' });
  const newest = Math.max(...[...db.getKeys()].map(Number));
  const b = Buffer.from(db.getBinary(newest) as Buffer);
  b[b.length - 1]! ^= 1;
  await db.put(newest, b);
  await env.close();
  const app = await startTestApp({ dataDir: dir });
  t.teardown(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });
  t.equal(sample(await scrape(app.url), 'recovery_warnings'), 1, 'the damaged newest snapshot is one warning');
});
