/**
 * The market-data fold against the engine it mirrors: a seeded stream that trades, cancels,
 * moves oracles, settles and lists (support/fullStream.ts) is applied to a harness venue and
 * its events, and only its events, are folded into fresh read models. At checkpoints every
 * series' book (levels, order counts, book sequence) and open interest, and every pair's
 * open interest, must equal the engine's own, and its recent trades and 24-hour statistics
 * what the engine kept before issue 19 (the frozen reference engine's: support/historyTwin.ts); the replies
 * must survive the read state's serialisation, and the engine's image must seed the books.
 * The fold never sees the venue: a field an event lost, or a figure only the engine's state
 * held, fails here.
 */
import t from 'tap';
import { ReadModels } from '../../../gateway/readModels/readModels.ts';
import type { VenueState } from '../../../engine/state.ts';
import type { Hex } from '../../../engine/domain/hex.ts';
import type { VenueEvent } from '../../../engine/events.ts';
import { tickToPrice } from '../../../engine/domain/ticks.ts';
import { Harness } from '../../engine/support/venueFixture.ts';
import { fullBodies } from './support/fullStream.ts';
import { HistoryTwin, type ReferenceState } from './support/historyTwin.ts';
import { wadOfLots } from '../../../engine/domain/lots.ts';

type Fail = (message: string, extra: { got: unknown; want: unknown }) => void;

function bookOf(state: VenueState, seriesId: Hex, isBid: boolean) {
  const s = state.series.get(seriesId)!;
  const pair = state.pairs.get(s.spec.pairId)!;
  return s.book.depth(isBid, 1_000_000).map((l) => ({ price: tickToPrice(l.tick, pair.tickDecimals).toString(), size: (BigInt(l.qty) * pair.sizeStep).toString(), orderCount: l.count }));
}

/** Every figure of the fold against the engine's state; returns the number of mismatches reported. */
function compare(fail: Fail, reads: ReadModels, state: VenueState, history: ReferenceState, where: string): number {
  let bad = 0;
  const check = (ok: boolean, what: string, got: unknown, want: unknown) => {
    if (ok) return;
    bad++;
    fail(`${where}: ${what}`, { got, want });
  };
  const m = reads.market;
  for (const s of state.series.values()) {
    const id = s.spec.seriesId;
    const info = reads.catalog.series.get(id);
    if (s.marks === null) continue; // not listed yet
    check(info !== undefined, `series ${id} in the catalog`, undefined, id);
    if (!info) continue;
    const book = JSON.parse(m.orderbookJson(info, 1_000_000, 0));
    const bids = bookOf(state, id, true);
    const asks = bookOf(state, id, false);
    check(JSON.stringify(book.bids) === JSON.stringify(bids), `bids of ${s.spec.symbol}`, book.bids, bids);
    check(JSON.stringify(book.asks) === JSON.stringify(asks), `asks of ${s.spec.symbol}`, book.asks, asks);
    check(book.seq === s.bookSeq, `book seq of ${s.spec.symbol}`, book.seq, s.bookSeq);
    const levels = m.levels(id);
    check(levels.seq === s.bookSeq && JSON.stringify(levels.bids) === JSON.stringify(bids.map((l) => [l.price, l.size])), `stream levels of ${s.spec.symbol}`, levels, bids);

    const tk = m.ticker(info);
    const kept = history.series.get(id)!;
    const w = kept.windowStats();
    const figures = {
      bestBid: s.book.bestBid() < 0 ? null : tickToPrice(s.book.bestBid(), state.pairs.get(s.spec.pairId)!.tickDecimals).toString(),
      bestAsk: s.book.bestAsk() < 0 ? null : tickToPrice(s.book.bestAsk(), state.pairs.get(s.spec.pairId)!.tickDecimals).toString(),
      volume24h: w.volume.toString(),
      trades24h: w.count,
      priceChange24h: w.first !== null && w.last !== null ? (w.last.price - w.first.price).toString() : '0',
      high24h: w.high?.toString() ?? null,
      low24h: w.low?.toString() ?? null,
      openInterest: state.openInterestWad(s).toString(),
      lastTradeAt: kept.recentTrades.last() ? Math.floor(kept.recentTrades.last()!.ts / 1000) : null,
      markPrice: s.settled ? '0' : s.marks.mark.toString(),
      delta: s.marks.delta.toString(),
      isSettled: s.settled,
      settlementPrice: s.settlementPrice?.toString() ?? null,
    };
    const got = Object.fromEntries(Object.keys(figures).map((k) => [k, (tk as Record<string, unknown>)[k]]));
    check(JSON.stringify(got) === JSON.stringify(figures), `ticker figures of ${s.spec.symbol}`, got, figures);

    const recent = m.recentTrades(id);
    const mine: string[] = [];
    for (let i = 0; i < recent.length; i++) mine.push(recent.at(i)!.id);
    const theirs: string[] = [];
    for (let i = 0; i < kept.recentTrades.length; i++) theirs.push(kept.recentTrades.at(i)!.id);
    check(JSON.stringify(mine) === JSON.stringify(theirs), `recent trades of ${s.spec.symbol}`, mine.length, theirs.length);
  }
  for (const pairId of state.pairs.keys()) {
    for (const isCall of [true, false]) {
      const engineOI = wadOfLots(state.pairOpenInterest(pairId, isCall), state.pairs.get(pairId)!.sizeStep); // the engine counts lots
      check(m.pairOpenInterest(pairId, isCall) === engineOI, `pair ${isCall ? 'call' : 'put'} open interest`, m.pairOpenInterest(pairId, isCall), engineOI);
    }
    const caps = m.openInterest(pairId);
    const p = state.pairs.get(pairId)!;
    check(caps.maxCallOI === p.maxCallOI.toString() && caps.maxPutOI === p.maxPutOI.toString(), 'pair caps', caps, p);
  }
  return bad;
}

/** Every reply the fold serves, for the round trip. */
function replies(reads: ReadModels): string[] {
  const out: string[] = [];
  for (const s of reads.catalog.series.values()) {
    out.push(reads.market.orderbookJson(s, 20, 1), reads.market.tickerJson(s), JSON.stringify(reads.market.levels(s.seriesId)));
    const r = reads.market.recentTrades(s.seriesId);
    for (let i = 0; i < r.length; i++) out.push(JSON.stringify(r.at(i), (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));
  }
  for (const pairId of reads.catalog.pairs.keys()) out.push(JSON.stringify(reads.market.openInterest(pairId)), JSON.stringify(reads.market.pairJson(pairId, 'current')));
  return out;
}

t.test('the fold of the events equals the engine: books, trades, 24-hour statistics, open interest', async (t) => {
  for (const seed of [1, 7]) {
    const h = new Harness();
    const twin = new HistoryTwin(h);
    const reads = new ReadModels();
    let k = 0;
    let trades = 0;
    let settled = 0;
    let clocks = 0;
    for (const { body, advance } of fullBodies(h, seed, 1500)) {
      const r = h.run(body, advance);
      reads.apply(h.seq, h.ts, r.events);
      for (const e of r.events) {
        if (e.type === 'trade') trades++;
        if (e.type === 'series_settled') settled++;
        if (e.type === 'clock') clocks++;
      }
      if (++k % 250 === 0 && compare((m, x) => t.fail(m, x), reads, h.venue.state, twin.state(), `seed ${seed}, command ${k}`) > 0) return;
    }
    t.equal(compare((m, x) => t.fail(m, x), reads, h.venue.state, twin.state(), `seed ${seed}, end`), 0, `seed ${seed}: every figure equals the engine's after ${k} commands`);
    t.ok(trades > 20 && settled > 0 && clocks > 0, `seed ${seed}: the stream traded (${trades}), settled (${settled}) and ran the clock (${clocks})`);
    t.equal(reads.market.gaps, 0, 'every depth event followed its book');

    // The read state's round trip serves the same replies.
    const before = replies(reads);
    const restored = ReadModels.restore(reads.serialize());
    t.same(replies(restored), before, `seed ${seed}: replies after exportState -> importState`);
    t.equal(compare((m, x) => t.fail(m, x), restored, h.venue.state, twin.state(), `seed ${seed}, restored`), 0, `seed ${seed}: the restored fold equals the engine`);

    // The folds carry on identically from the restored state.
    for (const { body, advance } of fullBodies(h, seed + 100, 200)) {
      const r = h.run(body, advance);
      reads.apply(h.seq, h.ts, r.events);
      restored.apply(h.seq, h.ts, r.events);
    }
    t.same(replies(restored), replies(reads), `seed ${seed}: the restored fold follows the next commands`);

    // The engine's image seeds the books (their levels and sequences) on empty read models.
    const image = new ReadModels();
    image.apply(h.venue.seq, h.venue.now, h.wire.events(h.venue.imageEvents()));
    let books = 0;
    let emptyWithSeq = 0;
    for (const s of h.venue.state.series.values()) {
      if (s.marks === null) continue;
      const lv = image.market.levels(s.spec.seriesId);
      const want = reads.market.levels(s.spec.seriesId);
      if (s.book.orderCount() === 0) {
        if (lv.seq !== want.seq) emptyWithSeq++;
        continue;
      }
      books++;
      if (JSON.stringify(lv) !== JSON.stringify(want)) t.fail(`image book of ${s.spec.symbol}`, { got: lv, want });
    }
    t.ok(books > 0, `seed ${seed}: ${books} books with orders seeded from the image`);
    t.equal(image.market.gaps, 0, 'the image books start at prevBookSeq 0');
    t.equal(emptyWithSeq, 0, `seed ${seed}: empty books keep their book sequence in the image`);
    let oiLost = 0;
    for (const pairId of h.venue.state.pairs.keys()) for (const isCall of [true, false]) if (image.market.pairOpenInterest(pairId, isCall) !== wadOfLots(h.venue.state.pairOpenInterest(pairId, isCall), h.venue.state.pairs.get(pairId)!.sizeStep)) oiLost++;
    t.equal(oiLost, 0, `seed ${seed}: open interest is seeded from the image`);
  }
});

t.test('24-hour statistics prune on trades and on clock events, by the event time', async (t) => {
  const h = new Harness();
  const twin = new HistoryTwin(h);
  const reads = new ReadModels();
  const run = (body: Parameters<Harness['run']>[0], advance: number) => {
    const r = h.run(body, advance);
    reads.apply(h.seq, h.ts, r.events);
    return r;
  };
  // List and price what the random stream would, then trade one series a few times.
  let traded: Hex | null = null;
  for (const { body, advance } of fullBodies(h, 3, 400)) {
    const r = run(body, advance);
    for (const e of r.events) if (e.type === 'trade' && traded === null) traded = e.seriesId;
  }
  t.ok(traded !== null, 'a series traded');
  const id = traded!;
  const s = () => twin.state().series.get(id)!;
  const stats = () => {
    const w = reads.market.windowStats(id);
    return { volume: w.volume, count: w.count, high: w.high, low: w.low };
  };
  const engine = () => {
    const w = s().windowStats();
    return { volume: w.volume, count: w.count, high: w.high, low: w.low };
  };
  t.same(stats(), engine(), 'equal before time passes');
  // A day later a clock prunes the window in both.
  run({ type: 'clock' }, 24 * 3600 * 1000 + 1);
  t.same(stats(), engine(), 'equal after a clock a day later');
  t.equal(stats().count, 0, 'the window is empty a day later');
  t.equal(JSON.parse(reads.market.tickerJson(reads.catalog.series.get(id)!)).trades24h, 0, 'the cached ticker was dropped by the clock');
});

t.test('recent trades keep the bound the engine kept (the last 1,000), the window keeps the whole day', async (t) => {
  // One series traded 1,100 times within the day (the funding commands have no market events to fold).
  const h = new Harness();
  const twin = new HistoryTwin(h);
  const reads = new ReadModels();
  let traded: Hex | null = null;
  for (const { body, advance } of fullBodies(h, 5, 120)) {
    const r = h.run(body, advance);
    reads.apply(h.seq, h.ts, r.events);
  }
  const s = [...h.venue.state.series.values()].find((x) => !x.settled && x.marks !== null && x.spec.expiry * 1000 > h.ts + 2 * 86_400_000)!;
  const seller = '0x0000000000000000000000000000000000005e11';
  const buyer = '0x000000000000000000000000000000000000b0b0';
  h.fund(seller, 10n ** 15n);
  h.fund(buyer, 10n ** 15n);
  const fold = (r: { events: readonly VenueEvent[] }) => reads.apply(h.seq, h.ts, r.events);
  const mark = Math.max(0.1, Math.round((Number(s.marks!.mark) / 1e18) * 10) / 10);
  fold(h.ok({ type: 'place', orders: [h.order(seller, s.spec.seriesId, false, mark, 20)] }));
  for (let i = 0; i < 1100; i++) {
    const r = h.ok({ type: 'place', orders: [h.order(buyer, s.spec.seriesId, true, mark, 0.01)] }, 10);
    fold(r);
    for (const e of r.events) if (e.type === 'trade') traded = e.seriesId;
  }
  t.equal(traded, s.spec.seriesId, 'the series traded');
  const kept = twin.state().series.get(s.spec.seriesId)!;
  const recent = reads.market.recentTrades(s.spec.seriesId);
  t.equal(recent.length, kept.recentTrades.length, `the engine's bound (${kept.recentTrades.length})`);
  t.equal(recent.length, 1000);
  t.equal(recent.first()!.id, kept.recentTrades.at(0)!.id, 'the oldest kept is the engine oldest kept');
  t.equal(reads.market.windowStats(s.spec.seriesId).count, kept.windowStats().count, 'the 24-hour window counts every trade of the day');
  t.ok(kept.windowStats().count > 1000, 'more trades in the window than kept as recent');
});
