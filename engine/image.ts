/**
 * The engine's image: events that, folded into empty read models, describe the state as it
 * stands (docs/events.md "Seeding"). It seeds read models where no earlier events can be
 * had: a restart from a snapshot taken before snapshots carried read-model state, a read
 * replica joining from a snapshot. It describes what the state holds (pairs, series and
 * marks, oracle states, books, open orders, positions, portfolios, market makers, RFQ
 * requests); history the state does not hold (finished orders, past trades) is not in it.
 *
 * Every event carries the snapshot's `seq`; its `ts` is the venue time, or the time the
 * state recorded for the thing it describes (an RFQ request's creation, a quote's arrival).
 */
import type { EngineEvent } from './events.ts';
import type { VenueState } from './state.ts';
import { markValues } from './flows/market.ts';
import { mmpEvent } from './flows/mmp.ts';
import { portfolioEvent, positionEventOf, type UnstampedEvent } from './flows/eventSink.ts';
import { orderEventOf } from './flows/orders.ts';
import { INSURANCE_FUND_OWNER, INSURANCE_FUND_PORTFOLIO } from './actors/insuranceFund.ts';


/** The image in the engine's compact form (events.ts `EngineEvent`; engine/wire.ts converts it like any command's events). */
export function imageEvents(state: VenueState): EngineEvent[] {
  const seq = state.seq;
  const out: EngineEvent[] = [];
  const at = (ts: number, e: UnstampedEvent): void => void out.push({ ...e, seq, ts } as EngineEvent);
  const now = state.now;
  for (const p of state.pairs.values()) {
    at(now, { type: 'pair_listed', pairId: p.pairId, symbol: p.symbol, underlying: p.underlying, quote: p.quote, tickDecimals: p.tickDecimals, minSize: p.minSize, sizeStep: p.sizeStep, maxCallOI: p.maxCallOI, maxPutOI: p.maxPutOI });
  }
  for (const s of state.series.values()) {
    if (s.marks === null) continue; // never priced: not listed yet
    const spec = s.spec;
    at(now, { type: 'series_listed', seriesId: spec.seriesId, pairId: spec.pairId, pairSymbol: spec.pairSymbol, underlying: spec.underlying, symbol: spec.symbol, strike: spec.strike, expiry: spec.expiry, isCall: spec.isCall, marks: markValues(s.marks), openInterest: state.openInterestWad(s) });
    if (s.settled) at(now, { type: 'series_settled', seriesId: spec.seriesId, settlementPrice: s.settlementPrice ?? 0n, openInterest: state.openInterestWad(s) });
  }
  for (const [pairId, o] of state.oracles) {
    const marks = [];
    for (const s of state.series.values()) if (s.spec.pairId === pairId && !s.settled && s.marks !== null) marks.push(markValues(s.marks));
    at(o.lastUpdate * 1000, { type: 'oracle', pairId, spot: o.spot, volatility: o.volatility, riskFreeRate: o.riskFreeRate, marks });
  }
  for (const s of state.series.values()) {
    const pair = state.pairs.get(s.spec.pairId);
    if (!pair) continue; // every book, empty ones too: the depth stream goes on from its sequence
    const side = (isBid: boolean) => s.book.depth(isBid, Number.MAX_SAFE_INTEGER).map((l) => [l.tick, l.qty, l.count] as const);
    at(now, { type: 'depth', seriesId: s.spec.seriesId, bookSeq: s.bookSeq, prevBookSeq: 0, bids: side(true), asks: side(false) });
  }
  for (const [owner, cancelAt] of state.cancelAfter) at(now, { type: 'dead_man', owner, cancelAt });
  // The insurance fund's cash and bad debt (its liquidations are history, not state).
  const fund = state.accounts.portfolio(INSURANCE_FUND_OWNER, INSURANCE_FUND_PORTFOLIO);
  if (fund !== undefined || state.insurance.badDebt !== 0n) at(now, { type: 'insurance_fund', reason: 'deposit', amount: 0n, balance: fund === undefined ? 0n : state.accounts.depositOf(fund), badDebt: state.insurance.badDebt });
  const accounts = state.accounts;
  for (let w = 0; w < accounts.walletCount; w++) {
    const owner = accounts.owners[w]!;
    if (accounts.isMmm[w] === 1) at(now, { type: 'mmm', address: owner, isMmm: true });
    if (accounts.mmmNonce[w] !== 0n) at(now, { type: 'mmm_nonce', address: owner, nonce: accounts.mmmNonce[w]! });
    for (const p of accounts.walletPortfolios(w)) {
      for (const pos of p.positions.values()) at(now, positionEventOf(p, pos.seriesId, pos, true));
      if (p.internalPair === null) at(now, portfolioEvent(state, p));
    }
  }
  for (const s of state.series.values()) {
    const pair = state.pairs.get(s.spec.pairId);
    if (!pair) continue;
    for (const r of s.openOrders()) at(r.createdAt, orderEventOf(r, r.filledLots, r.lots - r.filledLots, null, null));
  }
  for (const r of state.rfq.requests.values()) {
    at(r.createdAt, { type: 'rfq_created', requestId: r.requestId, taker: r.taker, portfolioId: r.portfolioId, pairId: r.pairId, seriesId: r.seriesId, size: r.size, takerIsBuying: r.takerIsBuying, expiresAt: r.expiresAt });
    for (const q of r.quotes.values()) {
      at(q.submittedAt, { type: 'rfq_quote', requestId: r.requestId, quote: { quoteId: q.quoteId, mmm: q.mmm, taker: q.taker, seriesId: q.seriesId, takerIsBuying: q.takerIsBuying, price: q.price, size: q.size, nonce: q.nonce, quoteExpiry: q.quoteExpiry, signature: q.signature ?? null } });
    }
  }
  // Resolutions in the order they happened (the RFQ actor's resolved list), as readers bound them.
  for (const requestId of state.rfq.resolved) {
    const r = state.rfq.requests.get(requestId);
    if (r === undefined || r.status === 'open') continue;
    const filled = r.filledQuoteId === null ? null : (r.quotes.get(r.filledQuoteId)?.filled ?? null);
    at(now, { type: 'rfq_resolved', requestId: r.requestId, status: r.status, quoteId: r.filledQuoteId, fillSize: filled, takerFill: null });
  }
  for (const e of state.mmp.entries.values()) at(now, mmpEvent(state.mmp, e, now));
  for (const [code, owner] of state.referrals.owners) at(now, { type: 'referral_code', owner, code });
  for (const [referee, l] of state.referrals.links) at(now, { type: 'referral_applied', owner: referee, referrer: l.referrer, code: l.code });
  return out;
}
