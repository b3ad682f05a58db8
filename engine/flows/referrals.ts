/**
 * Referral codes, their use, and the fee rebate at a fill (engine/actors/referrals.ts).
 * Refusals are values; a refused command changes nothing.
 */
import { reject, type Rejection } from '../codes.ts';
import type { VenueState } from '../state.ts';
import type { EventSink } from './eventSink.ts';
import type { Cash } from '../risk/exactCash.ts';

/** 4 to 16 characters, upper-case letters and digits. */
export const REFERRAL_CODE_PATTERN = /^[A-Z0-9]{4,16}$/;

export function createReferralCode(state: VenueState, sink: EventSink, owner: string, code: string): { referralCode: string } | Rejection {
  if (!REFERRAL_CODE_PATTERN.test(code)) return reject('referral_bad_code', { field: 'code' });
  const r = state.referrals;
  const own = r.codes.get(owner);
  if (own !== undefined) return reject('referral_code_exists', { code: own });
  if (r.owners.has(code)) return reject('referral_code_taken', { code });
  r.addCode(owner, code);
  sink.push({ type: 'referral_code', owner, code });
  return { referralCode: code };
}

export function applyReferralCode(state: VenueState, sink: EventSink, owner: string, code: string): { referrer: string } | Rejection {
  const r = state.referrals;
  const referrer = REFERRAL_CODE_PATTERN.test(code) ? r.owners.get(code) : undefined;
  if (referrer === undefined) return reject('referral_unknown_code', { code });
  if (referrer === owner) return reject('referral_own_code', { code });
  const before = r.links.get(owner);
  if (before !== undefined) return reject('referral_already_applied', { code: before.code });
  const wallet = state.accounts.walletOf(owner);
  if (wallet >= 0 && state.accounts.hasTraded[wallet] === 1) return reject('referral_after_trade');
  r.link(owner, referrer, code);
  sink.push({ type: 'referral_applied', owner, referrer, code });
  return { referrer };
}

/**
 * At a fill: the taker's referrer, if any, receives `referralRebateBps` of the taker fee
 * (COLLATERAL6, rounded down) in its portfolio 0, out of the fee the venue took.
 */
export function referralRebate(state: VenueState, sink: EventSink, taker: string, fee: Cash, tradeNo: number): void {
  if (fee <= 0 || state.referrals.links.size === 0) return;
  const takerFee = typeof fee === 'number' ? BigInt(fee) : fee;
  const referrer = state.referrals.referrerOf(taker);
  if (referrer === undefined) return;
  const amount = (takerFee * BigInt(state.config.referralRebateBps)) / 10_000n;
  if (amount <= 0n) return;
  const cash = state.accounts.cashPortfolio(referrer, state.now);
  state.accounts.credit(cash, amount);
  sink.portfolio(cash);
  sink.push({ type: 'referral_rebate', referrer, referee: taker, tradeId: String(tradeNo), amount });
}
