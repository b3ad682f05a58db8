/**
 * A replayed signed body is refused by its nonce, also after the venue restarts on the
 * same DATA_DIR (the engine's nonces are recovered from the journal and snapshots), and
 * nonces handed out after the restart stay above the used ones.
 */
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, request } from '../support/testApp.ts';
import { liveSeries, place, post, signServed, trader } from './ordersFixture.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'orders-replay-'));
t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));

t.test('replay refused before and after a restart', async (t) => {
  const first = await startTestApp({ dataDir });
  const startAt = first.clock.now;
  const seriesId = liveSeries(first).spec.seriesId;
  const alice = await trader(first, 'replay-alice', { deposit: 1_000_000 });
  const placed = await place(first, alice, { seriesId, isBuy: true, size: '0.1', price: '25' });
  t.equal(placed.relay.status, 200, 'status', { body: placed.relay.body });
  const orderId = placed.relay.body.orders[0].orderId as string;
  const usedNonce = BigInt(placed.signed.nonce as string);
  const replay = await post(first, '/api/mm/orders/place', alice.token, placed.signed);
  t.equal(replay.status, 400);
  t.equal(replay.body.details.reason, 'nonce_used');
  // A cancel signed now, to be replayed after the restart too.
  const typedCancel = await post(first, '/api/mm/orders/cancel-batch', alice.token, { cancellations: [{ orderId }] });
  const cancel = await signServed(alice.account, typedCancel.body.cancellations[0].typedData);
  await first.close();

  const second = await startTestApp({ dataDir, startAt: startAt + 1000 });
  t.teardown(() => second.close());
  const token = await second.session(alice.address);
  const again = await post(second, '/api/mm/orders/place', token, placed.signed);
  t.equal(again.status, 400, 'the same signed body after the restart');
  t.equal(again.body.code, 'failed_precondition');
  t.equal(again.body.details.reason, 'nonce_used');
  const open = await request(`${second.url}/api/mm/orders/${orderId}`, { token });
  t.equal(open.status, 200, 'the open order survived the restart');
  t.equal(open.body.status, 'open');
  const typed = await post(second, '/api/mm/orders/place', token, { seriesId, isBuy: true, size: '0.1', price: '26', portfolioId: alice.portfolioId });
  t.ok(BigInt(typed.body.typedData.message.nonce) > usedNonce, 'new nonces stay above used ones');

  const cancelled = await post(second, '/api/mm/orders/cancel-batch', token, { cancellations: [cancel] });
  t.equal(cancelled.status, 200, 'status', { body: cancelled.body });
  const cancelReplay = await post(second, '/api/mm/orders/cancel-batch', token, { cancellations: [cancel] });
  t.equal(cancelReplay.status, 400, 'a replayed cancel');
  t.match(cancelReplay.body.details.reason, /^(order_not_open|unknown_order|nonce_used)$/);
});
