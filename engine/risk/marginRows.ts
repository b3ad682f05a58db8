/**
 * The margin book's rows (marginBook.ts keeps them, marginAudit.ts checks them): the margin
 * accounts and exposures (marginAccount.ts, exposure.ts), how they are found (by anchor, by
 * account and series), the series' rows with their quote cells and exposure lists, and the reads
 * of the kept figures that the book's rules and its audit share (cash figures, position sums,
 * kept scenario sums). Data and reads only: the counting rules live in marginBook.ts.
 */
import type { Hex } from '../domain/hex.ts';
import type { Portfolio } from '../actors/portfolio.ts';
import { collateralOf, premiumOf } from '../actors/position.ts';
import { SCENARIOS } from './margin.ts';
import { ExposureRows, PairIndex, STRIDE, POS, ORD, FLOOR_POS, FLOOR_ORD, PREMIUM, OWED, MARK, RESERVE, grown } from './exposure.ts';
import type { OrderSlots } from '../actors/openOrders.ts';
import { AccountRows, type MarginAccount } from './marginAccount.ts';
import { addLots, wadOfLots, type Lots } from '../domain/lots.ts';
import type { CashRows } from '../actors/cashRows.ts';
import type { QuoteBoard, QuoteCell, RiskQuote } from './riskQuote.ts';
import { exact } from './exactCash.ts';

/** The portfolios that share a margin account with `p` (p itself for an ordinary portfolio). */
export type MemberSource = (anchor: Portfolio) => readonly Portfolio[];


/** Rows of MarginRows' `premiumSums`. */
export const SUM_PREMIUM = 0;
export const SUM_OWED = 1;

/**
 * The premium a position owes (its deferred premium when negative), NaN for a wide position's
 * NaN: returned as it came (a literal NaN merged with the other doubles was a tagged value, which
 * boxed them: a heap number per call).
 */
const owedOf = (premium: number): number => (premium < 0 ? -premium : premium >= 0 ? 0 : premium);

/** Scenario PnL sums of positions (pos) and open orders' losses (ord) in risk units, and the short floors, as kept. */
export type KeptSums = { readonly pos: Float64Array; readonly ord: Float64Array; readonly floorPos: number; readonly floorOrd: number };
/** An exposure's kept sums, with its balance and open sells (WAD). */
export type KeptExposure = KeptSums & { readonly balance: bigint; readonly sellWad: bigint };

/** An account's cash figures in bigint (verify, and the fallback of an account beyond the exact range). */
export type CashFigures = { premium: bigint; owed: bigint; markValue: bigint; buyReserve: bigint };

export class MarginRows {
  /** The exposures' rows and order lists (exposure.ts). */
  readonly exposures = new ExposureRows();
  readonly accounts = new AccountRows();
  /** Account row by anchor: the slow path behind the handle kept on the anchor (MARGIN_ROW). */
  readonly byAnchor = new Map<Portfolio, number>();
  /** Exposure row by (account row, series row). */
  readonly pairs = new PairIndex();
  /** Series rows: interned ids (kept across rebuilds), the board's cell of each, and the list of exposures on each. */
  readonly seriesRow = new Map<Hex, number>();
  readonly seriesIds: Hex[] = [];
  protected readonly cells: QuoteCell[] = [];
  protected seriesHead = new Int32Array(16);
  protected seriesTail = new Int32Array(16);
  /** Per series row: its pair's size step (WAD per lot), noted when a position or an open sell is counted there (its double: domain/lots.ts `contractsAt`). */
  protected readonly seriesLot: bigint[] = [];
  protected lastSeriesId: Hex | null = null;
  protected lastSeriesRow = -1;
  /** The position sums of one series over an account's portfolios (positionSums), in scratch: no object per call. */
  /** The balance in lots, and the size step (WAD) of the positions summed. */
  protected sumLots: Lots = 0;
  protected sumLot = 1n;
  /** The deferred and owed premium summed (`premiumSums[SUM_PREMIUM]`, `premiumSums[SUM_OWED]`): in an array, read where they are used, not passed (domain/registers.ts). */
  protected readonly premiumSums = new Float64Array(2);

  constructor(
    /** The risk quotes as the quote messages left them (marksChanged). */
    readonly quotes: QuoteBoard,
    /** The account actor's deposits, by portfolio handle (read only). */
    readonly deposits: CashRows,
    /** The account actor's open orders (read only; the book keeps its own rows per slot: exposure.ts). */
    readonly orders: OrderSlots,
    readonly anchorOf: (p: Portfolio) => Portfolio,
    readonly members: MemberSource,
    /** Short-option floor as a fraction of spot x short contracts. */
    readonly floorRate: number,
    /** Keep each account's row on its anchor portfolio (false for verify's scratch book over the same portfolios). */
    readonly stamp = true,
  ) {}

  /** The row of a series (interned on first use). */
  protected series(seriesId: Hex): number {
    if (seriesId === this.lastSeriesId) return this.lastSeriesRow;
    let s = this.seriesRow.get(seriesId);
    if (s === undefined) {
      s = this.seriesIds.length;
      this.seriesIds.push(seriesId);
      this.cells.push(this.quotes.cell(seriesId));
      if (s === this.seriesHead.length) {
        this.seriesHead = grown(this.seriesHead, s + 1);
        this.seriesTail = grown(this.seriesTail, s + 1);
      }
      this.seriesLot.push(1n);
      this.seriesHead[s] = -1;
      this.seriesTail[s] = -1;
      this.seriesRow.set(seriesId, s);
    }
    this.lastSeriesId = seriesId;
    this.lastSeriesRow = s;
    return s;
  }

  /** The size step of series row `s` (one series: one pair, one step), as counted. */
  protected noteLot(s: number, lot: bigint): void {
    if (this.seriesLot[s] === lot) return;
    this.seriesLot[s] = lot;
  }

  /** The account's exposure to a series, or -1 (interning nothing). */
  protected findExposure(a: number, seriesId: Hex): number {
    const s = seriesId === this.lastSeriesId ? this.lastSeriesRow : this.seriesRow.get(seriesId);
    return s === undefined ? -1 : this.pairs.get(a, s);
  }

  protected quoteOf(e: number): RiskQuote | null {
    return this.cells[this.exposures.series[e]!]!.quote;
  }

  /** A row's kept scenario sums and floors (copies). */
  protected keptSums(num: Float64Array, row: number): KeptSums {
    const base = row * STRIDE;
    return { pos: num.slice(base + POS, base + POS + SCENARIOS), ord: num.slice(base + ORD, base + ORD + SCENARIOS), floorPos: num[base + FLOOR_POS]!, floorOrd: num[base + FLOOR_ORD]! };
  }

  /** An account's cash figures in bigint, whichever way they are kept. */
  cashOf(a: number): CashFigures {
    if (this.accounts.wide[a] !== 0) return this.wideCash(a);
    const num = this.accounts.num;
    const base = a * STRIDE;
    return { premium: BigInt(num[base + PREMIUM]!), owed: BigInt(num[base + OWED]!), markValue: BigInt(num[base + MARK]!), buyReserve: BigInt(num[base + RESERVE]!) };
  }

  /**
   * The cash figures of an account beyond the exact range of doubles, recounted in bigint from
   * its positions and open orders with the quotes its exposures were last valued with (the
   * current ones: stale exposures are revalued before any read). O(its exposures and orders),
   * for accounts above ~9 x 10^9 USDC only.
   */
  protected wideCash(a: number): CashFigures {
    const ex = this.exposures;
    const acc = this.accounts.objects[a]!;
    const c: CashFigures = { premium: 0n, owed: 0n, markValue: 0n, buyReserve: 0n };
    for (let e = this.accounts.expHead[a]!; e !== -1; e = ex.aNext[e]!) {
      this.positionSums(acc, this.seriesIds[ex.series[e]!]!);
      const q = this.quoteOf(e);
      this.positionCash(acc, this.seriesIds[ex.series[e]!]!, c);
      if (q !== null) c.markValue += collateralOf(wadOfLots(this.sumLots, this.sumLot), q.markWad);
      const orders = this.orders;
      for (let o = ex.first[e]!; o !== -1; o = ex.oNext[o]!) if (orders.buy[o] === 1) c.buyReserve += collateralOf(wadOfLots(orders.lots[o]!, orders.lot[o]!), orders.price[o]!);
    }
    return c;
  }

  /**
   * The balance, deferred premium and owed premium on `seriesId` over the account's portfolios,
   * into the module's scratch: the premiums in doubles, NaN when a position is wide or the sum
   * leaves the exact range (engine/actors/position.ts), which marks the account wide.
   */
  protected positionSums(acc: MarginAccount, seriesId: Hex): void {
    this.sumLots = 0;
    const sums = this.premiumSums;
    sums[SUM_PREMIUM] = 0;
    sums[SUM_OWED] = 0;
    if (acc.single) {
      const pos = acc.anchor.positions.get(seriesId);
      if (pos === undefined) return;
      this.sumLots = pos.lots;
      this.sumLot = pos.lot;
      sums[SUM_PREMIUM] = pos.premium;
      sums[SUM_OWED] = owedOf(pos.premium);
      return;
    }
    for (const m of this.members(acc.anchor)) {
      const pos = m.positions.get(seriesId);
      if (pos === undefined) continue;
      // One series: one pair, one size step.
      this.sumLots = addLots(this.sumLots, pos.lots);
      this.sumLot = pos.lot;
      // Each partial sum checked (a rounded one stays NaN): owed only grows, premium may not.
      if (!exact((sums[SUM_PREMIUM] += pos.premium))) sums[SUM_PREMIUM] = NaN;
      sums[SUM_OWED] += owedOf(pos.premium);
    }
    if (!exact(sums[SUM_OWED]!)) sums[SUM_OWED] = NaN;
  }

  /** The deferred and owed premium on `seriesId` over the account's portfolios in bigint, added into `c`. */
  protected positionCash(acc: MarginAccount, seriesId: Hex, c: CashFigures): void {
    for (const m of acc.single ? [acc.anchor] : this.members(acc.anchor)) {
      const pos = m.positions.get(seriesId);
      if (pos === undefined) continue;
      const premium = premiumOf(pos);
      c.premium += premium;
      if (premium < 0n) c.owed -= premium;
    }
  }
}
