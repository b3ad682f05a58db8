/**
 * The account actor: alone owns balances, positions, open-order reservations and nonces of
 * every wallet. It keeps no history (trade lists, fee totals and logs, traded volume): those
 * are folds of the trade events (gateway/readModels/accounts.ts). It answers risk questions (equity, margin, health) from the risk
 * quotes the series actors send it (risk/riskQuote.ts: kept on its QuoteBoard), and keeps
 * every margin account's requirement current in its margin book.
 */
import type { Hex } from '../domain/hex.ts';
import { WAD, UINT256_MAX } from '../domain/fixed.ts';
import type { VenueConfig } from '../config.ts';
import { MarginBook, NO_PROSPECTIVE, type ProspectiveOrder, type Requirement } from '../risk/marginBook.ts';
import type { MutableRiskView, RiskView } from '../risk/marginAccount.ts';
import type { QuoteBoard } from '../risk/riskQuote.ts';
import { addDeposit, depositOf, newPortfolio, type OpenOrder, type Portfolio } from './portfolio.ts';
import { NonceWindow } from './nonceWindow.ts';

export type Account = {
  readonly owner: string;
  nextPortfolioId: number;
  readonly portfolios: Map<number, Portfolio>;
  isMmm: boolean;
  mmmNonce: bigint;
  readonly nonces: NonceWindow;
  /** Whether the wallet has been a side of a fill: a referral code applies only before its first (flows/referrals.ts). */
  hasTraded: boolean;
};

export type { RiskView } from '../risk/marginAccount.ts';

const NO_OPEN_ORDERS: readonly OpenOrder[] = [];
/** A check's view (AccountActor.risk with orders added or taken away), rewritten by every check. */
const CHECK_VIEW: MutableRiskView = { deposit: 0n, unrealizedPnl: 0n, equity: 0n, initialMargin: 0n, initialMarginWithOrders: 0n, maintenanceMargin: 0n, healthRatio: 0n, isHealthy: true, maxWithdraw: 0n, positionCount: 0 };

export class AccountActor {
  readonly accounts = new Map<string, Account>();

  /** Margin per margin account, kept up to date by every fill, order and mark (risk/marginBook.ts). */
  readonly margin: MarginBook;

  constructor(
    private readonly config: VenueConfig,
    quotes: QuoteBoard,
  ) {
    this.margin = new MarginBook(quotes, (p) => this.marginAnchor(p), (anchor) => this.marginGroup(anchor), Number(config.shortFloorRate) / 1e18);
  }

  /** The portfolio that names a margin account: a market maker's cash portfolio for it and its internal ones, else the portfolio itself. */
  marginAnchor(p: Portfolio): Portfolio {
    return p.internalPair !== null ? (this.accounts.get(p.owner)?.portfolios.get(0) ?? p) : p;
  }

  /** Every portfolio, for a rebuild of the margin book. */
  *allPortfolios(): IterableIterator<Portfolio> {
    for (const a of this.accounts.values()) yield* a.portfolios.values();
  }

  account(owner: string): Account {
    let a = this.accounts.get(owner);
    if (!a) {
      a = {
        owner,
        nextPortfolioId: 1,
        portfolios: new Map(),
        isMmm: false,
        mmmNonce: 0n,
        nonces: new NonceWindow(this.config.nonceWindow),
        hasTraded: false,
      };
      this.accounts.set(owner, a);
    }
    return a;
  }

  /** Portfolio 0 exists for every wallet from its first use. */
  cashPortfolio(owner: string, tsMs: number): Portfolio {
    const a = this.account(owner);
    let p = a.portfolios.get(0);
    if (!p) {
      p = newPortfolio(owner, 0, Math.floor(tsMs / 1000));
      a.portfolios.set(0, p);
    }
    return p;
  }

  portfolio(owner: string, id: number): Portfolio | undefined {
    return this.accounts.get(owner)?.portfolios.get(id);
  }

  createPortfolio(owner: string, tsMs: number): number {
    const a = this.account(owner);
    this.cashPortfolio(owner, tsMs);
    const id = a.nextPortfolioId++;
    a.portfolios.set(id, newPortfolio(owner, id, Math.floor(tsMs / 1000)));
    return id;
  }

  /** A market maker's internal trading portfolio for a pair (ids -1, -2, ... in order of first use). */
  internalPortfolio(owner: string, pairId: Hex, tsMs: number): Portfolio {
    const a = this.account(owner);
    this.cashPortfolio(owner, tsMs);
    for (const p of a.portfolios.values()) if (p.internalPair === pairId) return p;
    let id = -1;
    while (a.portfolios.has(id)) id--;
    const p = newPortfolio(owner, id, Math.floor(tsMs / 1000), pairId);
    a.portfolios.set(id, p);
    return p;
  }

  /** Portfolios that share one margin account: a market maker's cash portfolio and its internal ones. */
  marginGroup(p: Portfolio): Portfolio[] {
    const a = this.accounts.get(p.owner);
    if (!a || !(p.id === 0 || p.internalPair !== null)) return [p];
    const group: Portfolio[] = [];
    for (const q of a.portfolios.values()) if (q.id === 0 || q.internalPair !== null) group.push(q);
    return group;
  }

  /** Take cash: a market maker's internal portfolio pays first from itself, then from portfolio 0. */
  debit(p: Portfolio, amount: bigint): void {
    if (amount <= 0n) return this.credit(p, -amount);
    if (p.internalPair !== null) {
      const deposit = depositOf(p);
      const own = deposit > 0n ? (deposit < amount ? deposit : amount) : 0n;
      addDeposit(p, own, -1);
      const rest = amount - own;
      if (rest > 0n) addDeposit(this.cashPortfolio(p.owner, 0), rest, -1);
      return;
    }
    addDeposit(p, amount, -1);
  }

  /** Give cash: a market maker's credits always go to portfolio 0. */
  credit(p: Portfolio, amount: bigint): void {
    if (amount < 0n) return this.debit(p, -amount);
    addDeposit(p.internalPair !== null ? this.cashPortfolio(p.owner, 0) : p, amount);
  }

  /**
   * Equity, margin and health of the margin account of `p`, with `extra` orders added and
   * the open orders in `exclude` taken away (a pre-trade check's question), from the
   * incrementally kept margin book. Allocates no object: the figures as they stand are one view
   * per account, rewritten in place when its requirement changed (a command's liquidation
   * check and its portfolio event read the same one); a check's view is one scratch object,
   * valid until the next check.
   */
  risk(p: Portfolio, extra: readonly ProspectiveOrder[] = NO_PROSPECTIVE, exclude: readonly OpenOrder[] = NO_OPEN_ORDERS): RiskView {
    const r = this.margin.requirement(p, extra, exclude);
    if (extra.length !== 0 || exclude.length !== 0) return this.view(r, CHECK_VIEW);
    const a = this.margin.account(p);
    if (a.viewCurrent && a.plainView !== null) return a.plainView;
    a.viewCurrent = true;
    return (a.plainView = this.view(r, a.plainView ?? { ...CHECK_VIEW }));
  }

  /** `r` as a view, written into `v`. */
  private view(r: Requirement, v: MutableRiskView): RiskView {
    const { deposit, equity } = r;
    const im = r.initialMargin;
    const mm = (im * this.config.maintenanceRate + WAD - 1n) / WAD;
    const healthRatio = mm === 0n ? (equity >= 0n ? UINT256_MAX : 0n) : (equity * WAD) / mm;
    const free = equity - r.initialMarginWithOrders;
    v.deposit = deposit;
    v.unrealizedPnl = r.unrealizedPnl;
    v.equity = equity;
    v.initialMargin = im;
    v.initialMarginWithOrders = r.initialMarginWithOrders;
    v.maintenanceMargin = mm;
    v.healthRatio = healthRatio;
    v.isHealthy = healthRatio >= WAD;
    v.maxWithdraw = free <= 0n ? 0n : free < deposit ? free : deposit > 0n ? deposit : 0n;
    v.positionCount = r.positionCount;
    return v;
  }
}
