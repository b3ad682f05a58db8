/**
 * The accounts fold and the order history are folds over the events alone (architecture.md
 * rule 6): a long seeded stream with every event type, folded into fresh read models that
 * never see the venue, must give what the engine holds (portfolio figures from
 * `accounts.risk`, positions, open orders) and what it kept before issue 19 (trades, fees,
 * 24-hour fees and 30-day volume: the frozen reference engine's, support/historyTwin.ts).
 * An event that loses a field these folds need makes this fail. The folds' state survives
 * `serialize` -> `restore` and keeps folding to the same views.
 */
import t from 'tap';
import { balanceOf, isFlat, premiumOf, realizedOf } from '../../../engine/actors/position.ts';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Harness } from '../../engine/support/venueFixture.ts';
import { fullBodies } from './support/fullStream.ts';
import { HistoryTwin } from './support/historyTwin.ts';
import { ReadModels } from '../../../gateway/readModels/readModels.ts';
import type { OrderRecord } from '../../../engine/actors/orderRecord.ts';

const SEED = 7;
const COMMANDS = 1200;

/** Every difference between the engine and the read models, as readable lines (empty = agree). */
function differences(h: Harness, twin: HistoryTwin, reads: ReadModels): string[] {
  const out: string[] = [];
  const state = h.venue.state;
  const history = twin.state().accounts;
  const now = h.ts;
  const check = (what: string, engine: unknown, fold: unknown) => {
    const a = JSON.stringify(engine, big);
    const b = JSON.stringify(fold, big);
    if (a !== b) out.push(`${what}: engine ${a} fold ${b}`);
  };
  for (let w = 0; w < state.accounts.walletCount; w++) {
    const owner = state.accounts.owners[w]!;
    const engineList = [...state.accounts.walletPortfolios(w)].filter((p) => p.id >= 0).sort((x, y) => x.id - y.id);
    check(`${owner} portfolio ids`, engineList.map((p) => p.id), reads.accounts.portfolios(owner).map((p) => p.id));
    for (const p of engineList) {
      const f = reads.accounts.portfolio(owner, p.id);
      if (!f) continue;
      const r = state.accounts.risk(p);
      const own = state.accounts.depositOf(p) > 0n ? state.accounts.depositOf(p) : 0n;
      check(`${owner}/${p.id} figures`, { ...r, maxWithdraw: r.maxWithdraw < own ? r.maxWithdraw : own, ownDeposit: state.accounts.depositOf(p), createdAt: p.createdAt }, {
        deposit: f.deposit,
        unrealizedPnl: f.unrealizedPnl,
        equity: f.equity,
        initialMargin: f.initialMargin,
        initialMarginWithOrders: f.initialMarginWithOrders,
        maintenanceMargin: f.maintenanceMargin,
        healthRatio: f.healthRatio,
        isHealthy: f.isHealthy,
        maxWithdraw: f.maxWithdraw,
        positionCount: f.positionCount,
        ownDeposit: f.deposit,
        createdAt: f.createdAt,
      });
      const enginePositions = state.accounts
        .marginGroup(p)
        .flatMap((q) => [...q.positions.values()])
        .filter((pos) => !isFlat(pos))
        .map((pos) => ({ seriesId: pos.seriesId, balance: balanceOf(pos), premium: premiumOf(pos), realized: realizedOf(pos) }))
        .sort((x, y) => (x.seriesId < y.seriesId ? -1 : 1));
      const foldPositions = reads.accounts
        .positions(owner, p.id)
        .map((pos) => ({ seriesId: pos.seriesId, balance: pos.balance, premium: pos.premium, realized: pos.realizedPnl }))
        .sort((x, y) => (x.seriesId < y.seriesId ? -1 : 1));
      check(`${owner}/${p.id} positions`, enginePositions, foldPositions);
    }
    // Open orders, newest first (the engine's book refs are acceptance order).
    const records: OrderRecord[] = [];
    for (const p of state.accounts.walletPortfolios(w)) for (const o of state.accounts.orders.values(p.openOrders)) records.push(state.series.get(state.accounts.orders.seriesId[o]!)!.openOrder(state.accounts.orders.ref[o]!)!);
    records.sort((x, y) => y.ref - x.ref);
    const pair = (r: OrderRecord) => state.pairs.get(state.series.get(r.seriesId)!.spec.pairId)!;
    check(
      `${owner} open orders`,
      records.map((r) => ({ id: r.orderId, portfolioId: r.portfolioId, status: r.status, filled: BigInt(r.filledLots) * pair(r).sizeStep, size: BigInt(r.lots) * pair(r).sizeStep, expiry: r.expiry, createdAt: Math.floor(r.createdAt / 1000) })),
      reads.orders.open(owner).map((v) => ({ id: v.orderId, portfolioId: v.portfolioId, status: v.status, filled: v.filled, size: v.size, expiry: v.expiry, createdAt: v.createdAt })),
    );
    // Trades, one record per side, oldest first; fees and volume: as the reference engine kept them.
    const kept = history.accounts.get(owner);
    if (kept === undefined) {
      out.push(`${owner}: not in the reference engine`);
      continue;
    }
    const engineTrades = [];
    for (let i = 0; i < kept.trades.length; i++) engineTrades.push(kept.trades.at(i));
    const foldTrades = [];
    for (let i = 0; i < reads.accounts.tradeCount(owner); i++) foldTrades.push(reads.accounts.tradeAt(owner, i));
    check(`${owner} trades`, engineTrades, foldTrades);
    check(`${owner} fees`, kept.fees, reads.accounts.feeTotals(owner) ?? { totalFeesPaid: 0n, makerFees: 0n, takerFees: 0n, rebatesReceived: 0n });
    check(`${owner} fees24h`, history.fees24h(kept, now), reads.accounts.fees24h(owner, now));
    check(`${owner} volume30d`, history.volume30d(owner, now), reads.accounts.volume30d(owner, now));
    check(`${owner} has traded`, state.accounts.hasTraded[w] === 1, kept.trades.length > 0);
  }
  return out;
}

function big(_k: string, v: unknown): unknown {
  return typeof v === 'bigint' ? `${v}n` : v;
}

t.test('the accounts fold and the order history agree with the engine over a long stream with every event type', async (t) => {
  const h = new Harness();
  const twin = new HistoryTwin(h);
  const reads = new ReadModels();
  let restored: ReadModels | null = null;
  let k = 0;
  let trades = 0;
  let finished = 0;
  const kinds = new Set<string>();
  for (const { body, advance } of fullBodies(h, SEED, COMMANDS)) {
    const r = h.run(body, advance);
    reads.apply(h.venue.seq, h.venue.now, r.events);
    restored?.apply(h.venue.seq, h.venue.now, r.events);
    for (const e of r.events) {
      kinds.add(e.type);
      if (e.type === 'trade') trades++;
      if (e.type === 'order' && e.status !== 'open' && e.status !== 'partial') finished++;
    }
    k++;
    if (k % 300 === 0) {
      const diff = differences(h, twin, reads);
      t.same(diff.slice(0, 10), [], `after ${k} commands the folds agree with the engine`);
      if (diff.length > 0) return;
    }
    if (k === 600) restored = ReadModels.restore(reads.serialize());
  }
  t.ok(trades > 50 && finished > 50, `the stream fills (${trades} trades) and finishes orders (${finished})`);
  for (const kind of ['portfolio', 'position', 'trade', 'order', 'oracle', 'clock', 'series_settled', 'mmm']) t.ok(kinds.has(kind), `the stream has ${kind} events`);
  t.same(differences(h, twin, reads).slice(0, 10), [], 'at the end the folds agree with the engine');
  t.ok(restored, 'a restore happened mid-stream');
  t.same(differences(h, twin, restored!).slice(0, 10), [], 'read models restored mid-stream and folded on agree with the engine');
  t.equal(JSON.stringify(restored!.accounts.exportState(), big), JSON.stringify(reads.accounts.exportState(), big), 'the restored accounts fold ends in the same state');
  t.equal(JSON.stringify(restored!.orders.exportState(), big), JSON.stringify(reads.orders.exportState(), big), 'the restored order history ends in the same state');
  const again = ReadModels.restore(reads.serialize());
  t.equal(JSON.stringify(again.accounts.exportState(), big), JSON.stringify(reads.accounts.exportState(), big), 'exportState -> importState round-trips the accounts fold');
  t.equal(JSON.stringify(again.orders.exportState(), big), JSON.stringify(reads.orders.exportState(), big), 'exportState -> importState round-trips the order history');
});

t.test('the folds and the account views import nothing of the engine but its front door', async (t) => {
  for (const file of ['gateway/readModels/accounts.ts', 'gateway/readModels/accountViews.ts', 'gateway/orders/orderHistory.ts']) {
    const text = readFileSync(fileURLToPath(new URL(`../../../${file}`, import.meta.url)), 'utf8');
    const engineImports = [...text.matchAll(/from '([^']*engine\/[^']*)'/g)].map((m) => m[1]);
    t.ok(engineImports.every((p) => p!.endsWith('engine/index.ts')), `${file} imports the engine only through engine/index.ts`, { engineImports });
    t.notMatch(text, /\.state\b/, `${file} never touches a state`);
  }
});
