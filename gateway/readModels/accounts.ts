/**
 * The accounts fold: per wallet its public portfolios (the margin figures of the last
 * portfolio event), the positions of each, its trades (one record per side, the last
 * TRADE_HISTORY), its fee totals and 24-hour fee log, and its traded notional per UTC day
 * (rate-limit tiers). Folded from portfolio, position, trade and clock events only
 * (architecture.md rule 6); the figures are the engine's as the events carry them, and the
 * fee and volume windows are computed as the engine's account actor computed them before
 * issue 19 moved this history out of the engine (the frozen reference engine keeps that code:
 * test/engine/reference/engine/actors/accounts.ts; the tests compare with it).
 */
import type { Hex, PortfolioEvent, PositionEvent, TradeEvent, VenueEvent } from '../../engine/index.ts';

/** A public portfolio's figures as of its last portfolio event (its margin account's: a market maker's 0 counts its internal portfolios). */
export type PortfolioFigures = {
  readonly owner: string;
  readonly id: number;
  readonly createdAt: number; // s
  readonly deposit: bigint; // C6
  readonly unrealizedPnl: bigint;
  readonly equity: bigint;
  readonly initialMargin: bigint; // C6
  readonly initialMarginWithOrders: bigint;
  readonly maintenanceMargin: bigint; // C6
  readonly healthRatio: bigint; // WAD
  readonly isHealthy: boolean;
  readonly maxWithdraw: bigint; // C6, capped at the portfolio's own deposit
  readonly positionCount: number;
};

export type PositionFigures = {
  readonly seriesId: Hex;
  readonly balance: bigint; // WAD signed
  readonly premium: bigint; // C6 signed, deferred
  readonly averagePrice: bigint | null; // WAD
  readonly realizedPnl: bigint; // C6
};

/** One side of a trade, as the wallet's trade history lists it. */
export type UserTradeRecord = {
  readonly id: string;
  readonly seriesId: Hex;
  readonly portfolioId: number;
  readonly side: 'buy' | 'sell';
  readonly price: bigint;
  readonly size: bigint;
  readonly fee: bigint;
  readonly liquidity: 'maker' | 'taker';
  readonly ts: number; // ms
};

export type FeeTotals = { totalFeesPaid: bigint; makerFees: bigint; takerFees: bigint; rebatesReceived: bigint };

/** Trades kept per wallet (the engine's TRADE_HISTORY before issue 19). */
export const TRADE_HISTORY = 10_000;
const DAY_MS = 86_400_000;

/** A bounded list, oldest first: the last `cap` items pushed. */
class TradeTail {
  private items: UserTradeRecord[] = [];
  private start = 0;

  get length(): number {
    return this.items.length - this.start;
  }

  push(t: UserTradeRecord): void {
    this.items.push(t);
    if (this.items.length - this.start > TRADE_HISTORY) this.start++;
    if (this.start >= TRADE_HISTORY) {
      this.items = this.items.slice(this.start);
      this.start = 0;
    }
  }

  at(i: number): UserTradeRecord | undefined {
    return this.items[this.start + i];
  }

  toArray(): UserTradeRecord[] {
    return this.items.slice(this.start);
  }
}

type Wallet = {
  readonly portfolios: Map<number, PortfolioFigures>;
  readonly positions: Map<number, Map<Hex, PositionFigures>>;
  readonly trades: TradeTail;
  readonly fees: FeeTotals;
  /** Fees of the last 24 h, [ts ms, amount], oldest first; `feeHead` is the first kept. */
  feeLog: [number, bigint][];
  feeHead: number;
  /** The positive entries of the kept fee log. */
  feeLogPaid: bigint;
  readonly volumeDays: Map<number, bigint>;
};

type WalletState = {
  owner: string;
  portfolios: PortfolioFigures[];
  positions: [number, PositionFigures[]][];
  trades: UserTradeRecord[];
  fees: FeeTotals;
  feeLog: [number, bigint][];
  volumeDays: [number, bigint][];
};
type AccountsState = { wallets: WalletState[] };

export class Accounts {
  private readonly wallets = new Map<string, Wallet>();
  /** The owner of every kept fee-log entry, in venue-time order (what a prune visits). */
  private feeOwners: string[] = [];
  private feeOwnersHead = 0;
  /** Wallets with volume per UTC day. */
  private readonly volumeDayOwners = new Map<number, Set<string>>();

  apply(e: VenueEvent): void {
    switch (e.type) {
      case 'portfolio':
        return this.onPortfolio(e);
      case 'position':
        return this.onPosition(e);
      case 'trade':
        return this.onTrade(e);
      case 'clock':
        return this.prune(e.ts);
      default:
        return;
    }
  }

  private wallet(owner: string): Wallet {
    let w = this.wallets.get(owner);
    if (w === undefined) {
      w = { portfolios: new Map(), positions: new Map(), trades: new TradeTail(), fees: { totalFeesPaid: 0n, makerFees: 0n, takerFees: 0n, rebatesReceived: 0n }, feeLog: [], feeHead: 0, feeLogPaid: 0n, volumeDays: new Map() };
      this.wallets.set(owner, w);
    }
    return w;
  }

  private onPortfolio(e: PortfolioEvent): void {
    this.wallet(e.owner).portfolios.set(e.portfolioId, {
      owner: e.owner,
      id: e.portfolioId,
      createdAt: e.createdAt,
      deposit: e.deposit,
      unrealizedPnl: e.unrealizedPnl,
      equity: e.equity,
      initialMargin: e.initialMargin,
      initialMarginWithOrders: e.initialMarginWithOrders,
      maintenanceMargin: e.maintenanceMargin,
      healthRatio: e.healthRatio,
      isHealthy: e.isHealthy,
      maxWithdraw: e.maxWithdraw,
      positionCount: e.positionCount,
    });
  }

  private onPosition(e: PositionEvent): void {
    const w = this.wallet(e.owner);
    let book = w.positions.get(e.portfolioId);
    if (e.balance === 0n && e.premium === 0n) {
      book?.delete(e.seriesId);
      if (book?.size === 0) w.positions.delete(e.portfolioId);
      return;
    }
    if (book === undefined) w.positions.set(e.portfolioId, (book = new Map()));
    book.set(e.seriesId, { seriesId: e.seriesId, balance: e.balance, premium: e.premium, averagePrice: e.averagePrice, realizedPnl: e.realizedPnl });
  }

  private onTrade(e: TradeEvent): void {
    const makerIsBuy = e.takerSide === 'sell';
    this.side(e, e.maker, e.makerPortfolioId, 'maker', e.makerFee, makerIsBuy);
    this.side(e, e.taker, e.takerPortfolioId, 'taker', e.takerFee, !makerIsBuy);
  }

  /** One side's fee and trade, as the engine records them (maker first, then taker). */
  private side(e: TradeEvent, owner: string, portfolioId: number, liquidity: 'maker' | 'taker', fee: bigint, isBuy: boolean): void {
    const w = this.wallet(owner);
    const f = w.fees;
    if (fee > 0n) f.totalFeesPaid += fee;
    else if (fee < 0n) f.rebatesReceived += -fee;
    if (liquidity === 'maker') f.makerFees += fee;
    else f.takerFees += fee;
    if (fee !== 0n) {
      w.feeLog.push([e.ts, fee]);
      if (fee > 0n) w.feeLogPaid += fee;
      this.feeOwners.push(owner);
    }
    w.trades.push({ id: e.tradeId, seriesId: e.seriesId, portfolioId, side: isBuy ? 'buy' : 'sell', price: e.price, size: e.size, fee, liquidity, ts: e.ts });
    const day = Math.floor(e.ts / DAY_MS);
    const before = w.volumeDays.get(day);
    w.volumeDays.set(day, (before ?? 0n) + e.notional);
    if (before !== undefined) return;
    let owners = this.volumeDayOwners.get(day);
    if (owners === undefined) this.volumeDayOwners.set(day, (owners = new Set()));
    owners.add(owner);
  }

  /** Drop fee and volume history older than the windows that read it (what expired only). */
  private prune(nowMs: number): void {
    const cutoff = nowMs - DAY_MS;
    while (this.feeOwnersHead < this.feeOwners.length) {
      const w = this.wallets.get(this.feeOwners[this.feeOwnersHead]!)!;
      const [ts, fee] = w.feeLog[w.feeHead]!;
      if (ts > cutoff) break;
      w.feeHead++;
      if (fee > 0n) w.feeLogPaid -= fee;
      if (w.feeHead > 64 && w.feeHead * 2 > w.feeLog.length) {
        w.feeLog = w.feeLog.slice(w.feeHead);
        w.feeHead = 0;
      }
      this.feeOwnersHead++;
    }
    if (this.feeOwnersHead > 1024 && this.feeOwnersHead * 2 > this.feeOwners.length) {
      this.feeOwners = this.feeOwners.slice(this.feeOwnersHead);
      this.feeOwnersHead = 0;
    }
    const today = Math.floor(nowMs / DAY_MS);
    for (const [day, owners] of this.volumeDayOwners) {
      if (day > today - 30) continue;
      for (const o of owners) this.wallets.get(o)?.volumeDays.delete(day);
      this.volumeDayOwners.delete(day);
    }
  }

  // ---- reads

  /** The wallet's public portfolios (0, once it exists, then 1, 2, ...), by id. */
  portfolios(owner: string): PortfolioFigures[] {
    const w = this.wallets.get(owner);
    if (!w) return [];
    return [...w.portfolios.values()].sort((x, y) => x.id - y.id);
  }

  portfolio(owner: string, id: number): PortfolioFigures | null {
    if (!Number.isSafeInteger(id) || id < 0) return null;
    return this.wallets.get(owner)?.portfolios.get(id) ?? null;
  }

  /** The positions of a public portfolio (balance or deferred premium not zero), in no particular order. */
  positions(owner: string, portfolioId: number): readonly PositionFigures[] {
    const book = this.wallets.get(owner)?.positions.get(portfolioId);
    return book ? [...book.values()] : [];
  }

  position(owner: string, portfolioId: number, seriesId: Hex): PositionFigures | null {
    return this.wallets.get(owner)?.positions.get(portfolioId)?.get(seriesId) ?? null;
  }

  /** How many trade records the wallet keeps, and the i-th (oldest first). */
  tradeCount(owner: string): number {
    return this.wallets.get(owner)?.trades.length ?? 0;
  }

  tradeAt(owner: string, i: number): UserTradeRecord | undefined {
    return this.wallets.get(owner)?.trades.at(i);
  }

  feeTotals(owner: string): Readonly<FeeTotals> | null {
    return this.wallets.get(owner)?.fees ?? null;
  }

  /** Fees paid in the 24 h before `nowMs` (engine/actors/accounts.ts fees24h). */
  fees24h(owner: string, nowMs: number): bigint {
    const w = this.wallets.get(owner);
    if (!w) return 0n;
    let sum = w.feeLogPaid;
    for (let i = w.feeHead; i < w.feeLog.length; i++) {
      const [ts, fee] = w.feeLog[i]!;
      if (ts > nowMs - DAY_MS) break;
      if (fee > 0n) sum -= fee;
    }
    return sum;
  }

  /** Traded notional (C6) of the 30 UTC days up to `nowMs` (engine/actors/accounts.ts volume30d). */
  volume30d(owner: string, nowMs: number): bigint {
    const w = this.wallets.get(owner);
    if (!w) return 0n;
    const today = Math.floor(nowMs / DAY_MS);
    let sum = 0n;
    for (const [day, v] of w.volumeDays) if (day > today - 30) sum += v;
    return sum;
  }

  // ---- state

  exportState(): AccountsState {
    const wallets: WalletState[] = [];
    for (const [owner, w] of this.wallets) {
      wallets.push({
        owner,
        portfolios: [...w.portfolios.values()],
        positions: [...w.positions].map(([id, book]) => [id, [...book.values()]]),
        trades: w.trades.toArray(),
        fees: { ...w.fees },
        feeLog: w.feeLog.slice(w.feeHead),
        volumeDays: [...w.volumeDays],
      });
    }
    return { wallets };
  }

  importState(s: AccountsState): void {
    const fees: [number, string][] = [];
    for (const x of s.wallets) {
      const w = this.wallet(x.owner);
      for (const p of x.portfolios) w.portfolios.set(p.id, { ...p });
      for (const [id, list] of x.positions) w.positions.set(id, new Map(list.map((p) => [p.seriesId, { ...p }])));
      for (const t of x.trades) w.trades.push({ ...t });
      Object.assign(w.fees, x.fees);
      w.feeLog = x.feeLog.map(([ts, fee]) => [ts, fee]);
      for (const [ts, fee] of w.feeLog) {
        if (fee > 0n) w.feeLogPaid += fee;
        fees.push([ts, x.owner]);
      }
      for (const [day, v] of x.volumeDays) {
        w.volumeDays.set(day, v);
        let owners = this.volumeDayOwners.get(day);
        if (owners === undefined) this.volumeDayOwners.set(day, (owners = new Set()));
        owners.add(x.owner);
      }
    }
    fees.sort((a, b) => a[0] - b[0]); // stable: one wallet's entries keep their order
    this.feeOwners = fees.map(([, o]) => o);
    this.feeOwnersHead = 0;
  }
}
