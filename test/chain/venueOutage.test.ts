/**
 * The chain unreachable for a while (its anvil stopped with SIGSTOP, so it answers nothing):
 * trading goes on, the reads say the new fills are pending, the settlement lag shows in the
 * metrics; once the chain answers again settlement catches up, every fill final and
 * reconciled.
 */
import t from 'tap';
import { request } from '../gateway/support/testApp.ts';
import { liveSeries, place, trader } from '../gateway/routes/ordersFixture.ts';
import { settled, startChainApp, until } from './support/venueApp.ts';

t.setTimeout(240_000);

t.test('the chain unreachable for a while: trading continues, the lag shows, settlement catches up', async (t) => {
  const app = await startChainApp();
  t.teardown(() => app.close());
  const seriesId = liveSeries(app).spec.seriesId;
  const maker = await trader(app, 'outage-maker', { deposit: 1_000_000 });
  const taker = await trader(app, 'outage-taker', { deposit: 1_000_000 });
  t.equal((await place(app, maker, { seriesId, isBuy: false, size: '5', price: '2000' })).relay.status, 200);
  await settled(app);

  const pid = app.app.chain!.embedded!.pid();
  process.kill(pid, 'SIGSTOP');
  let resumed = false;
  const resume = () => {
    if (!resumed) process.kill(pid, 'SIGCONT');
    resumed = true;
  };
  t.teardown(resume);
  const bids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const r = await place(app, taker, { seriesId, isBuy: true, size: '0.5', price: '2000' });
    t.equal(r.relay.status, 200, 'an order is taken and fills while the chain is down');
    bids.push(r.relay.body.orders[0].orderId);
  }
  const order = await request(`${app.url}/api/mm/orders/${bids[0]}`, { token: taker.token });
  t.equal(order.body.relayStatus, 'pending', 'its fill is pending settlement');
  const lag = await until('the lag to show', () => {
    const m = app.app.chain!.metrics();
    return m !== null && m.lagSeconds >= 2 ? m.lagSeconds : null;
  });
  t.ok(lag >= 2, `settlement_lag_seconds grows while the chain is down (${lag})`);
  const metrics = await (await fetch(`${app.url}/metrics`)).text();
  t.match(metrics, /^settlement_lag_seconds [1-9]/m, 'and the metric says so');

  resume();
  const m = await settled(app, 120_000);
  t.equal(m.lagSeconds, 0, 'caught up: no lag');
  for (const id of bids) t.equal((await request(`${app.url}/api/mm/orders/${id}`, { token: taker.token })).body.relayStatus, 'final');
});
