/**
 * Nothing acknowledged is lost to a crash (docs/chain.md "The relayer"): kill -9 of the venue in
 * the middle of a burst of fills (its embedded anvil goes with it: nothing is left running),
 * then a restart on the same DATA_DIR; and kill -9 of the embedded chain itself in the middle of
 * another burst (the venue starts it again from its last state dump and the relayer sends what
 * it lost). After each, every acknowledged fill is final on chain exactly once and
 * reconciliation is clean.
 */
import t, { type Test } from 'tap';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Address, Hex } from 'viem';
import { orderBookAbi } from '../../chain/artifacts.ts';
import { TEST_START_AT, type TestApp } from '../gateway/support/testApp.ts';
import { liveSeries, place, post, signServed, trader, wallet } from '../gateway/routes/ordersFixture.ts';
import { chainOf, settled, startChainApp, until } from './support/venueApp.ts';

t.setTimeout(300_000);
const root = join(import.meta.dirname, '..', '..');

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Every fill the chain's Settled logs count, and every trade the venue made: the same number, once each. */
async function checkOnce(t: Test, app: TestApp, acked: readonly string[], wallets: readonly { address: Hex; portfolioId: number }[], seriesId: Hex) {
  const chain = chainOf(app);
  const logs = await chain.client.getContractEvents({ address: chain.addresses.orderBook, abi: orderBookAbi, eventName: 'Settled', fromBlock: 0n });
  const seqs = logs.map((l) => Number((l.args as { seq: bigint }).seq));
  t.same(seqs, seqs.map((_, i) => i + 1), 'the chain holds batches 1, 2, ... once each');
  const fills = logs.reduce((n, l) => n + Number((l.args as { fills: bigint }).fills), 0);
  const trades = app.app.engine.state.nextTradeId - 1;
  t.equal(fills, trades, `every trade the venue made is on chain once (${trades})`);
  const notFinal = acked.filter((id) => app.app.services.reads.settlement.trade(id).relayStatus !== 'final');
  t.same(notFinal, [], `every acknowledged fill is final (${acked.length})`);
  for (const w of wallets) {
    const p = app.app.engine.state.accounts.portfolio(w.address, w.portfolioId)!;
    t.equal(await chain.cashOf(w.address as Address, w.portfolioId), app.app.engine.state.accounts.depositOf(p), 'cash on chain is the venue\'s');
    t.equal((await chain.positionOf(w.address as Address, w.portfolioId, seriesId)) !== 0n, true, 'a position on chain');
  }
}

t.test('kill -9 of the venue during a burst of fills, and of the embedded chain: every acknowledged fill on chain exactly once', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'venue-chain-crash-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));

  // 1. The venue killed in the middle of a burst.
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'test/chain/support/burstChild.ts'), dataDir, String(TEST_START_AT), 'crash1'], { stdio: ['ignore', 'pipe', 'pipe'], cwd: root });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += String(d)));
  const acked: string[] = [];
  let anvilPid = 0;
  const lines = createInterface({ input: child.stdout });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the child made ${acked.length} trades in time; stderr: ${stderr.slice(-2000)}`)), 120_000);
    child.on('exit', (code) => reject(new Error(`the child exited (${code}): ${stderr.slice(-2000)}`)));
    lines.on('line', (line) => {
      const m = JSON.parse(line) as { anvil?: number; trade?: string };
      if (m.anvil !== undefined) anvilPid = m.anvil;
      if (m.trade !== undefined) acked.push(m.trade);
      if (acked.length >= 60) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  child.removeAllListeners('exit');
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  await until('its anvil to stop with it', () => !alive(anvilPid), 15_000);
  t.pass(`the venue was killed after ${acked.length} acknowledged fills; its anvil (pid ${anvilPid}) stopped with it`);

  const app = await startChainApp({ dataDir });
  t.teardown(() => app.close());
  await settled(app, 120_000);
  const seriesId = liveSeries(app).spec.seriesId;
  // The child's wallets: the fixture's keys of their names, each with its first trading portfolio.
  const crashed = ['crash1-maker', 'crash1-taker'].map((n) => ({ address: wallet(n).address, portfolioId: 1 }));
  await checkOnce(t, app, acked, crashed, seriesId);

  // 2. The embedded chain killed in the middle of another burst: the venue starts it again, the relayer sends what it lost.
  const maker = await trader(app, 'crash2-maker', { deposit: 10_000_000 });
  const taker = await trader(app, 'crash2-taker', { deposit: 10_000_000 });
  const orders = Array.from({ length: 50 }, () => ({ portfolioId: maker.portfolioId, seriesId, isBuy: false, size: '0.01', price: '2000' }));
  const typed = await post(app, '/api/mm/orders/place-batch', maker.token, { orders });
  const signed = await Promise.all(typed.body.placements.map((p: { typedData: unknown }) => signServed(maker.account, p.typedData)));
  t.equal((await post(app, '/api/mm/orders/place-batch', maker.token, { orders: signed })).status, 200);
  const acked2: string[] = [];
  const first = app.app.chain!.embedded!.pid();
  for (let i = 0; i < 50; i++) {
    if (i === 15) process.kill(first, 'SIGKILL');
    const r = await place(app, taker, { seriesId, isBuy: true, size: '0.01', price: '2000' });
    t.equal(r.relay.status, 200, 'trading goes on while the chain is down');
    for (const tr of r.relay.body.orders[0].trades) acked2.push(tr.tradeId);
  }
  await until('anvil started again', () => alive(app.app.chain!.embedded!.pid()) && app.app.chain!.embedded!.pid() !== first, 30_000);
  await settled(app, 120_000);
  await checkOnce(t, app, [...acked, ...acked2], [maker, taker], seriesId);
});
