/**
 * kill -9 of the leader during a burst of commands (a seeded random stream with signed-order
 * placements, fills, deposits and nonces): the standby takes the lease over; no acknowledged
 * command is lost (the stream's first `acked` commands are exactly the ones the leader
 * generated, checked by state hash); the new leader's state hash at the takeover equals a
 * fresh replay of the stream; the new leader answers a write.
 */
import t from 'tap';
import { startNatsCluster } from '../../gateway/cluster/natsServers.ts';
import { tempDir } from '../persistence/fixtures/tempDir.ts';
import { acksReach, startNode } from './support/nodes.ts';
import { expectedHash, replayStream } from './support/replay.ts';

const WAIT = 60_000;

for (const [size, seed, target] of [
  [1, 21, 300],
  [3, 22, 600],
] as const) {
  t.test(`R${size}: leader killed after ${target} acknowledgements`, async (t) => {
    const nats = await startNatsCluster(tempDir(t, 'cluster-'), size);
    t.teardown(() => nats.stop());
    const stream = `TAKEOVER${size}`;
    const leader = startNode(nats.urls, stream, 'a', seed);
    t.teardown(() => leader.kill());
    await leader.waitFor(/^leading/, WAIT, 'leading');
    const standby = startNode(nats.urls, stream, 'b', 0);
    t.teardown(() => standby.kill());
    await standby.waitFor(/^started/, WAIT, 'standby started');
    t.notOk(standby.lines.some((l) => l.startsWith('leading')), 'the standby does not lead while the lease is held');
    await acksReach(leader, target, WAIT);
    await leader.kill();
    const acked = leader.maxAck();

    const lead = await standby.waitFor(/^lead \d+ /, WAIT, 'takeover');
    const [, seqText, hash, checks, mismatches] = lead.split(' ');
    const seq = Number(seqText);
    t.ok(seq >= acked, `the new leader holds every acknowledged command (${seq} >= ${acked})`);
    const wrote = await standby.waitFor(/^wrote /, WAIT, 'a write after the takeover');
    t.equal(wrote, `wrote ${seq + 1} true`, 'the new leader answers a write');

    const replay = await replayStream(nats.urls, stream, seq);
    t.equal(replay.hash, hash, 'the new leader state equals a fresh replay of the stream');
    const first = await replayStream(nats.urls, stream, acked);
    t.equal(first.hash, expectedHash(seed, acked), 'the acknowledged commands are in the stream exactly as the old leader made them');
    t.ok(Number(checks) >= 1, `the standby compared its state hash with the leader's while following (${checks} checks)`);
    t.equal(mismatches, '0', 'and they agreed');
  });
}
