/**
 * kill -9 of the leader during a burst of signed orders through an edge (issue 8/8): the
 * leader is a real `gateway/main.ts` process (JOURNAL=nats, its clock starting at the tests'
 * fixed instant), the standby and the edge run in this process. Traders place signed orders
 * (both phases, crossing each other, so they fill) and deposit through the edge; the leader is
 * killed mid-burst; the standby takes over and the burst goes on through the same edge. Then:
 * every order and deposit the edge acknowledged is at the new leader; an acknowledged signed
 * order sent again is refused there (its nonce was used); the new leader's state hash equals
 * a fresh replay of the stream and the edge's own fold at the same seq.
 */
import t from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { until } from './support/until.ts';
import { replayStream } from './support/replay.ts';
import { startNatsCluster } from '../../gateway/cluster/natsServers.ts';
import { openNatsJournal } from '../../persistence/natsJournal.ts';
import { tempDir } from '../persistence/fixtures/tempDir.ts';
import { startTestApp, request, TEST_SHARED_KEY, TEST_START_AT, type TestApp } from '../gateway/support/testApp.ts';
import { liveSeries, place, post, trader, usdc, type Trader } from '../gateway/routes/ordersFixture.ts';

const WAIT = 60_000;
const STREAM = 'EDGETAKEOVER';
const main = fileURLToPath(new URL('../../gateway/main.ts', import.meta.url));
const fakeToday = fileURLToPath(new URL('../support/fakeToday.mjs', import.meta.url));

/** The leader as a process: resolves once it listens (it leads an empty stream at once). */
function startLeader(env: Record<string, string>): Promise<{ child: ChildProcess; exited: Promise<void> }> {
  const child = spawn(process.execPath, ['--import', fakeToday, '--import', 'tsx', main], { env: { ...process.env, FAKE_TODAY: String(TEST_START_AT), PORT: '0', HOST: '127.0.0.1', WORKERS: '1', KEY_ENCRYPTION_KEY: TEST_SHARED_KEY, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const reap = () => child.kill('SIGKILL');
  process.once('exit', reap);
  void exited.then(() => process.off('exit', reap));
  return new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`the leader did not listen within ${WAIT} ms: ${buf.slice(-2000)}`)), WAIT);
    child.stderr!.on('data', (d: Buffer) => {
      buf = (buf + d.toString()).slice(-20_000);
      if (/"msg":"listening"/.test(buf)) {
        clearTimeout(timer);
        resolve({ child, exited });
      }
    });
    void exited.then(() => (clearTimeout(timer), reject(new Error(`the leader exited before it listened: ${buf.slice(-2000)}`))));
  });
}

type Acked = { trader: Trader; orderId: string; signed: Record<string, unknown> };

t.test('leader killed during a burst of signed orders through an edge: nothing acknowledged is lost', async (t) => {
  const nats = await startNatsCluster(tempDir(t, 'cluster-'), 1);
  t.teardown(() => nats.stop());
  const env = (node: string, edge = false) => ({ JOURNAL: 'nats', NATS_URL: nats.urls.join(','), NATS_STREAM: STREAM, NODE_ID: node, LEASE_TTL_MS: '2000', ...(edge ? { EDGE: '1' } : {}) });

  const leader = await startLeader({ ...env('engine-a'), DATA_DIR: tempDir(t, 'venue-a-') });
  t.teardown(async () => {
    leader.child.kill('SIGKILL');
    await leader.exited;
    leader.child.stderr?.destroy();
  });
  const edge: TestApp = await startTestApp({ env: env('edge-1', true), dataDir: tempDir(t, 'venue-edge-') });
  t.teardown(() => edge.close());
  const standby: TestApp = await startTestApp({ env: env('engine-b'), dataDir: tempDir(t, 'venue-b-') });
  t.teardown(() => standby.close());
  t.equal(standby.app.role?.role(), 'standby', 'the second engine node is the standby');
  await until('the edge to fold the listing', () => edge.app.services.reads.catalog.series.size > 0, WAIT);

  // Four traders, set up through the edge; two buy and two sell the same series at one price.
  const traders: Trader[] = [];
  for (let i = 0; i < 4; i++) traders.push(await trader(edge, `edge-takeover-${i}`, { deposit: 1_000_000 }));
  const series = liveSeries(edge);
  const acked: Acked[] = [];
  const deposits = new Map<string, bigint>(traders.map((x) => [x.address, usdc(1_000_000)]));
  let refusedDuringTakeover = 0;
  let stop = false;
  const burst = async (tr: Trader, isBuy: boolean): Promise<void> => {
    for (let i = 0; !stop; i++) {
      if (i % 5 === 4) {
        const d = await post(edge, '/api/portfolio/deposit', tr.token, { portfolioId: tr.portfolioId, amount: '1000' });
        if (d.status === 200) deposits.set(tr.address, deposits.get(tr.address)! + 1000n);
        else if (d.status === 503) refusedDuringTakeover++;
        else throw new Error(`deposit ${d.status} ${JSON.stringify(d.body)}`);
        continue;
      }
      const r = await place(edge, tr, { seriesId: series.spec.seriesId, isBuy, size: '0.1', price: '25' });
      if (r.relay.status === 200) acked.push({ trader: tr, orderId: r.relay.body.orders[0].orderId as string, signed: r.signed });
      else if (r.relay.status === 503 || r.typed.status === 503) {
        refusedDuringTakeover++;
        await new Promise((res) => setTimeout(res, 50));
      } else throw new Error(`place ${r.typed.status}/${r.relay.status} ${JSON.stringify(r.relay.body)}`);
    }
  };
  const running = traders.map((tr, i) => burst(tr, i % 2 === 0));
  const failed = Promise.all(running).then(() => null, (e: unknown) => e);

  await until('40 orders acknowledged through the edge', () => acked.length >= 40, WAIT);
  leader.child.kill('SIGKILL');
  await leader.exited;
  const ackedAtKill = acked.length;
  await until('the standby to take over', () => standby.app.role?.role() === 'leader', WAIT);
  await until('40 more orders acknowledged after the takeover', () => acked.length >= ackedAtKill + 40, WAIT);
  stop = true;
  t.equal(await failed, null, 'no write through the edge failed other than with 503 while no node led');
  t.comment(`${ackedAtKill} orders acknowledged before the kill, ${acked.length} in all, ${refusedDuringTakeover} writes answered 503 during the takeover`);

  // Every acknowledged order is at the new leader, under its id.
  const sessions = new Map(await Promise.all(traders.map(async (x) => [x.address, await standby.session(x.address)] as const)));
  const missing: string[] = [];
  for (const a of acked) {
    const r = await request(`${standby.url}/api/mm/orders/${a.orderId}`, { token: sessions.get(a.trader.address)! });
    if (r.status !== 200) missing.push(`${a.orderId}: ${r.status}`);
  }
  t.same(missing, [], `all ${acked.length} acknowledged orders are at the new leader`);
  const fills = (await Promise.all(traders.map((x) => request(`${standby.url}/api/account/trades?limit=100`, { token: sessions.get(x.address)! })))).reduce((n, r) => n + (r.body.trades as unknown[]).length, 0);
  t.ok(fills > 0, `the crossing orders filled (${fills} trade records at the new leader)`);

  // Deposits: the stream holds at least every acknowledged deposit of each trader (a write
  // answered 503 during the takeover may still have been committed: then it is there too).
  const journal = await openNatsJournal({ servers: nats.urls, stream: STREAM, timeoutMs: 15_000, name: 'check' });
  const inStream = new Map<string, bigint>();
  try {
    for (const c of journal.read(1)) {
      const d = c as unknown as { type: string; owner?: string; amount?: bigint };
      if (d.type === 'deposit' && d.owner !== undefined) inStream.set(d.owner, (inStream.get(d.owner) ?? 0n) + d.amount!);
    }
  } finally {
    await journal.close();
  }
  for (const x of traders) t.ok((inStream.get(x.address) ?? 0n) >= deposits.get(x.address)!, `${x.address}: every acknowledged deposit is in the stream (${inStream.get(x.address)} >= ${deposits.get(x.address)})`);

  // A used nonce stays used: an acknowledged signed order sent again is refused.
  const first = acked[0]!;
  const again = await post(edge, '/api/mm/orders/place', first.trader.token, first.signed);
  t.not(again.status, 200, 'an acknowledged order sent again is refused by the new leader');
  t.match(JSON.stringify(again.body), /nonce|already/i, 'because its nonce was used', { body: again.body });

  // The new leader, a fresh replay and the edge agree at the same seq.
  const seq = standby.app.engine.seq;
  await until('the edge to fold every command', () => edge.app.engine.seq === seq, WAIT);
  const replay = await replayStream(nats.urls, STREAM, seq);
  t.equal(replay.seq, seq);
  t.equal(standby.app.engine.stateHash(), replay.hash, 'the new leader state equals a fresh replay of the stream');
  t.equal(edge.app.engine.stateHash(), replay.hash, 'and the edge fold');
});
