/**
 * Events: what a command did, collected while it runs and delivered after it completes
 * (style.md habit 7), so that a listener never sees a half-applied state.
 *
 * Events are the engine's only output (architecture.md rule 6). They are complete: every
 * read model (order history, account views, market data, the depth mirror, stream payloads)
 * is a fold over committed events and never reads engine state. Every event carries the
 * sequence number and the timestamp of the command that produced it; one command's events
 * form one `EventBatch`. Events serialise with the journal's codec (engine/eventCodec.ts).
 * The catalogue, with every field and its unit, is docs/events.md.
 *
 * Units: WAD = 18 decimals; C6 = COLLATERAL6, 6 decimals of the quote currency; ms = Unix
 * milliseconds; s = Unix seconds. A portfolio id is the public one (a market maker's
 * internal trading portfolios are shown as its portfolio 0).
 */
import type { Hex } from './domain/hex.ts';
import type { CancelReason, OrderInstructions } from './domain/instructions.ts';
import type { MmpConfig, MmpReason } from './domain/mmp.ts';
import type { ChainEventData } from './domain/chain.ts';
import type { ORDER_STATUSES, Side, TradeSource } from './domain/values.ts';
import type { SignedOrderFields } from './commands.ts';
import type { Cash } from './risk/exactCash.ts';

export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** Present on every event: the command's sequence number and venue time. */
type Stamp = {
  readonly seq: number;
  readonly ts: number; // ms
};

/** One fill, book or RFQ, with what each side paid. */
export type TradeEvent = Stamp & {
  readonly type: 'trade';
  readonly tradeId: string;
  readonly seriesId: Hex;
  readonly price: bigint; // WAD premium per contract
  readonly size: bigint; // WAD contracts
  /** size x price, C6: what the buyer pays and the seller receives (deferred into the positions). */
  readonly premium: bigint;
  /** size x spot, C6: the notional that fees and traded volume are counted on. */
  readonly notional: bigint;
  readonly takerSide: Side;
  readonly maker: string;
  readonly taker: string;
  readonly makerOrderId: Hex | null; // null for RFQ fills
  readonly takerOrderId: Hex | null;
  readonly makerPortfolioId: number;
  readonly takerPortfolioId: number;
  readonly makerFee: bigint; // C6, negative = rebate
  readonly takerFee: bigint; // C6
  /** The series' open interest after the fill (WAD, long contracts). */
  readonly openInterest: bigint;
  /** 'liquidation': the insurance fund took over a liquidated position at the band's edge (maker: the fund). */
  readonly source: TradeSource;
};

/**
 * An order's state after the command. Every order event carries the order's static fields,
 * so the first one a reader sees (the order's acceptance, even when it filled or was
 * cancelled at once) describes it whole.
 */
export type OrderEvent = Stamp & {
  readonly type: 'order';
  readonly orderId: Hex;
  readonly owner: string;
  /** The portfolio the order names (0 for a market maker's cash portfolio). */
  readonly portfolioId: number;
  readonly seriesId: Hex;
  readonly side: Side;
  readonly price: bigint; // WAD limit price
  readonly tick: number; // the price in ticks of the pair
  readonly size: bigint; // WAD, the whole order
  readonly expiry: number; // s, good-till time (capped at the series' expiry)
  /** The signed order's nonce (null only for an order restored from a snapshot older than this field). */
  readonly nonce: bigint | null;
  readonly createdAt: number; // ms, when the order was accepted
  readonly instructions: OrderInstructions; // includes clientOrderId
  readonly status: OrderStatus;
  readonly filled: bigint; // WAD
  readonly remaining: bigint; // WAD, 0 once the order is closed
  readonly reason: string | null; // why it was cancelled or expired (detail)
  /** Why it ended without filling (domain/instructions.ts), null while open or when filled. */
  readonly cancelReason: CancelReason | null;
  /**
   * What the owner signed beyond the fields above (the signed good-till, deadline, signature):
   * the settlement stream's copy of the signed order (docs/chain.md). Null for the venue's own
   * orders (a liquidation's closing order) and for orders placed before signatures were kept.
   */
  readonly signed: SignedOrderFields | null;
};

/** One price level after a command: [price WAD, size WAD, order count]; size 0 removes it. */
export type DepthLevel = readonly [bigint, bigint, number];

/** Levels whose aggregate changed during one command, with their final size and count. */
export type DepthEvent = Stamp & {
  readonly type: 'depth';
  readonly seriesId: Hex;
  readonly bookSeq: number; // the series' book sequence after this change
  readonly prevBookSeq: number;
  readonly bids: readonly DepthLevel[];
  readonly asks: readonly DepthLevel[];
};

/** A position after the command (a balance of 0 with premium 0 means the position is gone). */
export type PositionEvent = Stamp & {
  readonly type: 'position';
  readonly owner: string;
  readonly portfolioId: number;
  readonly seriesId: Hex;
  readonly balance: bigint; // WAD signed, + long
  /** Deferred premium, C6 signed: paid for longs (negative), received for shorts (positive). */
  readonly premium: bigint;
  /** Average entry price, WAD per contract (|premium| / |balance|); null when flat. */
  readonly averagePrice: bigint | null;
  readonly realizedPnl: bigint; // C6
};

/**
 * A portfolio's cash and collateral after the command (its margin account: a market maker's
 * portfolio 0 counts its internal portfolios). Emitted when the portfolio is created, and
 * whenever its cash, positions, open orders or the marks of a series it is exposed to change.
 */
export type PortfolioEvent = Stamp & {
  readonly type: 'portfolio';
  readonly owner: string;
  readonly portfolioId: number;
  readonly createdAt: number; // s
  readonly deposit: bigint; // C6 cash
  readonly unrealizedPnl: bigint; // C6
  readonly equity: bigint; // C6
  readonly initialMargin: bigint; // C6, positions only
  readonly initialMarginWithOrders: bigint; // C6, positions and open orders
  readonly maintenanceMargin: bigint; // C6
  readonly healthRatio: bigint; // WAD (equity / maintenance margin; uint256 max when no margin is needed)
  readonly isHealthy: boolean;
  readonly maxWithdraw: bigint; // C6
  readonly positionCount: number;
};

/** A series' marks at an oracle state (the 15 margin scenarios stay inside the engine). */
export type SeriesMarkValues = {
  readonly seriesId: Hex;
  readonly mark: bigint; // WAD premium per contract
  readonly delta: bigint; // WAD
  readonly gamma: bigint;
  readonly vega: bigint;
  readonly theta: bigint;
  readonly rho: bigint;
};

/** A new oracle state of a pair and the new marks of each of its live series. */
export type OracleEvent = Stamp & {
  readonly type: 'oracle';
  readonly pairId: Hex;
  readonly spot: bigint; // WAD
  readonly volatility: bigint; // WAD
  readonly riskFreeRate: bigint; // WAD
  readonly marks: readonly SeriesMarkValues[];
};

export type PairListedEvent = Stamp & {
  readonly type: 'pair_listed';
  readonly pairId: Hex;
  readonly symbol: string;
  readonly underlying: string;
  readonly quote: string;
  readonly tickDecimals: number;
  readonly minSize: bigint; // WAD
  readonly sizeStep: bigint; // WAD
  readonly maxCallOI: bigint; // WAD, 0 = unlimited
  readonly maxPutOI: bigint;
};

export type OiCapsEvent = Stamp & { readonly type: 'oi_caps'; readonly pairId: Hex; readonly maxCallOI: bigint; readonly maxPutOI: bigint };

export type SeriesListedEvent = Stamp & {
  readonly type: 'series_listed';
  readonly seriesId: Hex;
  readonly pairId: Hex;
  readonly pairSymbol: string;
  readonly underlying: string;
  readonly symbol: string;
  readonly strike: bigint; // WAD
  readonly expiry: number; // s
  readonly isCall: boolean;
  /** Its first marks (priced at listing from the pair's oracle state). */
  readonly marks: SeriesMarkValues;
  /** Its open interest (WAD): 0 when listed; the current figure in the engine's image. */
  readonly openInterest: bigint;
};

export type SeriesSettledEvent = Stamp & {
  readonly type: 'series_settled';
  readonly seriesId: Hex;
  readonly settlementPrice: bigint; // WAD
  readonly openInterest: bigint; // WAD, after settlement
};

/** A clock command ran: time-windowed readers (24-hour statistics, fees, volume) advance to `ts`. */
export type ClockEvent = Stamp & { readonly type: 'clock' };

/** A wallet's dead-man switch: armed until `cancelAt` (ms), or disarmed (null: by the owner, or fired). */
export type DeadManEvent = Stamp & { readonly type: 'dead_man'; readonly owner: string; readonly cancelAt: number | null };

export type MmmEvent = Stamp & { readonly type: 'mmm'; readonly address: string; readonly isMmm: boolean };
/** A market maker's quote nonce moved on: its quotes signed at an older nonce are cancelled. */
export type MmmNonceEvent = Stamp & { readonly type: 'mmm_nonce'; readonly address: string; readonly nonce: bigint };

export type RfqQuoteFields = {
  readonly quoteId: Hex;
  readonly mmm: string;
  readonly taker: string; // the zero address: any taker
  readonly seriesId: Hex;
  readonly takerIsBuying: boolean;
  readonly price: bigint; // WAD
  readonly size: bigint; // WAD
  readonly nonce: bigint; // the market maker's quote nonce it was signed at
  readonly quoteExpiry: number; // s
  /** The market maker's EIP-712 signature of the quote (null for quotes taken before signatures were kept). */
  readonly signature: Hex | null;
};

/** The taker's signed FillQuote of a filled RFQ (quoteId and fillSize are the resolution's). */
export type RfqTakerFill = {
  readonly portfolioId: number;
  readonly nonce: bigint;
  readonly deadline: number; // s (MAX_SAFE_INTEGER when the signed value is larger: signedDeadline)
  readonly signedDeadline?: bigint;
  readonly signature: Hex;
};

export type RfqEvent =
  | (Stamp & {
      readonly type: 'rfq_created';
      readonly requestId: Hex;
      readonly taker: string;
      readonly portfolioId: number;
      readonly pairId: Hex;
      readonly seriesId: Hex;
      readonly size: bigint; // WAD
      readonly takerIsBuying: boolean;
      readonly expiresAt: number; // s
    })
  | (Stamp & { readonly type: 'rfq_quote'; readonly requestId: Hex; readonly quote: RfqQuoteFields })
  | (Stamp & {
      readonly type: 'rfq_resolved';
      readonly requestId: Hex;
      readonly status: 'filled' | 'expired' | 'cancelled';
      readonly quoteId: Hex | null;
      /** The size filled from the quote (WAD), null unless filled. */
      readonly fillSize: bigint | null;
      /** What the taker signed to fill: null unless filled in this command with a signature (an engine image's resolution has none, nor a journal's from before signatures were kept). */
      readonly takerFill: RfqTakerFill | null;
    });

/**
 * Market maker protection of a wallet on a pair (docs/engine.md): on set, reset, a trip, an
 * unfreeze when the freeze ran out, and whenever a fill of one of its mmp orders changed its window.
 */
export type MmpEvent = Stamp & {
  readonly type: 'mmp';
  readonly owner: string;
  readonly pairId: Hex;
  readonly config: MmpConfig; // windowMs, frozenMs ms; qtyLimit, deltaLimit, vegaLimit WAD (0 = off); tradeCountLimit (0 = off)
  readonly frozen: boolean;
  readonly frozenUntil: number | null; // ms; null when not frozen or frozen until a reset
  readonly reason: MmpReason | null; // the limit that tripped it, while frozen
  /** The window's sums at the event: |size|, |delta x size|, |vega x size| (WAD) and fills. */
  readonly window: { readonly qty: bigint; readonly delta: bigint; readonly vega: bigint; readonly trades: number };
};

/** A wallet created its referral code. */
export type ReferralCodeEvent = Stamp & { readonly type: 'referral_code'; readonly owner: string; readonly code: string };
/** A wallet (`owner`, the referee) applied `referrer`'s code. */
export type ReferralAppliedEvent = Stamp & { readonly type: 'referral_applied'; readonly owner: string; readonly referrer: string; readonly code: string };
/** At the fill `tradeId`, the referee paid a taker fee and `amount` (C6) of it went to the referrer's portfolio 0. */
export type ReferralRebateEvent = Stamp & { readonly type: 'referral_rebate'; readonly referrer: string; readonly referee: string; readonly tradeId: string; readonly amount: bigint };

/**
 * An on-chain event received once by its `id` (a deposit also has its `portfolio` event before
 * this one). `refused`: an on-chain deposit the venue did not credit (the code of why: its
 * tokens go back to the depositor through the settlement stream); null when applied.
 */
/** `paid`: of a forced-withdrawal request taken in, what the venue paid (COLLATERAL6, 0 when refused); absent for other kinds. */
export type ChainEventEvent = Stamp & { readonly type: 'chain_event'; readonly id: string; readonly event: ChainEventData; readonly refused: string | null; readonly paid?: bigint };

/**
 * Cash that a cash command moved: a faucet deposit (test collateral minted on local/testnet), a
 * withdrawal (paid to the owner's address on chain; `withdrawalId` is the command's seq, as a
 * decimal string) or a transfer to another portfolio of the same owner (`toPortfolioId`).
 * Amount C6.
 */
export type CashEvent = Stamp & {
  readonly type: 'cash';
  readonly kind: 'faucet' | 'withdrawal' | 'transfer';
  readonly owner: string;
  readonly portfolioId: number;
  readonly toPortfolioId: number | null;
  readonly amount: bigint;
  readonly withdrawalId: string | null;
};
/** One close of a liquidation: a fill against the book, or the insurance fund's takeover at the band's edge. */
export type LiquidationClose = {
  readonly seriesId: Hex;
  /** What the venue did for the liquidated portfolio: 'sell' closes a long, 'buy' a short. */
  readonly side: Side;
  readonly size: bigint; // WAD
  readonly price: bigint; // WAD premium per contract
  readonly counterparty: 'book' | 'fund';
};

/**
 * A liquidation (extensions.md "Liquidation and the insurance fund"), after its order,
 * trade, position and portfolio events in the same command: the trigger, the orders it
 * cancelled, the closes, the fee to the fund and any deficit (what the fund paid and the bad
 * debt left). Amounts C6; `startedAt`/`endedAt` s (one command: equal).
 */
export type LiquidationEvent = Stamp & {
  readonly type: 'liquidation';
  readonly liquidationId: string;
  readonly owner: string;
  readonly portfolioId: number; // public id
  readonly startedAt: number; // s
  readonly endedAt: number; // s
  /** Equity and maintenance margin counting open orders when the pass found the portfolio (C6). */
  readonly trigger: { readonly equity: bigint; readonly maintenanceMargin: bigint };
  readonly cancelledOrders: readonly Hex[];
  readonly closes: readonly LiquidationClose[];
  readonly fee: bigint; // C6, to the fund
  /** Negative equity left after the closes (C6, 0 unless bankrupt); fundPaid + badDebt = deficit. */
  readonly deficit: bigint;
  readonly fundPaid: bigint;
  readonly badDebt: bigint;
};

/** The insurance fund's cash or bad debt changed: a seed or admin deposit, or a liquidation (fee in, deficit out). */
export type InsuranceFundEvent = Stamp & {
  readonly type: 'insurance_fund';
  readonly reason: 'seed' | 'deposit' | 'liquidation';
  readonly amount: bigint; // C6, signed change of the fund's cash
  readonly balance: bigint; // C6, the fund's cash after
  readonly badDebt: bigint; // C6, total bad debt recorded
};

/** A bankrupt portfolio's deficit exceeded the fund: `amount` recorded as bad debt (an operator alert). */
export type BadDebtEvent = Stamp & {
  readonly type: 'bad_debt';
  readonly liquidationId: string;
  readonly owner: string;
  readonly portfolioId: number;
  readonly amount: bigint; // C6
  readonly totalBadDebt: bigint; // C6
};

export type VenueEvent =
  | LiquidationEvent
  | InsuranceFundEvent
  | BadDebtEvent
  | MmpEvent
  | ChainEventEvent
  | CashEvent
  | ReferralCodeEvent
  | ReferralAppliedEvent
  | ReferralRebateEvent
  | TradeEvent
  | OrderEvent
  | DepthEvent
  | PositionEvent
  | PortfolioEvent
  | OracleEvent
  | PairListedEvent
  | OiCapsEvent
  | SeriesListedEvent
  | SeriesSettledEvent
  | ClockEvent
  | MmmEvent
  | MmmNonceEvent
  | DeadManEvent
  | RfqEvent;

export type VenueEventType = VenueEvent['type'];

/** One committed command's events, in the order the command produced them. */
export type EventBatch = {
  readonly seq: number;
  readonly ts: number; // ms
  readonly events: readonly VenueEvent[];
};

// ---------------------------------------------------------------------------------------------
// The engine's compact form (docs/events.md "The engine's compact form"): what `Venue.apply` and
// `Venue.imageEvents` return. The trade, order, depth, position and portfolio events carry sizes
// in lots, prices in ticks and COLLATERAL6 cash as integers in doubles, so the engine's turn
// makes no bigint for them; `WireEvents` (engine/wire.ts) turns them into the `VenueEvent`s
// above (the wire form every reader folds), learning each pair's tick decimals and lot size
// from the pair_listed and series_listed events it has converted. Every other event is the
// same object in both forms.
// ---------------------------------------------------------------------------------------------

/**
 * COLLATERAL6 cash in a compact event: an integer in a double while |v| <= 2^53 - 1
 * (`Number.MAX_SAFE_INTEGER`, ~9 x 10^9 USDC, where a double holds it exactly), else the bigint
 * itself (never a rounded double): the engine's own `Cash` (risk/exactCash.ts).
 */
export type { Cash };

/**
 * Lots of a pair's size step in a compact event: an integer in a double while |v| <= 2^53 - 1,
 * else the bigint count of lots (engine/domain/lots.ts).
 */
export type EventLots = number | bigint;

/**
 * A trade: `tick` and `lots` on the pair's grid (a book fill); an RFQ or fund fill carries its
 * WAD `priceWad` and `sizeWad` instead (tick and lots -1). The series' open interest after it in
 * lots (`openInterestLots`).
 */
export type EngineTradeEvent = Omit<TradeEvent, 'tradeId' | 'price' | 'size' | 'premium' | 'notional' | 'makerFee' | 'takerFee' | 'openInterest'> & {
  /** The trade id as the state's counter (the wire's `tradeId` is its decimal string). */
  readonly tradeNo: number;
  readonly openInterestLots: EventLots;
  readonly tick: number;
  readonly lots: number;
  readonly priceWad: bigint | null;
  readonly sizeWad: bigint | null;
  readonly premium: Cash;
  readonly notional: Cash;
  readonly makerFee: Cash;
  readonly takerFee: Cash;
};

/** An order: its price as `tick` only, its size, filled and remaining in lots. */
export type EngineOrderEvent = Omit<OrderEvent, 'price' | 'size' | 'filled' | 'remaining'> & {
  readonly lots: number;
  readonly filledLots: number;
  readonly remainingLots: number;
};

/** One price level: [tick, lots, order count]; lots 0 removes it. */
export type EngineDepthLevel = readonly [number, number, number];

export type EngineDepthEvent = Stamp & {
  readonly type: 'depth';
  readonly seriesId: Hex;
  readonly bookSeq: number;
  readonly prevBookSeq: number;
  readonly bids: readonly EngineDepthLevel[];
  readonly asks: readonly EngineDepthLevel[];
};

/** A position: the balance in lots, premium and realised PnL as Cash; the WAD balance and the average price are the converter's. */
export type EnginePositionEvent = Omit<PositionEvent, 'balance' | 'premium' | 'averagePrice' | 'realizedPnl'> & { readonly lots: EventLots; readonly premium: Cash; readonly realizedPnl: Cash };

type PortfolioCash = 'deposit' | 'unrealizedPnl' | 'equity' | 'initialMargin' | 'initialMarginWithOrders' | 'maintenanceMargin' | 'maxWithdraw';
/** A portfolio's figures as Cash; the health ratio (equity x WAD / maintenance margin) is the converter's. */
export type EnginePortfolioEvent = Omit<PortfolioEvent, PortfolioCash | 'healthRatio'> & { readonly [K in PortfolioCash]: Cash };

/** The events the engine returns: the compact five and every other event in its wire form. */
export type EngineEvent =
  | Exclude<VenueEvent, TradeEvent | OrderEvent | DepthEvent | PositionEvent | PortfolioEvent>
  | EngineTradeEvent
  | EngineOrderEvent
  | EngineDepthEvent
  | EnginePositionEvent
  | EnginePortfolioEvent;
