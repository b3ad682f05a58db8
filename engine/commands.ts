/**
 * Commands: everything that changes the venue's state, as plain serialisable data.
 * Each carries its sequence number and its timestamp (Unix ms); the engine never reads a
 * clock, so replaying the same commands gives the same state byte for byte.
 *
 * Amounts are bigint: WAD (18 decimals) for prices, sizes, strikes, oracle values;
 * COLLATERAL6 for cash. Addresses are EIP-55 strings, ids lowercase 0x-hex, both
 * normalised at the edge before a command is built.
 */
import type { Hex } from './domain/hex.ts';
import type { MmpConfig } from './domain/mmp.ts';
import type { ChainEventData } from './domain/chain.ts';
import type { CancelOrder, PlaceOrder } from './domain/signedOrders.ts';

export type { CancelOrder, PlaceOrder, SignedOrderFields } from './domain/signedOrders.ts';

export type CommandHeader = { readonly seq: number; readonly ts: number };

export type PairListing = {
  readonly symbol: string; // "BTC-USDC"
  readonly underlying: string;
  readonly quote: string;
  readonly tickDecimals: number;
  readonly minSize: bigint; // WAD
  readonly sizeStep: bigint; // WAD
  readonly maxCallOI: bigint; // WAD, 0 = unlimited
  readonly maxPutOI: bigint;
};

/** One series' pricing as computed outside the engine (workers) for an oracle state. */
export type SeriesMarks = {
  readonly seriesId: Hex;
  readonly mark: bigint; // WAD premium per contract
  readonly delta: bigint;
  readonly gamma: bigint;
  readonly vega: bigint;
  readonly theta: bigint;
  readonly rho: bigint;
  /** Value per contract in each of the 15 margin scenarios (WAD), spot-major. */
  readonly scenarios: readonly bigint[];
};

export type RfqQuoteData = {
  readonly quoteId: Hex;
  readonly mmm: string;
  readonly taker: string;
  readonly seriesId: Hex;
  readonly takerIsBuying: boolean;
  readonly price: bigint;
  readonly size: bigint;
  readonly nonce: bigint;
  readonly quoteExpiry: number;
  /** The market maker's EIP-712 signature of the RfqQuote (canonical 65 bytes); absent in journals written before settlement on chain. */
  readonly signature?: Hex;
};

/**
 * Which of a wallet's open orders a mass cancel takes (every field optional; all given must
 * match): its pair or series, side, the portfolio the order names, only orders with the `mmp`
 * instruction, or only the orders listed (a socket's own orders on disconnect).
 */
export type CancelScope = {
  readonly pairId?: Hex;
  readonly seriesId?: Hex;
  readonly side?: 'buy' | 'sell';
  readonly portfolioId?: number;
  readonly mmpOnly?: boolean;
  readonly orderIds?: readonly Hex[];
};

export type CommandBody =
  | { readonly type: 'list_pair'; readonly pair: PairListing }
  | { readonly type: 'oracle'; readonly pairId: Hex; readonly spot: bigint; readonly volatility: bigint; readonly riskFreeRate: bigint; readonly marks: readonly SeriesMarks[] }
  | { readonly type: 'clock' }
  | { readonly type: 'set_oi_caps'; readonly pairId: Hex; readonly maxCallOI: bigint; readonly maxPutOI: bigint }
  | { readonly type: 'set_mmm'; readonly address: string; readonly isMmm: boolean }
  | { readonly type: 'create_portfolio'; readonly owner: string }
  | { readonly type: 'deposit'; readonly owner: string; readonly portfolioId: number; readonly amount: bigint }
  | { readonly type: 'withdraw'; readonly owner: string; readonly portfolioId: number; readonly amount: bigint }
  | { readonly type: 'transfer'; readonly owner: string; readonly fromPortfolioId: number; readonly toPortfolioId: number; readonly amount: bigint }
  | { readonly type: 'place'; readonly orders: readonly PlaceOrder[] }
  | { readonly type: 'cancel'; readonly cancels: readonly CancelOrder[] }
  | { readonly type: 'replace'; readonly pairs: readonly { readonly cancel: CancelOrder; readonly place: PlaceOrder }[] }
  /**
   * A strategy (extensions.md "Strategies"): its legs are fill-or-kill orders of one wallet and
   * portfolio on distinct series; every leg fills in full at its limit or better, or nothing
   * changes (engine/flows/strategy.ts). `strategyId` is the gateway's name for the package.
   */
  | { readonly type: 'strategy'; readonly strategyId: Hex; readonly orders: readonly PlaceOrder[] }
  | { readonly type: 'rfq_request'; readonly taker: string; readonly portfolioId: number; readonly seriesId: Hex; readonly size: bigint; readonly takerIsBuying: boolean; readonly expiresAt: number }
  | { readonly type: 'rfq_quote'; readonly requestId: Hex; readonly quote: RfqQuoteData }
  /** `signature`: the taker's EIP-712 FillQuote signature (canonical); `signedDeadline` the signed deadline when beyond MAX_SAFE_INTEGER. */
  | { readonly type: 'rfq_fill'; readonly requestId: Hex; readonly quoteId: Hex; readonly taker: string; readonly portfolioId: number; readonly fillSize: bigint; readonly nonce: bigint; readonly deadline: number; readonly signedDeadline?: bigint; readonly signature?: Hex }
  | { readonly type: 'mmm_nonce_increment'; readonly mmm: string }
  /** Cancel a wallet's open orders at once (no signature: the request's credentials, or the venue on a socket's close). */
  | { readonly type: 'cancel_all'; readonly owner: string; readonly scope: CancelScope; readonly reason: 'mass_cancel' | 'disconnect' }
  /** The dead-man switch: cancel every open order of the wallet at the first clock `timeoutMs` after this command (0 disarms). */
  | { readonly type: 'cancel_after'; readonly owner: string; readonly timeoutMs: number }

  | ({ readonly type: 'set_mmp'; readonly owner: string } & MmpConfig)
  | { readonly type: 'reset_mmp'; readonly owner: string; readonly pairId: Hex }
  /** Create the wallet's referral code (4-16 [A-Z0-9]; one per wallet; the gateway picks one when the caller does not). */
  | { readonly type: 'referral_code'; readonly owner: string; readonly code: string }
  /** Apply another wallet's referral code: once, before the wallet's first trade. */
  | { readonly type: 'referral_apply'; readonly owner: string; readonly code: string }
  /** An on-chain event told by the chain-indexing provider (webhook), applied once per provider `id`. */
  | { readonly type: 'chain_event'; readonly id: string; readonly event: ChainEventData }
  /** Add cash to the insurance fund: its seed on local/testnet at the first start, or an admin's deposit (COLLATERAL6). */
  | { readonly type: 'insurance_fund_deposit'; readonly amount: bigint; readonly reason: 'seed' | 'deposit' };

export type Command = CommandHeader & CommandBody;
export type CommandType = Command['type'];
