/**
 * Faults under load on a three-node NATS cluster (R3 journal):
 * - the NATS node leading the journal stream killed while the leader writes: writes continue
 *   (after the stream elects a new leader; the lease is kept, the pending records retried);
 * - the leader partitioned from the cluster (its NATS connection closed): its writes fail,
 *   the standby takes over, and every write the old leader answered is in the new leader's
 *   stream, exactly as the old leader made it.
 */
import t from 'tap';
import { connect } from 'nats';
import { startNatsCluster } from '../../gateway/cluster/natsServers.ts';
import { tempDir } from '../persistence/fixtures/tempDir.ts';
import { acksReach, startNode } from './support/nodes.ts';
import { expectedHash, replayStream } from './support/replay.ts';

const WAIT = 60_000;

/** Index of the NATS node leading `stream` (asked with bounded retries while the cluster settles). */
async function streamLeaderIndex(names: string[], urls: string[], stream: string): Promise<number> {
  const nc = await connect({ servers: urls, timeout: 10_000 });
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        const jsm = await nc.jetstreamManager({ timeout: 5_000 });
        const leader = (await jsm.streams.info(stream)).cluster?.leader;
        const i = names.indexOf(leader ?? '');
        if (i >= 0) return i;
        throw new Error(`stream ${stream} has no leader yet (${leader})`);
      } catch (e) {
        if (attempt >= 10) throw e;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  } finally {
    await nc.close();
  }
}

t.test('one NATS node of three killed under load: writes continue', async (t) => {
  const nats = await startNatsCluster(tempDir(t, 'cluster-'), 3);
  t.teardown(() => nats.stop());
  const leader = startNode(nats.urls, 'NODEKILL', 'a', 31);
  t.teardown(() => leader.kill());
  await acksReach(leader, 200, WAIT);
  // The hardest node to lose: the one leading the journal stream's replication group.
  const victim = await streamLeaderIndex(nats.nodes.map((n) => n.name), nats.urls, 'NODEKILL');
  nats.kill(victim);
  const at = leader.maxAck();
  await acksReach(leader, at + 300, WAIT);
  t.ok(leader.maxAck() >= at + 300, `acknowledgements went on after the stream leader's node was killed (${at} -> ${leader.maxAck()})`);
  t.notOk(leader.lines.some((l) => l.startsWith('deposed') || l.startsWith('refused')), 'no write was refused');
  await leader.kill();
  const acked = leader.maxAck();
  // Right after a node is lost the stream may still be electing its leader: a JetStream API
  // request can time out then. Retry a bounded number of times (every wait has a timeout).
  let replay: Awaited<ReturnType<typeof replayStream>> | null = null;
  for (let attempt = 1; replay === null; attempt++) {
    try {
      replay = await replayStream(nats.urls, 'NODEKILL', acked);
    } catch (e) {
      if (attempt >= 5 || !/TIMEOUT|timed out/i.test(`${(e as { code?: string }).code ?? ''} ${(e as Error).message}`)) throw e;
      await new Promise((r) => setTimeout(r, 1_000));
    }
  }
  t.equal(replay.hash, expectedHash(31, acked), 'the two remaining nodes hold every acknowledged command');
});

t.test('the leader partitioned from the cluster: its writes fail, the standby takes over, no answered write is lost', async (t) => {
  const nats = await startNatsCluster(tempDir(t, 'cluster-'), 3);
  t.teardown(() => nats.stop());
  const leader = startNode(nats.urls, 'PARTITION', 'a', 32);
  t.teardown(() => leader.kill());
  await leader.waitFor(/^leading/, WAIT, 'leading');
  const standby = startNode(nats.urls, 'PARTITION', 'b', 0);
  t.teardown(() => standby.kill());
  await standby.waitFor(/^started/, WAIT, 'standby started');
  await acksReach(leader, 300, WAIT);
  leader.process.kill('SIGUSR2'); // closes the leader's NATS connection; the process lives on
  await leader.waitFor(/^(refused|deposed)/, WAIT, 'a refused write');
  const lead = await standby.waitFor(/^lead \d+ /, WAIT, 'takeover');
  await standby.waitFor(/^wrote /, WAIT, 'a write by the new leader');
  const seq = Number(lead.split(' ')[1]);
  const acked = leader.maxAck();
  t.ok(acked <= seq, `every write the old leader answered (${acked}) is held by the new leader (${seq})`);
  t.equal((await replayStream(nats.urls, 'PARTITION', acked)).hash, expectedHash(32, acked), 'exactly as the old leader made them');
  const after = leader.maxAck();
  t.equal(after, acked, 'the partitioned leader answered nothing more');
});
