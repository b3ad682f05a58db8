/**
 * One fill between two portfolios, shared by the book and RFQ: positions and deferred
 * premium, realised cash, fees, open interest and the trade event.
 */
import type { Hex } from '../domain/hex.ts';
import type { TradeSource } from '../domain/values.ts';
import { makerFeeInBigint, moneyFigure, takerFeeInBigint, type FillMoney } from '../domain/fees.ts';
import type { VenueState } from '../state.ts';
import type { Portfolio } from '../actors/portfolio.ts';
import { applyFlow, emptyPosition, isFlat, collateralOf } from '../actors/position.ts';
import { REG, R_FEE, R_FLOW, R_REALIZED } from '../domain/registers.ts';
import { addLots, longDelta, negLots, type Lots } from '../domain/lots.ts';
import type { EventSink } from './eventSink.ts';
import { publicPortfolioId } from './eventSink.ts';
import { referralRebate } from './referrals.ts';

export type FillSide = { readonly portfolio: Portfolio; readonly orderId: Hex | null };

export type FillParams = {
  readonly seriesId: Hex;
  /** The series' handle (actors/seriesTable.ts) when the caller has it, as a book fill does: an array read instead of a lookup by id. */
  readonly seriesHandle?: number;
  readonly price: bigint; // WAD premium per contract
  readonly size: bigint; // WAD, for the trade event of a fill off the grid
  /** The same size in lots of the pair's size step (`sizeStep`): what positions and open interest move by. */
  readonly lots: Lots;
  /** The pair's size step, WAD per lot. */
  readonly sizeStep: bigint;
  /** The price in ticks when the caller has it (a book fill): the compact trade event carries tick and lots instead of the WAD values. */
  readonly tick?: number;
  readonly maker: FillSide;
  readonly taker: FillSide;
  readonly takerIsBuy: boolean;
  /** 'liquidation': the insurance fund taking over what the book could not (flows/liquidation.ts). */
  readonly source: TradeSource;
  /** The venue's liquidation orders pay no trading fee, nor does their counterparty (the liquidation fee stands for it). */
  readonly feeFree?: boolean;
  /**
   * The fill's premium, notional and fees (COLLATERAL6) when the caller has them (a book fill:
   * domain/fees.ts from lots and ticks, `feeFree` already applied); computed here from size,
   * price and the oracle's spot otherwise.
   */
  readonly money?: FillMoney;
};

/** Fees of a fill in COLLATERAL6 (api.md): taker rate x notional capped at a share of the premium; maker rate x notional. */
export function feesOf(state: VenueState, spot: bigint, size: bigint, price: bigint): { taker: bigint; maker: bigint } {
  const notional = collateralOf(spot, size);
  return { taker: takerFeeInBigint(state.config, notional, collateralOf(size, price)), maker: makerFeeInBigint(state.config, notional) };
}

/** The larger of a fill's taker and maker fee (feesOf) from its notional and premium: what a pre-trade check counts. */
export function worstFeeOf(state: VenueState, notional: bigint, premium: bigint): bigint {
  const taker = takerFeeInBigint(state.config, notional, premium);
  const maker = makerFeeInBigint(state.config, notional);
  return taker > maker ? taker : maker;
}

/** The money of a fill given by size and price (RFQ, the insurance fund's take-over), in bigint; written into one scratch value read at once. */
const OTHER_MONEY: FillMoney = { premium: 0n, notional: 0n, takerFee: 0n, makerFee: 0n, premiumN: -1, notionalN: -1, takerFeeN: -1, makerFeeN: -1 };
function moneyOf(state: VenueState, pairId: Hex, f: FillParams): FillMoney {
  const m = OTHER_MONEY;
  m.premium = collateralOf(f.size, f.price);
  m.notional = collateralOf(state.oracles.get(pairId)!.spot, f.size);
  // The venue's liquidation orders pay no fee (money conserved across a liquidation).
  const feeFree = f.feeFree === true;
  m.takerFee = feeFree ? 0n : takerFeeInBigint(state.config, m.notional, m.premium);
  m.makerFee = feeFree ? 0n : makerFeeInBigint(state.config, m.notional);
  return m;
}

/** Apply a fill; returns its trade id (the state's counter; the trade event carries it as a decimal string). */
export function applyFill(state: VenueState, sink: EventSink, f: FillParams): number {
  const series = f.seriesHandle === undefined ? state.series.get(f.seriesId)! : state.series.at(f.seriesHandle);
  const m = f.money ?? moneyOf(state, series.spec.pairId, f);
  const buyer = f.takerIsBuy ? f.taker : f.maker;
  const seller = f.takerIsBuy ? f.maker : f.taker;

  // The money moves through registers (domain/registers.ts), each figure's bigint only when its double is not exact: no double passed to a call.
  const bought = move(state, sink, buyer.portfolio, f.seriesId, f.sizeStep, f.lots, m, -1);
  const sold = move(state, sink, seller.portfolio, f.seriesId, f.sizeStep, negLots(f.lots), m, 1);
  state.addOpenInterest(series, typeof bought === 'number' && typeof sold === 'number' ? bought + sold : addLots(bought, sold));

  if (m.takerFeeN >= 0) {
    REG[R_FEE] = m.takerFeeN;
    state.accounts.debitAt(f.taker.portfolio, R_FEE);
  } else state.accounts.debit(f.taker.portfolio, m.takerFee);
  if (m.makerFeeN >= 0) {
    REG[R_FEE] = m.makerFeeN;
    state.accounts.debitAt(f.maker.portfolio, R_FEE);
  } else state.accounts.debit(f.maker.portfolio, m.makerFee);

  const tradeNo = state.nextTradeId++;
  record(state, f.maker.portfolio);
  record(state, f.taker.portfolio);
  // The compact trade event (engine/events.ts), in the sink's reused storage: ticks and lots for
  // a book fill, else the WAD values; each money figure as its double when exact, else its bigint.
  const onGrid = f.tick !== undefined && f.tick >= 0 && typeof f.lots === 'number';
  const e = sink.tradeEvent();
  e.tradeNo = tradeNo;
  e.seriesId = f.seriesId;
  e.tick = onGrid ? f.tick! : -1;
  e.lots = onGrid ? (f.lots as number) : -1;
  e.priceWad = onGrid ? null : f.price;
  e.sizeWad = onGrid ? null : f.size;
  // Each money figure stored from its double or its bigint by a store of its own: a double merged
  // with a bigint into one value (moneyFigure's) is boxed, a new heap number, when it is not a
  // small integer.
  if (m.premiumN >= 0) e.premium = m.premiumN;
  else e.premium = m.premium;
  if (m.notionalN >= 0) e.notional = m.notionalN;
  else e.notional = m.notional;
  e.takerSide = f.takerIsBuy ? 'buy' : 'sell';
  e.maker = f.maker.portfolio.owner;
  e.taker = f.taker.portfolio.owner;
  e.makerOrderId = f.maker.orderId;
  e.takerOrderId = f.taker.orderId;
  e.makerPortfolioId = publicPortfolioId(f.maker.portfolio);
  e.takerPortfolioId = publicPortfolioId(f.taker.portfolio);
  if (m.makerFeeN >= 0) e.makerFee = m.makerFeeN;
  else e.makerFee = m.makerFee;
  if (m.takerFeeN >= 0) e.takerFee = m.takerFeeN;
  else e.takerFee = m.takerFee;
  e.openInterestLots = series.openInterest;
  e.source = f.source;
  sink.append(e);
  referralRebate(state, sink, f.taker.portfolio.owner, moneyFigure(m.takerFeeN, m.takerFee), tradeNo);
  return tradeNo;
}

/**
 * Move one side's position by a fill of `qty` lots (of `lot` WAD) for the fill's premium (`m`)
 * paid (`sign` -1: the buyer) or received (1); returns the change in its long open interest (lots).
 */
function move(state: VenueState, sink: EventSink, p: Portfolio, seriesId: Hex, lot: bigint, qty: Lots, m: FillMoney, sign: 1 | -1): Lots {
  let pos = p.positions.get(seriesId);
  if (!pos) p.positions.set(seriesId, (pos = emptyPosition(seriesId, lot)));
  // The flow's double (0 - premium: never -0), or NaN and its bigint.
  const exactPremium = m.premiumN >= 0;
  if (exactPremium) REG[R_FLOW] = sign > 0 ? m.premiumN : 0 - m.premiumN;
  else REG[R_FLOW] = NaN;
  const change = applyFlow(pos, qty, exactPremium ? 0n : sign > 0 ? m.premium : -m.premium);
  const oi = longDelta(change.before, change.after);
  const realized = REG[R_REALIZED]!;
  if (realized === realized) {
    if (realized !== 0) state.accounts.creditAt(p, R_REALIZED);
  } else if (change.realizedWide !== 0n) state.accounts.credit(p, change.realizedWide);
  if (isFlat(pos)) p.positions.delete(seriesId);
  state.accounts.margin.positionChanged(p, seriesId);
  sink.position(p, seriesId, pos);
  return oi;
}

/**
 * One side's wallet has traded (a referral code applies only before that: flows/referrals.ts).
 * Its trade list, fees and volume are not kept here: they are folds of the trade event
 * (gateway/readModels/accounts.ts, marketData.ts).
 */
function record(state: VenueState, p: Portfolio): void {
  state.accounts.traded(p);
}
