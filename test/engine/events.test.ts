/**
 * Events are complete (architecture.md rule 6, docs/events.md): over a long seeded stream
 * with every kind of command, after each command
 * - every public portfolio whose figures changed has a portfolio event carrying its figures
 *   as the engine's risk computes them, and no portfolio's figures change without one;
 * - every position that changed has a position event with its balance, premium, average
 *   price and realised PnL;
 * - every event carries the command's seq and venue time;
 * - every order event's static fields are the order's.
 */
import t from 'tap';
import type { PortfolioEvent, PositionEvent, VenueEvent } from '../../engine/index.ts';
import type { VenueState } from '../../engine/state.ts';
import { runFullStream } from '../gateway/readModels/support/fullStream.ts';
import { balanceOf } from '../../engine/actors/position.ts';

/**
 * Every public portfolio's figures as the account actor's risk view computes them now, in
 * bigint (key owner|id), in the wire event's form: the engine's event computes them in doubles
 * (engine/risk/portfolioFigures.ts) and the converter adds the health ratio (engine/wire.ts).
 */
function figures(state: VenueState): Map<string, string> {
  const out = new Map<string, string>();
  for (const p of state.accounts.allPortfolios()) {
    if (p.internalPair !== null) continue;
    const r = state.accounts.risk(p);
    const own = state.accounts.depositOf(p) > 0n ? state.accounts.depositOf(p) : 0n;
    const f: Omit<PortfolioEvent, 'seq' | 'ts'> = {
      type: 'portfolio',
      owner: p.owner,
      portfolioId: p.id,
      createdAt: p.createdAt,
      deposit: r.deposit,
      unrealizedPnl: r.unrealizedPnl,
      equity: r.equity,
      initialMargin: r.initialMargin,
      initialMarginWithOrders: r.initialMarginWithOrders,
      maintenanceMargin: r.maintenanceMargin,
      healthRatio: r.healthRatio,
      isHealthy: r.isHealthy,
      maxWithdraw: r.maxWithdraw < own ? r.maxWithdraw : own,
      positionCount: r.positionCount,
    };
    out.set(`${p.owner}|${p.id}`, JSON.stringify(f, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
  }
  return out;
}

/** Every position (public portfolio id) as [balance, premium, realized]. */
function positions(state: VenueState): Map<string, string> {
  const out = new Map<string, string>();
  for (const p of state.accounts.allPortfolios()) {
    const id = p.internalPair !== null ? 0 : p.id;
    for (const pos of p.positions.values()) out.set(`${p.owner}|${id}|${pos.seriesId}`, `${balanceOf(pos)}|${pos.premium}|${pos.realized}`);
  }
  return out;
}

t.test('portfolio, position and order events are complete and stamped', async (t) => {
  let before = new Map<string, string>();
  let beforePos = new Map<string, string>();
  let missing: string[] = [];
  let wrong: string[] = [];
  let stamps = 0;
  let portfolioEvents = 0;
  let positionEvents = 0;
  let orderEvents = 0;
  let lastEvents: readonly VenueEvent[] = [];
  const h = runFullStream(7, 2500, (h) => {
    const state = h.venue.state;
    const events = lastEvents;
    const now = figures(state);
    const nowPos = positions(state);
    const seen = new Map<string, PortfolioEvent>();
    const seenPos = new Map<string, PositionEvent>();
    for (const e of events) {
      if (e.seq !== h.seq || e.ts !== state.now) stamps++;
      if (e.type === 'portfolio') {
        portfolioEvents++;
        seen.set(`${e.owner}|${e.portfolioId}`, e);
        // Counted afresh: the positions of the portfolio (a market maker's 0: of its whole group) with a balance.
        const group = e.portfolioId === 0 ? [...state.accounts.walletPortfolios(state.accounts.walletOf(e.owner))].filter((q) => q.id <= 0) : [state.accounts.portfolio(e.owner, e.portfolioId)!];
        let open = 0;
        for (const q of group) for (const pos of q.positions.values()) if (pos.lots !== 0) open++;
        if (open !== e.positionCount) wrong.push(`seq ${h.seq}: portfolio ${e.owner}|${e.portfolioId} positionCount ${e.positionCount}, counted ${open}`);
      } else if (e.type === 'position') {
        positionEvents++;
        seenPos.set(`${e.owner}|${e.portfolioId}|${e.seriesId}`, e);
      } else if (e.type === 'order') {
        orderEvents++;
        const open = state.orderIndex.get(e.orderId);
        const record = open === undefined ? undefined : state.series.get(state.accounts.orders.seriesId[open]!)!.openOrder(state.accounts.orders.ref[open]!)!;
        if (record && (record.owner !== e.owner || record.portfolioId !== e.portfolioId || record.tick !== e.tick || record.isBuy !== (e.side === 'buy') || record.expiry !== e.expiry || record.createdAt !== e.createdAt || record.nonce !== e.nonce)) {
          wrong.push(`seq ${h.seq}: order ${e.orderId} static fields differ from its record`);
        }
      }
    }
    for (const [key, f] of now) {
      const e = seen.get(key);
      if (e !== undefined) {
        const { seq: _s, ts: _t, ...fields } = e;
        const shown = JSON.stringify(fields, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
        if (shown !== f) wrong.push(`seq ${h.seq}: portfolio ${key} event ${shown} != engine ${f}`);
      } else if (before.get(key) !== f) {
        missing.push(`seq ${h.seq} (${h.log[h.log.length - 1]!.type}): portfolio ${key} changed without an event`);
      }
    }
    for (const key of new Set([...nowPos.keys(), ...beforePos.keys()])) {
      const was = beforePos.get(key);
      const is = nowPos.get(key);
      const e = seenPos.get(key);
      if (was !== is && e === undefined) missing.push(`seq ${h.seq}: position ${key} changed without an event`);
      if (e !== undefined && is !== undefined && `${e.balance}|${e.premium}|${e.realizedPnl}` !== is) wrong.push(`seq ${h.seq}: position ${key} event differs`);
    }
    before = now;
    beforePos = nowPos;
  }, (events) => (lastEvents = events));
  t.ok(h.seq > 2500);
  t.same(missing.slice(0, 5), [], 'no portfolio or position changed without an event');
  t.same(wrong.slice(0, 5), [], 'every event carries the engine figures');
  t.equal(stamps, 0, 'every event is stamped with its command seq and venue time');
  t.ok(portfolioEvents > 1000 && positionEvents > 500 && orderEvents > 1000, `${portfolioEvents} portfolio, ${positionEvents} position, ${orderEvents} order events checked`);
});
