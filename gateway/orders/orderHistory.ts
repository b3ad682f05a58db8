/**
 * The read model behind `GET /api/mm/orders`: open orders come straight from the engine
 * (its series actors hold them); finished ones (filled, cancelled, expired) leave the
 * engine's live maps, so their final state is kept here from the engine's order events,
 * the last FINISHED_PER_WALLET per wallet. Finished orders are remembered from the
 * server's start: after a restart, orders that finished before it are no longer listed.
 */
import type { Hex } from '../../engine/domain/hex.ts';
import type { OrderStatus, VenueEvent } from '../../engine/events.ts';
import type { OrderRecord } from '../../engine/actors/series.ts';
import type { VenueState } from '../../engine/state.ts';
import { tickToPrice } from '../../engine/domain/ticks.ts';
import type { CancelReason, OrderInstructions } from '../../engine/domain/instructions.ts';
import { orderFigures } from '../readModels/orderFigures.ts';

export type OrderView = {
  readonly orderId: Hex;
  readonly seriesId: Hex;
  readonly symbol: string;
  readonly portfolioId: number;
  readonly side: 'buy' | 'sell';
  readonly price: bigint;
  readonly size: bigint;
  readonly filled: bigint;
  readonly remaining: bigint;
  readonly status: OrderStatus;
  /** Unix seconds */
  readonly createdAt: number;
  /** good-till, Unix seconds */
  readonly expiry: number;
  /** why it left the book: cancelled_by_owner, self_trade_prevention, order_expiry, settlement, ... */
  readonly reason: string | null;
  readonly instructions: OrderInstructions;
  /** why it ended without filling (engine/domain/instructions.ts); null while open or once filled */
  readonly cancelReason: CancelReason | null;
};

/** What the read model must know of an order to describe it once the engine has forgotten it. */
type OrderMeta = Omit<OrderView, 'filled' | 'remaining' | 'status' | 'reason' | 'createdAt' | 'instructions' | 'cancelReason'> & { readonly owner: string; createdAt: number | null };

const FINISHED_PER_WALLET = 1000;
const isOpen = (s: OrderStatus) => s === 'open' || s === 'partial';

export class OrderHistory {
  private readonly live = new Map<Hex, OrderMeta>();
  private readonly finished = new Map<string, OrderView[]>();
  private readonly finishedById = new Map<Hex, { readonly owner: string; readonly view: OrderView }>();

  constructor(private readonly state: VenueState) {
    for (const s of state.series.values()) for (const r of s.openOrders()) this.live.set(r.orderId, this.metaOf(r));
  }

  private metaOf(r: OrderRecord): OrderMeta {
    const view = this.viewOf(r)!;
    return { orderId: r.orderId, owner: r.owner, seriesId: r.seriesId, symbol: view.symbol, portfolioId: r.portfolioId, side: view.side, price: view.price, size: view.size, expiry: r.expiry, createdAt: view.createdAt };
  }

  /** Called before a place command is submitted, so that an order filled at once is still described. */
  register(m: { orderId: Hex; owner: string; seriesId: Hex; portfolioId: number; isBuy: boolean; tick: number; size: bigint; expiry: number }): void {
    const series = this.state.series.get(m.seriesId);
    const pair = series && this.state.pairs.get(series.spec.pairId);
    if (!series || !pair || this.live.has(m.orderId)) return;
    this.live.set(m.orderId, {
      orderId: m.orderId,
      owner: m.owner,
      seriesId: m.seriesId,
      symbol: series.spec.symbol,
      portfolioId: m.portfolioId,
      side: m.isBuy ? 'buy' : 'sell',
      price: tickToPrice(m.tick, pair.tickDecimals),
      size: m.size,
      expiry: Math.min(m.expiry, series.spec.expiry),
      createdAt: null,
    });
  }

  /** A registered order the engine refused: it never existed. */
  unregister(orderId: Hex): void {
    const m = this.live.get(orderId);
    if (m && m.createdAt === null) this.live.delete(orderId);
  }

  onEvents(events: readonly VenueEvent[]): void {
    for (const e of events) {
      if (e.type !== 'order') continue;
      const meta = this.live.get(e.orderId);
      if (!meta) continue;
      if (meta.createdAt === null) meta.createdAt = Math.floor(e.ts / 1000);
      if (isOpen(e.status)) continue;
      this.live.delete(e.orderId);
      const owner = meta.owner;
      // Field by field (not a rest/spread copy): this runs for every finished order.
      const view: OrderView = {
        orderId: meta.orderId,
        seriesId: meta.seriesId,
        symbol: meta.symbol,
        portfolioId: meta.portfolioId,
        side: meta.side,
        price: meta.price,
        size: meta.size,
        expiry: meta.expiry,
        createdAt: meta.createdAt,
        filled: e.filled,
        remaining: 0n,
        status: e.status,
        reason: e.reason,
        instructions: e.instructions,
        cancelReason: e.cancelReason,
      };
      let list = this.finished.get(owner);
      if (!list) this.finished.set(owner, (list = []));
      list.push(view);
      this.finishedById.set(view.orderId, { owner, view });
      if (list.length > FINISHED_PER_WALLET) this.finishedById.delete(list.shift()!.orderId);
    }
  }

  /** An open order as the interface shows it, from the engine's record. */
  viewOf(r: OrderRecord): OrderView | null {
    const f = orderFigures(this.state, r);
    if (!f) return null;
    return {
      orderId: r.orderId,
      seriesId: r.seriesId,
      symbol: f.symbol,
      portfolioId: r.portfolioId,
      side: r.isBuy ? 'buy' : 'sell',
      price: f.price,
      size: f.size,
      filled: f.filled,
      remaining: f.remaining,
      status: r.status,
      createdAt: Math.floor(r.createdAt / 1000),
      expiry: r.expiry,
      reason: null,
      instructions: r.instructions,
      cancelReason: null,
    };
  }

  /** The caller's open order record, or null (unknown, finished or someone else's). */
  openRecord(owner: string, orderId: Hex): OrderRecord | null {
    const r = this.state.orderIndex.get(orderId)?.record;
    return r && r.owner === owner ? r : null;
  }

  /** The caller's finished order, if still remembered. */
  finishedOrder(owner: string, orderId: Hex): OrderView | null {
    const f = this.finishedById.get(orderId);
    return f && f.owner === owner ? f.view : null;
  }

  get(owner: string, orderId: Hex): OrderView | null {
    const r = this.openRecord(owner, orderId);
    return r ? this.viewOf(r) : this.finishedOrder(owner, orderId);
  }

  /** The caller's open orders, newest first. */
  open(owner: string): OrderView[] {
    const account = this.state.accounts.accounts.get(owner);
    if (!account) return [];
    const records: OrderRecord[] = [];
    for (const p of account.portfolios.values()) {
      for (const { record } of p.openOrders.values()) records.push(record);
    }
    records.sort((a, b) => b.ref - a.ref);
    return records.map((r) => this.viewOf(r)).filter((v): v is OrderView => v !== null);
  }

  /** The caller's remembered finished orders, newest first. */
  done(owner: string): OrderView[] {
    return [...(this.finished.get(owner) ?? [])].reverse();
  }
}
