/**
 * Events: what a command did, collected while it runs and delivered after it completes
 * (style.md habit 7), so that a listener never sees a half-applied state. Plain data; the
 * gateway turns them into WebSocket messages and read-model updates.
 */
import type { Hex } from './domain/hex.ts';
import type { CancelReason, OrderInstructions } from './domain/instructions.ts';

export type OrderStatus = 'open' | 'partial' | 'filled' | 'cancelled' | 'expired';

export type TradeEvent = {
  readonly type: 'trade';
  readonly tradeId: string;
  readonly seriesId: Hex;
  readonly price: bigint; // WAD
  readonly size: bigint; // WAD
  readonly takerSide: 'buy' | 'sell';
  readonly maker: string;
  readonly taker: string;
  readonly makerOrderId: Hex | null; // null for RFQ fills
  readonly takerOrderId: Hex | null;
  readonly makerPortfolioId: number;
  readonly takerPortfolioId: number;
  readonly makerFee: bigint; // COLLATERAL6, negative = rebate
  readonly takerFee: bigint;
  readonly ts: number; // ms
  readonly source: 'book' | 'rfq';
};

export type OrderEvent = {
  readonly type: 'order';
  readonly orderId: Hex;
  readonly owner: string;
  readonly seriesId: Hex;
  readonly status: OrderStatus;
  readonly filled: bigint; // WAD
  readonly remaining: bigint; // WAD
  readonly reason: string | null; // why it was cancelled or expired
  /** Why it ended without filling (domain/instructions.ts), null while open or when filled. */
  readonly cancelReason: CancelReason | null;
  readonly instructions: OrderInstructions;
  readonly ts: number;
};

/** Levels whose aggregate changed during one command, with their final size (0 removes). */
export type DepthEvent = {
  readonly type: 'depth';
  readonly seriesId: Hex;
  readonly seq: number; // the series' book sequence after this change
  readonly prevSeq: number;
  readonly bids: readonly (readonly [bigint, bigint])[]; // [price WAD, size WAD]
  readonly asks: readonly (readonly [bigint, bigint])[];
  readonly ts: number;
};

export type PositionEvent = {
  readonly type: 'position';
  readonly owner: string;
  readonly portfolioId: number;
  readonly seriesId: Hex;
  readonly balance: bigint; // WAD signed
  readonly ts: number;
};

/** A portfolio's numbers changed (cash, positions or marks). */
export type PortfolioEvent = { readonly type: 'portfolio'; readonly owner: string; readonly portfolioId: number; readonly ts: number };

export type OracleEvent = { readonly type: 'oracle'; readonly pairId: Hex; readonly spot: bigint; readonly volatility: bigint; readonly riskFreeRate: bigint; readonly ts: number };

export type SeriesListedEvent = { readonly type: 'series_listed'; readonly seriesId: Hex; readonly ts: number };
export type SeriesSettledEvent = { readonly type: 'series_settled'; readonly seriesId: Hex; readonly settlementPrice: bigint; readonly ts: number };
export type PairListedEvent = { readonly type: 'pair_listed'; readonly pairId: Hex; readonly ts: number };

export type RfqEvent =
  | { readonly type: 'rfq_created'; readonly requestId: Hex; readonly pairId: Hex; readonly seriesId: Hex; readonly size: bigint; readonly takerIsBuying: boolean; readonly expiresAt: number; readonly ts: number }
  | { readonly type: 'rfq_quote'; readonly requestId: Hex; readonly quoteId: Hex; readonly mmm: string; readonly ts: number }
  | { readonly type: 'rfq_resolved'; readonly requestId: Hex; readonly status: 'filled' | 'expired' | 'cancelled'; readonly quoteId: Hex | null; readonly ts: number };

export type VenueEvent =
  | TradeEvent
  | OrderEvent
  | DepthEvent
  | PositionEvent
  | PortfolioEvent
  | OracleEvent
  | SeriesListedEvent
  | SeriesSettledEvent
  | PairListedEvent
  | RfqEvent
  | { readonly type: 'mmm'; readonly address: string; readonly isMmm: boolean; readonly ts: number };
