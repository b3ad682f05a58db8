/**
 * Expiry settlement through the real server with the embedded chain: two wallets hold opposite
 * positions in the nearest expiry; the venue's clock passes 08:00 UTC and the clock command
 * settles the series. On chain the settlement price is posted under the oracle key, every
 * position is paid by the contract from its own balance and deferred premium, and cash equals
 * the venue's to the unit.
 */
import t from 'tap';
import { oracleAbi, seriesRegistryAbi } from '../../chain/artifacts.ts';
import { request } from '../gateway/support/testApp.ts';
import { place, trader } from '../gateway/routes/ordersFixture.ts';
import { chainOf, settled, startChainApp } from './support/venueApp.ts';

t.setTimeout(240_000);

t.test('a series settles at expiry on chain as in the venue', async (t) => {
  const app = await startChainApp();
  t.teardown(() => app.close());
  const chain = chainOf(app);
  const state = app.app.engine.state;
  const live = [...state.series.values()].filter((s) => !s.settled && s.spec.isCall && s.spec.underlying === 'BTC');
  const expiry = Math.min(...live.map((s) => s.spec.expiry));
  const series = live.filter((s) => s.spec.expiry === expiry).sort((a, b) => (a.spec.strike < b.spec.strike ? -1 : 1))[0]!; // deep in the money
  const seriesId = series.spec.seriesId;
  const long = await trader(app, 'expiry-long', { deposit: 1_000_000 });
  const short = await trader(app, 'expiry-short', { deposit: 1_000_000 });
  const mark = Number(series.marks!.mark) / 1e18;
  const price = (Math.round(mark * 100) / 100).toFixed(2);
  t.equal((await place(app, short, { seriesId, isBuy: false, size: '1.5', price })).relay.status, 200);
  t.equal((await place(app, long, { seriesId, isBuy: true, size: '1.5', price })).relay.status, 200);
  await settled(app);

  app.clock.advance(expiry * 1000 - app.clock.now + 60_000);
  const tick = await app.app.services.pipeline.submit({ type: 'clock' });
  t.ok(tick.ok && tick.events.some((e) => e.type === 'series_settled' && e.seriesId === seriesId), 'the clock settles the series');
  await settled(app);

  const price0 = (await request(`${app.url}/api/markets/ticker/${seriesId}`)).body;
  void price0;
  const venuePrice = state.series.get(seriesId)!.settlementPrice!;
  t.equal(await chain.client.readContract({ address: chain.addresses.oracle, abi: oracleAbi, functionName: 'settlementPrice', args: [series.spec.pairId, BigInt(expiry)] }), venuePrice, "the oracle holds the venue's settlement price");
  const info = (await chain.client.readContract({ address: chain.addresses.seriesRegistry, abi: seriesRegistryAbi, functionName: 'seriesOf', args: [seriesId] })) as readonly unknown[];
  t.equal(info[5], true, 'the registry marks the series settled');
  for (const w of [long, short]) {
    t.equal(await chain.positionOf(w.address, w.portfolioId, seriesId), 0n, 'the position is gone');
    t.equal(await chain.premiumOf(w.address, w.portfolioId, seriesId), 0n, 'and its deferred premium paid');
    const collateral = await request(`${app.url}/api/account/portfolios/${w.portfolioId}/collateral`, { token: w.token });
    t.equal((await chain.cashOf(w.address, w.portfolioId)).toString(), collateral.body.deposit, "cash on chain is the venue's deposit after the payout");
  }
});
