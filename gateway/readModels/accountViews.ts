/**
 * What a wallet sees of its own money (interface.md "User profile" .. "Fees"), built on
 * request from the read models (architecture.md rule 6): portfolio figures, positions,
 * trades and fees from the accounts fold (accounts.ts), open orders from the order history,
 * marks and spot from the catalog. Reads only; nothing here changes the venue.
 *
 * Units on the wire: cash (deposit, equity, PnL, premium, fees, maxWithdraw) COLLATERAL6;
 * prices, sizes, balances, Greeks and notional WAD; the engine keeps margin in
 * COLLATERAL6, so initialMargin and maintenanceMargin are scaled by 10^12 to WAD;
 * healthRatio is already a WAD ratio in the engine.
 *
 * A market maker's internal trading portfolios (negative ids in the engine) are shown as
 * its portfolio 0, whose risk the engine already computes over the whole group.
 */
import type { RelayStatus } from './settlement.ts';
import { instructionsJson, type InstructionsJson } from '../orders/instructionFields.ts';
import { WAD, WAD_PER_C6, defaultVenueConfig, liquidationSpot, type Hex, type SpotPosition } from '../../engine/index.ts';
import type { ReadModels } from './readModels.ts';
import type { PortfolioFigures, PositionFigures } from './accounts.ts';

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
  liquidationSpot: string | null;
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
export type UserTradeJson = { id: string; seriesId: Hex; symbol: string; portfolioId: number; side: 'buy' | 'sell'; price: string; size: string; fee: string; liquidity: 'maker' | 'taker'; timestamp: number; relayStatus?: RelayStatus; relayTx?: Hex | null };
export type FeesJson = { totalFeesPaid: string; fees24h: string; makerFees: string; takerFees: string; rebatesReceived: string };
export type ProfileJson = { address: string; portfolioCount: number; totalEquity: string; totalDeposit: string; totalUnrealizedPnl: string; isHealthy: boolean; positionCount: number };
export type PortfolioListEntryJson = { id: number; owner: string; cashBalance: string; marginUsed: string; createdAt: string };

export type TradePage = { trades: UserTradeJson[]; nextCursor: string | null };

export class AccountViews {
  /** Liquidation spots by wallet and portfolio, with the read seq they were computed at (a search of some hundred repricings). */
  private readonly spots = new Map<string, { seq: number; spot: bigint | null }>();

  constructor(
    private readonly reads: ReadModels,
    /** Whether the venue settles on chain: trades then say where their settlement stands (docs/chain.md). */
    private readonly onChain = false,
  ) {}

  /**
   * The spot at which the portfolio's equity would meet its maintenance margin, other inputs
   * fixed (engine's liquidationSpot over the folded cash, positions, series and oracle);
   * null without positions or with positions on several pairs.
   */
  liquidationSpot(p: PortfolioFigures): bigint | null {
    const key = `${p.owner}|${p.id}`;
    const cached = this.spots.get(key);
    if (cached !== undefined && cached.seq === this.reads.seq) return cached.spot;
    const catalog = this.reads.catalog;
    let cash = p.deposit;
    let pairId: Hex | null = null;
    let several = false;
    const positions: SpotPosition[] = [];
    for (const pos of this.reads.accounts.positions(p.owner, p.id)) {
      cash += pos.premium;
      const series = catalog.series.get(pos.seriesId);
      if (pos.balance === 0n || series === undefined || series.settled) continue;
      if (pairId !== null && series.pairId !== pairId) several = true;
      pairId = series.pairId;
      positions.push({ isCall: series.isCall, strike: Number(series.strike) / 1e18, expiry: series.expiry, balance: Number(pos.balance) / 1e18 });
    }
    const o = pairId === null || several ? undefined : catalog.oracles.get(pairId);
    const c = defaultVenueConfig;
    const spot = o === undefined ? null : liquidationSpot({ cash: Number(cash) / 1e6, positions, spot: Number(o.spot) / 1e18, volatility: Number(o.volatility) / 1e18, riskFreeRate: Number(o.riskFreeRate) / 1e18, nowMs: this.reads.ts, shortFloorRate: Number(c.shortFloorRate) / 1e18, maintenanceRate: Number(c.maintenanceRate) / 1e18 });
    if (this.spots.size >= 10_000) this.spots.clear();
    this.spots.set(key, { seq: this.reads.seq, spot });
    return spot;
  }

  /** The portfolios a client can name: 0 (once it exists) and 1, 2, ...; internal ones fold into 0. */
  portfolios(owner: string): PortfolioFigures[] {
    return this.reads.accounts.portfolios(owner);
  }

  portfolio(owner: string, id: number): PortfolioFigures | null {
    return this.reads.accounts.portfolio(owner, id);
  }

  summary(p: PortfolioFigures): PortfolioSummaryJson {
    return { id: p.id, positionCount: p.positionCount, equity: s(p.equity), deposit: s(p.deposit), isHealthy: p.isHealthy, createdAt: p.createdAt };
  }

  detail(p: PortfolioFigures): PortfolioDetailJson {
    return {
      id: p.id,
      deposit: s(p.deposit),
      equity: s(p.equity),
      unrealizedPnl: s(p.unrealizedPnl),
      maxWithdraw: s(p.maxWithdraw),
      initialMargin: s(p.initialMargin * WAD_PER_C6),
      maintenanceMargin: s(p.maintenanceMargin * WAD_PER_C6),
      healthRatio: s(p.healthRatio),
      isHealthy: p.isHealthy,
      isLiquidatable: !p.isHealthy,
      positionCount: p.positionCount,
      createdAt: p.createdAt,
      liquidationSpot: ((x) => (x === null ? null : s(x)))(this.liquidationSpot(p)),
    };
  }

  /** `maxWithdraw` is the engine's rule (engine/flows/cash.ts), already capped at the portfolio's own deposit in the event. */
  collateral(p: PortfolioFigures): CollateralJson {
    const locked = p.deposit - p.maxWithdraw;
    return { deposit: s(p.deposit), maxWithdraw: s(p.maxWithdraw), locked: s(locked > 0n ? locked : 0n) };
  }

  positions(p: PortfolioFigures): PositionJson[] {
    const out: PositionJson[] = [];
    for (const pos of this.reads.accounts.positions(p.owner, p.id)) out.push(this.position(pos));
    return out.sort((a, b) => (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0));
  }

  private position(pos: PositionFigures): PositionJson {
    const catalog = this.reads.catalog;
    const series = catalog.series.get(pos.seriesId);
    const marks = series?.marks ?? null;
    const mark = marks?.mark ?? 0n;
    const spot = series ? (catalog.oracles.get(series.pairId)?.spot ?? 0n) : 0n;
    const greek = (g: bigint | undefined) => s(((g ?? 0n) * pos.balance) / WAD);
    const value = (pos.balance * mark) / WAD; // WAD
    return {
      seriesId: pos.seriesId,
      symbol: series?.symbol ?? pos.seriesId,
      optionBalance: s(pos.balance),
      premiumBalance: s(pos.premium),
      // Average entry: the deferred premium per contract (premium is split pro rata on a partial close).
      entryPrice: pos.averagePrice === null ? null : s(pos.averagePrice),
      realizedPnl: s(pos.realizedPnl),
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
    const out: OpenOrderJson[] = [];
    for (const v of this.reads.orders.open(owner)) {
      if (portfolioId !== undefined && v.portfolioId !== portfolioId) continue;
      out.push({
        orderId: v.orderId,
        seriesId: v.seriesId,
        symbol: v.symbol,
        portfolioId: v.portfolioId,
        side: v.side,
        price: s(v.price),
        size: s(v.size),
        filled: s(v.filled),
        remaining: s(v.remaining),
        status: v.status,
        createdAt: v.createdAt,
        expiry: v.expiry,
        ...instructionsJson(v.instructions),
      });
    }
    return out;
  }

  /**
   * The wallet's trades, newest first. `before` is a trade id (the previous page's
   * `nextCursor`): only older trades. Trade ids increase venue-wide, so the order is exact.
   */
  trades(owner: string, opts: { portfolioId?: number; limit: number; before?: bigint; within?: (sec: number) => boolean }): TradePage {
    const accounts = this.reads.accounts;
    const n = accounts.tradeCount(owner);
    if (n === 0) return { trades: [], nextCursor: null };
    const catalog = this.reads.catalog;
    const page: UserTradeJson[] = [];
    let more = false;
    for (let i = n - 1; i >= 0; i--) {
      const t = accounts.tradeAt(owner, i)!;
      if (opts.portfolioId !== undefined && t.portfolioId !== opts.portfolioId) continue;
      if (opts.before !== undefined && BigInt(t.id) >= opts.before) continue;
      if (opts.within !== undefined && !opts.within(seconds(t.ts))) continue;
      // A trade between two portfolios of one wallet (an RFQ self-fill) is listed once per
      // side under the same id: a page never splits them, so the cursor cannot skip one.
      if (page.length >= opts.limit && page[page.length - 1]!.id !== t.id) {
        more = true;
        break;
      }
      page.push({
        id: t.id,
        seriesId: t.seriesId,
        symbol: catalog.symbolOf(t.seriesId),
        portfolioId: t.portfolioId,
        side: t.side,
        price: s(t.price),
        size: s(t.size),
        fee: s(t.fee),
        liquidity: t.liquidity,
        timestamp: seconds(t.ts),
        ...(this.onChain ? this.relayOf(t.id) : {}),
      });
    }
    return { trades: page, nextCursor: more ? page[page.length - 1]!.id : null };
  }

  private relayOf(tradeId: string): { relayStatus: RelayStatus; relayTx: Hex | null } {
    const r = this.reads.settlement.trade(tradeId);
    return { relayStatus: r.relayStatus, relayTx: r.relayTx };
  }

  fees(owner: string, nowMs: number): FeesJson {
    const f = this.reads.accounts.feeTotals(owner);
    if (!f) return { totalFeesPaid: '0', fees24h: '0', makerFees: '0', takerFees: '0', rebatesReceived: '0' };
    return {
      totalFeesPaid: s(f.totalFeesPaid),
      fees24h: s(this.reads.accounts.fees24h(owner, nowMs)),
      makerFees: s(f.makerFees),
      takerFees: s(f.takerFees),
      rebatesReceived: s(f.rebatesReceived),
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
      equity += p.equity;
      deposit += p.deposit;
      pnl += p.unrealizedPnl;
      positions += p.positionCount;
      healthy &&= p.isHealthy;
    }
    return { address: owner, portfolioCount: list.length, totalEquity: s(equity), totalDeposit: s(deposit), totalUnrealizedPnl: s(pnl), isHealthy: healthy, positionCount: positions };
  }

  /** `/api/portfolio/list`: cash balance and margin in use (initial margin counting open orders). */
  list(owner: string): PortfolioListEntryJson[] {
    return this.portfolios(owner).map((p) => ({ id: p.id, owner, cashBalance: s(p.deposit), marginUsed: s(p.initialMarginWithOrders), createdAt: new Date(p.createdAt * 1000).toISOString() }));
  }
}
