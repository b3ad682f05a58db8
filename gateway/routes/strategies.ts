/**
 * Strategies (extensions.md "Strategies", docs/strategies.md): the templates of common
 * multi-leg packages and a quote of a package against the books (a fold of events: the
 * market-data read model) with its Greeks and the margin it would need (the engine's what-if
 * query). Group `orders` (the orders budget), auth required.
 */
import { Type } from '@sinclair/typebox';
import { getAddress } from 'viem';
import { defineRoute, type TypedRoute } from '../http/route.ts';
import { errorReply } from '../http/errors.ts';
import type { Services } from '../services.ts';
import { SIDES, parseHuman, WAD, type Hex, type WhatIfOrder } from '../../engine/index.ts';
import { exampleSeries } from './examples.ts';
import { bytes32, Bytes32, C6String, Nullable, WadString } from './schemas.ts';
import type { ErrorReply } from '../http/errors.ts';
import { docsOnly, OrderResultSchema, PlacementFields, relayReply, SignedPlaceSchema, typedDataReply, UnsignedPlaceSchema } from '../orders/orderSchemas.ts';
import { strategyExecute } from '../orders/strategyOperation.ts';
import { literalUnion } from '../wire/literals.ts';

const both = ['current', 'earlier'] as const;
const strategies = { forms: both, group: 'orders', auth: 'required', tags: ['strategies'] } as const;
const MAX_LEGS = 8;

type Leg = { readonly type: 'call' | 'put'; readonly strikeOffset: number; readonly expiryOffset: number; readonly ratio: number };
const leg = (type: 'call' | 'put', strikeOffset: number, ratio: number, expiryOffset = 0): Leg => ({ type, strikeOffset, expiryOffset, ratio });

/** Offsets in steps of the strike grid and of the listed expiries from the chosen centre; ratio signed (+ buys). */
export const strategyTemplates: readonly { readonly name: string; readonly legs: readonly Leg[] }[] = [
  { name: 'call_spread', legs: [leg('call', 0, 1), leg('call', 1, -1)] },
  { name: 'put_spread', legs: [leg('put', 0, 1), leg('put', -1, -1)] },
  { name: 'straddle', legs: [leg('call', 0, 1), leg('put', 0, 1)] },
  { name: 'strangle', legs: [leg('put', -1, 1), leg('call', 1, 1)] },
  { name: 'butterfly', legs: [leg('call', -1, 1), leg('call', 0, -2), leg('call', 1, 1)] },
  { name: 'iron_condor', legs: [leg('put', -2, 1), leg('put', -1, -1), leg('call', 1, -1), leg('call', 2, 1)] },
  { name: 'calendar', legs: [leg('call', 0, -1, 0), leg('call', 0, 1, 1)] },
  { name: 'risk_reversal', legs: [leg('put', -1, -1), leg('call', 1, 1)] },
];

const LegSchema = Type.Object({ type: Type.Union([Type.Literal('call'), Type.Literal('put')]), strikeOffset: Type.Integer(), expiryOffset: Type.Integer(), ratio: Type.Integer({ description: 'signed: + buys, - sells' }) });
const QuoteLeg = Type.Object({
  seriesId: Bytes32,
  side: literalUnion(SIDES),
  size: WadString,
  bestPrice: Nullable(WadString),
  markPrice: WadString,
  available: WadString,
});
const Greeks = Type.Object({ delta: WadString, gamma: WadString, vega: WadString, theta: WadString }, { description: 'of the package: the sum of signed size x the series\' Greek (WAD)' });

/** What `size` of a book side costs walking its levels (C6 of WAD x WAD), or null when it cannot fill. */
function walk(levels: readonly [string, string][], size: bigint): { cost: bigint; available: bigint } {
  let left = size;
  let cost = 0n;
  let available = 0n;
  for (const [p, q] of levels) {
    const qty = BigInt(q);
    available += qty;
    const take = qty < left ? qty : left;
    cost += BigInt(p) * take;
    left -= take;
  }
  return { cost: left > 0n ? -1n : cost, available };
}

const C6_OF_WAD2 = WAD * 10n ** 12n; // WAD x WAD -> COLLATERAL6

const ExecuteBody = Type.Object({
  portfolioId: SignedPlaceSchema.properties.portfolioId,
  legs: Type.Array(
    Type.Union([
      Type.Pick(UnsignedPlaceSchema, ['seriesId', 'isBuy', 'size', 'price', 'deadline'], { title: 'Unsigned leg (phase one)' }),
      Type.Pick(SignedPlaceSchema, ['seriesId', 'portfolioId', 'isBuy', 'tick', 'size', 'expiry', 'nonce', 'deadline', 'signature'], { title: 'Signed leg (phase two): the PlaceOrder message plus its signature' }),
    ]),
    { minItems: 1, maxItems: 50 },
  ),
});
const StrategyId = { strategyId: Type.String({ pattern: '^0x[0-9a-f]{64}$', description: "keccak-256 of the legs' order ids in order" }) };
// Own titles: the documents name components by title, and place-batch's replies hold theirs.
const ExecuteReply = Type.Union([
  Type.Object(typedDataReply('place_orders_batch', { ...StrategyId, placements: Type.Array(Type.Object(PlacementFields)), count: Type.Integer() }).properties, { title: 'Strategy typed-data reply (phase one)' }),
  Type.Object(relayReply('place_orders_batch', { ...StrategyId, count: Type.Integer(), orders: Type.Array(OrderResultSchema, { description: 'every leg, filled in full' }) }).properties, { title: 'Strategy relay reply (phase two)' }),
]);

export function strategyRoutes(s: Services) {
  const catalog = s.reads.catalog;
  const execute = strategyExecute(s);
  return [
    defineRoute({
      ...strategies,
      method: 'POST',
      path: '/api/strategies/execute',
      scope: 'trade',
      errors: [404],
      summary: 'Execute a multi-leg package: every leg fills in full, or nothing changes (two-phase)',
      description:
        '`{ portfolioId, legs: [{ seriesId, isBuy, size, price }] }` (1 to 50 legs, distinct series; size and price in human units; a leg carries no order instructions). The legs become fill-or-kill orders of that portfolio. ' +
        'Two-phase like place-batch: without signatures the reply is `mode: typed_data` (every leg\'s typed data, and the `strategyId`); the same legs as the typed data\'s messages plus `signature` are checked and applied as ONE engine command, answered `mode: relay` with `{ strategyId, orders, relay }` after the journal commit. ' +
        'Every leg fills in full at its limit or better, or nothing changes (no fill, no order, no nonce used): refused 400 failed_precondition `strategy_not_fillable` naming the leg (`details.leg`, `details.seriesId`). Margin and cash are checked once for the whole package (`insufficient_margin`, `insufficient_cash`). ' +
        'Bad bodies (no legs, a series twice, a field of another kind, a signed leg of another portfolio): 400 invalid_argument OrderValidationError naming the field. An unknown series or portfolio is 404.',
      body: docsOnly(ExecuteBody),
      responses: { 200: ExecuteReply },
      examples: () => ({ body: { portfolioId: 1, legs: [{ seriesId: exampleSeries(s).seriesId, isBuy: true, size: '1', price: '1000' }] } }),
      handler: async ({ body, auth }) => (await execute(body, auth.address)) as { body: never } | ErrorReply,
      // The body is checked by strategyOperation.ts rather than the framework (docsOnly): typed clients see it.
    }) as TypedRoute<'POST', '/api/strategies/execute', undefined, undefined, typeof ExecuteBody, { 200: typeof ExecuteReply }, 'required'>,
    defineRoute({
      ...strategies,
      method: 'GET',
      path: '/api/strategies/templates',
      scope: 'read',
      summary: 'Templates of common option strategies',
      description: 'Legs as offsets from a chosen centre: `strikeOffset` in steps of the strike grid, `expiryOffset` in listed expiries, `ratio` signed (+ buys). A client turns them into series ids (e.g. from `GET /api/markets/chain`) for a quote.',
      responses: { 200: Type.Object({ templates: Type.Array(Type.Object({ name: Type.String(), legs: Type.Array(LegSchema) })) }) },
      handler: () => ({ body: { templates: strategyTemplates.map((t) => ({ name: t.name, legs: t.legs.map((l) => ({ ...l })) })) } }),
    }),
    defineRoute({
      ...strategies,
      method: 'POST',
      path: '/api/strategies/quote',
      scope: 'read',
      errors: [404],
      summary: 'Quote a multi-leg package',
      description: `\`legs\` (1 to ${MAX_LEGS}, distinct series, ratio a non-zero integer from -10 to 10) and \`size\` (human units, e.g. "1.5"): a leg trades |ratio| x size. Per leg: \`side\`, \`size\` (WAD), \`bestPrice\` (the top of the book side it would take; null when empty), \`markPrice\`, \`available\` (all of that side's size). \`netPremium\` (COLLATERAL6, + pays) walks the books for every leg (null when a leg cannot fill in full); \`netMark\` the same at marks; \`greeks\` of the package (WAD); \`initialMarginAfter\` (WAD, as the portfolio detail) of your first trading portfolio with the package filled at its book prices (null without a portfolio or when a leg cannot fill); \`executable\` whether every leg can fill in full now. Changes nothing. An unknown series is 404.`,
      body: Type.Object({
        legs: Type.Array(Type.Object({ seriesId: bytes32('seriesId'), ratio: Type.Integer({ minimum: -10, maximum: 10, errorMessage: 'ratio must be a non-zero integer from -10 to 10' }) }), { minItems: 1, maxItems: MAX_LEGS, errorMessage: `legs must hold 1 to ${MAX_LEGS} legs` }),
        size: Type.String({ maxLength: 40, description: 'contracts per unit of ratio, human units (e.g. "1.5")', errorMessage: 'size must be a positive decimal string' }),
      }),
      responses: {
        200: Type.Object({ legs: Type.Array(QuoteLeg), netPremium: Nullable(C6String), netMark: C6String, greeks: Greeks, initialMarginAfter: Nullable(WadString), executable: Type.Boolean() }),
      },
      examples: () => ({ body: { legs: [{ seriesId: exampleSeries(s).seriesId, ratio: 1 }], size: '1' } }),
      handler: ({ auth, body }) => {
        const unit = parseHuman(body.size, 18, 'size', { positive: true });
        if (!unit.ok) return errorReply('invalid_argument', unit.error.message, { field: 'size', location: 'body' });
        const seen = new Set<string>();
        const legs = [];
        const fills: WhatIfOrder[] = [];
        let netPremium: bigint | null = 0n;
        let netMark = 0n;
        const greeks = { delta: 0n, gamma: 0n, vega: 0n, theta: 0n };
        let executable = true;
        for (let i = 0; i < body.legs.length; i++) {
          const l = body.legs[i]!;
          const seriesId = l.seriesId.toLowerCase() as Hex;
          if (l.ratio === 0) return errorReply('invalid_argument', 'ratio must be a non-zero integer from -10 to 10', { field: `legs[${i}].ratio`, location: 'body' });
          if (seen.has(seriesId)) return errorReply('invalid_argument', 'each series may appear in one leg only', { field: `legs[${i}].seriesId`, location: 'body' });
          seen.add(seriesId);
          const series = catalog.series.get(seriesId);
          if (series === undefined) return errorReply('not_found', `Series not found: ${l.seriesId}`, { seriesId: l.seriesId });
          if (series.settled) return errorReply('failed_precondition', 'series is settled', { reason: 'series_settled', field: `legs[${i}].seriesId` });
          const isBuy = l.ratio > 0;
          const size = BigInt(Math.abs(l.ratio)) * unit.value;
          const signed = isBuy ? size : -size;
          const book = s.reads.market.levels(seriesId);
          const side = isBuy ? book.asks : book.bids;
          const w = walk(side, size);
          if (w.cost < 0n) {
            executable = false;
            netPremium = null;
          } else {
            if (netPremium !== null) netPremium += ((isBuy ? w.cost : -w.cost) + (isBuy ? C6_OF_WAD2 - 1n : 0n)) / C6_OF_WAD2;
            fills.push({ seriesId, isBuy, size, price: w.cost / size });
          }
          const m = series.marks;
          netMark += (signed * m.mark) / C6_OF_WAD2;
          greeks.delta += (signed * m.delta) / WAD;
          greeks.gamma += (signed * m.gamma) / WAD;
          greeks.vega += (signed * m.vega) / WAD;
          greeks.theta += (signed * m.theta) / WAD;
          legs.push({ seriesId, side: isBuy ? ('buy' as const) : ('sell' as const), size: size.toString(), bestPrice: side[0]?.[0] ?? null, markPrice: m.mark.toString(), available: w.available.toString() });
        }
        const owner = getAddress(auth.address);
        const portfolio = s.reads.accounts.portfolios(owner).find((p) => p.id > 0) ?? null;
        const what = executable && portfolio !== null ? s.venue.whatIf(owner, portfolio.id, fills) : null;
        return {
          body: {
            legs,
            netPremium: netPremium === null ? null : netPremium.toString(),
            netMark: netMark.toString(),
            greeks: { delta: greeks.delta.toString(), gamma: greeks.gamma.toString(), vega: greeks.vega.toString(), theta: greeks.theta.toString() },
            initialMarginAfter: what === null ? null : (what.after.initialMargin * 10n ** 12n).toString(),
            executable,
          },
        };
      },
    }),
  ];
}
