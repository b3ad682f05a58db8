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
import { newPortfolio, type Portfolio } from './portfolio.ts';
import { OrderSlots, type OpenTerms } from './openOrders.ts';
import type { OrderRecord } from './orderRecord.ts';
import type { Pair } from './registry.ts';
import { lotNumberOf } from '../domain/lots.ts';
import { premiumPerLotTick } from '../domain/premium.ts';
import { tickPxAt, tickToPrice } from '../domain/ticks.ts';
import { REG, R_AMOUNT, R_PX } from '../domain/registers.ts';
import type { Position } from './position.ts';
import { NonceWindow } from './nonceWindow.ts';
import { CashRows } from './cashRows.ts';
import { grown } from '../risk/exposure.ts';
import type { Cash } from '../risk/exactCash.ts';

export type { RiskView } from '../risk/marginAccount.ts';

const NO_OPEN_ORDERS: readonly number[] = [];
/** restOrder's terms, rewritten for every order. */
const TERMS: { -readonly [K in keyof OpenTerms]: OpenTerms[K] } = { pairId: '0x', holder: -1, lots: 0, price: 0n, px: 0.5, lot: 1n, lotNumber: NaN, perLotTick: 0 };
/** A check's view (AccountActor.risk with orders added or taken away), rewritten by every check. */
const CHECK_VIEW: MutableRiskView = { deposit: 0n, unrealizedPnl: 0n, equity: 0n, initialMargin: 0n, initialMarginWithOrders: 0n, maintenanceMargin: 0n, healthRatio: 0n, isHealthy: true, maxWithdraw: 0n, positionCount: 0 };

/**
 * Wallets and portfolios behind dense integer handles (docs/engine.md "Accounts: handles and
 * rows"). A command interns its owner once (`walletOf`: the one string lookup) and reaches the
 * wallet's fields by handle: a market maker's flag, whether it has traded, its next portfolio
 * id and its portfolio 0 in typed rows, its nonce window and its portfolios by id in arrays.
 * Every portfolio has a handle too: its deposit is a row of `cash`. Handles are given in order
 * of first use and never reused, so walking them in order is the order the wallets and
 * portfolios were made in: the snapshot's.
 */
export class AccountActor {
  /** Wallet handle by owner address (a wallet gets one at its first use; never removed). */
  private readonly walletIds = new Map<string, number>();
  /** By wallet handle: its owner's address. */
  readonly owners: string[] = [];
  /** By wallet handle: 1 for a market maker (set_mmm). Replaced when it grows: read it through the actor, never keep it. */
  isMmm = new Uint8Array(64);
  /** By wallet handle: 1 once it has been a side of a fill (a referral code applies only before: flows/referrals.ts). */
  hasTraded = new Uint8Array(64);
  /** By wallet handle: the id its next trading portfolio gets (from 1). */
  nextPortfolioId = new Float64Array(64);
  /** By wallet handle: the handle of its portfolio 0, -1 before it exists. */
  cashOf = new Int32Array(64);
  /**
   * By wallet handle: the handle of its trading portfolio 1, -1 before it exists. The portfolio
   * nearly every order names, found in one typed row instead of the wallet's map (a lookup per
   * place that the whole engine's profile put at ~3% of an op).
   */
  portfolioOneOf = new Int32Array(64);
  /** By wallet handle: the quote nonce of a market maker (bumped to cancel its quotes). */
  readonly mmmNonce: bigint[] = [];
  /** By wallet handle: its order nonce window. */
  readonly nonces: NonceWindow[] = [];
  /** By wallet handle: its portfolios' handles by portfolio id, in order of creation. */
  readonly portfolioIds: Map<number, number>[] = [];
  /** By wallet handle: its margin group (portfolio 0, then its internal portfolios in order of creation), kept; empty before portfolio 0. */
  private readonly groups: Portfolio[][] = [];
  /** By portfolio handle: the portfolio. */
  readonly portfolios: Portfolio[] = [];
  /** By portfolio handle: the deposit (COLLATERAL6, checked; wide beyond 2^53 - 1). */
  readonly cash = new CashRows();
  /** By portfolio handle: the one-member group of a portfolio that anchors its own margin account (made on first ask). */
  private readonly singles: (readonly Portfolio[] | undefined)[] = [];

  /** Open orders, by slot (openOrders.ts): each portfolio lists its own. */
  readonly orders = new OrderSlots();
  /** Margin per margin account, kept up to date by every fill, order and mark (risk/marginBook.ts). */
  readonly margin: MarginBook;
  // The last pair's size step as a double (a command names one pair over and over): no bigint made per order.
  private lastLot = 0n;
  private lastLotNumber = NaN;

  constructor(
    private readonly config: VenueConfig,
    quotes: QuoteBoard,
  ) {
    this.margin = new MarginBook(quotes, this.cash, this.orders, (p) => this.marginAnchor(p), (anchor) => this.marginGroup(anchor), Number(config.shortFloorRate) / 1e18);
  }

  /**
   * Rest the open order of `record` (the series' record as it rests) in `p`, where its fills
   * go: `lots` lots at `price` (WAD) on `pair`. Returns its slot, listed in `p` and counted by
   * the margin book; `counted` false only lists it (a restore, whose book is rebuilt after).
   */
  restOrder(record: OrderRecord, p: Portfolio, pair: Pair, lots: number, price: bigint, counted = true): number {
    const lot = pair.sizeStep;
    if (lot !== this.lastLot) {
      this.lastLot = lot;
      this.lastLotNumber = lotNumberOf(lot);
    }
    // The premium factor applies only to a price on the record's tick (always so for an order placed here; checked for a restored one).
    const onTick = price === tickToPrice(record.tick, pair.tickDecimals);
    const perLotTick = onTick ? premiumPerLotTick(lot, pair.tickDecimals) : 0;
    // The terms in one scratch object (open copies them into the slot): nothing allocated per order.
    const t = TERMS;
    t.pairId = pair.pairId;
    t.holder = p.handle;
    t.lots = lots;
    t.price = price;
    if (onTick) tickPxAt(record.tick, pair.tickDecimals);
    t.px = onTick ? REG[R_PX]! : Number(price) / 1e18;
    t.lot = lot;
    t.lotNumber = this.lastLotNumber;
    t.perLotTick = perLotTick;
    const o = this.orders.open(record, t);
    if (counted) this.margin.addOrder(p, o);
    else this.orders.add(p.openOrders, o);
    return o;
  }

  /** The portfolio holding open order `o` (where its fills go). */
  holderOf(o: number): Portfolio {
    return this.portfolios[this.orders.holder[o]!]!;
  }

  /** Open order `o` left the book (filled, cancelled, expired): out of its portfolio and the margin book, its slot freed. */
  closeOrder(o: number): void {
    this.margin.dropOrder(this.holderOf(o), o);
    this.orders.close(o);
  }

  /** `lots` lots of open order `o` filled; the rest stays reserved. */
  fillOrder(o: number, lots: number): void {
    this.margin.reduceOrder(this.holderOf(o), o, lots);
  }

  /** The wallet's handle, -1 when the wallet was never used (nothing is made). */
  walletOf(owner: string): number {
    return this.walletIds.get(owner) ?? -1;
  }

  /** The wallet's handle, made on first use. */
  wallet(owner: string): number {
    const known = this.walletIds.get(owner);
    if (known !== undefined) return known;
    const w = this.owners.length;
    this.walletIds.set(owner, w);
    this.owners.push(owner);
    if (w === this.cashOf.length) {
      this.isMmm = grown(this.isMmm, w + 1);
      this.hasTraded = grown(this.hasTraded, w + 1);
      this.nextPortfolioId = grown(this.nextPortfolioId, w + 1);
      this.cashOf = grown(this.cashOf, w + 1);
      this.portfolioOneOf = grown(this.portfolioOneOf, w + 1);
    }
    this.nextPortfolioId[w] = 1;
    this.cashOf[w] = -1;
    this.portfolioOneOf[w] = -1;
    this.mmmNonce.push(0n);
    this.nonces.push(new NonceWindow(this.config.nonceWindow));
    this.portfolioIds.push(new Map());
    this.groups.push([]);
    return w;
  }

  /** How many wallets have a handle (handles are 0 .. walletCount - 1, in order of first use). */
  get walletCount(): number {
    return this.owners.length;
  }

  /** A new portfolio of wallet `w` with id `id` (created at `createdAt`, Unix seconds), its deposit 0. */
  private add(w: number, id: number, createdAt: number, internalPair: Hex | null, positions?: Map<Hex, Position>): Portfolio {
    const h = this.portfolios.length;
    const p = newPortfolio(this.owners[w]!, w, h, id, createdAt, internalPair, positions);
    this.portfolios.push(p);
    this.cash.ensure(h);
    this.portfolioIds[w]!.set(id, h);
    if (id === 1) this.portfolioOneOf[w] = h;
    if (id === 0) {
      this.cashOf[w] = h;
      this.groups[w]!.unshift(p);
    } else if (internalPair !== null) this.groups[w]!.push(p);
    return p;
  }

  /** A portfolio as a snapshot holds it (engine/snapshot.ts), in the snapshot's order. */
  restorePortfolio(w: number, id: number, createdAt: number, internalPair: Hex | null, positions: Map<Hex, Position>, deposit: bigint): Portfolio {
    const p = this.add(w, id, createdAt, internalPair, positions);
    this.cash.set(p.handle, deposit);
    return p;
  }

  /** The portfolio that names a margin account: a market maker's cash portfolio for it and its internal ones, else the portfolio itself. */
  marginAnchor(p: Portfolio): Portfolio {
    if (p.internalPair === null || p.wallet < 0) return p;
    const h = this.cashOf[p.wallet]!;
    return h < 0 ? p : this.portfolios[h]!;
  }

  /** Every portfolio, wallet by wallet in order of first use, each wallet's in order of creation (a rebuild of the margin book, a snapshot). */
  *allPortfolios(): IterableIterator<Portfolio> {
    for (let w = 0; w < this.owners.length; w++) yield* this.walletPortfolios(w);
  }

  /** The portfolios of wallet `w` in order of creation (none for -1). */
  *walletPortfolios(w: number): IterableIterator<Portfolio> {
    if (w < 0) return;
    for (const h of this.portfolioIds[w]!.values()) yield this.portfolios[h]!;
  }

  /** Portfolio 0 of wallet `w`, made on first use (portfolio 0 exists for every wallet from its first use). */
  cashOfWallet(w: number, tsMs: number): Portfolio {
    const h = this.cashOf[w]!;
    return h >= 0 ? this.portfolios[h]! : this.add(w, 0, Math.floor(tsMs / 1000), null);
  }

  /** Portfolio 0 of `owner`, its wallet and it made on first use. */
  cashPortfolio(owner: string, tsMs: number): Portfolio {
    return this.cashOfWallet(this.wallet(owner), tsMs);
  }

  /** Portfolio `id` of wallet `w` (-1: none), if it exists. */
  portfolioOf(w: number, id: number): Portfolio | undefined {
    if (w < 0) return undefined;
    if (id === 1) {
      const one = this.portfolioOneOf[w]!;
      return one < 0 ? undefined : this.portfolios[one];
    }
    const h = this.portfolioIds[w]!.get(id);
    return h === undefined ? undefined : this.portfolios[h];
  }

  portfolio(owner: string, id: number): Portfolio | undefined {
    return this.portfolioOf(this.walletOf(owner), id);
  }

  createPortfolio(owner: string, tsMs: number): number {
    const w = this.wallet(owner);
    this.cashOfWallet(w, tsMs);
    const id = this.nextPortfolioId[w]!;
    this.nextPortfolioId[w] = id + 1;
    this.add(w, id, Math.floor(tsMs / 1000), null);
    return id;
  }

  /** Wallet `w`'s internal trading portfolio for a pair if it was ever used (never made here). */
  internalOf(w: number, pairId: Hex): Portfolio | null {
    if (w < 0) return null;
    const group = this.groups[w]!;
    for (let i = 1; i < group.length; i++) if (group[i]!.internalPair === pairId) return group[i]!;
    return null;
  }

  /** A market maker's internal trading portfolio for a pair (ids -1, -2, ... in order of first use), made with portfolio 0 on first use. */
  internalPortfolioOf(w: number, pairId: Hex, tsMs: number): Portfolio {
    this.cashOfWallet(w, tsMs);
    const found = this.internalOf(w, pairId);
    if (found !== null) return found;
    const ids = this.portfolioIds[w]!;
    let id = -1;
    while (ids.has(id)) id--;
    return this.add(w, id, Math.floor(tsMs / 1000), pairId);
  }

  internalPortfolio(owner: string, pairId: Hex, tsMs: number): Portfolio {
    return this.internalPortfolioOf(this.wallet(owner), pairId, tsMs);
  }

  /** Portfolios that share one margin account: a market maker's cash portfolio and its internal ones (a kept list: never change it). */
  marginGroup(p: Portfolio): readonly Portfolio[] {
    if (p.wallet >= 0 && (p.id === 0 || p.internalPair !== null)) {
      const group = this.groups[p.wallet]!;
      if (group.length > 0) return group;
    }
    return p.handle < 0 ? [p] : (this.singles[p.handle] ??= [p]);
  }

  /** The deposit of `p`, exact (COLLATERAL6). */
  depositOf(p: Portfolio): bigint {
    return this.cash.of(p.handle);
  }

  /** Add `amount` to the deposit of `p`, or take it away (`sign` -1): checked (cashRows.ts). */
  addDeposit(p: Portfolio, amount: bigint, sign: 1 | -1 = 1): void {
    this.cash.add(p.handle, amount, sign);
  }

  /** Set or clear a wallet's market maker flag. */
  setMmm(w: number, isMmm: boolean): void {
    this.isMmm[w] = isMmm ? 1 : 0;
  }

  /** The wallet of `p` has been a side of a fill. */
  traded(p: Portfolio): void {
    this.hasTraded[p.wallet] = 1;
  }

  /** Take cash: a market maker's internal portfolio pays first from itself, then from portfolio 0. */
  debit(p: Portfolio, amount: Cash): void {
    if (typeof amount === 'number') {
      // In doubles (an exact integer): a plain portfolio's deposit; a market maker's internal one splits in bigint below.
      if (amount <= 0) return this.credit(p, 0 - amount);
      if (p.internalPair === null) return this.cash.addCash(p.handle, 0 - amount);
      amount = BigInt(amount);
    }
    if (amount <= 0n) return this.credit(p, -amount);
    if (p.internalPair !== null) {
      const deposit = this.cash.of(p.handle);
      const own = deposit > 0n ? (deposit < amount ? deposit : amount) : 0n;
      this.cash.add(p.handle, own, -1);
      const rest = amount - own;
      if (rest > 0n) this.cash.add(this.cashOfWallet(p.wallet, 0).handle, rest, -1);
      return;
    }
    this.cash.add(p.handle, amount, -1);
  }

  /** Give cash: a market maker's credits always go to portfolio 0. */
  credit(p: Portfolio, amount: Cash): void {
    if (amount < 0) return this.debit(p, typeof amount === 'number' ? 0 - amount : -amount);
    this.cash.addCash((p.internalPair !== null ? this.cashOfWallet(p.wallet, 0) : p).handle, amount);
  }

  /**
   * `credit` and `debit` of the exact integer in register `reg` (domain/registers.ts: the hot
   * path's form, no double passed); the register may be rewritten.
   */
  creditAt(p: Portfolio, reg: number): void {
    const amount = REG[reg]!;
    if (amount < 0) {
      REG[R_AMOUNT] = 0 - amount;
      return this.debitAt(p, R_AMOUNT);
    }
    this.cash.addCashAt((p.internalPair !== null ? this.cashOfWallet(p.wallet, 0) : p).handle, reg);
  }

  /** `debit` of the exact integer in register `reg` (see creditAt). */
  debitAt(p: Portfolio, reg: number): void {
    const amount = REG[reg]!;
    if (amount <= 0) {
      REG[R_AMOUNT] = 0 - amount;
      return this.creditAt(p, R_AMOUNT);
    }
    // A market maker's internal portfolio pays from itself first, then from portfolio 0: in bigint (debit).
    if (p.internalPair !== null) return this.debit(p, BigInt(amount));
    REG[R_AMOUNT] = 0 - amount;
    this.cash.addCashAt(p.handle, R_AMOUNT);
  }

  /**
   * Equity, margin and health of the margin account of `p`, with `extra` orders added and
   * the open orders in `exclude` taken away (a pre-trade check's question), from the
   * incrementally kept margin book. Allocates no object: the figures as they stand are one view
   * per account, rewritten in place when its requirement changed (a command's liquidation
   * check and its portfolio event read the same one); a check's view is one scratch object,
   * valid until the next check.
   */
  risk(p: Portfolio, extra: readonly ProspectiveOrder[] = NO_PROSPECTIVE, exclude: readonly number[] = NO_OPEN_ORDERS): RiskView {
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
