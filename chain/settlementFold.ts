/**
 * The settlement stream as a fold over committed events (docs/chain.md "The settlement
 * stream"): each committed command's events become the items the chain must apply, in the
 * order the engine produced them, and nothing else does. Pure: no I/O, no clock; the relayer
 * (chain/relayer/) cuts the items into batches and carries them.
 *
 * What the fold keeps is what the items need and the events said: every open order's signed
 * fields (from its order events), every quote's signature (from its `rfq_quote` event), the
 * listed pairs and series; and, for reconciliation (chain/relayer/reconciler.ts), what the
 * engine says each touched account, position and order holds. All of it is a function of the
 * engine's state, so a fold seeded from an engine image (`seed`) continues exactly as one that
 * folded every event since genesis, except for the running fee total, which the relayer keeps
 * in its checkpoint.
 *
 * A command whose events cannot be carried (a fill of an order whose signature the venue never
 * kept, a deposit reported without the vault's deposit id) throws `SettlementGap`: the relayer
 * halts the stream with an alert naming it, never skips it.
 */
import type { Address, Hex } from 'viem';
import type { ApplyResult, Command, OrderEvent, PositionEvent, TradeEvent, VenueEvent } from '../engine/index.ts';
import { INSURANCE_FUND_OWNER, INSURANCE_FUND_PORTFOLIO } from '../engine/index.ts';
import type { SignedFill, SignedOrder, SignedQuote } from './items.ts';

/** An order as a fill names it: its id (the EIP-712 digest) and what its owner signed. */
export type OrderRef = { readonly orderId: Hex; readonly order: SignedOrder };

/**
 * One item of the stream before it is written (chain/items.ts BatchWriter): a batch declares
 * the orders its fills name. `tradeId` is the venue's trade (its settlement status follows the
 * batch that carries it).
 */
export type SettlementItem =
  | { readonly kind: 'fill'; readonly tradeId: string; readonly maker: OrderRef; readonly taker: OrderRef; readonly size: bigint; readonly makerFee: bigint; readonly takerFee: bigint }
  | { readonly kind: 'liquidationFill'; readonly tradeId: string; readonly book: OrderRef; readonly owner: Address; readonly portfolioId: bigint; readonly size: bigint }
  | { readonly kind: 'fundFill'; readonly tradeId: string; readonly owner: Address; readonly portfolioId: bigint; readonly seriesId: Hex; readonly isBuy: boolean; readonly size: bigint; readonly price: bigint }
  | { readonly kind: 'rfqFill'; readonly tradeId: string; readonly quote: SignedQuote; readonly fill: SignedFill; readonly makerFee: bigint; readonly takerFee: bigint }
  | { readonly kind: 'mmmNonce'; readonly mmm: Address; readonly nonce: bigint }
  | { readonly kind: 'nonceFloor'; readonly owner: Address; readonly floor: bigint }
  | { readonly kind: 'forcedWithdraw'; readonly requestId: bigint; readonly paid: bigint }
  | { readonly kind: 'deposit'; readonly depositId: bigint }
  | { readonly kind: 'depositRefund'; readonly depositId: bigint }
  | { readonly kind: 'mint'; readonly owner: Address; readonly portfolioId: bigint; readonly amount: bigint }
  | { readonly kind: 'withdraw'; readonly owner: Address; readonly portfolioId: bigint; readonly amount: bigint; readonly withdrawalId: bigint }
  | { readonly kind: 'transfer'; readonly owner: Address; readonly from: bigint; readonly to: bigint; readonly amount: bigint }
  | { readonly kind: 'liquidationFee'; readonly owner: Address; readonly portfolioId: bigint; readonly amount: bigint }
  | { readonly kind: 'deficit'; readonly owner: Address; readonly portfolioId: bigint; readonly fundPaid: bigint; readonly badDebt: bigint }
  | { readonly kind: 'rebate'; readonly referrer: Address; readonly amount: bigint }
  | { readonly kind: 'pair'; readonly pairId: Hex; readonly tickDecimals: number }
  | { readonly kind: 'series'; readonly pairId: Hex; readonly strike: bigint; readonly expiry: number; readonly isCall: boolean }
  | { readonly kind: 'mmm'; readonly account: Address; readonly isMmm: boolean }
  | { readonly kind: 'settlementPrice'; readonly pairId: Hex; readonly expiry: number; readonly price: bigint }
  | { readonly kind: 'seriesSettled'; readonly seriesId: Hex }
  | { readonly kind: 'settlePosition'; readonly owner: Address; readonly portfolioId: bigint; readonly seriesId: Hex };

export type SettlementItemKind = SettlementItem['kind'];

/** A command the stream cannot carry: settlement must stop here (with an alert naming it). */
export class SettlementGap extends Error {
  override name = 'SettlementGap';
  constructor(
    readonly seq: number,
    message: string,
  ) {
    super(`settlement cannot carry command ${seq}: ${message}`);
  }
}

type SeriesSpec = { readonly pairId: Hex; readonly strike: bigint; readonly expiry: number; readonly isCall: boolean };

/** A key of what reconciliation compares: an account, a position, an order's fill. */
export const accountKey = (owner: string, portfolioId: number) => `${owner}:${portfolioId}`;
export const positionKey = (owner: string, portfolioId: number, seriesId: Hex) => `${owner}:${portfolioId}:${seriesId}`;
export const fillKey = (owner: string, orderId: Hex) => `${owner}:${orderId}`;

/** What the engine says touched accounts, positions and orders hold, after the last command folded (docs/chain.md "Reconciliation"). */
export type Expectations = {
  readonly cash: Map<string, { owner: Address; portfolioId: number; cash: bigint }>;
  readonly positions: Map<string, { owner: Address; portfolioId: number; seriesId: Hex; balance: bigint; premium: bigint }>;
  readonly fills: Map<string, { owner: Address; orderId: Hex; filled: bigint }>;
  readonly mmmNonces: Map<string, bigint>;
  /** Nonce floors the stream set, by owner (the floor the owner asked for on chain). */
  readonly floors: Map<string, bigint>;
};

export const emptyExpectations = (): Expectations => ({ cash: new Map(), positions: new Map(), fills: new Map(), mmmNonces: new Map(), floors: new Map() });

/** The on-chain account of the fees the venue collected (docs/chain.md "Accounts"): (collateralVault, 0). */
export const FEES_PORTFOLIO = 0n;

export class SettlementFold {
  private readonly orders = new Map<Hex, OrderRef>();
  private readonly quotes = new Map<Hex, SignedQuote>();
  private readonly series = new Map<Hex, SeriesSpec>();
  /** Settlement prices already posted, by `${pairId}:${expiry}`. */
  private readonly prices = new Set<string>();
  /** Every portfolio's cash (C6) as the engine last said, and their sum. */
  private readonly cash = new Map<string, bigint>();
  private cashTotal = 0n;
  /** Every position's deferred premium (C6) as the engine last said, and their sum. */
  private readonly premiums = new Map<string, bigint>();
  private premiumTotal = 0n;
  /** The fees account's cash: fees collected less maker and referral rebates, since the fold's start plus `feesBase`. */
  fees = 0n;
  /** Bad debt recorded so far (C6). */
  badDebt = 0n;
  /** What touched keys hold, since `takeExpectations` was last called. */
  private touched = emptyExpectations();

  /**
   * Start from an engine image (engine/image.ts, in wire form): state, no items. `fees` is the
   * checkpoint's. Everything the image holds counts as touched: the relayer's first
   * reconciliation after a restart compares it all.
   */
  seed(image: readonly VenueEvent[], fees: bigint): void {
    this.fees = fees;
    const positions: PositionEvent[] = [];
    for (const e of image) {
      this.remember(0, e, positions);
      if (e.type === 'insurance_fund') this.badDebt = e.badDebt;
      if (e.type === 'series_settled') {
        const s = this.series.get(e.seriesId);
        if (s !== undefined) this.prices.add(`${s.pairId}:${s.expiry}`);
      }
    }
  }

  /** Sum of every portfolio's cash and of every position's deferred premium, as the engine says (C6). */
  totals(): { cash: bigint; premium: bigint } {
    return { cash: this.cashTotal, premium: this.premiumTotal };
  }

  /** What touched keys hold since the last call, and a fresh record from here on (nothing touched: a shared empty one, not to be written). */
  takeExpectations(): Expectations {
    const t = this.touched;
    if (t.cash.size === 0 && t.positions.size === 0 && t.fills.size === 0 && t.mmmNonces.size === 0 && t.floors.size === 0) return NOTHING_TOUCHED;
    this.touched = emptyExpectations();
    return t;
  }

  /**
   * The items of one committed command, in the engine's order. `result` is its result in wire
   * form (events converted: engine/wire.ts). Throws SettlementGap when it cannot be carried.
   */
  apply(command: Command, result: ApplyResult): SettlementItem[] {
    const events = result.events;
    if (events.length === 0) return NO_ITEMS;
    const items: SettlementItem[] = [];
    const closed: Hex[] = [];
    const positions: PositionEvent[] = [];
    // Signed fields first: a taker's only order event may come after its trades.
    for (const e of events) if (e.type === 'order' && e.signed !== null) this.orders.set(e.orderId, refOf(e));
    let rfqTrade: TradeEvent | null = null;
    const settledSeries: Hex[] = [];
    for (const e of events) {
      this.remember(command.seq, e, positions);
      switch (e.type) {
        case 'order':
          if (e.status === 'filled' || e.status === 'cancelled' || e.status === 'expired') closed.push(e.orderId);
          break;
        case 'trade':
          if (e.source === 'rfq') rfqTrade = e;
          else items.push(this.tradeItem(command.seq, e));
          this.fees += e.makerFee + e.takerFee;
          break;
        case 'rfq_resolved':
          if (e.status === 'filled') items.push(this.rfqItem(command.seq, e, rfqTrade));
          rfqTrade = null;
          break;
        case 'referral_rebate':
          items.push({ kind: 'rebate', referrer: e.referrer as Address, amount: e.amount });
          this.fees -= e.amount;
          break;
        case 'liquidation':
          if (e.fee > 0n) items.push({ kind: 'liquidationFee', owner: e.owner as Address, portfolioId: BigInt(e.portfolioId), amount: e.fee });
          if (e.deficit > 0n) items.push({ kind: 'deficit', owner: e.owner as Address, portfolioId: BigInt(e.portfolioId), fundPaid: e.fundPaid, badDebt: e.badDebt });
          break;
        case 'insurance_fund':
          this.badDebt = e.badDebt;
          if (e.reason !== 'liquidation' && e.amount > 0n) items.push({ kind: 'mint', owner: INSURANCE_FUND_OWNER as Address, portfolioId: BigInt(INSURANCE_FUND_PORTFOLIO), amount: e.amount });
          break;
        case 'cash':
          if (e.kind === 'faucet') items.push({ kind: 'mint', owner: e.owner as Address, portfolioId: BigInt(e.portfolioId), amount: e.amount });
          else if (e.kind === 'withdrawal') items.push({ kind: 'withdraw', owner: e.owner as Address, portfolioId: BigInt(e.portfolioId), amount: e.amount, withdrawalId: BigInt(e.withdrawalId!) });
          else items.push({ kind: 'transfer', owner: e.owner as Address, from: BigInt(e.portfolioId), to: BigInt(e.toPortfolioId!), amount: e.amount });
          break;
        case 'chain_event':
          if (e.event.kind === 'deposit') {
            if (e.event.depositId === undefined) throw new SettlementGap(command.seq, `the deposit ${e.id} was credited without the vault's deposit id: no tokens on chain back it`);
            items.push({ kind: e.refused === null ? 'deposit' : 'depositRefund', depositId: e.event.depositId });
          } else if (e.event.kind === 'nonce_floor' && e.refused === null) {
            items.push({ kind: 'nonceFloor', owner: e.event.owner as Address, floor: e.event.floor });
            this.touched.floors.set(e.event.owner, e.event.floor);
          } else if (e.event.kind === 'withdrawal_request') {
            // Taken in, paid or refused: the vault marks the request taken (and pays what was paid).
            items.push({ kind: 'forcedWithdraw', requestId: e.event.requestId, paid: e.paid ?? 0n });
          }
          break;
        case 'pair_listed':
          items.push({ kind: 'pair', pairId: e.pairId, tickDecimals: e.tickDecimals });
          break;
        case 'series_listed':
          items.push({ kind: 'series', pairId: e.pairId, strike: e.strike, expiry: e.expiry, isCall: e.isCall });
          break;
        case 'mmm':
          items.push({ kind: 'mmm', account: e.address as Address, isMmm: e.isMmm });
          break;
        case 'mmm_nonce':
          items.push({ kind: 'mmmNonce', mmm: e.address as Address, nonce: e.nonce });
          break;
        case 'series_settled': {
          const s = this.seriesOf(command.seq, e.seriesId);
          const key = `${s.pairId}:${s.expiry}`;
          if (!this.prices.has(key)) {
            this.prices.add(key);
            items.push({ kind: 'settlementPrice', pairId: s.pairId, expiry: s.expiry, price: e.settlementPrice });
          }
          items.push({ kind: 'seriesSettled', seriesId: e.seriesId });
          settledSeries.push(e.seriesId);
          break;
        }
        default:
          break;
      }
    }
    // The positions a settlement paid: the command's position events of its series (the engine
    // emits position events at the command's end, after `series_settled`).
    for (const seriesId of settledSeries) for (const p of positions) if (p.seriesId === seriesId) items.push({ kind: 'settlePosition', owner: p.owner as Address, portfolioId: BigInt(p.portfolioId), seriesId });
    for (const orderId of closed) this.orders.delete(orderId);
    if (command.type === 'clock') this.forgetQuotes(Math.floor(command.ts / 1000));
    return items;
  }

  /** State and expectations an event carries (for a command and for the image alike). */
  private remember(seq: number, e: VenueEvent, positions: PositionEvent[]): void {
    switch (e.type) {
      case 'order':
        if (e.signed !== null) {
          this.orders.set(e.orderId, refOf(e));
          this.touched.fills.set(fillKey(e.owner, e.orderId), { owner: e.owner as Address, orderId: e.orderId, filled: e.filled });
        }
        break;
      case 'rfq_quote': {
        const q = e.quote;
        if (q.signature === null) break;
        const s = this.seriesOf(seq, q.seriesId);
        this.quotes.set(q.quoteId, { mmm: q.mmm as Address, taker: q.taker as Address, seriesId: q.seriesId, takerIsBuying: q.takerIsBuying, price: q.price, size: q.size, nonce: q.nonce, quoteExpiry: BigInt(q.quoteExpiry), pairId: s.pairId, strike: s.strike, optionExpiry: BigInt(s.expiry), isCall: s.isCall, signature: q.signature });
        break;
      }
      case 'series_listed':
        this.series.set(e.seriesId, { pairId: e.pairId, strike: e.strike, expiry: e.expiry, isCall: e.isCall });
        break;
      case 'portfolio': {
        const key = accountKey(e.owner, e.portfolioId);
        this.cashTotal += e.deposit - (this.cash.get(key) ?? 0n);
        this.cash.set(key, e.deposit);
        this.touched.cash.set(key, { owner: e.owner as Address, portfolioId: e.portfolioId, cash: e.deposit });
        break;
      }
      case 'position': {
        const key = positionKey(e.owner, e.portfolioId, e.seriesId);
        this.premiumTotal += e.premium - (this.premiums.get(key) ?? 0n);
        if (e.balance === 0n && e.premium === 0n) this.premiums.delete(key);
        else this.premiums.set(key, e.premium);
        this.touched.positions.set(key, { owner: e.owner as Address, portfolioId: e.portfolioId, seriesId: e.seriesId, balance: e.balance, premium: e.premium });
        positions.push(e);
        break;
      }
      case 'mmm_nonce':
        this.touched.mmmNonces.set(e.address, e.nonce);
        break;
      default:
        break;
    }
  }

  private seriesOf(seq: number, seriesId: Hex): SeriesSpec {
    const s = this.series.get(seriesId);
    if (s === undefined) throw new SettlementGap(seq, `series ${seriesId} was never listed in the stream`);
    return s;
  }

  private signedOrder(seq: number, orderId: Hex | null, t: TradeEvent): OrderRef {
    const ref = orderId === null ? undefined : this.orders.get(orderId);
    if (ref === undefined) throw new SettlementGap(seq, `trade ${t.tradeId} fills order ${orderId}, whose signature the venue did not keep (placed before settlement on chain)`);
    return ref;
  }

  private tradeItem(seq: number, t: TradeEvent): SettlementItem {
    if (t.source === 'liquidation') {
      // The insurance fund takes over a liquidated position at the band's edge: the taker is the liquidated portfolio.
      return { kind: 'fundFill', tradeId: t.tradeId, owner: t.taker as Address, portfolioId: BigInt(t.takerPortfolioId), seriesId: t.seriesId, isBuy: t.takerSide === 'buy', size: t.size, price: t.price };
    }
    const maker = this.signedOrder(seq, t.makerOrderId, t);
    // A taker without a signature is the venue's closing order of a liquidation: that side is unsigned.
    if (t.takerOrderId !== null && !this.orders.has(t.takerOrderId)) {
      return { kind: 'liquidationFill', tradeId: t.tradeId, book: maker, owner: t.taker as Address, portfolioId: BigInt(t.takerPortfolioId), size: t.size };
    }
    return { kind: 'fill', tradeId: t.tradeId, maker, taker: this.signedOrder(seq, t.takerOrderId, t), size: t.size, makerFee: t.makerFee, takerFee: t.takerFee };
  }

  private rfqItem(seq: number, e: Extract<VenueEvent, { type: 'rfq_resolved' }>, t: TradeEvent | null): SettlementItem {
    if (t === null || e.quoteId === null || e.fillSize === null) throw new SettlementGap(seq, `RFQ ${e.requestId} resolved filled without its trade`);
    const quote = this.quotes.get(e.quoteId);
    if (quote === undefined) throw new SettlementGap(seq, `RFQ fill of quote ${e.quoteId}, whose signature the venue did not keep`);
    const f = e.takerFill;
    if (f === null) throw new SettlementGap(seq, `RFQ fill of quote ${e.quoteId} without the taker's signed fill`);
    const fill: SignedFill = { taker: t.taker as Address, portfolioId: BigInt(f.portfolioId), fillSize: e.fillSize, nonce: f.nonce, deadline: f.signedDeadline ?? BigInt(f.deadline), signature: f.signature };
    return { kind: 'rfqFill', tradeId: t.tradeId, quote, fill, makerFee: t.makerFee, takerFee: t.takerFee };
  }

  /** Quotes past their expiry can no longer fill: forgotten at a clock. */
  private forgetQuotes(nowSec: number): void {
    for (const [id, q] of this.quotes) if (q.quoteExpiry < BigInt(nowSec)) this.quotes.delete(id);
  }
}

const NO_ITEMS: SettlementItem[] = [];
const NOTHING_TOUCHED: Expectations = emptyExpectations();

function refOf(e: OrderEvent): OrderRef {
  const s = e.signed!;
  if (s.signature === undefined) throw new Error(`order ${e.orderId}: signed fields without a signature`);
  return {
    orderId: e.orderId,
    order: { owner: e.owner as Address, seriesId: e.seriesId, portfolioId: BigInt(e.portfolioId), isBuy: e.side === 'buy', tick: e.tick, size: e.size, expiry: s.expiry, nonce: e.nonce!, deadline: s.signedDeadline ?? BigInt(s.deadline), signature: s.signature },
  };
}
