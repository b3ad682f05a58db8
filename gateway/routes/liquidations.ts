/**
 * Liquidations and the insurance fund (extensions.md "Liquidation and the insurance fund"):
 * in both forms your liquidations (auth, `read`), the fund's figures (public), and (current form only, as
 * every admin route) an admin's deposit into the fund (an engine command, journaled and replayed like any other). Reads are
 * folds of the engine's events (gateway/readModels/liquidations.ts).
 */
import { Type } from '@sinclair/typebox';
import { getAddress } from 'viem';
import { defineRoute } from '../http/route.ts';
import { errorReply } from '../http/errors.ts';
import { parseIntString } from '../../engine/index.ts';
import type { Services } from '../services.ts';
import { liquidationJson } from '../readModels/liquidations.ts';
import { engineError } from './engineErrors.ts';
import { InsuranceFundSchema, LiquidationSchema, Nullable } from './schemas.ts';

const both = ['current', 'earlier'] as const;

export function liquidationRoutes(s: Services) {
  const fundJson = () => {
    const f = s.reads.liquidations.fund(s.pipeline.now());
    return { balance: f.balance.toString(), badDebt: f.badDebt.toString(), liquidations24h: f.liquidations24h, feesCollected24h: f.feesCollected24h.toString() };
  };
  return [
    defineRoute({
      forms: both,
      group: 'account',
      auth: 'required',
      scope: 'read',
      method: 'GET',
      path: '/api/account/liquidations',
      summary: 'Your liquidations',
      examples: { query: { limit: 20, cursor: '12' } },
      description:
        'Newest first. `cursor` is the `nextCursor` of the previous page, a liquidation id: only older liquidations follow; `nextCursor` is null on the last page. The venue keeps the last 1,000 per wallet. `trigger` is the equity (COLLATERAL6) and maintenance margin counting open orders (WAD, as the portfolio detail shows it) that started it; `closes` are the fills against the book and the insurance fund\'s takeovers at the band\'s edge; `fee` went to the fund; `deficit` is the negative equity the fund (or bad debt) covered.',
      query: Type.Object({
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, errorMessage: 'limit must be greater than 0 and at most 100' })),
        cursor: Type.Optional(Type.String({ pattern: '^[0-9]{1,20}$', errorMessage: 'cursor must be a liquidation id (nextCursor)' })),
      }),
      responses: { 200: Type.Object({ liquidations: Type.Array(LiquidationSchema), nextCursor: Nullable(Type.String()) }) },
      handler: ({ auth, query }) => {
        const all = s.reads.liquidations.forOwner(getAddress(auth.address));
        const before = query.cursor === undefined ? null : BigInt(query.cursor);
        const from = before === null ? 0 : all.findIndex((r) => BigInt(r.id) < before);
        const start = from < 0 ? all.length : from;
        const limit = query.limit ?? 20;
        const page = all.slice(start, start + limit);
        const more = start + limit < all.length;
        return { body: { liquidations: page.map(liquidationJson), nextCursor: more ? page[page.length - 1]!.id : null } };
      },
    }),
    defineRoute({
      forms: both,
      group: 'markets',
      auth: 'none',
      method: 'GET',
      path: '/api/platform/insurance-fund',
      summary: 'The insurance fund',
      description: "COLLATERAL6. `balance` is the fund's cash (positions it took over from liquidations are not counted); `badDebt` the deficits of bankrupt portfolios it could not pay; `liquidations24h` and `feesCollected24h` count the liquidations of the last 24 hours and their fees.",
      responses: { 200: InsuranceFundSchema },
      handler: () => ({ body: fundJson() }),
    }),
    defineRoute({
      group: 'admin',
      auth: 'admin',
      scope: 'admin',
      method: 'POST',
      path: '/api/admin/insurance-fund/deposit',
      summary: 'Add cash to the insurance fund',
      examples: { body: { amount: '1000000000' } },
      description: 'COLLATERAL6 integer string, positive. Answers the fund after the deposit.',
      body: Type.Object({ amount: Type.String({ maxLength: 100, description: 'COLLATERAL6 integer string' }) }),
      responses: { 200: InsuranceFundSchema },
      handler: async ({ body }) => {
        const amount = parseIntString(body.amount, 'amount', { bits: 128 });
        if (!amount.ok) return errorReply('invalid_argument', amount.error.message, { field: 'amount', location: 'body' });
        if (amount.value <= 0n) return errorReply('invalid_argument', 'amount must be a positive numeric string', { field: 'amount', location: 'body' });
        const r = await s.pipeline.submit({ type: 'insurance_fund_deposit', amount: amount.value, reason: 'deposit' });
        if (!r.ok) return engineError(r.rejection);
        return { body: fundJson() };
      },
    }),
  ];
}
