/**
 * Child process of test/chain/venueCrash.test.ts: the real venue with the embedded chain on the
 * given DATA_DIR at a fixed start time. A maker rests many small asks, then a taker takes them
 * one signed order at a time; each acknowledged trade id is printed as a JSON line as its reply
 * arrives (`{"trade":"7"}`), after a first line with anvil's pid. It keeps trading until killed.
 */
import { startTestApp } from '../../gateway/support/testApp.ts';
import { liveSeries, place, post, signServed, trader } from '../../gateway/routes/ordersFixture.ts';
import { CHAIN_ENV } from './venueApp.ts';

const [dataDir, startAtText, prefix] = process.argv.slice(2);
const app = await startTestApp({ dataDir: dataDir!, startAt: Number(startAtText), env: CHAIN_ENV });
const say = (x: unknown) => process.stdout.write(`${JSON.stringify(x)}\n`);
say({ anvil: app.app.chain!.embedded!.pid() });
const seriesId = liveSeries(app).spec.seriesId;
const maker = await trader(app, `${prefix}-maker`, { deposit: 10_000_000 });
const taker = await trader(app, `${prefix}-taker`, { deposit: 10_000_000 });
for (;;) {
  const orders = Array.from({ length: 50 }, () => ({ portfolioId: maker.portfolioId, seriesId, isBuy: false, size: '0.01', price: '2000' }));
  const typed = await post(app, '/api/mm/orders/place-batch', maker.token, { orders });
  const signed = await Promise.all(typed.body.placements.map((p: { typedData: unknown }) => signServed(maker.account, p.typedData)));
  const rested = await post(app, '/api/mm/orders/place-batch', maker.token, { orders: signed });
  if (rested.status !== 200) throw new Error(`asks: ${JSON.stringify(rested.body)}`);
  for (let i = 0; i < 50; i++) {
    const r = await place(app, taker, { seriesId, isBuy: true, size: '0.01', price: '2000' });
    if (r.relay.status !== 200) throw new Error(`take: ${JSON.stringify(r.relay.body)}`);
    for (const tr of r.relay.body.orders[0].trades) say({ trade: tr.tradeId });
  }
}
