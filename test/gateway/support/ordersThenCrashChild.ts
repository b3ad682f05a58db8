/**
 * Child process for test/gateway/journalDamage.test.ts: the real venue at a fixed start
 * time on the given DATA_DIR; a funded wallet places signed order A, then order B and a
 * deposit follow. Prints one JSON line (the seqs, order A's signed body) and waits to be
 * killed with SIGKILL: no final snapshot, so the next start replays the journal.
 */
import { startTestApp } from './testApp.ts';
import { liveSeries, place, trader } from '../routes/ordersFixture.ts';

const [dataDir, startAtText] = process.argv.slice(2);
const app = await startTestApp({ dataDir: dataDir!, startAt: Number(startAtText) });
const seriesId = liveSeries(app).spec.seriesId;
const alice = await trader(app, 'damage-alice', { deposit: 1_000_000 });
const a = await place(app, alice, { seriesId, isBuy: true, size: '0.1', price: '25' });
if (a.relay.status !== 200) throw new Error(`order A: ${JSON.stringify(a.relay.body)}`);
const seqA = app.app.storage.journal.lastSeq();
const b = await place(app, alice, { seriesId, isBuy: true, size: '0.1', price: '24' });
if (b.relay.status !== 200) throw new Error(`order B: ${JSON.stringify(b.relay.body)}`);
const deposit = await app.app.services.pipeline.submit({ type: 'deposit', owner: alice.address, portfolioId: alice.portfolioId, amount: 5n });
if (!deposit.ok) throw new Error('deposit refused');
const out = {
  seqA,
  last: app.app.storage.journal.lastSeq(),
  orderA: a.relay.body.orders[0].orderId as string,
  signedA: a.signed,
  nonceB: b.signed.nonce as string,
  address: alice.address,
  portfolioId: alice.portfolioId,
  seriesId,
};
process.stdout.write(JSON.stringify(out) + '\n');
setInterval(() => {}, 1_000); // stay alive until killed
