/**
 * The events are sufficient (architecture.md rule 6): after long seeded command streams that
 * produce every event type, with snapshots and restarts in the middle, the read models a
 * venue keeps live (restored from each snapshot's read state at every restart) equal, to the
 * byte, read models rebuilt from the event log alone, and read models started from a mid-way
 * snapshot plus the log after it. The log is the events serialised with the journal's codec
 * and decoded again, as a replica on another machine would receive them. Each fold's own test
 * (beside this one) checks its views against the engine's.
 */
import t from 'tap';
import { Venue, type VenueEvent } from '../../../engine/index.ts';
import { encodeValue, decodeValue } from '../../../persistence/codec.ts';
import { ReadModels } from '../../../gateway/readModels/readModels.ts';
import { Harness } from '../../engine/support/venueFixture.ts';
import { fullBodies } from './support/fullStream.ts';

// Three seeds of 2,500 commands, each folded three ways: about a minute, minutes on a busy host.
t.setTimeout(600_000);

type Batch = { seq: number; ts: number; events: VenueEvent[] };

function run(seed: number, n: number, restartEvery: number) {
  const h = new Harness();
  let live = new ReadModels();
  const log: Uint8Array[] = [];
  const snapshots: { seq: number; read: Uint8Array }[] = [];
  const types = new Map<string, number>();
  let commands = 0;
  for (const { body, advance } of fullBodies(h, seed, n)) {
    const r = h.run(body, advance);
    const ts = r.events.length > 0 ? r.events[0]!.ts : h.ts;
    log.push(encodeValue({ seq: h.seq, ts, events: r.events }));
    live.apply(h.seq, ts, r.events);
    for (const e of r.events) {
      types.set(e.type, (types.get(e.type) ?? 0) + 1);
      if (e.type === 'order' && e.cancelReason !== null) types.set(`cancel:${e.cancelReason}`, (types.get(`cancel:${e.cancelReason}`) ?? 0) + 1);
    }
    if (++commands % restartEvery === 0) {
      // A snapshot of both sides at this seq, and a restart from it.
      const state = h.venue.serialize();
      const read = live.serialize();
      snapshots.push({ seq: h.seq, read });
      (h as { venue: Venue }).venue = Venue.restore(state);
      live = ReadModels.restore(read);
    }
  }
  return { h, live, log, snapshots, types };
}

function fold(into: ReadModels, log: readonly Uint8Array[], fromSeq: number): ReadModels {
  for (const bytes of log) {
    const b = decodeValue(bytes) as Batch;
    if (b.seq > fromSeq) into.apply(b.seq, b.ts, b.events);
  }
  return into;
}

const bytesEqual = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0;

for (const seed of [11, 23, 47]) {
  t.test(`seed ${seed}: read models from the event log alone equal the live ones across restarts`, async (t) => {
    const { h, live, log, snapshots, types } = run(seed, 2500, 700);
    // The stream exercises every kind of event a reader folds.
    for (const type of ['trade', 'order', 'depth', 'position', 'portfolio', 'oracle', 'pair_listed', 'series_listed', 'series_settled', 'clock', 'mmm', 'mmm_nonce', 'oi_caps', 'rfq_created', 'rfq_quote', 'rfq_resolved', 'dead_man', 'cancel:user', 'cancel:mass_cancel', 'cancel:disconnect', 'cancel:dead_man', 'referral_code', 'referral_applied', 'referral_rebate', 'chain_event', 'liquidation', 'insurance_fund', 'bad_debt', 'cancel:liquidation'] as const) {
      t.ok((types.get(type) ?? 0) > 0, `the stream produced ${type} events (${types.get(type) ?? 0})`);
    }
    t.ok(snapshots.length >= 3, `${snapshots.length} restarts from snapshots in the middle`);
    t.equal(live.seq, h.seq, 'the live read models stand at the last command');

    const replica = fold(new ReadModels(), log, 0);
    t.equal(replica.seq, live.seq);
    t.ok(bytesEqual(replica.serialize(), live.serialize()), 'rebuilt from the event log alone: the same read state, byte for byte');

    const mid = snapshots[Math.floor(snapshots.length / 2)]!;
    const resumed = fold(ReadModels.restore(mid.read), log, mid.seq);
    t.ok(bytesEqual(resumed.serialize(), live.serialize()), `started from the snapshot at seq ${mid.seq} plus the log after it: the same read state`);

    // Equality is not vacuous: one event fewer gives a different read state.
    const dropped = new ReadModels();
    let skipped = false;
    for (const bytes of log) {
      const b = decodeValue(bytes) as Batch;
      const events: VenueEvent[] = !skipped && b.events.some((e) => e.type === 'trade') ? b.events.filter((e) => e.type !== 'trade') : b.events;
      skipped ||= events !== b.events;
      dropped.apply(b.seq, b.ts, events);
    }
    t.ok(skipped);
    t.notOk(bytesEqual(dropped.serialize(), live.serialize()), 'a log missing one trade event folds to a different read state');
  });
}
