/**
 * The engine's result codes: one registry for every business outcome (after exchange-core's
 * CommandResultCode). Expected rejections are returned values carrying
 * one of these codes; exceptions are reserved for broken invariants.
 *
 * Each code names the rule in `details.reason` on the wire. `kind` tells the gateway how to
 * answer: `invalid` -> 400 invalid_argument (the request itself is malformed for this venue),
 * `precondition` -> 400 failed_precondition (the request is fine but the venue's state refuses it),
 * `not_found` -> 404, `forbidden` -> 403.
 */
export const ResultCodes = {
  ok: { kind: 'ok', message: 'ok' },
  // validation against venue rules (400 invalid_argument)
  unknown_pair: { kind: 'not_found', message: 'Pair not found' },
  unknown_series: { kind: 'not_found', message: 'Series not found' },
  unknown_order: { kind: 'not_found', message: 'Order not found' },
  unknown_portfolio: { kind: 'not_found', message: 'Portfolio not found' },
  unknown_rfq: { kind: 'not_found', message: 'RFQ request not found' },
  off_tick_grid: { kind: 'invalid', message: 'price is not a whole number of ticks' },
  off_size_step: { kind: 'invalid', message: 'size is not a multiple of the size step' },
  below_min_size: { kind: 'invalid', message: 'size is below the minimum size' },
  size_too_large: { kind: 'invalid', message: 'size exceeds the maximum order size' },
  zero_price: { kind: 'invalid', message: 'price must be greater than zero' },
  tick_too_large: { kind: 'invalid', message: 'price is too large: its tick exceeds the order tick range (uint32)' },
  batch_too_large: { kind: 'invalid', message: 'batch exceeds the maximum batch size' },
  batch_empty: { kind: 'invalid', message: 'batch is empty' },
  strategy_duplicate_leg: { kind: 'invalid', message: 'two legs of a strategy name the same series' },
  strategy_bad_leg: { kind: 'invalid', message: 'strategy legs are fill-or-kill orders of one wallet and portfolio' },
  duplicate_order: { kind: 'invalid', message: 'orderId already exists' },
  duplicate_in_batch: { kind: 'invalid', message: 'the same orderId or nonce appears twice in the batch' },
  bad_amount: { kind: 'invalid', message: 'amount must be a positive numeric string' },
  same_portfolio: { kind: 'invalid', message: 'fromPortfolioId and toPortfolioId must differ' },
  pair_exists: { kind: 'invalid', message: 'pair already listed' },
  bad_oracle_value: { kind: 'invalid', message: 'oracle values must be positive' },
  mmp_bad_window: { kind: 'invalid', message: 'MMP windowMs must be an integer from 100 to 60000' },
  mmp_bad_frozen: { kind: 'invalid', message: 'MMP frozenMs must be an integer from 0 to 3600000' },
  mmp_bad_limit: { kind: 'invalid', message: 'MMP limits must be non-negative (0 = off)' },
  mmp_not_configured: { kind: 'not_found', message: 'no MMP config for this pair' },
  // ownership (403)
  not_owner: { kind: 'forbidden', message: 'order belongs to another wallet' },
  not_mmm: { kind: 'forbidden', message: 'MMM membership required' },
  // state-dependent (400 failed_precondition)
  series_settled: { kind: 'precondition', message: 'series is settled' },
  series_expired: { kind: 'precondition', message: 'series has expired' },
  order_expiry_passed: { kind: 'precondition', message: 'order expiry is in the past' },
  order_expiry_after_series: { kind: 'precondition', message: 'order expiry is after the series expiry' },
  order_not_open: { kind: 'precondition', message: 'order is no longer open' },
  nonce_used: { kind: 'precondition', message: 'nonce already used' },
  bad_cancel_after: { kind: 'invalid', message: 'timeoutMs must be 0 (disarm) or from 1000 to 600000' },
  deadline_passed: { kind: 'precondition', message: 'signature deadline has passed' },
  insufficient_margin: { kind: 'precondition', message: 'insufficient margin' },
  insufficient_cash: { kind: 'precondition', message: 'insufficient cash for premium and fees' },
  insufficient_funds: { kind: 'precondition', message: 'amount exceeds maxWithdraw' },
  deposit_limit: { kind: 'precondition', message: 'deposit would exceed the uint128 bound of a portfolio (2^128-1 COLLATERAL6 units)' },
  strategy_not_fillable: { kind: 'precondition', message: 'a strategy leg cannot fill in full at its limit' },
  oi_cap: { kind: 'precondition', message: 'open-interest cap reached' },
  no_oracle_price: { kind: 'precondition', message: 'no oracle price for this pair yet' },
  portfolio_reserved: { kind: 'precondition', message: 'portfolio 0 of a market maker holds cash only' },
  rfq_closed: { kind: 'precondition', message: 'RFQ request is not open' },
  quote_expired: { kind: 'precondition', message: 'quote has expired' },
  quote_mismatch: { kind: 'precondition', message: 'quote does not match the request' },
  quote_invalid_nonce: { kind: 'precondition', message: 'InvalidNonce' },
  quote_exhausted: { kind: 'precondition', message: 'quote has no remaining size' },
  duplicate_client_order_id: { kind: 'precondition', message: 'clientOrderId is already used by an open order of this wallet' },
  post_only_would_take: { kind: 'precondition', message: 'post-only order would take liquidity' },
  reduce_only_would_increase: { kind: 'precondition', message: 'reduce-only order could increase the position' },
  mmp_frozen: { kind: 'precondition', message: 'market maker protection is frozen for this wallet on this pair' },
  referral_bad_code: { kind: 'invalid', message: 'code must be 4 to 16 characters A-Z and 0-9' },
  referral_code_exists: { kind: 'precondition', message: 'this wallet already has a referral code' },
  referral_code_taken: { kind: 'precondition', message: 'referral code is already taken' },
  referral_unknown_code: { kind: 'not_found', message: 'Referral code not found' },
  referral_own_code: { kind: 'precondition', message: 'a wallet cannot apply its own referral code' },
  referral_already_applied: { kind: 'precondition', message: 'this wallet has already applied a referral code' },
  referral_after_trade: { kind: 'precondition', message: 'a referral code can only be applied before the first trade' },
  chain_event_duplicate: { kind: 'precondition', message: 'chain event already received' },
  relay_out_of_order: { kind: 'precondition', message: 'settlement batches are confirmed once each, in order' },
  clock_backwards: { kind: 'precondition', message: 'command timestamp is before the venue clock' },
} as const;

export type ResultCode = keyof typeof ResultCodes;
export type ResultKind = (typeof ResultCodes)[ResultCode]['kind'];

/** A rejection as a value: the code, and details for the client (field, limits, ids). */
export type Rejection = { readonly code: Exclude<ResultCode, 'ok'>; readonly details?: Readonly<Record<string, string | number | boolean | null>> };

export function reject(code: Exclude<ResultCode, 'ok'>, details?: Record<string, string | number | boolean | null>): Rejection {
  return details === undefined ? { code } : { code, details };
}

export function messageOf(code: ResultCode): string {
  return ResultCodes[code].message;
}
