/**
 * The real venue with JOURNAL=nats: the first node leads (lists the configured pairs), a
 * second is a hot standby (refuses writes with 503, serves the same reads from the same
 * folds, same engine state), and takes over when the leader stops and releases its lease.
 */
import t from 'tap';
import { until } from './support/until.ts';
import { startNatsCluster } from '../../gateway/cluster/natsServers.ts';
import { UnavailableError } from '../../gateway/commandPipeline.ts';
import { tempDir } from '../persistence/fixtures/tempDir.ts';
import { startTestApp, type TestApp } from '../gateway/support/testApp.ts';

t.test('leader and hot standby on one stream', async (t) => {
  const nats = await startNatsCluster(tempDir(t, 'cluster-'), 1);
  t.teardown(() => nats.stop());
  const env = (node: string) => ({ JOURNAL: 'nats', NATS_URL: nats.urls.join(','), NATS_STREAM: 'APP', NODE_ID: node, LEASE_TTL_MS: '3000' });
  const leader: TestApp = await startTestApp({ env: env('a'), dataDir: tempDir(t, 'venue-a-') });
  t.teardown(() => leader.close());
  t.equal(leader.app.role?.role(), 'leader');
  t.ok(leader.app.services.reads.catalog.series.size > 0, 'the leader listed the configured pairs');
  const standby: TestApp = await startTestApp({ env: env('b'), dataDir: tempDir(t, 'venue-b-') });
  t.teardown(() => standby.close());
  t.equal(standby.app.role?.role(), 'standby');
  await t.rejects(standby.app.services.pipeline.submit({ type: 'clock' }), /this node is a standby/, 'a standby takes no writes');
  const refused = await standby.app.services.pipeline.submit({ type: 'clock' }).catch((e: unknown) => e);
  t.ok(refused instanceof UnavailableError, 'as UnavailableError (HTTP 503 unavailable)');

  await leader.app.services.pipeline.submit({ type: 'clock' });
  const seq = leader.app.engine.seq;
  await until('the standby to apply the stream', () => standby.app.engine.seq === seq);
  t.equal(standby.app.engine.stateHash(), leader.app.engine.stateHash(), 'the same engine state at the same seq');
  const [a, b] = await Promise.all([leader, standby].map((x) => fetch(`${x.url}/api/markets`).then((r) => r.text())));
  t.equal(b, a, 'the same reads from the same folds');

  await leader.close(); // releases the lease
  await until('the takeover', () => standby.app.role?.role() === 'leader');
  const r = await standby.app.services.pipeline.submit({ type: 'clock' });
  t.ok(r.ok, 'the new leader takes writes');
  t.equal(standby.app.engine.seq, seq + 1);
  const metrics = await fetch(`${standby.url}/metrics`).then((r) => r.text());
  t.match(metrics, /cluster_leader 1/);
  t.match(metrics, /cluster_takeovers_total 1/);
});
