/**
 * Child process for test/gateway/crashRecovery.test.ts: the real engine behind the real
 * command pipeline and LMDB journal, fed a seeded random stream as fast as it will take it.
 * Prints `ack <seq>` once a command's journal commit is durable, until it is killed.
 */
import { openStorage } from '../../../persistence/storage.ts';
import { recover } from '../../../persistence/recover.ts';
import { Venue } from '../../../engine/venue.ts';
import { CommandPipeline } from '../../../gateway/commandPipeline.ts';
import { createMetrics } from '../../../gateway/http/metrics.ts';
import { silentLogger } from '../../../gateway/http/log.ts';
import { replayable } from '../../../gateway/app.ts';
import { Harness } from '../../engine/support/venueFixture.ts';
import { randomBodies } from '../../engine/support/randomStream.ts';

const [dir, seedText] = process.argv.slice(2);
const storage = openStorage({ dataDir: dir!, log: silentLogger });
const recovered = recover({ journal: storage.journal, snapshots: storage.snapshots, create: () => replayable(Venue.create()), restore: (b) => replayable(Venue.restore(b)), log: silentLogger });
if (recovered.lastSeq !== 0) throw new Error('the crash child starts on an empty DATA_DIR');
// The harness generates the stream (its choices read its own copy of the state) and its
// clock is the pipeline's, so both apply identical commands with identical timestamps.
const h = new Harness();
const pipeline = new CommandPipeline(recovered.engine.venue, storage.journal, () => h.ts, createMetrics({ defaultMetrics: false }));
let n = 0;
for (const { body, advance } of randomBodies(h, Number(seedText), 1_000_000)) {
  h.run(body, advance);
  const seq = h.seq;
  void pipeline.submit(body).then(() => process.stdout.write(`ack ${seq}\n`));
  if (++n % 25 === 0) await new Promise((r) => setImmediate(r));
}
