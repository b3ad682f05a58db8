/**
 * A write is answered only after its journal commit (architecture.md rule 7): with a
 * journal whose commit does not complete, the command is applied but no reply goes out;
 * the reply comes once the commit completes.
 */
import t, { type Test } from 'tap';
import { startTestApp, request, type TestApp } from './support/testApp.ts';
import type { MemoryJournal } from '../../persistence/memoryJournal.ts';
import { liveSeries, post, signServed, trader } from './routes/ordersFixture.ts';

const START_AT = Date.UTC(2026, 0, 5, 12, 0, 0);

/** Requests are answered in the order the server reads them: a health round trip lets anything already due go out first. */
async function roundTrip(t: Test, app: TestApp): Promise<void> {
  for (let i = 0; i < 3; i++) {
    await new Promise((r) => setImmediate(r));
    t.equal((await request(`${app.url}/api/health`)).status, 200, 'a read is answered meanwhile');
  }
}

t.test('a deposit: no reply while its commit is pending, the reply once it completes', async (t) => {
  const app = await startTestApp({ memory: true, startAt: START_AT });
  t.teardown(() => app.close());
  const journal = app.app.storage.journal as MemoryJournal;
  const token = await app.session('0x00000000000000000000000000000000000000a1');
  const hold = journal.holdCommits();
  const appended = hold.appended();
  let reply: Awaited<ReturnType<typeof request>> | null = null;
  const pending = request(`${app.url}/api/portfolio/deposit`, { method: 'POST', token, body: { portfolioId: 0, amount: '2500000000' } }).then((r) => (reply = r));
  const seq = await appended;
  t.equal(journal.lastSeq(), seq, 'the deposit command was journaled');
  await roundTrip(t, app);
  t.equal(reply, null, 'no reply while the commit is pending');
  hold.release();
  await pending;
  t.same([reply!.status, reply!.body.success, reply!.body.deposit], [200, true, '2500000000'], 'the reply once the commit completed');
});

t.test('a signed order: no reply while its commit is pending, the reply once it completes', async (t) => {
  const app = await startTestApp({ memory: true, startAt: START_AT });
  t.teardown(() => app.close());
  const journal = app.app.storage.journal as MemoryJournal;
  const seriesId = liveSeries(app).spec.seriesId;
  const alice = await trader(app, 'commit-alice', { deposit: 1_000_000 });
  const typed = await post(app, '/api/mm/orders/place', alice.token, { portfolioId: alice.portfolioId, seriesId, isBuy: true, size: '0.1', price: '25' });
  t.equal(typed.status, 200, 'phase one (typed data) writes nothing');
  const signed = await signServed(alice.account, typed.body.typedData);
  const hold = journal.holdCommits();
  const appended = hold.appended();
  let relay: Awaited<ReturnType<typeof post>> | null = null;
  const pending = post(app, '/api/mm/orders/place', alice.token, signed).then((r) => (relay = r));
  await appended;
  await roundTrip(t, app);
  t.equal(relay, null, 'no reply while the commit is pending');
  hold.release();
  await pending;
  t.equal(relay!.status, 200, 'the reply once the commit completed', { body: relay!.body });
  t.equal(relay!.body.orders[0].status, 'open');
});
