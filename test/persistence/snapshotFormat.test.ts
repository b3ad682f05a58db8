/**
 * Snapshot format 2 (issue 19: the readers' history left the engine) and the migration of
 * format 1 (docs/persistence.md "Snapshot formats"), against a venue written by the engine
 * of commit abd71f1 (fixtures/format1/: a format-1 snapshot with its read models, the journal
 * after it, later commands with their results, and the states reached, given as the hashes
 * format 2 gives them: test/engine/support/format2.ts, apart from the engine's migration).
 *
 * The snapshot restores (its recorded hash checked as format 1 hashed it), to exactly the
 * format-2 form of its state; replay and the later commands reach the same states, read models
 * and results (referral_apply by a wallet that traded before the snapshot is still refused); a
 * data directory holding it recovers in the real app, and the snapshot the app writes next is
 * format 2 and restores in turn. A format-1 snapshot whose recorded hash does not match is
 * passed over like any other, never taken silently.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { createHash } from 'node:crypto';
import { getAddress } from 'viem';
import { Venue, hashBytes, type Command } from '../../engine/index.ts';
import { ReadModels } from '../../gateway/readModels/readModels.ts';
import { replayable } from '../../gateway/app.ts';
import { openStorage, memoryStorage, recover, RecoveryError, type Storage } from '../../persistence/index.ts';
import { asFormat3, format2Hash } from '../engine/support/format2.ts';
import { wire as referenceWire } from '../engine/differential/support.ts';
import { startTestApp } from '../gateway/support/testApp.ts';
import { captureLogger } from './fixtures/captureLogger.ts';
import { tempDir } from './fixtures/tempDir.ts';
import { wireVenueOf } from '../../gateway/wireVenue.ts';
import { encodeValue, decodeValue } from '../../persistence/codec.ts';

type Fixture = {
  tradedWallet: string;
  snapshot: { seq: number; hash: string; state: string; read: string };
  journal: Command[];
  afterReplay: { hash: string; read: string };
  later: { commands: Command[]; results: string[]; hash: string; read: string };
};

const fixture = JSON.parse(gunzipSync(readFileSync(new URL('./fixtures/format1/format1.json.gz', import.meta.url))).toString('utf8'), (_k, v: unknown) =>
  v !== null && typeof v === 'object' && '$b' in v && Object.keys(v).length === 1 ? BigInt((v as { $b: string }).$b) : v,
) as Fixture;
const snapshotBytes = new TextEncoder().encode(fixture.snapshot.state);
const readBytes = new Uint8Array(Buffer.from(fixture.snapshot.read, 'base64'));
const sha = (x: string) => createHash('sha256').update(x).digest('hex');
/**
 * The read models' hash as the old engine's gateway wrote them: the folds added since the
 * fixture (settlement on chain: docs/chain.md) left out, after checking they hold nothing
 * (no event of theirs happened in the fixture's history).
 */
const readSha = (r: ReadModels) => {
  const v = decodeValue(r.serialize()) as { parts: Record<string, unknown> };
  const empty = new ReadModels().settlement.exportState();
  if (JSON.stringify(v.parts.settlement) !== JSON.stringify(empty)) throw new Error(`settlement read model not empty: ${JSON.stringify(v.parts.settlement)}`);
  delete v.parts.settlement;
  return sha(Buffer.from(encodeValue(v)).toString('base64'));
};

t.test('a format-1 snapshot restores to its state in format 2, and goes on as the old engine did', async (t) => {
  t.equal(JSON.parse(fixture.snapshot.state).format, 1, 'the fixture is format 1');
  const venue = Venue.restore(snapshotBytes);
  t.equal(venue.restoredHash(), fixture.snapshot.hash, 'the hash it recorded, as format 1 hashed it');
  t.equal(new TextDecoder().decode(venue.serialize()), new TextDecoder().decode(asFormat3(snapshotBytes)), 'the restored state is the format-3 form of the snapshot, byte for byte');
  t.equal(JSON.parse(new TextDecoder().decode(venue.serialize())).format, 3, 'and serialises as format 3');
  t.equal(venue.state.accounts.hasTraded[venue.state.accounts.walletOf(fixture.tradedWallet)], 1, 'hasTraded derived from a non-empty trade list');
  const never = venue.state.accounts.owners.filter((_, w) => venue.state.accounts.hasTraded[w] === 0).length;
  t.ok(never > 0, `and false for the wallets that never traded (${never})`);

  const again = Venue.restore(venue.serialize());
  t.equal(again.restoredHash(), venue.stateHash(), 'a format-3 snapshot is checked by its state hash');

  const reads = ReadModels.restore(readBytes);
  // Applied as the gateway applies commands: events in wire form (gateway/wireVenue.ts), its converter seeded by the restored image.
  const wired = wireVenueOf(venue);
  for (const c of fixture.journal) reads.apply(c.seq, c.ts, wired.apply(c).events);
  t.equal(format2Hash(venue.serialize()), fixture.afterReplay.hash, 'replay reaches the state the old engine reached (less its history)');
  t.equal(readSha(reads), fixture.afterReplay.read, 'and the same read models');

  const mismatched: number[] = [];
  fixture.later.commands.forEach((c, i) => {
    const r = wired.apply(c);
    reads.apply(c.seq, c.ts, r.events);
    if (sha(referenceWire(r)) !== fixture.later.results[i]) mismatched.push(i);
    if (i === 0) t.match(r, { ok: false, rejection: { code: 'referral_after_trade' } }, 'a wallet that traded before the snapshot still cannot apply a referral code');
    if (i === 2) t.match(r, { ok: true }, 'one that never traded can');
  });
  t.same(mismatched, [], `every later command gives the old engine's result and events (${fixture.later.commands.length} commands)`);
  t.equal(format2Hash(venue.serialize()), fixture.later.hash, 'the same state after them');
  t.equal(readSha(reads), fixture.later.read, 'and the same read models');
});

t.test('a format-1 snapshot that does not convert exactly is refused, not taken', async (t) => {
  const dump = JSON.parse(fixture.snapshot.state);
  delete dump.config.nonceWindow; // restored with the default, so it no longer serialises as it came
  t.throws(() => Venue.restore(new TextEncoder().encode(JSON.stringify(dump))), /format-1 snapshot restored to other state/);
  t.throws(() => Venue.restore(new TextEncoder().encode(JSON.stringify({ ...JSON.parse(fixture.snapshot.state), format: 7 }))), /unsupported snapshot format 7/);
});

/** The fixture's snapshot and journal in `storage`, as a venue that pruned its journal at the snapshot leaves them. */
async function store(storage: Storage, hash: string): Promise<void> {
  await storage.snapshots.save({ seq: fixture.snapshot.seq, hash, state: snapshotBytes, takenAt: 0, read: readBytes });
  const first = fixture.journal[0]!;
  for (let seq = 1; seq < first.seq; seq++) await storage.journal.append({ seq, ts: 0, type: 'clock' }); // pruned below
  for (const c of fixture.journal) await storage.journal.append(c);
  await storage.journal.pruneBefore(first.seq);
}

t.test('recovery checks a format-1 snapshot against the hash it recorded', async (t) => {
  const good = memoryStorage();
  await store(good, fixture.snapshot.hash);
  const r = recover({ journal: good.journal, snapshots: good.snapshots, create: () => replayable(Venue.create()), restore: (b) => replayable(Venue.restore(b)), log: captureLogger() });
  t.equal(r.snapshotSeq, fixture.snapshot.seq, 'recovered from the format-1 snapshot');
  t.same(r.warnings, [], 'without a warning');
  t.equal(format2Hash(r.engine.venue.serialize()), fixture.afterReplay.hash, 'to the state the old engine reached');

  const bad = memoryStorage();
  await store(bad, hashBytes(asFormat3(snapshotBytes))); // what the restored state hashes to: not what format 1 recorded
  const log = captureLogger();
  t.throws(
    () => recover({ journal: bad.journal, snapshots: bad.snapshots, create: () => replayable(Venue.create()), restore: (b) => replayable(Venue.restore(b)), log }),
    RecoveryError,
    'a snapshot that fails its check is passed over; with the journal pruned at it, start-up refuses',
  );
  t.match(log.text('warn'), new RegExp(`snapshot at seq ${fixture.snapshot.seq} restored to hash ${fixture.snapshot.hash}, recorded`), 'and says which check failed');
});

t.test('a data directory written before the change recovers in the app, and its next snapshot is format 3', async (t) => {
  const dataDir = tempDir(t, 'format1-');
  const storage = openStorage({ dataDir, log: captureLogger() });
  await store(storage, fixture.snapshot.hash);
  await storage.close();

  const app = await startTestApp({ dataDir, env: { } });
  t.equal(format2Hash(app.app.engine.serialize()), fixture.afterReplay.hash, "the recovered engine holds the old engine's state (less its history)");
  t.equal(readSha(app.app.services.reads), fixture.afterReplay.read, 'the read models resumed from the snapshot and folded the journal');
  const owner = getAddress('0x000000000000000000000000000000000000beef');
  await app.app.services.pipeline.submit({ type: 'deposit', owner, portfolioId: 0, amount: 1_000_000n });
  await app.app.services.pipeline.drain();
  const hash = app.app.engine.stateHash();
  await app.close(); // takes a snapshot at the journal's end

  const after = openStorage({ dataDir, log: captureLogger() });
  const newest = [...after.snapshots.candidates()][0];
  const format = newest?.ok ? JSON.parse(new TextDecoder().decode(newest.snapshot.state)).format : null;
  t.same([newest?.ok && newest.snapshot.seq > fixture.snapshot.seq, format], [true, 3], 'the next snapshot is format 3');
  await after.close();

  const again = await startTestApp({ dataDir });
  t.teardown(() => again.close());
  t.equal(again.app.engine.stateHash(), hash, 'and a restart from it reaches the same state');
});
