/**
 * Seeding from the engine's image (docs/events.md "Snapshots and seeding"): read models
 * folded from `Venue.imageEvents()` alone show the same current state as read models that
 * folded every event since the start: the catalog (pairs, series, marks, settlement, oracle
 * states, market makers), portfolios, positions and open orders (the books and the RFQ book
 * are compared in their folds' tests). History the image does not carry (finished orders,
 * trade lists) is not compared.
 */
import t from 'tap';
import { Venue } from '../../../engine/index.ts';
import { ReadModels } from '../../../gateway/readModels/readModels.ts';
import { runFullStream } from './support/fullStream.ts';
import { wireVenueOf } from '../../../gateway/wireVenue.ts';

t.test('read models seeded from the image show the state that folding every event shows', async (t) => {
  const h = runFullStream(5, 2000, () => {});
  // Fold every command's events into `live`, replaying the harness's journal.
  const live = new ReadModels();
  const replay = Venue.create(h.venue.state.config);
  for (const c of h.log) {
    const res = wireVenueOf(replay).apply(c);
    live.apply(replay.seq, replay.now, res.events);
  }
  t.equal(replay.stateHash(), h.venue.stateHash(), 'the replayed venue is the venue');
  const seeded = new ReadModels();
  seeded.apply(h.venue.seq, h.venue.now, wireVenueOf(h.venue).imageEvents());

  const a = live.catalog;
  const b = seeded.catalog;
  t.same([...b.pairs.values()], [...a.pairs.values()], 'pairs and their OI caps');
  t.same([...b.series.values()], [...a.series.values()], 'series, settlement and latest marks');
  t.same([...b.oracles.entries()], [...a.oracles.entries()], 'oracle states');
  for (const address of ['0x00000000000000000000000000000000000000AA', '0x0000000000000000000000000000000000000001']) {
    t.equal(b.isMmm(address), a.isMmm(address), `market maker status of ${address}`);
    t.equal(b.mmmNonce(address), a.mmmNonce(address), `quote nonce of ${address}`);
  }
  t.ok(a.series.size > 0 && [...a.series.values()].some((s) => s.settled), 'the stream listed and settled series');

  // Accounts and orders: every wallet's portfolios, positions and open orders.
  const wallets = [...h.venue.state.accounts.owners];
  t.ok(wallets.length > 3);
  let positions = 0;
  let orders = 0;
  for (const owner of wallets) {
    t.same(seeded.accounts.portfolios(owner), live.accounts.portfolios(owner), `portfolios of ${owner}`);
    for (const p of live.accounts.portfolios(owner)) {
      // As a set: views sort positions by symbol, and a market maker's come from several internal portfolios.
      const bySeries = (xs: readonly { seriesId: string }[]) => [...xs].sort((x, y) => (x.seriesId < y.seriesId ? -1 : 1));
      t.same(bySeries(seeded.accounts.positions(owner, p.id)), bySeries(live.accounts.positions(owner, p.id)), `positions of ${owner} ${p.id}`);
      positions += live.accounts.positions(owner, p.id).length;
    }
    t.same(seeded.orders.open(owner), live.orders.open(owner), `open orders of ${owner}`);
    orders += live.orders.open(owner).length;
  }
  t.ok(positions > 0 && orders > 0, `${positions} positions and ${orders} open orders compared`);
  // The insurance fund: its cash and bad debt (liquidation history is not in the image).
  const fund = (r: ReadModels) => {
    const f = r.liquidations.fund(h.venue.now);
    return { balance: f.balance, badDebt: f.badDebt, funded: f.funded };
  };
  t.same(fund(seeded), fund(live), 'the insurance fund');
  t.ok(fund(live).funded, 'the stream funded it');
});
