/**
 * A used nonce is refused at the edge (gateway/orders/orderChecks.ts checkNonce): before
 * the signature is recovered and before any command is journaled. The engine would refuse
 * the replay too, but only after a signature recovery in the worker pool and a journal
 * append; these tests fail if the gateway's early check goes.
 */
import t from 'tap';
import { startTestApp, type TestApp } from '../support/testApp.ts';
import { liveSeries, place, post, signServed, trader, wallet } from './ordersFixture.ts';

const app = await startTestApp({ memory: true, startAt: Date.UTC(2026, 0, 5, 12, 0, 0) });
t.teardown(() => app.close());

/** How many signed requests reached signature recovery (order_entry_stage_seconds{stage="signatures"}). */
async function recoveries(app: TestApp): Promise<number> {
  const text = await app.app.services.metrics.text();
  const m = /^order_entry_stage_seconds_count\{stage="signatures"\} (\d+)$/m.exec(text);
  return m ? Number(m[1]) : 0;
}

t.test('a replayed signed place: refused with nonce_used, no signature recovered, nothing journaled', async (t) => {
  const seriesId = liveSeries(app).spec.seriesId;
  const alice = await trader(app, 'nonce-edge-alice', { deposit: 1_000_000 });
  const placed = await place(app, alice, { seriesId, isBuy: true, size: '0.1', price: '25' });
  t.equal(placed.relay.status, 200, 'the first relay is accepted', { body: placed.relay.body });
  const journal = app.app.storage.journal;
  const seqBefore = journal.lastSeq();
  const recoveredBefore = await recoveries(app);
  t.ok(recoveredBefore >= 1, 'the accepted relay went through signature recovery');

  const replay = await post(app, '/api/mm/orders/place', alice.token, placed.signed);
  t.equal(replay.status, 400);
  t.equal(replay.body.code, 'failed_precondition');
  t.equal(replay.body.details.reason, 'nonce_used');
  t.equal(journal.lastSeq(), seqBefore, 'no command was journaled for the replay');
  t.equal(await recoveries(app), recoveredBefore, 'no signature was recovered for the replay');
});

t.test('a used nonce under a wrong signature: still nonce_used (the nonce is checked first)', async (t) => {
  const seriesId = liveSeries(app).spec.seriesId;
  const bob = await trader(app, 'nonce-edge-bob', { deposit: 1_000_000 });
  const placed = await place(app, bob, { seriesId, isBuy: true, size: '0.1', price: '24' });
  t.equal(placed.relay.status, 200, 'the first relay is accepted', { body: placed.relay.body });
  // The same message signed by another key: a signature check would refuse it as not bob's.
  const td = placed.typed.body.typedData;
  const forged = { ...placed.signed, signature: (await signServed(wallet('nonce-edge-mallory'), td)).signature };
  t.not(forged.signature, placed.signed.signature);
  const seqBefore = app.app.storage.journal.lastSeq();
  const r = await post(app, '/api/mm/orders/place', bob.token, forged);
  t.equal(r.status, 400);
  t.equal(r.body.details?.reason, 'nonce_used', 'refused for the nonce, before the signature is looked at', { body: r.body });
  t.equal(app.app.storage.journal.lastSeq(), seqBefore, 'nothing journaled');
});
