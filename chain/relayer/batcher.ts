/**
 * Cuts the settlement stream into batches (docs/chain.md "The relayer"): at most `maxFills`
 * fills, at most `maxGas` of the gas model, and the relayer closes an open batch after its
 * time window. A batch is a slice of the stream: it starts where the previous one ended and
 * ends after an item, so a command's items may span batches; its `journalPos` says where it
 * ended (the command's seq and how many of its items it carried).
 *
 * What a batch carries beyond its bytes is for the venue's reads: the trades, orders and
 * withdrawals it settles, and when its first and last commands happened.
 */
import type { Address, Hex } from 'viem';
import type { Command } from '../../engine/index.ts';
import { BatchWriter, journalPosOf, type BatchHeader } from '../items.ts';
import type { OrderRef, SettlementItem } from '../settlementFold.ts';

export type CutBatch = {
  /** The stream's seq of this batch (1, 2, ...). */
  readonly seq: number;
  /** Unix seconds: the venue time of the first command whose items it carries. */
  readonly matchTime: number;
  /** Where it ends: the command's seq and how many of its items are in this or an earlier batch. */
  readonly endSeq: number;
  readonly endItem: number;
  /** Whether it ends with its last command's last item (reconciliation compares only such batches). */
  readonly endsCommand: boolean;
  /** The engine's state hash after journal command `stateSeq` (the newest the relayer computed when it cut the batch: docs/chain.md "The audit"), which the batch posts for the auditor. */
  readonly stateSeq: number;
  readonly stateHash: Hex;
  readonly items: Uint8Array;
  readonly itemCount: number;
  readonly fills: number;
  readonly gas: number;
  readonly tradeIds: readonly string[];
  readonly orderIds: readonly Hex[];
  readonly withdrawals: readonly { readonly owner: Address; readonly withdrawalId: string }[];
  /** Venue time (Unix ms) of its first and last command. */
  readonly firstTs: number;
  readonly lastTs: number;
};

export type BatcherOptions = {
  readonly maxFills: number;
  readonly maxGas: number;
  /** The oracle key's signature of a settlement price (docs/chain.md SETTLEMENT_PRICE). */
  readonly signPrice: (pairId: Hex, expiry: number, price: bigint) => Hex;
  /** The seq the next batch gets. */
  readonly nextSeq: number;
  /** The engine's seq and state hash where a batch is cut (the relayer's replica). */
  readonly state: () => { readonly seq: number; readonly hash: Hex };
};

export const FILL_KINDS: ReadonlySet<SettlementItem['kind']> = new Set(['fill', 'liquidationFill', 'fundFill', 'rfqFill']);

export class Batcher {
  private readonly writer = new BatchWriter();
  private nextSeq: number;
  private open: {
    matchTime: number;
    firstTs: number;
    lastTs: number;
    endSeq: number;
    endItem: number;
    endsCommand: boolean;
    tradeIds: string[];
    orderIds: Set<Hex>;
    withdrawals: { owner: Address; withdrawalId: string }[];
  } | null = null;

  constructor(private readonly opts: BatcherOptions) {
    this.nextSeq = opts.nextSeq;
  }

  /** Items in the open batch (0: none open). */
  get pending(): number {
    return this.writer.items;
  }

  /** The seq of the batch the next cut makes. */
  get upcoming(): number {
    return this.nextSeq;
  }

  /**
   * One command's items, the first `skip` of them already carried (a resume in the middle of
   * a command). Returns the batches this closed (a limit reached); the rest stays open.
   */
  add(command: Command, items: readonly SettlementItem[], skip = 0): CutBatch[] {
    const cut: CutBatch[] = [];
    for (let i = skip; i < items.length; i++) {
      const item = items[i]!;
      const isFill = FILL_KINDS.has(item.kind);
      // Close the open batch first when this item would take it past a limit.
      if (this.open !== null && ((isFill && this.writer.fills >= this.opts.maxFills) || this.writer.gas >= this.opts.maxGas)) {
        const b = this.cut();
        if (b !== null) cut.push(b);
      }
      if (this.open === null) this.open = { matchTime: Math.floor(command.ts / 1000), firstTs: command.ts, lastTs: command.ts, endSeq: command.seq, endItem: i, endsCommand: false, tradeIds: [], orderIds: new Set(), withdrawals: [] };
      this.write(item);
      const o = this.open;
      o.lastTs = command.ts;
      o.endSeq = command.seq;
      o.endItem = i + 1;
      o.endsCommand = i + 1 === items.length;
    }
    return cut;
  }

  /** Close the open batch (its time window ran out, or the stream is idle); null when none is open. */
  cut(): CutBatch | null {
    const o = this.open;
    if (o === null || this.writer.items === 0) return null;
    const state = this.opts.state();
    const b: CutBatch = {
      seq: this.nextSeq++,
      matchTime: o.matchTime,
      endSeq: o.endSeq,
      endItem: o.endItem,
      endsCommand: o.endsCommand,
      stateSeq: state.seq,
      stateHash: state.hash,
      items: this.writer.bytes().slice(),
      itemCount: this.writer.items,
      fills: this.writer.fills,
      gas: this.writer.gas,
      tradeIds: o.tradeIds,
      orderIds: [...o.orderIds],
      withdrawals: o.withdrawals,
      firstTs: o.firstTs,
      lastTs: o.lastTs,
    };
    this.writer.reset();
    this.open = null;
    return b;
  }

  private declare(ref: OrderRef): number {
    this.open!.orderIds.add(ref.orderId);
    return this.writer.order(ref.orderId, ref.order);
  }

  private write(item: SettlementItem): void {
    const w = this.writer;
    const o = this.open!;
    switch (item.kind) {
      case 'fill':
        w.fill(this.declare(item.maker), this.declare(item.taker), item.size, item.makerFee, item.takerFee);
        o.tradeIds.push(item.tradeId);
        return;
      case 'liquidationFill':
        w.liquidationFill(this.declare(item.book), item.owner, item.portfolioId, item.size);
        o.tradeIds.push(item.tradeId);
        return;
      case 'fundFill':
        w.fundFill(item.owner, item.portfolioId, item.seriesId, item.isBuy, item.size, item.price);
        o.tradeIds.push(item.tradeId);
        return;
      case 'rfqFill':
        w.rfqFill(item.quote, item.fill, item.makerFee, item.takerFee);
        o.tradeIds.push(item.tradeId);
        return;
      case 'mmmNonce':
        return w.mmmNonce(item.mmm, item.nonce);
      case 'nonceFloor':
        return w.nonceFloor(item.owner, item.floor);
      case 'forcedWithdraw':
        return w.forcedWithdraw(item.requestId, item.paid);
      case 'deposit':
        return w.deposit(item.depositId);
      case 'depositRefund':
        return w.depositRefund(item.depositId);
      case 'mint':
        return w.mint(item.owner, item.portfolioId, item.amount);
      case 'withdraw':
        w.withdraw(item.owner, item.portfolioId, item.amount, item.withdrawalId);
        o.withdrawals.push({ owner: item.owner, withdrawalId: item.withdrawalId.toString() });
        return;
      case 'transfer':
        return w.transfer(item.owner, item.from, item.to, item.amount);
      case 'liquidationFee':
        return w.liquidationFee(item.owner, item.portfolioId, item.amount);
      case 'deficit':
        return w.deficit(item.owner, item.portfolioId, item.fundPaid, item.badDebt);
      case 'rebate':
        return w.rebate(item.referrer, item.amount);
      case 'pair':
        return w.pair(item.pairId, item.tickDecimals);
      case 'series':
        return w.series(item.pairId, item.strike, item.expiry, item.isCall);
      case 'mmm':
        return w.mmm(item.account, item.isMmm);
      case 'settlementPrice':
        return w.settlementPrice(item.pairId, item.expiry, item.price, this.opts.signPrice(item.pairId, item.expiry, item.price));
      case 'seriesSettled':
        return w.seriesSettled(item.seriesId);
      case 'settlePosition':
        return w.settlePosition(item.owner, item.portfolioId, item.seriesId);
    }
  }
}

/** A cut batch's `journalPos` argument (docs/chain.md). */
export const journalPosOfBatch = (b: Pick<CutBatch, 'endSeq' | 'endItem'>): bigint => journalPosOf(b.endSeq, b.endItem);

/** A cut batch's arguments to `settle` beside its items. */
export const headerOf = (b: Pick<CutBatch, 'seq' | 'matchTime' | 'endSeq' | 'endItem' | 'stateSeq' | 'stateHash'>): BatchHeader => ({
  seq: BigInt(b.seq),
  matchTime: BigInt(b.matchTime),
  journalPos: journalPosOfBatch(b),
  stateSeq: BigInt(b.stateSeq),
  stateHash: b.stateHash,
});
