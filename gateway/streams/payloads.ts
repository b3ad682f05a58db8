/**
 * Event -> payload: what each channel's `data` carries (shapes in schemas.ts, decisions in
 * docs/streams.md). Pure functions of an event and the read models; the publisher
 * serialises each result once and fans it out.
 */
import { instructionsJson } from '../orders/instructionFields.ts';
import type { Hex, DepthEvent, DepthLevel, LiquidationEvent, MmpEvent, OracleEvent, OrderEvent, PositionEvent, RfqEvent, TradeEvent } from '../../engine/index.ts';
import { WAD_PER_C6 } from '../../engine/index.ts';
import type { Catalog } from '../readModels/catalog.ts';
import type { PortfolioFigures } from '../readModels/accounts.ts';
import type { DepthLevels } from '../readModels/marketData.ts';
import { liquidationJson, liquidationRecord } from '../readModels/liquidations.ts';

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

const level = (l: DepthLevel): [string, string] => [l[0].toString(), l[1].toString()];

/** A depth delta: `seq` and `prevSeq` are the series' book sequences (the depth snapshot's `seq` is one too). */
export function depthDelta(e: DepthEvent) {
  return { type: 'delta' as const, seq: e.bookSeq, prevSeq: e.prevBookSeq, bids: e.bids.map(level), asks: e.asks.map(level), timestamp: iso(e.ts) };
}

export function depthSnapshot(symbol: string, seriesId: Hex, levels: DepthLevels, nowMs: number) {
  return { type: 'snapshot' as const, symbol, seriesId, seq: levels.seq, bids: levels.bids, asks: levels.asks, timestamp: iso(nowMs) };
}

export function publicTrade(e: TradeEvent, symbol: string) {
  return { id: e.tradeId, seriesId: e.seriesId, symbol, price: e.price.toString(), size: e.size.toString(), side: e.takerSide, timestamp: iso(e.ts) };
}

export function indexUpdate(e: OracleEvent, pairSymbol: string) {
  return { pairId: e.pairId, symbol: pairSymbol, price: e.spot.toString(), volatility: e.volatility.toString(), riskFreeRate: e.riskFreeRate.toString(), timestamp: iso(e.ts) };
}

export function rfqPublic(e: Extract<RfqEvent, { type: 'rfq_created' | 'rfq_resolved' }>) {
  return e.type === 'rfq_created'
    ? { type: e.type, requestId: e.requestId, pairId: e.pairId, seriesId: e.seriesId, expiresAt: iso(e.expiresAt * 1000), timestamp: iso(e.ts) }
    : { type: e.type, requestId: e.requestId, status: e.status, quoteId: e.quoteId, timestamp: iso(e.ts) };
}

/** The message every connected MMM receives when a taker asks for a quote (interface.md "RFQ market-maker stream"). */
export function rfqRequestMessage(catalog: Catalog, e: Pick<Extract<RfqEvent, { type: 'rfq_created' }>, 'requestId' | 'pairId' | 'seriesId' | 'size' | 'takerIsBuying' | 'expiresAt'>) {
  const spec = catalog.series.get(e.seriesId);
  return {
    type: 'rfq_request' as const,
    requestId: e.requestId,
    pairId: e.pairId,
    seriesId: e.seriesId,
    strike: (spec?.strike ?? 0n).toString(),
    optionExpiry: spec?.expiry ?? 0,
    isCall: spec?.isCall ?? false,
    size: e.size.toString(),
    takerIsBuying: e.takerIsBuying,
    expiresAt: iso(e.expiresAt * 1000),
  };
}

export function rfqResolvedMessage(e: Extract<RfqEvent, { type: 'rfq_resolved' }>) {
  return { type: e.type, requestId: e.requestId, status: e.status, quoteId: e.quoteId };
}

/**
 * A trade as each side's `account@fills` sees it. The taker gets the interface's trader
 * payload; the maker the market-maker payload (`side: 'maker'`), to which `direction`
 * adds the maker's own buy or sell so that nothing is lost. Both carry extensions
 * (seriesId or symbol, portfolioId, orderId, liquidity, source).
 */
export function fills(e: TradeEvent, symbol: string) {
  const common = { tradeId: e.tradeId, size: e.size.toString(), price: e.price.toString(), timestamp: iso(e.ts), symbol, seriesId: e.seriesId, source: e.source };
  return {
    taker: { ...common, side: e.takerSide, fee: e.takerFee.toString(), portfolioId: e.takerPortfolioId, orderId: e.takerOrderId, liquidity: 'taker' as const },
    maker: {
      ...common,
      side: 'maker' as const,
      direction: e.takerSide === 'buy' ? ('sell' as const) : ('buy' as const),
      fee: e.makerFee.toString(),
      portfolioId: e.makerPortfolioId,
      orderId: e.makerOrderId,
      liquidity: 'maker' as const,
    },
  };
}

/** `account@fills` with a settlement chain: a fill is `pending` when it happens (account@settlement follows it on chain). */
export const PENDING_RELAY = { relayStatus: 'pending' as const, relayTx: null };

/**
 * `account@settlement`: a batch holding some of the wallet's trades was included in a block,
 * became final or was refused (docs/chain.md "The relayer"); `tradeIds` are the wallet's own
 * trades in it, `orderIds` its orders those trades filled.
 */
export function settlementUpdate(u: { batch: number; relayStatus: 'included' | 'final' | 'failed'; relayTx: Hex | null; tradeIds: string[]; orderIds: Hex[]; reason: string | null }, ts: number) {
  return { batch: u.batch, relayStatus: u.relayStatus, relayTx: u.relayTx, tradeIds: u.tradeIds, orderIds: u.orderIds, reason: u.reason, timestamp: iso(ts) };
}

export function orderUpdate(e: OrderEvent, symbol: string) {
  return { orderId: e.orderId, seriesId: e.seriesId, symbol, status: e.status, filled: e.filled.toString(), remaining: e.remaining.toString(), reason: e.reason, ...instructionsJson(e.instructions), cancelReason: e.cancelReason, timestamp: iso(e.ts) };
}

/** `account@mmp`: market maker protection tripped or unfroze on a pair. */
export function mmpUpdate(e: MmpEvent) {
  const w = e.window;
  return { pairId: e.pairId, frozen: e.frozen, frozenUntil: e.frozenUntil, reason: e.reason, window: { qty: w.qty.toString(), delta: w.delta.toString(), vega: w.vega.toString(), trades: w.trades }, timestamp: iso(e.ts) };
}

/** `account@liquidations`: one of the wallet's liquidations, as GET /api/account/liquidations lists it. */
export function liquidationUpdate(e: LiquidationEvent) {
  return { ...liquidationJson(liquidationRecord(e)), timestamp: iso(e.ts) };
}

/** `global@liquidations`: each close of a liquidation, without its owner; `side` is what the venue did for the liquidated portfolio. */
export function liquidationCloses(e: LiquidationEvent) {
  return e.closes.map((c) => ({ seriesId: c.seriesId, side: c.side, size: c.size.toString(), price: c.price.toString(), timestamp: iso(e.ts) }));
}

/**
 * `account@positions`: the balance after the change and the position's unrealized PnL
 * (COLLATERAL6) at the current mark, from the position event and the catalog's marks (a
 * settled series has no mark left to count; a closed position has no PnL left).
 */
export function positionUpdate(catalog: Catalog, e: PositionEvent, symbol: string) {
  let unrealized = 0n;
  if (e.balance !== 0n || e.premium !== 0n) {
    unrealized = e.premium;
    const series = catalog.series.get(e.seriesId);
    if (series && !series.settled) unrealized += (e.balance * series.marks.mark) / 10n ** 30n;
  }
  return { portfolioId: e.portfolioId, seriesId: e.seriesId, symbol, size: e.balance.toString(), unrealizedPnl: unrealized.toString(), timestamp: iso(e.ts) };
}

/**
 * `account@portfolios` (api.md): the portfolio's figures as of its last portfolio event (the
 * accounts fold). Cash in COLLATERAL6, margins and the health ratio in WAD. A market maker's
 * portfolio 0 is its whole margin account (cash and internal portfolios).
 */
export function portfolioUpdate(p: PortfolioFigures, nowMs: number) {
  return {
    portfolioId: p.id,
    deposit: p.deposit.toString(),
    equity: p.equity.toString(),
    unrealizedPnl: p.unrealizedPnl.toString(),
    initialMargin: (p.initialMargin * WAD_PER_C6).toString(),
    maintenanceMargin: (p.maintenanceMargin * WAD_PER_C6).toString(),
    healthRatio: p.healthRatio.toString(),
    isHealthy: p.isHealthy,
    isLiquidatable: !p.isHealthy,
    maxWithdraw: p.maxWithdraw.toString(),
    positionCount: p.positionCount,
    timestamp: iso(nowMs),
  };
}
