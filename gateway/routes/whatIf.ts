/**
 * Margin what-if (extensions.md "Margin what-if"): a portfolio's risk now and as it would be
 * if some orders filled at their prices, and whether the venue would take them as orders.
 * The figures are the engine's own risk model through its front door (`Venue.whatIf`, a
 * read-only query); nothing changes.
 */
import { Type } from '@sinclair/typebox';
import { getAddress } from 'viem';
import { parseHuman, WAD_PER_C6, type Hex, type RiskFigures, type WhatIfOrder } from '../../engine/index.ts';
import { defineRoute, type Route } from '../http/route.ts';
import { errorReply } from '../http/errors.ts';
import type { Services } from '../services.ts';
import { exampleSeries } from './examples.ts';
import { bytes32, C6String, LiquidationSpotSchema, WadString } from './schemas.ts';

const MAX_ORDERS = 50;

const View = Type.Object({
  equity: C6String,
  initialMargin: WadString,
  maintenanceMargin: WadString,
  healthRatio: WadString,
  maxWithdraw: C6String,
  worstScenario: Type.Object(
    { spotShock: Type.Number({ description: 'relative spot shock, e.g. -0.3' }), volShock: Type.Number({ description: 'relative volatility shock' }), pnl: Type.String({ description: 'COLLATERAL6, the positions\' PnL in that scenario' }) },
    { description: 'the scenario of the 15 (spot -30%..+30% x volatility -30%, 0, +50%) in which the positions lose most' },
  ),
  liquidationSpot: LiquidationSpotSchema,
});

const viewJson = (v: RiskFigures) => ({
  equity: v.equity.toString(),
  initialMargin: (v.initialMargin * WAD_PER_C6).toString(),
  maintenanceMargin: (v.maintenanceMargin * WAD_PER_C6).toString(),
  healthRatio: v.healthRatio.toString(),
  maxWithdraw: v.maxWithdraw.toString(),
  worstScenario: { spotShock: v.worstScenario.spotShock, volShock: v.worstScenario.volShock, pnl: v.worstScenario.pnl.toString() },
  liquidationSpot: v.liquidationSpot === null ? null : v.liquidationSpot.toString(),
});

export function whatIfRoutes(s: Services) {
  const catalog = s.reads.catalog;
  return [
    defineRoute({
      forms: ['current', 'earlier'],
      group: 'account',
      auth: 'required',
      scope: 'read',
      method: 'POST',
      path: '/api/account/portfolios/:id/what-if',
      summary: 'Margin what-if: the portfolio now and with orders filled',
      examples: () => ({ params: { id: 1 }, body: { orders: [{ seriesId: exampleSeries(s).seriesId, isBuy: true, size: '1', price: '100' }] } }),
      description: `\`orders\` (at most ${MAX_ORDERS}; size and price in human units, like an unsigned order body) are treated as filled at their prices: positions move, premium is paid or received, and each order's worst fee is taken from the cash. \`before\` and \`after\`: equity and maxWithdraw in COLLATERAL6, initialMargin, maintenanceMargin and healthRatio in WAD (as the portfolio detail), and the positions' worst scenario. \`allowed\` is the venue's pre-trade check of the orders as orders, \`reason\` (insufficient_cash, insufficient_margin) when refused. Changes nothing. An unknown portfolio or series is 404.`,
      params: Type.Object({ id: Type.Integer({ minimum: 0, maximum: 2 ** 31 - 1 }) }),
      body: Type.Object({
        orders: Type.Array(Type.Object({ seriesId: bytes32('seriesId'), isBuy: Type.Boolean(), size: Type.String({ description: 'contracts, human units (e.g. "1.5")' }), price: Type.String({ description: 'premium per contract, human units' }) }), { maxItems: MAX_ORDERS }),
      }),
      responses: { 200: Type.Object({ before: View, after: View, allowed: Type.Boolean(), reason: Type.Optional(Type.Union([Type.Literal('insufficient_cash'), Type.Literal('insufficient_margin')])) }) },
      handler: ({ auth, params, body }) => {
        const owner = getAddress(auth.address);
        const orders: WhatIfOrder[] = [];
        for (let i = 0; i < body.orders.length; i++) {
          const o = body.orders[i]!;
          const series = catalog.series.get(o.seriesId.toLowerCase() as Hex);
          if (series === undefined) return errorReply('not_found', `Series not found: ${o.seriesId}`, { seriesId: o.seriesId });
          const size = parseHuman(o.size, 18, `orders[${i}].size`, { positive: true });
          if (!size.ok) return errorReply('invalid_argument', size.error.message, { field: size.error.field });
          const price = parseHuman(o.price, 18, `orders[${i}].price`);
          if (!price.ok) return errorReply('invalid_argument', price.error.message, { field: price.error.field });
          orders.push({ seriesId: series.seriesId, isBuy: o.isBuy, size: size.value, price: price.value });
        }
        const w = s.venue.whatIf(owner, params.id, orders);
        if (w === null) return errorReply('not_found', `Portfolio not found: ${params.id}`, { portfolioId: params.id });
        return { body: { before: viewJson(w.before), after: viewJson(w.after), allowed: w.allowed, ...(w.reason === null ? {} : { reason: w.reason }) } };
      },
    }),
  ];
}
