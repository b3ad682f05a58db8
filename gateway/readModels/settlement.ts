/**
 * Where each trade and order stands in settlement on chain (docs/chain.md "The relayer"), for
 * the reads' `relayStatus` and `relayTx`:
 *
 * - `pending`: committed, not yet on chain; `included`: in a block (the relayer's receipt);
 *   `final`: `CONFIRMATIONS` blocks deep (the relayer's `relay_confirmed`, journaled);
 *   `failed`: the chain refused its batch (`relay_failed`, journaled; settlement halted).
 * - Final and failed come from committed events (this fold, snapshotted with the other read
 *   models); sent and included from the relayer's messages as they happen (`observe`, not
 *   journaled: after a restart the relayer reports them again).
 *
 * Batches are final in order and carry trades in trade-id order, so every trade at or below
 * the highest trade id of a final batch is final: the fold keeps the transaction of the last
 * KEEP_TRADES final trades, and older ones answer `final` with their transaction no longer known
 * here (the chain has it: docs/chain.md "What to check on chain").
 */
import type { Hex, VenueEvent } from '../../engine/index.ts';

export type RelayStatus = 'pending' | 'included' | 'final' | 'failed';
export type RelayInfo = { readonly relayStatus: RelayStatus; readonly relayTx: Hex | null; readonly batch: number | null };

type Outcome = { readonly status: 'final' | 'failed'; readonly tx: Hex; readonly batch: number };
type SettlementState = { settledBatch: number; finalTradeNo: number; trades: [string, Outcome][] };

/** Final trades whose transaction the fold keeps. */
export const KEEP_TRADES = 200_000;

const PENDING: RelayInfo = { relayStatus: 'pending', relayTx: null, batch: null };

export class SettlementBook {
  /** The last batch confirmed final. */
  settledBatch = 0;
  /** The highest trade id of a final batch: every trade at or below it is final. */
  private finalTradeNo = 0;
  private readonly trades = new Map<string, Outcome>();
  /** Sent or included, not yet final (the relayer's messages). */
  private readonly liveTrades = new Map<string, RelayInfo>();
  private readonly liveOrders = new Map<Hex, RelayInfo>();

  apply(e: VenueEvent): void {
    if (e.type !== 'chain_event') return;
    const ev = e.event;
    if ((ev.kind !== 'relay_confirmed' && ev.kind !== 'relay_failed') || ev.batch === undefined) return;
    const outcome: Outcome = { status: ev.kind === 'relay_confirmed' ? 'final' : 'failed', tx: ev.txHash, batch: ev.batch };
    for (const id of ev.tradeIds ?? []) {
      this.trades.delete(id);
      this.trades.set(id, outcome);
      this.liveTrades.delete(id);
      if (outcome.status === 'final' && Number(id) > this.finalTradeNo) this.finalTradeNo = Number(id);
    }
    for (const id of ev.orderIds) this.liveOrders.delete(id);
    if (outcome.status === 'final') this.settledBatch = ev.batch;
    while (this.trades.size > KEEP_TRADES) this.trades.delete(this.trades.keys().next().value!);
  }

  /** The relayer's report of a batch sent or included (final and failed arrive as events). */
  observe(m: { readonly batch: number; readonly status: string; readonly txHash: Hex | null; readonly tradeIds: readonly string[]; readonly orderIds: readonly Hex[] }): void {
    if (m.status !== 'sent' && m.status !== 'included') return;
    if (m.batch <= this.settledBatch) return;
    const info: RelayInfo = { relayStatus: m.status === 'included' ? 'included' : 'pending', relayTx: m.txHash, batch: m.batch };
    for (const id of m.tradeIds) this.liveTrades.set(id, info);
    for (const id of m.orderIds) this.liveOrders.set(id, info);
  }

  trade(tradeId: string): RelayInfo {
    const o = this.trades.get(tradeId);
    if (o !== undefined) return { relayStatus: o.status, relayTx: o.tx, batch: o.batch };
    const live = this.liveTrades.get(tradeId);
    if (live !== undefined) return live;
    return Number(tradeId) <= this.finalTradeNo ? { relayStatus: 'final', relayTx: null, batch: null } : PENDING;
  }

  /** An order's latest fill's batch while not yet final (a final one is on the order's own view: orderHistory). */
  order(orderId: Hex): RelayInfo | null {
    return this.liveOrders.get(orderId) ?? null;
  }

  exportState(): SettlementState {
    return { settledBatch: this.settledBatch, finalTradeNo: this.finalTradeNo, trades: [...this.trades] };
  }

  importState(s: SettlementState): void {
    this.settledBatch = s.settledBatch;
    this.finalTradeNo = s.finalTradeNo;
    for (const [id, o] of s.trades) this.trades.set(id, o);
  }
}
