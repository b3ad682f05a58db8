/**
 * Authenticated account reads (interface.md "Account (authenticated)"), both forms,
 * scope `read`. Everything is looked up under the caller's own wallet: portfolio ids are
 * per wallet, so another wallet's portfolio, order or trade is simply not there (404 for
 * a portfolio id the caller does not have).
 */
import { InstructionReplyFields } from '../orders/instructionFields.ts';
import { Type } from '@sinclair/typebox';
import { getAddress } from 'viem';
import { defineRoute, type Route } from '../http/route.ts';
import { errorReply } from '../http/errors.ts';
import type { UserAuth } from '../http/auth.ts';
import type { Services } from '../services.ts';
import { AccountViews } from '../readModels/accountViews.ts';
import { TimeRangeFields, timeRange } from './timeRange.ts';
import { AddressSchema, Bytes32, C6String, LiquidationSpotSchema, Nullable, WadString } from './schemas.ts';
import { SIDES } from '../../engine/index.ts';
import { literalUnion } from '../wire/literals.ts';

const both = ['current', 'earlier'] as const;
const portfolioIdSchema = (name: string) => Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, errorMessage: `${name} must be a non-negative integer` });
const idParam = Type.Object({ id: portfolioIdSchema('id') });
const Side = literalUnion(SIDES);

const PortfolioSummary = Type.Object({ id: Type.Integer(), positionCount: Type.Integer(), equity: C6String, deposit: C6String, isHealthy: Type.Boolean(), createdAt: Type.Integer({ description: 'Unix seconds' }) });
const PortfolioDetail = Type.Object({
  id: Type.Integer(),
  deposit: C6String,
  equity: C6String,
  unrealizedPnl: C6String,
  maxWithdraw: C6String,
  initialMargin: WadString,
  maintenanceMargin: WadString,
  healthRatio: Type.String({ description: 'WAD: equity / maintenanceMargin; 2^256 - 1 when there is no margin requirement and equity is not negative' }),
  isHealthy: Type.Boolean(),
  isLiquidatable: Type.Boolean(),
  positionCount: Type.Integer(),
  createdAt: Type.Integer({ description: 'Unix seconds' }),
  liquidationSpot: LiquidationSpotSchema,
});
const PositionSchema = Type.Object({
  seriesId: Bytes32,
  symbol: Type.String(),
  optionBalance: Type.String({ description: 'signed WAD: + long, - short' }),
  premiumBalance: Type.String({ description: 'COLLATERAL6 deferred premium: - owed by a long, + owed to a short' }),
  entryPrice: Nullable(WadString),
  realizedPnl: Type.String({ description: 'COLLATERAL6' }),
  markPrice: WadString,
  notional: Type.String({ description: 'WAD: abs(optionBalance) x spot' }),
  marketValue: Type.String({ description: 'WAD: optionBalance x markPrice' }),
  unrealizedPnl: Type.String({ description: 'COLLATERAL6: optionBalance x markPrice + premiumBalance' }),
  delta: Type.String({ description: 'WAD, of the position (per-contract Greek x optionBalance)' }),
  gamma: Type.String(),
  vega: Type.String(),
  theta: Type.String(),
});
const OpenOrder = Type.Object({
  orderId: Bytes32,
  seriesId: Bytes32,
  symbol: Type.String(),
  portfolioId: Type.Integer(),
  side: Side,
  price: WadString,
  size: WadString,
  filled: WadString,
  remaining: WadString,
  status: Type.String({ description: 'open or partial' }),
  createdAt: Type.Integer({ description: 'Unix seconds' }),
  expiry: Type.Integer({ description: 'good-till, Unix seconds' }),
  ...InstructionReplyFields,
});
const UserTrade = Type.Object({
  id: Type.String(),
  seriesId: Bytes32,
  symbol: Type.String(),
  portfolioId: Type.Integer(),
  side: Side,
  price: WadString,
  size: WadString,
  fee: Type.String({ description: 'COLLATERAL6; negative = rebate' }),
  liquidity: Type.Union([Type.Literal('maker'), Type.Literal('taker')]),
  timestamp: Type.Integer({ description: 'Unix seconds' }),
  relayStatus: Type.Optional(
    Type.Union([Type.Literal('pending'), Type.Literal('included'), Type.Literal('final'), Type.Literal('failed')], { description: 'with a settlement chain (docs/chain.md): pending (committed, not yet in a block), included, final (CONFIRMATIONS deep) or failed (the chain refused its batch)' }),
  ),
  relayTx: Type.Optional(Nullable(Type.String({ description: 'with a settlement chain: the transaction that settled it (null while pending, or for a final trade older than the venue keeps)' }))),
});
const Fees = Type.Object({ totalFeesPaid: C6String, fees24h: C6String, makerFees: C6String, takerFees: C6String, rebatesReceived: C6String });
const Profile = Type.Object({
  address: AddressSchema,
  portfolioCount: Type.Integer(),
  totalEquity: C6String,
  totalDeposit: C6String,
  totalUnrealizedPnl: C6String,
  isHealthy: Type.Boolean(),
  positionCount: Type.Integer(),
});

/** Everything the account group has in common. */
const account = { forms: both, group: 'account', auth: 'required', scope: 'read' } as const;

export function accountRoutes(s: Services) {
  const views = new AccountViews(s.reads, s.config.chain !== null);
  const wallet = (auth: UserAuth) => getAddress(auth.address);
  const notFound = (id: number) => errorReply('not_found', `Portfolio not found: ${id}`, { portfolioId: id });
  const own = (auth: UserAuth, id: number) => views.portfolio(wallet(auth), id);

  return [
    defineRoute({
      ...account,
      method: 'GET',
      path: '/api/account/me',
      summary: 'Your profile: totals over your portfolios',
      responses: { 200: Profile },
      handler: ({ auth }) => ({ body: views.profile(wallet(auth)) }),
    }),
    defineRoute({
      ...account,
      method: 'GET',
      path: '/api/account/portfolios',
      summary: 'Your portfolios',
      description: 'Portfolio 0 (cash; a market maker\'s trading portfolios show as 0 too) once it exists, then 1, 2, ... in order.',
      responses: { 200: Type.Object({ portfolios: Type.Array(PortfolioSummary) }) },
      handler: ({ auth }) => ({ body: { portfolios: views.portfolios(wallet(auth)).map((p) => views.summary(p)) } }),
    }),
    defineRoute({
      ...account,
      method: 'GET',
      path: '/api/account/portfolios/:id',
      summary: 'One of your portfolios, with margin',
      examples: { params: { id: 1 } },
      description: 'Cash in COLLATERAL6; initialMargin, maintenanceMargin and healthRatio in WAD (docs/accounts.md).',
      params: idParam,
      responses: { 200: PortfolioDetail },
      handler: ({ auth, params }) => {
        const p = own(auth, params.id);
        return p === null ? notFound(params.id) : { body: views.detail(p) };
      },
    }),
    defineRoute({
      ...account,
      method: 'GET',
      path: '/api/account/portfolios/:id/positions',
      summary: 'Positions of one of your portfolios',
      examples: { params: { id: 1 } },
      params: idParam,
      responses: { 200: Type.Object({ positions: Type.Array(PositionSchema) }) },
      handler: ({ auth, params }) => {
        const p = own(auth, params.id);
        return p === null ? notFound(params.id) : { body: { positions: views.positions(p) } };
      },
    }),
    defineRoute({
      ...account,
      method: 'GET',
      path: '/api/account/portfolios/:id/collateral',
      summary: 'Collateral of one of your portfolios',
      examples: { params: { id: 1 } },
      description: '`locked` = deposit - maxWithdraw: the part of the deposit held by margin and open orders.',
      params: idParam,
      responses: { 200: Type.Object({ deposit: C6String, maxWithdraw: C6String, locked: C6String }) },
      handler: ({ auth, params }) => {
        const p = own(auth, params.id);
        return p === null ? notFound(params.id) : { body: views.collateral(p) };
      },
    }),
    defineRoute({
      ...account,
      method: 'GET',
      path: '/api/account/orders',
      summary: 'Your open orders',
      errors: [404],
      examples: { query: { portfolioId: 1 } },
      description: 'Open and partially filled orders, newest first, optionally of one portfolio (a portfolio id you do not have answers 404). `startTime`/`endTime` (Unix seconds, inclusive) keep orders created in that range; `startTime` after `endTime` is 400.',
      query: Type.Object({ portfolioId: Type.Optional(portfolioIdSchema('portfolioId')), ...TimeRangeFields }),
      responses: { 200: Type.Object({ orders: Type.Array(OpenOrder) }) },
      handler: ({ auth, query }) => {
        const within = timeRange(query);
        if (typeof within !== 'function') return within;
        if (query.portfolioId !== undefined && own(auth, query.portfolioId) === null) return notFound(query.portfolioId);
        return { body: { orders: views.openOrders(wallet(auth), query.portfolioId).filter((o) => within(o.createdAt)) } };
      },
    }),
    defineRoute({
      ...account,
      method: 'GET',
      path: '/api/account/trades',
      summary: 'Your trades',
      errors: [404],
      examples: { query: { portfolioId: 1, limit: 20, before: '1000000', cursor: '1000000' } },
      description: 'Newest first. `before` (or `cursor`) is the `nextCursor` of the previous page, a trade id: only older trades follow. `nextCursor` is null on the last page. The venue keeps the last 10,000 trades per wallet. `startTime`/`endTime` (Unix seconds, inclusive) keep trades in that range; `startTime` after `endTime` is 400.',
      query: Type.Object({
        portfolioId: Type.Optional(portfolioIdSchema('portfolioId')),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, errorMessage: 'limit must be greater than 0 and at most 100' })),
        before: Type.Optional(Type.String({ pattern: '^[0-9]{1,20}$', errorMessage: 'before must be a trade id (nextCursor)' })),
        cursor: Type.Optional(Type.String({ pattern: '^[0-9]{1,20}$', errorMessage: 'cursor must be a trade id (nextCursor)' })),
        ...TimeRangeFields,
      }),
      responses: { 200: Type.Object({ trades: Type.Array(UserTrade), nextCursor: Nullable(Type.String()) }) },
      handler: ({ auth, query }) => {
        const within = timeRange(query);
        if (typeof within !== 'function') return within;
        if (query.portfolioId !== undefined && own(auth, query.portfolioId) === null) return notFound(query.portfolioId);
        const before = query.before ?? query.cursor;
        const page = views.trades(wallet(auth), {
          limit: query.limit ?? 20,
          within,
          ...(query.portfolioId !== undefined ? { portfolioId: query.portfolioId } : {}),
          ...(before !== undefined ? { before: BigInt(before) } : {}),
        });
        return { body: page };
      },
    }),
    defineRoute({
      ...account,
      method: 'GET',
      path: '/api/account/fees',
      summary: 'Your fees',
      description: 'COLLATERAL6. `totalFeesPaid` and `fees24h` count fees paid; `makerFees` and `takerFees` are net per liquidity side (a rebate is negative); `rebatesReceived` sums rebates.',
      responses: { 200: Fees },
      handler: ({ auth }) => ({ body: views.fees(wallet(auth), s.pipeline.now()) }),
    }),
  ];
}
