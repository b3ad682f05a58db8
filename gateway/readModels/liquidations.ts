/**
 * Liquidations and the insurance fund as the gateway reads them (architecture.md rule 6),
 * folded from `liquidation` and `insurance_fund` events and the fund portfolio's `portfolio`
 * events (extensions.md "Liquidation and the insurance fund"): per wallet its liquidations,
 * newest last; the fund's cash, bad debt, whether it was ever funded, and the fees and
 * liquidations of the last 24 hours.
 */
import { INSURANCE_FUND_OWNER, INSURANCE_FUND_PORTFOLIO, WAD_PER_C6, type LiquidationClose, type LiquidationEvent, type VenueEvent } from '../../engine/index.ts';

/** Liquidations kept per wallet. */
export const LIQUIDATION_HISTORY = 1000;
const DAY_MS = 86_400_000;

export type LiquidationRecord = {
  readonly id: string;
  readonly owner: string;
  readonly portfolioId: number;
  readonly startedAt: number; // s
  readonly endedAt: number; // s
  readonly trigger: { readonly equity: bigint; readonly maintenanceMargin: bigint }; // C6
  readonly cancelledOrders: readonly string[];
  readonly closes: readonly LiquidationClose[];
  readonly fee: bigint; // C6
  readonly deficit: bigint; // C6
  readonly ts: number; // ms
};

export type FundView = { readonly balance: bigint; readonly badDebt: bigint; readonly funded: boolean; readonly liquidations24h: number; readonly feesCollected24h: bigint };

/** A liquidation as the reads keep it. */
export function liquidationRecord(e: LiquidationEvent): LiquidationRecord {
  return { id: e.liquidationId, owner: e.owner, portfolioId: e.portfolioId, startedAt: e.startedAt, endedAt: e.endedAt, trigger: e.trigger, cancelledOrders: e.cancelledOrders, closes: e.closes, fee: e.fee, deficit: e.deficit, ts: e.ts };
}

/** A liquidation on the wire (GET /api/account/liquidations, account@liquidations): C6 cash, WAD sizes and prices, the trigger's maintenance margin in WAD as the portfolio detail shows it. */
export function liquidationJson(r: LiquidationRecord) {
  return {
    id: r.id,
    portfolioId: r.portfolioId,
    startedAt: r.startedAt,
    endedAt: r.endedAt,
    trigger: { equity: r.trigger.equity.toString(), maintenanceMargin: (r.trigger.maintenanceMargin * WAD_PER_C6).toString() },
    cancelledOrders: [...r.cancelledOrders],
    closes: r.closes.map((c) => ({ seriesId: c.seriesId, size: c.size.toString(), price: c.price.toString(), counterparty: c.counterparty })),
    fee: r.fee.toString(),
    deficit: r.deficit.toString(),
  };
}

type LiquidationsState = { wallets: [string, LiquidationRecord[]][]; balance: bigint; badDebt: bigint; funded: boolean; window: [number, bigint][] };

export class Liquidations {
  private readonly byOwner = new Map<string, LiquidationRecord[]>();
  private balance = 0n;
  private badDebt = 0n;
  private funded = false;
  /** [ts ms, fee C6] of every liquidation of the last 24 h (pruned at clock events), oldest first. */
  private window: [number, bigint][] = [];

  apply(e: VenueEvent): void {
    switch (e.type) {
      case 'liquidation':
        return this.onLiquidation(e);
      case 'insurance_fund':
        this.balance = e.balance;
        this.badDebt = e.badDebt;
        this.funded ||= e.reason !== 'liquidation';
        return;
      case 'portfolio':
        // The fund's cash also moves when positions it took over are reduced or settled.
        if (e.owner === INSURANCE_FUND_OWNER && e.portfolioId === INSURANCE_FUND_PORTFOLIO) this.balance = e.deposit;
        return;
      case 'clock':
        return this.prune(e.ts);
      default:
        return;
    }
  }

  private onLiquidation(e: LiquidationEvent): void {
    let list = this.byOwner.get(e.owner);
    if (list === undefined) this.byOwner.set(e.owner, (list = []));
    list.push(liquidationRecord(e));
    if (list.length > LIQUIDATION_HISTORY) list.shift();
    this.window.push([e.ts, e.fee]);
  }

  private prune(nowMs: number): void {
    let drop = 0;
    while (drop < this.window.length && this.window[drop]![0] <= nowMs - DAY_MS) drop++;
    if (drop > 0) this.window = this.window.slice(drop);
  }

  /** A wallet's liquidations, newest first. */
  forOwner(owner: string): readonly LiquidationRecord[] {
    return [...(this.byOwner.get(owner) ?? [])].reverse();
  }

  /** The fund as of `nowMs` (the 24-hour figures counted from the kept window). */
  fund(nowMs: number): FundView {
    let liquidations24h = 0;
    let feesCollected24h = 0n;
    for (const [ts, fee] of this.window) {
      if (ts <= nowMs - DAY_MS) continue;
      liquidations24h++;
      feesCollected24h += fee;
    }
    return { balance: this.balance, badDebt: this.badDebt, funded: this.funded, liquidations24h, feesCollected24h };
  }

  exportState(): LiquidationsState {
    return { wallets: [...this.byOwner], balance: this.balance, badDebt: this.badDebt, funded: this.funded, window: this.window };
  }

  importState(s: LiquidationsState): void {
    this.byOwner.clear();
    for (const [owner, list] of s.wallets) this.byOwner.set(owner, list);
    this.balance = s.balance;
    this.badDebt = s.badDebt;
    this.funded = s.funded;
    this.window = s.window;
  }
}
