/**
 * The example market-making client (examples/quotingClient.ts) against the real server, as a
 * market maker would run it: it signs in, sets market maker protection and cancel on
 * disconnect, arms the dead-man switch, places a quote signed locally in one message, and
 * when its socket closes the quote is cancelled.
 */
import t from 'tap';
import { privateKeyToAccount } from 'viem/accounts';
import { keccak256, toBytes } from 'viem';
import { startTestApp, request } from '../gateway/support/testApp.ts';
import { within } from '../support/within.ts';
import { QuotingClient, toUnits } from '../../examples/quotingClient.ts';

const app = await startTestApp({ memory: true });
t.teardown(() => app.close());

t.test('toUnits is exact', async (t) => {
  t.equal(toUnits('120.5', 2), 12050n);
  t.equal(toUnits('0.5', 18), 5n * 10n ** 17n);
  t.throws(() => toUnits('1.234', 2), /more than 2 decimals/);
  t.throws(() => toUnits('-1', 2), /not a decimal/);
});

t.test('sign in, protect, quote in one message, and the quote goes with the socket', async (t) => {
  const account = privateKeyToAccount(keccak256(toBytes('example-quoting-client')));
  const { pipeline, reads } = app.app.services;
  await pipeline.submit({ type: 'set_mmm', address: account.address, isMmm: true });
  await pipeline.submit({ type: 'deposit', owner: account.address, portfolioId: 0, amount: 10_000_000n * 1_000_000n });
  const mm = await QuotingClient.connect(app.url, account);

  const series = [...reads.catalog.series.values()].find((s) => !s.settled && s.isCall && s.expiry * 1000 > app.clock.now + 86_400_000)!;
  const mmp = await mm.protect({ pairId: series.pairId, windowMs: 1000, frozenMs: 5000, qtyLimit: '10', deltaLimit: '0', vegaLimit: '0', tradeCountLimit: 20 });
  t.equal(mmp.pairId, series.pairId, 'protection set on the pair');
  t.same(await mm.cancelOnDisconnect('connection'), { enabled: true, scope: 'connection' });
  const armed = await mm.rearm(15_000);
  t.equal(armed.cancelAt, app.clock.now + 15_000, 'the dead-man switch armed');

  const { orderId, result } = await mm.quote({ seriesId: series.seriesId, isBuy: true, price: '1.5', size: '0.5' });
  t.equal(result.mode, 'relay', 'one signed message: applied at once');
  t.equal(result.orders[0].status, 'open');
  t.equal(result.orders[0].mmp, true, 'an mmp quote');
  const token = mm.token;
  t.equal((await request(`${app.url}/api/mm/orders/${orderId}`, { token })).body.status, 'open');

  mm.close();
  await within(
    (async () => {
      while (reads.orders.openOrder(account.address, orderId as `0x${string}`) !== null) await new Promise((r) => setTimeout(r, 5));
    })(),
    30_000,
    'the quote cancelled after the socket closed',
  );
  const o = (await request(`${app.url}/api/mm/orders/${orderId}`, { token })).body;
  t.equal(o.cancelReason, 'disconnect', 'cancelled on disconnect');
});
