/**
 * The series actor's plain outcome and its handles (engine/actors/series.ts,
 * engine/actors/seriesTable.ts): a match reports its fills and cancels in one reused struct
 * of arrays with counts (no object per fill), naming its series by handle; handles are dense,
 * resolve to their actor, and are given again on restore.
 */
import t from 'tap';
import { SeriesActor } from '../../../engine/actors/series.ts';
import { SeriesTable } from '../../../engine/actors/seriesTable.ts';
import type { OrderRecord } from '../../../engine/actors/orderRecord.ts';
import { createFastBook } from '../../../engine/book/fastBook.ts';
import { DEFAULT_INSTRUCTIONS } from '../../../engine/domain/instructions.ts';
import type { Hex } from '../../../engine/domain/hex.ts';
import { Venue } from '../../../engine/venue.ts';
import { listedVenue } from '../support/venueFixture.ts';

const actor = (): SeriesActor => new SeriesActor({} as never, createFastBook());

let nextRef = 1;
function order(ownerIndex: number, isBuy: boolean, tick: number, lots: number): OrderRecord {
  const ref = nextRef++;
  return { orderId: `0x${ref.toString(16)}` as Hex, seriesId: '0x01', ref, owner: `w${ownerIndex}`, ownerIndex, portfolioId: 1, routedPortfolioId: 1, isBuy, tick, lots, filledLots: 0, status: 'open', expiry: 0, createdAt: 0, instructions: DEFAULT_INSTRUCTIONS };
}

t.test('a sweep of 20 makers: fills in priority order in the struct of arrays, grown past its first 8', async (t) => {
  const table = new SeriesTable();
  table.set('0xaa', actor());
  const s = actor();
  table.set('0xbb', s);
  t.equal(s.handle, 1, 'the second series in gets handle 1');
  const makers: OrderRecord[] = [];
  for (let i = 0; i < 20; i++) {
    const m = order(1 + (i % 3), false, 100 + (i >> 2), 2);
    makers.push(m);
    t.equal(s.match(m).restingLots, 2);
  }
  const own = order(9, false, 103, 1); // the taker's own ask among them: removed by self-trade prevention
  s.match(own);
  const taker = order(9, true, 106, 41);
  const out = s.match(taker);
  t.equal(out.seriesHandle, 1, 'the outcome names its series by handle');
  t.equal(out.fillCount, 20, 'every maker filled');
  t.same(Array.from(out.fillRef.subarray(0, 20)), makers.map((m) => m.ref), 'maker refs in priority order');
  t.same(Array.from(out.fillTick.subarray(0, 20)), makers.map((m) => m.tick), 'at the makers\' ticks');
  t.same(Array.from(out.fillLots.subarray(0, 20)), makers.map(() => 2), 'two lots each');
  t.ok(out.fillMaker.slice(0, 20).every((m, i) => m === makers[i] && m.status === 'filled'), 'each fill\'s maker record, filled');
  t.equal(out.selfTradeCount, 1, 'the own ask removed');
  t.equal(out.selfTradeCancels[0], own);
  t.equal(out.restingLots, 1, 'the taker\'s last lot rests');
  t.equal(taker.status, 'partial');
  t.equal(s.openOrderCount, 1, 'only the taker\'s remainder is open');
  const again = s.match(order(4, false, 106, 1));
  t.equal(again, out, 'the same outcome object, reused');
  t.equal(again.fillCount, 1, 'its counts reset for the next match');
  t.equal(again.selfTradeCount, 0);
  t.equal(again.fillMaker[0], taker, 'the resting taker is now the maker');
});

t.test('handles: dense, stable, never removed', async (t) => {
  const table = new SeriesTable();
  const a = actor();
  const b = actor();
  table.set('0x01', a).set('0x02', b);
  t.same([a.handle, b.handle], [0, 1]);
  t.equal(table.at(1), b);
  table.set('0x01', a);
  t.equal(a.handle, 0, 'the same actor again keeps its handle');
  const a2 = actor();
  table.set('0x01', a2);
  t.equal(a2.handle, 0, 'another actor under the same id takes its handle');
  t.equal(table.at(0), a2);
  const other = new SeriesTable();
  other.set('0x09', b);
  t.equal(b.handle, 0, 'an actor entering another table gets that table\'s handle');
  t.throws(() => table.delete('0x01'), /never removed/);
  t.throws(() => table.at(7), /no series with handle 7/);
});

t.test('byId: the last series found kept, forgotten by any set (a series taken over answers with its new actor)', async (t) => {
  const table = new SeriesTable();
  const a = actor();
  const b = actor();
  table.set('0x01', a).set('0x02', b);
  t.equal(table.byId('0x01'), a);
  t.equal(table.byId('0x01'), a, 'again: the kept one');
  t.equal(table.byId('0x03'), undefined, 'an unknown id: undefined');
  t.equal(table.byId('0x01'), a, 'an unknown id does not displace it');
  t.equal(table.byId('0x02'), b, 'another id: looked up');
  const b2 = actor();
  table.set('0x02', b2);
  t.equal(table.byId('0x02'), b2, 'taken over: the new actor, not the kept one');
  t.equal(table.byId('0x02'), table.get('0x02'), 'as get answers');
});

t.test('after a restore every series resolves by its handle, in the snapshot\'s order', async (t) => {
  const h = listedVenue();
  const live = [...h.venue.state.series.values()];
  t.ok(live.length > 10, `${live.length} series listed`);
  t.ok(live.every((s, i) => s.handle === i && h.venue.state.series.at(i) === s), 'listing gave handles 0.. in order');
  const restored = Venue.restore(h.venue.serialize());
  const back = [...restored.state.series.values()];
  t.same(back.map((s) => s.spec.seriesId), live.map((s) => s.spec.seriesId), 'the same series');
  t.ok(back.every((s, i) => s.handle === i && restored.state.series.at(i) === s), 'handles given again, the same numbers');
});
