/**
 * The series side's recycled order records (engine/actors/recordPool.ts): a record is freed only
 * at the end of the command in which its order left the book, never while the order rests, and a
 * pool in steady state makes no new record.
 *
 * Early or on-book recycling is caught by poisoning: with `poison` on, every record released has
 * sentinels written into all its fields, so any read of it after release (an outcome list, an
 * order event, a resting order's matching) changes the venue's results, and seeded streams are
 * run event for event against the frozen reference engine (test/engine/differential/) and the
 * liquidation stream against the same stream without poison. Two sabotaged pools (records freed
 * as soon as their order leaves, and records freed while their order still rests) show the check
 * fails when the rule is broken.
 */
import t from 'tap';
import { RecordPool, SeriesRecord } from '../../../engine/actors/recordPool.ts';
import { SeriesActor } from '../../../engine/actors/series.ts';
import { SeriesTable } from '../../../engine/actors/seriesTable.ts';
import { createFastBook } from '../../../engine/book/fastBook.ts';
import { DEFAULT_INSTRUCTIONS } from '../../../engine/domain/instructions.ts';
import type { Hex } from '../../../engine/domain/hex.ts';
import type { Command } from '../../../engine/commands.ts';
import { Venue as ReferenceVenue } from '../reference/engine/venue.ts';
import { defaultVenueConfig as referenceConfig } from '../reference/engine/config.ts';
import { Harness } from '../support/venueFixture.ts';
import { shockBodies } from '../support/shockStream.ts';
import { compare, fullStreamDiff, runFullStream, stateDifference, wire, type Mismatch } from '../differential/support.ts';
import { makeOpStream } from '../../../bench/book.ts';
import { prepare } from '../../../bench/lib/seriesActorSubject.ts';
import { WireEvents } from '../../../engine/wire.ts';

// Streams through two engines: minutes on a busy 2-core host (tap's default is 120 s).
t.setTimeout(600_000);

let nextRef = 1;
function take(pool: RecordPool, ownerIndex: number, isBuy: boolean, tick: number, lots: number): SeriesRecord {
  const ref = nextRef++;
  const r = pool.take().init(`0x${ref.toString(16)}` as Hex, '0x01', ref, `w${ownerIndex}`, ownerIndex, 1, 1, isBuy, tick, lots, BigInt(ref), 2_000_000_000, DEFAULT_INSTRUCTIONS, null);
  r.createdAt = 1.7e12;
  return r;
}

t.test('a record leaves with its order and is free only after its command', async (t) => {
  const table = new SeriesTable();
  const s = new SeriesActor({} as never, createFastBook());
  table.set('0xaa', s);
  const pool = table.records;
  t.equal(s.records, pool, 'a series entering the table shares its pool');
  const maker = take(pool, 1, false, 100, 2);
  const partial = take(pool, 2, false, 101, 3);
  s.match(maker);
  s.match(partial);
  const taker = take(pool, 3, true, 101, 4); // fills the maker whole and one lot of `partial`
  const out = s.match(taker);
  t.equal(out.fillCount, 2);
  t.equal(pool.freeRecords, 0, 'within the command nothing is free: the outcome still lists the maker');
  t.equal(out.fillMaker[0], maker);
  t.equal(maker.status, 'filled', 'the filled maker reads as the match left it');
  t.equal(taker.status, 'filled');
  pool.recycle();
  t.equal(pool.freeRecords, 2, 'after the command: the filled maker and the taker filled whole');
  t.equal(pool.made, 3, 'three records made');
  const next = take(pool, 4, true, 90, 1);
  t.ok(next === maker || next === taker, 'a new order gets a freed record');
  t.equal(next.status, 'open', 're-initialised: open');
  t.equal(next.filledLots, 0, 're-initialised: nothing filled');
  t.equal(next.tick, 90);
  t.equal(pool.made, 3, 'and no record is made');
  t.equal(s.openOrder(partial.ref), partial, 'the partly filled order rests with its record');
  t.equal(s.remove(partial, 'cancelled'), 1, 'its last lot taken off');
  t.equal(s.remove(partial, 'cancelled'), 0, 'removed again (no longer on the book)');
  pool.recycle();
  t.equal(pool.freeRecords, 2, 'a record forgotten twice is freed once');
});

t.test('poisoning writes sentinels in every field, keeping the class; records not made by the pool are not recycled', async (t) => {
  const pool = new RecordPool();
  pool.poison = true;
  const r = take(pool, 1, true, 100, 5);
  const fields = Object.keys(r);
  pool.leave(r);
  pool.leave({ ...r }); // a restored record (a plain object): left to the collector
  pool.recycle();
  t.equal(pool.freeRecords, 1, 'only the pool\'s record is free');
  t.same(Object.keys(r), fields, 'the same fields in the same order');
  t.not(r.orderId, `0x${r.ref.toString(16)}`);
  t.equal(r.status as string, 'poisoned');
  t.equal(r.ref, -1);
  t.equal(r.isBuy, false, 'the side flipped');
  t.equal(r.instructions.clientOrderId, 'poisoned');
  t.ok(Number.isNaN(r.createdAt) && Number.isNaN(r.expiry));
});

t.test('JSON of a pooled record is that of the object literal it replaced (snapshot bytes)', async (t) => {
  const pool = new RecordPool();
  const r = take(pool, 1, true, 100, 5);
  const literal = { orderId: r.orderId, seriesId: r.seriesId, ref: r.ref, owner: r.owner, ownerIndex: 1, portfolioId: 1, routedPortfolioId: 1, isBuy: true, tick: 100, lots: 5, filledLots: 0, nonce: r.nonce, status: 'open', expiry: r.expiry, createdAt: r.createdAt, instructions: DEFAULT_INSTRUCTIONS, signed: null };
  const json = (x: unknown) => JSON.stringify(x, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  t.equal(json(r), json(literal));
  r.nonce = undefined; // the venue's own orders: no nonce key, as before
  const { nonce: _, ...withoutNonce } = literal;
  t.equal(json(r), json(withoutNonce));
});

/** A pool that breaks the rule: records freed as soon as their order leaves (within the command), or while their order still rests. */
function sabotage(pool: RecordPool, how: 'freed within the command' | 'freed while resting'): void {
  if (how === 'freed within the command') {
    const leave = pool.leave.bind(pool);
    pool.leave = (r) => {
      leave(r);
      pool.recycle();
    };
  } else {
    const takeRecord = pool.take.bind(pool);
    pool.take = () => {
      const r = takeRecord();
      pool.leave(r);
      return r;
    };
  }
}

t.test('poisoned records, full streams against the reference: identical event for event', async (t) => {
  for (const seed of [7, 8]) {
    const h = new Harness();
    h.venue.state.series.records.poison = true;
    t.test(`seed ${seed}`, async (t) => fullStreamDiff(t, seed, 1_500, h));
  }
});

t.test('the check fails on a pool that recycles too early or while the order rests', async (t) => {
  for (const how of ['freed within the command', 'freed while resting'] as const) {
    const h = new Harness();
    h.venue.state.series.records.poison = true;
    sabotage(h.venue.state.series.records, how);
    let caught: string | null = null;
    try {
      const run = runFullStream(h, 7, 600);
      caught = run.first === null ? stateDifference(h.venue, run.reference) : `command ${run.first.index} differs`;
    } catch (e) {
      caught = `threw: ${(e as Error).message}`;
    }
    t.not(caught, null, `${how}: detected (${caught?.slice(0, 120)})`);
  }
});

t.test('the book benchmark stream, poisoned, against the reference; the pool in steady state makes no record', async (t) => {
  const live = prepare(makeOpStream(12_000, 11));
  const pool = live.venue.state.series.records;
  pool.poison = true;
  const reference = ReferenceVenue.create(referenceConfig);
  for (const c of live.setup) reference.apply(c as Parameters<ReferenceVenue['apply']>[0]);
  const conv = new WireEvents();
  conv.learn(live.venue.imageEvents());
  const state = live.venue.state;
  let first: Mismatch | null = null;
  // Records in use during a command: at most the orders open at its start plus its takers.
  let bound = 0;
  let places = 0;
  let madeAtHalf = 0;
  let boundAtHalf = 0;
  for (let i = 0; i < live.commands.length; i++) {
    const cmd: Command = live.commands[i]!;
    const takers = cmd.type === 'place' ? cmd.orders.length : 0;
    places += takers;
    bound = Math.max(bound, state.orderIndex.size + takers);
    const m = compare(reference, cmd, i, wire(conv.result(live.venue.apply(cmd))));
    if (m !== null && first === null) first = m;
    if (i === live.commands.length >> 1) {
      madeAtHalf = pool.made;
      boundAtHalf = bound;
    }
  }
  t.equal(first, null, 'every command: the same result and events, in wire form');
  t.equal(stateDifference(live.venue, reference), null, 'the same state at the end');
  t.ok(pool.made <= bound, `records made (${pool.made}) <= the most open at once plus a command's takers (${bound})`);
  t.ok(pool.made - madeAtHalf <= bound - boundAtHalf, `second half: records made (${pool.made - madeAtHalf}) only as the bound grew (${bound - boundAtHalf})`);
  t.ok(places > 2 * pool.made, `${places} orders placed on ${pool.made} records`);
});

/** The orders a command enters (its takers, each on a record). */
function placesOf(body: { type: string }): number {
  const b = body as { orders?: readonly unknown[]; pairs?: readonly unknown[] };
  return body.type === 'place' || body.type === 'strategy' ? b.orders!.length : body.type === 'replace' ? b.pairs!.length : 0;
}

t.test('liquidations (shock stream): poisoned records give the same events as plain ones, and their closing orders are recycled', async (t) => {
  const run = (poison: boolean) => {
    const h = new Harness();
    const pool = h.venue.state.series.records;
    pool.poison = poison;
    const out: string[] = [];
    let liquidations = 0;
    let bound = 0;
    let takers = 0;
    for (const { body, advance } of shockBodies(h, 13, 500)) {
      const open = h.venue.state.orderIndex.size;
      const r = h.run(body, advance);
      // Its takers: the orders it entered and the liquidation pass's closing orders (one record each, at most one per close).
      let n = placesOf(body);
      for (const e of r.events) if (e.type === 'liquidation') (liquidations++, (n += e.closes.length));
      takers += n;
      bound = Math.max(bound, open + n);
      out.push(wire(r));
    }
    return { out, liquidations, h, bound, takers, made: pool.made };
  };
  const plain = run(false);
  const poisoned = run(true);
  t.ok(plain.liquidations > 0, `the stream liquidates (${plain.liquidations})`);
  const i = plain.out.findIndex((x, k) => x !== poisoned.out[k]);
  t.equal(i, -1, 'every command: the same result and events');
  t.equal(plain.h.venue.stateHash(), poisoned.h.venue.stateHash(), 'the same state at the end');
  t.equal(poisoned.h.venue.state.verifyOrderIndex(), null, "the order index agrees with the series' records");
  t.ok(poisoned.made <= poisoned.bound, `records made (${poisoned.made}) <= the most open at once plus a command's takers (${poisoned.bound})`);
  t.ok(poisoned.takers > 2 * poisoned.made, `${poisoned.takers} orders and closing orders on ${poisoned.made} records`);
});
