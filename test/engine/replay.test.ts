/**
 * Replay is exact (architecture.md rule 2): the same commands give the same state hash,
 * and a snapshot taken midway, restored into a fresh engine and continued, ends with the
 * same hash as the uninterrupted run.
 */
import t from 'tap';
import { Venue } from '../../engine/venue.ts';
import { defaultVenueConfig } from '../../engine/config.ts';
import { randomStream } from './support/randomStream.ts';

for (const seed of [1, 2]) {
  t.test(`seed ${seed}`, async (t) => {
    const { harness, commands } = randomStream(seed, 2500);
    const final = harness.venue.stateHash();
    const settled = [...harness.venue.state.series.values()].filter((s) => s.settled).length;
    t.ok(settled > 0, 'the stream crossed an expiry and settled series');
    t.ok(commands.filter((c) => c.type === 'place').length > 1000, 'the stream placed many orders');
    t.ok(commands.some((c) => c.type === 'replace') && commands.some((c) => c.type === 'cancel'), 'and cancelled and replaced');

    const replay = Venue.create(defaultVenueConfig);
    for (const c of commands) replay.apply(c);
    t.equal(replay.stateHash(), final, 'a full replay reproduces the hash');

    const mid = Math.floor(commands.length / 2);
    const first = Venue.create(defaultVenueConfig);
    for (const c of commands.slice(0, mid)) first.apply(c);
    const bytes = first.serialize();
    // Only stored fields: the order index as [orderId, seriesId], reservations without their derived reserve.
    const dump = JSON.parse(new TextDecoder().decode(bytes)) as { orderIndex: unknown[][]; accounts: { portfolios: { openOrders: object[] }[] }[] };
    t.ok(dump.orderIndex.length > 0 && dump.orderIndex.every((e) => e.length === 2 && e.every((x) => typeof x === 'string')), 'order index stored as id pairs');
    const refs = dump.accounts.flatMap((a) => a.portfolios.flatMap((p) => p.openOrders));
    t.ok(refs.length > 0 && refs.every((r) => Object.keys(r).join() === 'orderId,seriesId,isBuy,remaining,price'), 'reservations stored with their five fields');
    const restored = Venue.restore(bytes);
    t.equal(restored.stateHash(), first.stateHash(), 'restore(serialize(s)) has the same hash');
    for (const c of commands.slice(mid)) restored.apply(c);
    t.equal(restored.stateHash(), final, 'snapshot midway + the rest of the journal = the uninterrupted run');
    for (const s of restored.state.series.values()) {
      const problem = s.book.checkInvariants();
      if (problem) t.fail(`book of ${s.spec.symbol}: ${problem}`);
    }
    const traded = [...harness.venue.state.series.values()].some((s) => s.openInterest > 0n);
    t.ok(traded, 'positions are open at the end');
    t.equal(harness.venue.state.recountOpenInterest(), null, 'the kept open interest per pair equals a recount (fills and settlements)');
    t.equal(restored.state.recountOpenInterest(), null, 'also after a restore midway');
  });
}

t.test('the order index hash seed changes no output: the same events, hashes and snapshot bytes under any seed', async (t) => {
  const { commands } = randomStream(3, 1000);
  const a = Venue.create(defaultVenueConfig, { idHashSeed: 1 });
  const b = Venue.create(defaultVenueConfig, { idHashSeed: -0x2152411 });
  const json = (x: unknown) => JSON.stringify(x, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  let differs: string | null = null;
  let most = 0;
  let fullest: Uint8Array = new Uint8Array(0);
  for (const [i, c] of commands.entries()) {
    if (json(a.apply(c)) !== json(b.apply(c))) differs ??= `command ${c.seq}: result or events`;
    if (i % 100 !== 99) continue;
    const bytes = a.serialize();
    if (Buffer.compare(bytes, b.serialize()) !== 0) differs ??= `after command ${c.seq}: snapshot bytes`;
    if (a.state.orderIndex.size > most) [most, fullest] = [a.state.orderIndex.size, bytes];
  }
  t.equal(differs, null, 'every result, its events and every snapshot the same');
  t.ok(most > 10, `orders open at a snapshot (${most})`);
  const restored = Venue.restore(fullest, { idHashSeed: 0x7fffffff });
  t.same(restored.serialize(), fullest, 'restored under a third seed: re-serialised byte-identical');
  t.equal(restored.state.verifyOrderIndex(), null, 'and its order index consistent');
});
