/**
 * The order-history fold behind `GET /api/mm/orders`, `/api/account/orders` and the cancel
 * checks: every wallet's open orders, and its finished ones (filled, cancelled, expired;
 * the last FINISHED_PER_WALLET per wallet), folded from order events only (architecture.md
 * rule 6). Every order event carries the order's static fields, so the first one seen (its
 * acceptance, even when it filled or was cancelled at once) describes it whole. Finished
 * orders are remembered from the read models' start (a snapshot carries them).
 */
import type { CancelReason, Hex, OrderEvent, OrderInstructions, OrderStatus, VenueEvent } from '../../engine/index.ts';
import type { Catalog } from '../readModels/catalog.ts';

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
  /**
   * Its relay on chain as committed: the venue's relayer's batch of its latest fill final or
   * refused (docs/chain.md), or a chain-indexing provider's report (docs/webhooks.md); absent
   * until then.
   */
  readonly relay?: OrderRelay;
};

/** `final`/`failed`: the relayer's; `confirmed`/`failed`: a provider's webhook. */
export type OrderRelay = { readonly tx: Hex; readonly status: 'final' | 'confirmed' | 'failed'; readonly reason: string | null };

/** An open order: its view, its owner and when it was accepted (ms, for the newest-first order). */
type OpenOrder = { readonly owner: string; readonly createdAtMs: number; view: OrderView };

type OrderHistoryState = { open: OpenOrder[]; finished: [string, OrderView[]][] };

const FINISHED_PER_WALLET = 1000;
const isOpen = (s: OrderStatus) => s === 'open' || s === 'partial';
const clientKey = (owner: string, clientOrderId: string) => `${owner}|${clientOrderId}`;

export class OrderHistory {
  /** Every open order, in the order the events named them first (acceptance order). */
  private readonly openById = new Map<Hex, OpenOrder>();
  /** Per wallet, its open orders, in acceptance order. */
  private readonly openByOwner = new Map<string, Map<Hex, OpenOrder>>();
  private readonly finished = new Map<string, OrderView[]>();
  private readonly finishedById = new Map<Hex, { readonly owner: string; readonly view: OrderView }>();
  /** `owner|clientOrderId` -> the open order carrying it (unique among a wallet's open orders). */
  private readonly openByClientId = new Map<string, Hex>();

  constructor(private readonly catalog: Catalog) {}

  apply(e: VenueEvent): void {
    if (e.type === 'order') this.onOrder(e);
    else if (e.type === 'chain_event' && (e.event.kind === 'relay_confirmed' || e.event.kind === 'relay_failed')) {
      const confirmed = e.event.batch === undefined ? 'confirmed' : 'final';
      const relay: OrderRelay = { tx: e.event.txHash, status: e.event.kind === 'relay_confirmed' ? confirmed : 'failed', reason: e.event.reason };
      for (const orderId of e.event.orderIds) this.setRelay(orderId, relay);
    }
  }

  /** Record an order's relay on its view (open or remembered finished); an order not known is passed over. */
  private setRelay(orderId: Hex, relay: OrderRelay): void {
    const open = this.openById.get(orderId);
    if (open) {
      open.view = { ...open.view, relay };
      return;
    }
    const done = this.finishedById.get(orderId);
    if (!done) return;
    const view = { ...done.view, relay };
    const list = this.finished.get(done.owner)!;
    list[list.lastIndexOf(done.view)] = view;
    this.finishedById.set(orderId, { owner: done.owner, view });
  }

  private onOrder(e: OrderEvent): void {
    const view: OrderView = {
      orderId: e.orderId,
      seriesId: e.seriesId,
      symbol: this.catalog.symbolOf(e.seriesId),
      portfolioId: e.portfolioId,
      side: e.side,
      price: e.price,
      size: e.size,
      filled: e.filled,
      remaining: isOpen(e.status) ? e.remaining : 0n,
      status: e.status,
      createdAt: Math.floor(e.createdAt / 1000),
      expiry: e.expiry,
      reason: isOpen(e.status) ? null : e.reason,
      instructions: e.instructions,
      cancelReason: isOpen(e.status) ? null : e.cancelReason,
    };
    const known = this.openById.get(e.orderId);
    const relay = known?.view.relay;
    if (relay !== undefined) (view as { relay?: OrderRelay }).relay = relay;
    if (isOpen(e.status)) {
      if (known) {
        known.view = view;
        return;
      }
      this.addOpen({ owner: e.owner, createdAtMs: e.createdAt, view });
      return;
    }
    if (known) {
      this.openById.delete(e.orderId);
      const mine = this.openByOwner.get(known.owner);
      mine?.delete(e.orderId);
      if (mine?.size === 0) this.openByOwner.delete(known.owner);
      const clientId = known.view.instructions.clientOrderId;
      // A replacement may carry the id on: only the entry that still names this order goes.
      if (clientId !== null && this.openByClientId.get(clientKey(known.owner, clientId)) === e.orderId) this.openByClientId.delete(clientKey(known.owner, clientId));
    }
    this.finish(e.owner, view);
  }

  private addOpen(o: OpenOrder): void {
    this.openById.set(o.view.orderId, o);
    let mine = this.openByOwner.get(o.owner);
    if (!mine) this.openByOwner.set(o.owner, (mine = new Map()));
    mine.set(o.view.orderId, o);
    const clientId = o.view.instructions.clientOrderId;
    if (clientId !== null) this.openByClientId.set(clientKey(o.owner, clientId), o.view.orderId);
  }

  private finish(owner: string, view: OrderView): void {
    let list = this.finished.get(owner);
    if (!list) this.finished.set(owner, (list = []));
    list.push(view);
    this.finishedById.set(view.orderId, { owner, view });
    if (list.length > FINISHED_PER_WALLET) this.finishedById.delete(list.shift()!.orderId);
  }

  /** The caller's open order, or null (unknown, finished or someone else's). */
  /** Open orders of every wallet. */
  openCount(): number {
    return this.openById.size;
  }

  openOrder(owner: string, orderId: Hex): OrderView | null {
    const o = this.openById.get(orderId);
    return o && o.owner === owner ? o.view : null;
  }

  /** The caller's open order with this client order id (extensions.md "Cancels"), or null. */
  openByClientOrderId(owner: string, clientOrderId: string): OrderView | null {
    const orderId = this.openByClientId.get(clientKey(owner, clientOrderId));
    return orderId === undefined ? null : this.openOrder(owner, orderId);
  }

  /** The caller's finished order, if still remembered. */
  finishedOrder(owner: string, orderId: Hex): OrderView | null {
    const f = this.finishedById.get(orderId);
    return f && f.owner === owner ? f.view : null;
  }

  get(owner: string, orderId: Hex): OrderView | null {
    return this.openOrder(owner, orderId) ?? this.finishedOrder(owner, orderId);
  }

  /**
   * The caller's open orders, newest first (by acceptance: events come in engine order; the
   * stable sort by acceptance time only matters for orders seeded from an engine image).
   */
  open(owner: string): OrderView[] {
    const mine = this.openByOwner.get(owner);
    if (!mine) return [];
    const list = [...mine.values()].reverse();
    list.sort((a, b) => b.createdAtMs - a.createdAtMs);
    return list.map((o) => o.view);
  }

  /** The caller's remembered finished orders, newest first. */
  done(owner: string): OrderView[] {
    return [...(this.finished.get(owner) ?? [])].reverse();
  }

  exportState(): OrderHistoryState {
    return { open: [...this.openById.values()].map((o) => ({ ...o })), finished: [...this.finished] };
  }

  importState(s: OrderHistoryState): void {
    for (const o of s.open) this.addOpen({ owner: o.owner, createdAtMs: o.createdAtMs, view: o.view });
    for (const [owner, list] of s.finished) for (const v of list) this.finish(owner, v);
  }
}
