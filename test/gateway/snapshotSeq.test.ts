/**
 * A snapshot holds the engine and the read models at the seq it is labelled with. The engine
 * applies a command at once and its journal commit follows (group commit): under concurrent
 * commands the engine stands ahead of the command whose commit is being published. A
 * snapshot taken then would hold later commands under an earlier seq, and recovery would
 * replay them a second time (a deposit credited twice). Snapshots are therefore taken only
 * when nothing is applied but uncommitted; every stored one restores to its own seq. The
 * snapshot worker (the default on LMDB) snapshots its replica at a committed seq: the same
 * holds for its snapshots.
 */
import t from 'tap';
import { getAddress } from 'viem';
import { Venue } from '../../engine/index.ts';
import { ReadModels } from '../../gateway/readModels/readModels.ts';
import { startTestApp } from './support/testApp.ts';
import { within } from '../support/within.ts';
import { silentLogger } from '../../gateway/http/log.ts';

for (const snapshotInThread of [true, false]) {
t.test(`every snapshot restores to the seq it is labelled with, engine and read models alike (${snapshotInThread ? 'main thread' : 'snapshot worker'})`, async (t) => {
  // Resolves at the first periodic snapshot saved (the worker's are written in the background).
  let saved: () => void = () => {};
  const firstSaved = new Promise<void>((resolve) => (saved = resolve));
  const log = { ...silentLogger, info: (msg: string, fields?: { seq?: number }) => void ((fields?.seq ?? 0) > 0 && msg.startsWith('snapshots: saved') && saved()) };
  const app = await startTestApp({ env: { SNAPSHOT_EVERY_COMMANDS: '1' }, log, snapshotInThread });
  t.teardown(() => app.close());
  const { pipeline } = app.app.services;
  const owners = Array.from({ length: 8 }, (_, i) => getAddress(`0x${(i + 1).toString(16).padStart(40, '0')}`));
  // Bursts of concurrent commands: several share one journal commit.
  for (let round = 0; round < 5; round++) {
    await Promise.all(owners.map((owner) => pipeline.submit({ type: 'deposit', owner, portfolioId: 0, amount: 1_000_000n })));
  }
  await pipeline.drain();
  await within(firstSaved, 120_000, 'a periodic snapshot');
  const storage = app.app.storage;
  let checked = 0;
  for (const c of storage.snapshots.candidates()) {
    if (!c.ok) continue;
    const venue = Venue.restore(c.snapshot.state);
    t.equal(venue.seq, c.snapshot.seq, `the engine in the snapshot labelled ${c.snapshot.seq} stands at it`);
    t.ok(c.snapshot.read !== undefined, 'it holds the read models');
    t.equal(ReadModels.restore(c.snapshot.read!).seq, c.snapshot.seq, 'and its read models stand at it too');
    checked++;
  }
  t.ok(checked > 1, `${checked} snapshots checked (the one at seq 0 and periodic ones)`);
});
}
