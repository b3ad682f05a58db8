/**
 * Portfolio writes and the portfolio list (api.md "Portfolios, collateral, positions,
 * margin"). Writes are engine commands submitted through the pipeline: the reply comes
 * after the journal commit, and a refusal is the engine's code mapped by engineErrors.ts.
 * The caller is always the owner; portfolio ids are the caller's own.
 */
import { Type } from '@sinclair/typebox';
import { getAddress } from 'viem';
import { defineRoute, type Route } from '../http/route.ts';
import { errorReply } from '../http/errors.ts';
import type { UserAuth } from '../http/auth.ts';
import type { Services } from '../services.ts';
import { parseIntString } from '../../engine/index.ts';
import { AccountViews } from '../readModels/accountViews.ts';
import { engineError } from './engineErrors.ts';
import { AddressSchema, C6String } from './schemas.ts';

const both = ['current', 'earlier'] as const;
const portfolioId = (name: string) => Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, errorMessage: `${name} must be a non-negative integer` });
const Amount = Type.Union([Type.String({ maxLength: 100 }), Type.Integer()], {
  description: 'COLLATERAL6 integer string, e.g. "2500000000" = 2,500 USDC',
  errorMessage: 'amount must be a positive numeric string',
});
const CashReply = Type.Object({ success: Type.Boolean(), portfolioId: Type.Integer(), amount: C6String, deposit: C6String, maxWithdraw: C6String });

/** Parse a COLLATERAL6 amount; every malformed value gets the interface's one message. */
function amountOf(raw: unknown): { ok: true; value: bigint } | { ok: false; reply: ReturnType<typeof errorReply> } {
  const r = parseIntString(raw, 'amount', { bits: 128, positive: true });
  if (r.ok && r.value > 0n) return { ok: true, value: r.value };
  return { ok: false, reply: errorReply('invalid_argument', 'amount must be a positive numeric string', { field: 'amount', location: 'body', ...(r.ok ? {} : { hint: r.error.message }) }) };
}

const orders = { forms: both, group: 'orders', auth: 'required' } as const;

export function portfolioRoutes(s: Services) {
  const views = new AccountViews(s.reads, s.config.chain !== null);
  const owner = (auth: UserAuth) => getAddress(auth.address);
  const faucet = s.config.network !== 'mainnet';

  const cashReply = (auth: UserAuth, id: number, amount: bigint) => {
    const p = views.portfolio(owner(auth), id)!;
    const c = views.collateral(p);
    return { body: { success: true, portfolioId: id, amount: amount.toString(), deposit: c.deposit, maxWithdraw: c.maxWithdraw } };
  };

  return [
    defineRoute({
      ...orders,
      method: 'GET',
      path: '/api/portfolio/list',
      scope: 'read',
      summary: 'Your portfolios with cash and margin in use',
      description: '`cashBalance` is the deposit and `marginUsed` the initial margin counting open orders, both COLLATERAL6; `createdAt` is ISO 8601.',
      responses: { 200: Type.Object({ portfolios: Type.Array(Type.Object({ id: Type.Integer(), owner: AddressSchema, cashBalance: C6String, marginUsed: C6String, createdAt: Type.String() })) }) },
      handler: ({ auth }) => ({ body: { portfolios: views.list(owner(auth)) } }),
    }),
    defineRoute({
      ...orders,
      method: 'POST',
      path: '/api/portfolio/create',
      scope: 'trade',
      summary: 'Create a trading portfolio',
      description: 'Ids are per wallet: 1, 2, ... in order (0 is the cash portfolio, created with the first). No body needed.',
      responses: { 200: Type.Object({ id: Type.Integer() }) },
      handler: async ({ auth }) => {
        const r = await s.pipeline.submit({ type: 'create_portfolio', owner: owner(auth) });
        if (!r.ok) return engineError(r.rejection);
        return { body: { id: (r.value as { portfolioId: number }).portfolioId } };
      },
    }),
    defineRoute({
      ...orders,
      method: 'POST',
      path: '/api/portfolio/deposit',
      scope: 'trade',
      summary: 'Deposit collateral',
      errors: [404],
      examples: { body: { portfolioId: 1, amount: '2500000000' } },
      description: 'On `local` and `testnet` this mints test collateral (a faucet: the settlement layer is embedded). On `mainnet` it is refused (`details.reason: faucet_disabled`). Portfolio 0 is created by a first deposit. A portfolio\'s deposit stays within uint128 (2^128-1 COLLATERAL6 units): a deposit past it is refused with 400 `failed_precondition`, `details: { reason: deposit_limit, portfolioId, maxDeposit }`, and nothing changes.',
      body: Type.Object({ portfolioId: portfolioId('portfolioId'), amount: Amount }),
      responses: { 200: CashReply },
      handler: async ({ auth, body }) => {
        const amount = amountOf(body.amount);
        if (!amount.ok) return amount.reply;
        if (!faucet) return errorReply('failed_precondition', 'Deposits are minted only on local and testnet networks', { reason: 'faucet_disabled', network: s.config.network });
        const r = await s.pipeline.submit({ type: 'deposit', owner: owner(auth), portfolioId: body.portfolioId, amount: amount.value });
        if (!r.ok) return engineError(r.rejection, r.rejection.code === 'unknown_portfolio' ? { message: `Portfolio not found: ${body.portfolioId}` } : {});
        return cashReply(auth, body.portfolioId, amount.value);
      },
    }),
    defineRoute({
      ...orders,
      method: 'POST',
      path: '/api/portfolio/withdraw',
      scope: 'withdraw',
      summary: 'Withdraw collateral',
      errors: [404],
      examples: { body: { portfolioId: 1, amount: '1000000' } },
      description: 'At most `maxWithdraw` (free equity over initial margin counting open orders, capped at the deposit); more is refused with 400 `failed_precondition`, `details: { reason: insufficient_funds, maxWithdraw }`. Needs scope `withdraw`.',
      body: Type.Object({ portfolioId: portfolioId('portfolioId'), amount: Amount }),
      responses: { 200: CashReply },
      handler: async ({ auth, body }) => {
        const amount = amountOf(body.amount);
        if (!amount.ok) return amount.reply;
        const r = await s.pipeline.submit({ type: 'withdraw', owner: owner(auth), portfolioId: body.portfolioId, amount: amount.value });
        if (!r.ok) return engineError(r.rejection, r.rejection.code === 'unknown_portfolio' ? { message: `Portfolio not found: ${body.portfolioId}` } : {});
        return cashReply(auth, body.portfolioId, amount.value);
      },
    }),
    defineRoute({
      ...orders,
      method: 'POST',
      path: '/api/portfolio/transfer',
      scope: 'trade',
      summary: 'Move collateral between your portfolios',
      errors: [404],
      examples: { body: { fromPortfolioId: 1, toPortfolioId: 0, amount: '1000000' } },
      description: 'Limited by the source portfolio\'s `maxWithdraw` like a withdrawal.',
      body: Type.Object({ fromPortfolioId: portfolioId('fromPortfolioId'), toPortfolioId: portfolioId('toPortfolioId'), amount: Amount }),
      responses: { 200: Type.Object({ success: Type.Boolean(), fromPortfolioId: Type.Integer(), toPortfolioId: Type.Integer(), amount: C6String, fromDeposit: C6String, toDeposit: C6String }) },
      handler: async ({ auth, body }) => {
        const amount = amountOf(body.amount);
        if (!amount.ok) return amount.reply;
        const r = await s.pipeline.submit({ type: 'transfer', owner: owner(auth), fromPortfolioId: body.fromPortfolioId, toPortfolioId: body.toPortfolioId, amount: amount.value });
        if (!r.ok) {
          const id = r.rejection.details?.['portfolioId'];
          return engineError(r.rejection, r.rejection.code === 'unknown_portfolio' ? { message: `Portfolio not found: ${String(id)}` } : {});
        }
        const w = owner(auth);
        return {
          body: {
            success: true,
            fromPortfolioId: body.fromPortfolioId,
            toPortfolioId: body.toPortfolioId,
            amount: amount.value.toString(),
            fromDeposit: views.portfolio(w, body.fromPortfolioId)!.deposit.toString(),
            toDeposit: views.portfolio(w, body.toPortfolioId)!.deposit.toString(),
          },
        };
      },
    }),
  ];
}
