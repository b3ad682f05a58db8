/**
 * Metrics of liquidations and the insurance fund (extensions.md "Liquidation and the insurance
 * fund"), counted from the committed events like every reader: `liquidations_total`,
 * `liquidation_closes_total{counterparty}`, and the fund's `insurance_fund_balance_usdc` and
 * `insurance_fund_bad_debt_usdc` (gauges in USDC, read from the fund's fold). Bad debt is an
 * operator alert: each `bad_debt` event is also logged as an error line and handed to
 * `onBadDebt` (the app raises it on the admin alert stream `venue@alerts`).
 */
import type { BadDebtEvent, VenueEvent } from '../../engine/index.ts';
import type { Metrics } from './metrics.ts';
import type { Logger } from './log.ts';
import type { Liquidations } from '../readModels/liquidations.ts';

export type LiquidationMetrics = { onEvents(events: readonly VenueEvent[]): void };

const usdc = (c6: bigint): number => Number(c6) / 1e6;

export function createLiquidationMetrics(metrics: Metrics, fund: Liquidations, clock: () => number, log: Logger, onBadDebt: (e: BadDebtEvent) => void = () => {}): LiquidationMetrics {
  const liquidations = metrics.counter({ name: 'liquidations_total', help: 'Liquidations (a portfolio below maintenance margin counting open orders: its orders cancelled, then positions closed if still needed).' });
  const closes = metrics.counter({ name: 'liquidation_closes_total', help: 'Liquidation closes, by counterparty: a fill against the book, or the insurance fund taking over at the band edge.', labelNames: ['counterparty'] as const });
  for (const c of ['book', 'fund']) closes.labels(c).inc(0);
  metrics.gauge({ name: 'insurance_fund_balance_usdc', help: "The insurance fund's cash, USDC.", collect() { this.set(usdc(fund.fund(clock()).balance)); } });
  metrics.gauge({ name: 'insurance_fund_bad_debt_usdc', help: 'Deficits of bankrupt portfolios the insurance fund could not pay, in total, USDC.', collect() { this.set(usdc(fund.fund(clock()).badDebt)); } });
  return {
    onEvents(events) {
      for (const e of events) {
        if (e.type === 'liquidation') {
          liquidations.inc();
          for (const c of e.closes) closes.inc({ counterparty: c.counterparty });
        } else if (e.type === 'bad_debt') {
          log.error('liquidation: bad debt, the insurance fund could not cover a bankrupt portfolio', { liquidationId: e.liquidationId, owner: e.owner, portfolioId: e.portfolioId, amount: e.amount.toString(), totalBadDebt: e.totalBadDebt.toString(), seq: e.seq });
          onBadDebt(e);
        }
      }
    },
  };
}
