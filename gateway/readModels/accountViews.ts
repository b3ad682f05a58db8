/**
 * What a wallet sees of its own money (interface.md "User profile" .. "Fees"), built on
 * request from the engine's account actor: every number comes from `accounts.risk(...)`
 * and the positions, orders, trades and fees the actor keeps (docs/accounts.md). Reads
 * only; nothing here changes the venue.
 *
 * Units on the wire: cash (deposit, equity, PnL, premium, fees, maxWithdraw) COLLATERAL6;
 * prices, sizes, balances, Greeks and notional WAD; the engine keeps margin in
 * COLLATERAL6, so initialMargin and maintenanceMargin are scaled by 10^12 to WAD;
 * healthRatio is already a WAD ratio in the engine.
 *
 * A market maker's internal trading portfolios (negative ids in the engine) are shown as
 * its portfolio 0, whose risk the engine already computes over the whole group.
 */
import { instructionsJson, type InstructionsJson } from '../orders/instructionFields.ts';
import type { Hex } from '../../engine/domain/hex.ts';
import { WAD, WAD_PER_C6 } from '../../engine/domain/fixed.ts';
import type { Venue } from '../../engine/venue.ts';
import type { Account, RiskView } from '../../engine/actors/accounts.ts';
import type { Portfolio, Position } from '../../engine/actors/portfolio.ts';
import type { OrderRecord } from '../../engine/actors/series.ts';
import { orderFigures } from './orderFigures.ts';

const abs = (x: bigint) => (x < 0n ? -x : x);
const s = (x: bigint) => x.toString();
const seconds = (ms: number) => Math.floor(ms / 1000);

export type PortfolioSummaryJson = { id: number; positionCount: number; equity: string; deposit: string; isHealthy: boolean; createdAt: number };
export type PortfolioDetailJson = {
  id: number;
  deposit: string;
  equity: string;
  unrealizedPnl: string;
  maxWithdraw: string;
  initialMargin: string;
  maintenanceMargin: string;
  healthRatio: string;
  isHealthy: boolean;
  isLiquidatable: boolean;
  positionCount: number;
  createdAt: number;
};
export type PositionJson = {
  seriesId: Hex;
  symbol: string;
  optionBalance: string;
  premiumBalance: string;
  entryPrice: string | null;
  realizedPnl: string;
  markPrice: string;
  notional: string;
  marketValue: string;
  unrealizedPnl: string;
  delta: string;
  gamma: string;
  vega: string;
  theta: string;
};
export type CollateralJson = { deposit: string; maxWithdraw: string; locked: string };
export type OpenOrderJson = {
  orderId: Hex;
  seriesId: Hex;
  symbol: string;
  portfolioId: number;
  side: 'buy' | 'sell';
  price: string;
  size: string;
  filled: string;
  remaining: string;
  status: string;
  createdAt: number;
  expiry: number;
} & InstructionsJson;
export type UserTradeJson = { id: string; seriesId: Hex; symbol: string; portfolioId: number; side: 'buy' | 'sell'; price: string; size: string; fee: string; liquidity: 'maker' | 'taker'; timestamp: number };
export type FeesJson = { totalFeesPaid: string; fees24h: string; makerFees: string; takerFees: string; rebatesReceived: string };
export type ProfileJson = { address: string; portfolioCount: number; totalEquity: string; totalDeposit: string; totalUnrealizedPnl: string; isHealthy: boolean; positionCount: number };
export type PortfolioListEntryJson = { id: number; owner: string; cashBalance: string; marginUsed: string; createdAt: string };

export type TradePage = { trades: UserTradeJson[]; nextCursor: string | null };

export class AccountViews {
  constructor(private readonly venue: Venue) {}

  private account(owner: string): Account | undefined {
    return this.venue.state.accounts.accounts.get(owner);
  }

  /** The portfolios a client can name: 0 (once it exists) and 1, 2, ...; internal ones fold into 0. */
  portfolios(owner: string): Portfolio[] {
    const a = this.account(owner);
    if (!a) return [];
    return [...a.portfolios.values()].filter((p) => p.id >= 0).sort((x, y) => x.id - y.id);
  }

  portfolio(owner: string, id: number): Portfolio | null {
    if (!Number.isSafeInteger(id) || id < 0) return null;
    return this.account(owner)?.portfolios.get(id) ?? null;
  }

  private risk(p: Portfolio): RiskView {
    return this.venue.state.accounts.risk(p);
  }

  /** The engine portfolios whose positions and orders a public portfolio shows (a market maker's 0 shows its internal ones). */
  private members(p: Portfolio): Portfolio[] {
    return this.venue.state.accounts.marginGroup(p);
  }

  summary(p: Portfolio): PortfolioSummaryJson {
    const r = this.risk(p);
    return { id: p.id, positionCount: r.positionCount, equity: s(r.equity), deposit: s(r.deposit), isHealthy: r.isHealthy, createdAt: p.createdAt };
  }

  detail(p: Portfolio): PortfolioDetailJson {
    const r = this.risk(p);
    return {
      id: p.id,
      deposit: s(r.deposit),
      equity: s(r.equity),
      unrealizedPnl: s(r.unrealizedPnl),
      maxWithdraw: s(this.maxWithdraw(p, r)),
      initialMargin: s(r.initialMargin * WAD_PER_C6),
      maintenanceMargin: s(r.maintenanceMargin * WAD_PER_C6),
      healthRatio: s(r.healthRatio),
      isHealthy: r.isHealthy,
      isLiquidatable: !r.isHealthy,
      positionCount: r.positionCount,
      createdAt: p.createdAt,
    };
  }

  /** What a withdraw from this portfolio may take: the engine's rule (engine/flows/cash.ts), capped at the portfolio's own deposit. */
  private maxWithdraw(p: Portfolio, r: RiskView): bigint {
    const own = p.deposit > 0n ? p.deposit : 0n;
    return r.maxWithdraw < own ? r.maxWithdraw : own;
  }

  collateral(p: Portfolio): CollateralJson {
    const r = this.risk(p);
    const max = this.maxWithdraw(p, r);
    const deposit = p.deposit;
    const locked = deposit - max;
    return { deposit: s(deposit), maxWithdraw: s(max), locked: s(locked > 0n ? locked : 0n) };
  }

  positions(p: Portfolio): PositionJson[] {
    const out: PositionJson[] = [];
    for (const q of this.members(p)) for (const pos of q.positions.values()) if (pos.balance !== 0n || pos.premium !== 0n) out.push(this.position(pos));
    return out.sort((a, b) => (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0));
  }

  private position(pos: Position): PositionJson {
    const state = this.venue.state;
    const series = state.series.get(pos.seriesId);
    const marks = series?.marks ?? null;
    const mark = marks?.mark ?? 0n;
    const spot = series ? (state.oracles.get(series.spec.pairId)?.spot ?? 0n) : 0n;
    const greek = (g: bigint | undefined) => s(((g ?? 0n) * pos.balance) / WAD);
    const value = (pos.balance * mark) / WAD; // WAD
    return {
      seriesId: pos.seriesId,
      symbol: series?.spec.symbol ?? pos.seriesId,
      optionBalance: s(pos.balance),
      premiumBalance: s(pos.premium),
      // Average entry: the deferred premium per contract (premium is split pro rata on a partial close).
      entryPrice: pos.balance === 0n ? null : s((abs(pos.premium) * WAD * WAD_PER_C6) / abs(pos.balance)),
      realizedPnl: s(pos.realized),
      markPrice: s(mark),
      notional: s((abs(pos.balance) * spot) / WAD),
      marketValue: s(value),
      // COLLATERAL6, the same terms as the portfolio's unrealizedPnl, so positions add up to it.
      unrealizedPnl: s((pos.balance * mark) / (WAD * WAD_PER_C6) + pos.premium),
      delta: greek(marks?.delta),
      gamma: greek(marks?.gamma),
      vega: greek(marks?.vega),
      theta: greek(marks?.theta),
    };
  }

  /** Open orders (open or partially filled), newest first; `portfolioId` filters by the portfolio the order names. */
  openOrders(owner: string, portfolioId?: number): OpenOrderJson[] {
    const state = this.venue.state;
    const a = this.account(owner);
    if (!a) return [];
    const records: OrderRecord[] = [];
    for (const p of a.portfolios.values()) {
      for (const { record } of p.openOrders.values()) if (portfolioId === undefined || record.portfolioId === portfolioId) records.push(record);
    }
    records.sort((x, y) => y.ref - x.ref);
    return records.map((r) => {
      const f = orderFigures(state, r)!;
      return {
        orderId: r.orderId,
        seriesId: r.seriesId,
        symbol: f.symbol,
        portfolioId: r.portfolioId,
        side: r.isBuy ? 'buy' : 'sell',
        price: s(f.price),
        size: s(f.size),
        filled: s(f.filled),
        remaining: s(f.remaining),
        status: r.status,
        createdAt: seconds(r.createdAt),
        expiry: r.expiry,
        ...instructionsJson(r.instructions),
      };
    });
  }

  /**
   * The wallet's trades, newest first. `before` is a trade id (the previous page's
   * `nextCursor`): only older trades. Trade ids increase venue-wide, so the order is exact.
   */
  trades(owner: string, opts: { portfolioId?: number; limit: number; before?: bigint }): TradePage {
    const a = this.account(owner);
    if (!a) return { trades: [], nextCursor: null };
    const state = this.venue.state;
    const page: UserTradeJson[] = [];
    let more = false;
    for (let i = a.trades.length - 1; i >= 0; i--) {
      const t = a.trades.at(i)!;
      if (opts.portfolioId !== undefined && t.portfolioId !== opts.portfolioId) continue;
      if (opts.before !== undefined && BigInt(t.id) >= opts.before) continue;
      // A trade between two portfolios of one wallet (an RFQ self-fill) is listed once per
      // side under the same id: a page never splits them, so the cursor cannot skip one.
      if (page.length >= opts.limit && page[page.length - 1]!.id !== t.id) {
        more = true;
        break;
      }
      page.push({
        id: t.id,
        seriesId: t.seriesId,
        symbol: state.series.get(t.seriesId)?.spec.symbol ?? t.seriesId,
        portfolioId: t.portfolioId,
        side: t.side,
        price: s(t.price),
        size: s(t.size),
        fee: s(t.fee),
        liquidity: t.liquidity,
        timestamp: seconds(t.ts),
      });
    }
    return { trades: page, nextCursor: more ? page[page.length - 1]!.id : null };
  }

  fees(owner: string, nowMs: number): FeesJson {
    const a = this.account(owner);
    if (!a) return { totalFeesPaid: '0', fees24h: '0', makerFees: '0', takerFees: '0', rebatesReceived: '0' };
    return {
      totalFeesPaid: s(a.fees.totalFeesPaid),
      fees24h: s(this.venue.state.accounts.fees24h(a, nowMs)),
      makerFees: s(a.fees.makerFees),
      takerFees: s(a.fees.takerFees),
      rebatesReceived: s(a.fees.rebatesReceived),
    };
  }

  profile(owner: string): ProfileJson {
    let equity = 0n;
    let deposit = 0n;
    let pnl = 0n;
    let positions = 0;
    let healthy = true;
    const list = this.portfolios(owner);
    for (const p of list) {
      const r = this.risk(p);
      equity += r.equity;
      deposit += r.deposit;
      pnl += r.unrealizedPnl;
      positions += r.positionCount;
      healthy &&= r.isHealthy;
    }
    return { address: owner, portfolioCount: list.length, totalEquity: s(equity), totalDeposit: s(deposit), totalUnrealizedPnl: s(pnl), isHealthy: healthy, positionCount: positions };
  }

  /** `/api/portfolio/list`: cash balance and margin in use (initial margin counting open orders). */
  list(owner: string): PortfolioListEntryJson[] {
    return this.portfolios(owner).map((p) => {
      const r = this.risk(p);
      return { id: p.id, owner, cashBalance: s(p.deposit), marginUsed: s(r.initialMarginWithOrders), createdAt: new Date(p.createdAt * 1000).toISOString() };
    });
  }
}
