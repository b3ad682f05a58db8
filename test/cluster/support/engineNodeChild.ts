/**
 * Child process for the cluster tests: one engine node on JOURNAL=nats (the real engine, the
 * real command pipeline, the JetStream journal, the leader lease, gateway/cluster/engineRole.ts).
 * Argv: <NATS urls, comma-separated> <stream> <nodeId> <seed|0>; LEASE_TTL_MS (default 5,000:
 * the test machine is shared and a renewal may wait long for the event loop).
 * When it leads an empty stream and seed > 0 it feeds the seeded random stream as fast as the
 * pipeline takes it, printing `ack <seq>` once each command is durable and `refused <seq>`
 * when a write is refused. When it leads a stream that has commands (a takeover) it prints
 * `lead <seq> <stateHash> <hash checks> <hash mismatches>` at the caught-up seq, submits one clock command and prints
 * `wrote <seq>`. On SIGUSR2 it closes its NATS connection (a partition).
 */
import { openNatsJournal } from '../../../persistence/natsJournal.ts';
import { memorySnapshotStore } from '../../../persistence/memorySnapshotStore.ts';
import { recover } from '../../../persistence/recover.ts';
import { silentLogger } from '../../../gateway/http/log.ts';
import { Venue } from '../../../engine/venue.ts';
import { CommandPipeline } from '../../../gateway/commandPipeline.ts';
import { createMetrics } from '../../../gateway/http/metrics.ts';
import { replayable } from '../../../gateway/app.ts';
import { startEngineRole, type EngineRole } from '../../../gateway/cluster/engineRole.ts';
import { Harness } from '../../engine/support/venueFixture.ts';
import { randomBodies } from '../../engine/support/randomStream.ts';

const [urls, stream, nodeId, seedText] = process.argv.slice(2);
const out = (line: string) => process.stdout.write(`${line}\n`);
const leaseTtlMs = Number(process.env.LEASE_TTL_MS ?? 5_000);
const journal = await openNatsJournal({ servers: urls!.split(','), stream: stream!, timeoutMs: 5_000, name: nodeId! });
const recovered = recover({ journal, snapshots: memorySnapshotStore({ log: silentLogger }), create: () => replayable(Venue.create()), restore: (b) => replayable(Venue.restore(b)), log: silentLogger });
const venue = recovered.engine.venue;
const h = new Harness();
const pipeline = new CommandPipeline(venue, journal, () => h.ts, createMetrics({ defaultMetrics: false }));

async function feed(seed: number): Promise<void> {
  let n = 0;
  let open = 0; // commands submitted and not yet answered: at most 500, as a client with a window
  for (const { body, advance } of randomBodies(h, seed, 1_000_000)) {
    h.run(body, advance);
    const seq = h.seq;
    open++;
    pipeline.submit(body).then(
      () => (open--, out(`ack ${seq}`)),
      () => (open--, out(`refused ${seq}`)),
    );
    while (open >= 500 && pipeline.writable()) await new Promise((r) => setTimeout(r, 5));
    if (!pipeline.writable()) return;
    if (++n % 25 === 0) await new Promise((r) => setTimeout(r, 1));
  }
}

let role: EngineRole | null = null;
role = await startEngineRole({
  journal,
  pipeline,
  stateHash: () => venue.stateHash(),
  appliedSeq: () => venue.seq,
  nodeId: nodeId!,
  leaseTtlMs,
  hashEvery: 100,
  replicas: urls!.split(',').length >= 3 ? 3 : 1,
  log: silentLogger,
  onLead: async () => {
    out(`leading ${venue.seq}`);
    if (venue.seq === 0 && Number(seedText) > 0) {
      feed(Number(seedText)).catch((e: Error) => out(`feed failed ${e.stack}`));
      return;
    }
    const stats = role?.stats();
    out(`lead ${venue.seq} ${venue.stateHash()} ${stats?.hashChecks ?? -1} ${stats?.hashMismatches ?? -1}`);
    h.ts = venue.now + 1;
    const r = await pipeline.submit({ type: 'clock' });
    out(`wrote ${venue.seq} ${r.ok}`);
  },
  onDeposed: (reason) => out(`deposed ${reason}`),
});
out('started');
process.on('SIGUSR2', () => void journal.connection.close());
