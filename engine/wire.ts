/**
 * The compact events' converter (docs/events.md "The engine's compact form"): turns what
 * `Venue.apply` and `Venue.imageEvents` return (`EngineEvent`: lots, ticks, COLLATERAL6 in
 * doubles) into the wire form every reader folds (`VenueEvent`: WAD and COLLATERAL6 bigints),
 * off the engine's turn. Pure: it reads no engine state. What it needs, each series' tick
 * decimals and lot size, it learns as a fold over the events it converts: `pair_listed` and
 * `series_listed` (a listing command's, or the engine's image at start). The values are
 * exactly those the engine made before the compact form: the same formulas, in bigint.
 */
import type { Hex } from './domain/hex.ts';
import type { ApplyResult, CommandValue, EngineApplyResult, EngineCommandValue } from './venue.ts';
import type { EngineOrderOutcome, OrderOutcome, OrderTrade } from './flows/orderResults.ts';
import { UINT256_MAX, WAD, WAD_PER_C6 } from './domain/fixed.ts';
import { tickToPrice } from './domain/ticks.ts';
import type {
  Cash,
  DepthLevel,
  EngineDepthLevel,
  EngineEvent,
  EngineOrderEvent,
  EnginePortfolioEvent,
  EnginePositionEvent,
  EngineTradeEvent,
  EventLots,
  VenueEvent,
} from './events.ts';

/** A pair's grid: price = tick x 10^(18 - tickDecimals), size = lots x sizeStep (WAD). */
type Grid = { readonly tickDecimals: number; readonly sizeStep: bigint };

/** A position's average price: |premium| (C6) x this / |balance| (WAD) is WAD per contract. */
const AVERAGE_PRICE_SCALE = WAD_PER_C6 * 10n ** 18n;

/** Cash as a bigint (exact either way: a double is an integer within the bound). */
export function cashBig(v: Cash): bigint {
  return typeof v === 'bigint' ? v : BigInt(v);
}

/** A result's events when it has none: shared, never written. */
const NO_EVENTS: readonly VenueEvent[] = Object.freeze([]);

const abs = (x: bigint): bigint => (x < 0n ? -x : x);

/** The converter: one per engine (and per replica), fed every event in order; it learns the grids from them. */
export class WireEvents {
  private readonly pairs = new Map<Hex, Grid>();
  private readonly series = new Map<Hex, Grid>();

  /** Learn from events without converting them (the engine's image at start: pair_listed, series_listed). */
  learn(events: readonly EngineEvent[]): void {
    for (const e of events) if (e.type === 'pair_listed' || e.type === 'series_listed') this.event(e);
  }

  /** One command's (or the image's) events in wire form, in order. */
  events(events: readonly EngineEvent[]): VenueEvent[] {
    const out = new Array<VenueEvent>(events.length);
    for (let i = 0; i < events.length; i++) out[i] = this.event(events[i]!);
    return out;
  }

  /**
   * An apply's result in wire form: its events, and an order command's outcomes (lots and ticks
   * in the venue's reused storage) as WAD values in objects of their own; other values and a
   * rejection as they are. Call it before the venue's next apply.
   */
  result(r: EngineApplyResult): ApplyResult {
    // A result object of its own: the engine's is rewritten by its next apply.
    if (!r.ok) return { ok: false, rejection: r.rejection, events: r.events.length === 0 ? NO_EVENTS : this.events(r.events) };
    // The events first: a command's listings come before any value that needs their grid.
    const events = r.events.length === 0 ? NO_EVENTS : this.events(r.events);
    return { ok: true, value: this.value(r.value), events };
  }

  /** A command's value in wire form: an order command's outcomes converted, any other value as it is. */
  value(v: EngineCommandValue): CommandValue {
    if (v === null || !('outcomes' in v)) return v;
    const from = v.outcomes;
    const outcomes = new Array<OrderOutcome>(from.length);
    for (let i = 0; i < from.length; i++) outcomes[i] = this.outcome(from[i]!);
    return 'strategyId' in v ? { strategyId: v.strategyId, outcomes } : { outcomes };
  }

  /** One place's outcome: filled and remaining lots, and each trade's tick and lots, in WAD on its series' grid; trade ids as decimal strings. */
  private outcome(o: EngineOrderOutcome): OrderOutcome {
    const g = this.grid(o.seriesId);
    const step = g.sizeStep;
    const tape = o.trades;
    const trades = new Array<OrderTrade>(o.tradeCount);
    for (let k = 0; k < o.tradeCount; k++) {
      const at = o.tradeStart + k;
      trades[k] = { tradeId: String(tape.ids[at]!), price: tickToPrice(tape.ticks[at]!, g.tickDecimals), size: BigInt(tape.lots[at]!) * step };
    }
    return { orderId: o.orderId, status: o.status, filled: BigInt(o.filledLots) * step, remaining: BigInt(o.remainingLots) * step, trades, instructions: o.instructions, cancelReason: o.cancelReason };
  }

  /** One event in wire form: a new object for the compact five, the same object otherwise. */
  event(e: EngineEvent): VenueEvent {
    switch (e.type) {
      case 'trade':
        return this.trade(e);
      case 'order':
        return this.order(e);
      case 'depth': {
        const g = e.bids.length + e.asks.length === 0 ? null : this.grid(e.seriesId);
        return { type: 'depth', seriesId: e.seriesId, bookSeq: e.bookSeq, prevBookSeq: e.prevBookSeq, bids: levels(e.bids, g), asks: levels(e.asks, g), seq: e.seq, ts: e.ts };
      }
      case 'position':
        return position(e, this.grid(e.seriesId));
      case 'portfolio':
        return portfolio(e);
      case 'pair_listed':
        this.pairs.set(e.pairId, { tickDecimals: e.tickDecimals, sizeStep: e.sizeStep });
        return e;
      case 'series_listed': {
        const g = this.pairs.get(e.pairId);
        if (g === undefined) throw new Error(`wire events: series ${e.seriesId} listed on pair ${e.pairId}, which no pair_listed event named`);
        this.series.set(e.seriesId, g);
        return e;
      }
      default:
        return e;
    }
  }

  private grid(seriesId: Hex): Grid {
    const g = this.series.get(seriesId);
    if (g === undefined) throw new Error(`wire events: series ${seriesId} was not listed by any series_listed event converted before`);
    return g;
  }

  private trade(e: EngineTradeEvent): VenueEvent {
    const g = this.grid(e.seriesId);
    return {
      type: 'trade',
      tradeId: String(e.tradeNo),
      seriesId: e.seriesId,
      price: e.priceWad ?? tickToPrice(e.tick, g.tickDecimals),
      size: e.sizeWad ?? BigInt(e.lots) * g.sizeStep,
      premium: cashBig(e.premium),
      notional: cashBig(e.notional),
      takerSide: e.takerSide,
      maker: e.maker,
      taker: e.taker,
      makerOrderId: e.makerOrderId,
      takerOrderId: e.takerOrderId,
      makerPortfolioId: e.makerPortfolioId,
      takerPortfolioId: e.takerPortfolioId,
      makerFee: cashBig(e.makerFee),
      takerFee: cashBig(e.takerFee),
      openInterest: wadOf(e.openInterestLots, g),
      source: e.source,
      seq: e.seq,
      ts: e.ts,
    };
  }

  private order(e: EngineOrderEvent): VenueEvent {
    const g = this.grid(e.seriesId);
    const step = g.sizeStep;
    return {
      type: 'order',
      orderId: e.orderId,
      owner: e.owner,
      portfolioId: e.portfolioId,
      seriesId: e.seriesId,
      side: e.side,
      price: tickToPrice(e.tick, g.tickDecimals),
      tick: e.tick,
      size: BigInt(e.lots) * step,
      expiry: e.expiry,
      nonce: e.nonce,
      createdAt: e.createdAt,
      instructions: e.instructions,
      status: e.status,
      filled: BigInt(e.filledLots) * step,
      remaining: BigInt(e.remainingLots) * step,
      reason: e.reason,
      cancelReason: e.cancelReason,
      signed: e.signed,
      seq: e.seq,
      ts: e.ts,
    };
  }
}

function levels(ls: readonly EngineDepthLevel[], g: Grid | null): DepthLevel[] {
  const out = new Array<DepthLevel>(ls.length);
  for (let i = 0; i < ls.length; i++) {
    const l = ls[i]!;
    out[i] = [tickToPrice(l[0], g!.tickDecimals), BigInt(l[1]) * g!.sizeStep, l[2]];
  }
  return out;
}

/** Lots (a double or the bigint count) in WAD. */
function wadOf(lots: EventLots, g: Grid): bigint {
  return (typeof lots === 'bigint' ? lots : BigInt(lots)) * g.sizeStep;
}

/** The position event with its WAD balance and average price: |premium| x 10^30 / |balance| (WAD per contract), null when flat. */
function position(e: EnginePositionEvent, g: Grid): VenueEvent {
  const premium = cashBig(e.premium);
  const balance = wadOf(e.lots, g);
  return {
    type: 'position',
    owner: e.owner,
    portfolioId: e.portfolioId,
    seriesId: e.seriesId,
    balance,
    premium,
    averagePrice: balance === 0n ? null : (abs(premium) * AVERAGE_PRICE_SCALE) / abs(balance),
    realizedPnl: cashBig(e.realizedPnl),
    seq: e.seq,
    ts: e.ts,
  };
}

/** The health ratio of equity over maintenance margin (WAD): uint256 max when no margin is needed and equity is not negative, 0 when it is. */
export function healthRatioOf(equity: bigint, maintenanceMargin: bigint): bigint {
  return maintenanceMargin === 0n ? (equity >= 0n ? UINT256_MAX : 0n) : (equity * WAD) / maintenanceMargin;
}

function portfolio(e: EnginePortfolioEvent): VenueEvent {
  const equity = cashBig(e.equity);
  const maintenanceMargin = cashBig(e.maintenanceMargin);
  return {
    type: 'portfolio',
    owner: e.owner,
    portfolioId: e.portfolioId,
    createdAt: e.createdAt,
    deposit: cashBig(e.deposit),
    unrealizedPnl: cashBig(e.unrealizedPnl),
    equity,
    initialMargin: cashBig(e.initialMargin),
    initialMarginWithOrders: cashBig(e.initialMarginWithOrders),
    maintenanceMargin,
    healthRatio: healthRatioOf(equity, maintenanceMargin),
    isHealthy: e.isHealthy,
    maxWithdraw: cashBig(e.maxWithdraw),
    positionCount: e.positionCount,
    seq: e.seq,
    ts: e.ts,
  };
}
