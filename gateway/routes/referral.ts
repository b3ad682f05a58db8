/**
 * Referrals (extensions.md "Points, leaderboard, referrals ..."; docs/referrals.md): create your
 * code, check a code, apply one, read your figures. Codes and their use are engine state (the
 * commands `referral_code` and `referral_apply`, answered after the journal commit); the reads
 * are the fold readModels/referrals.ts. Group `account` (an account endpoint: the orders budget).
 */
import { Type } from '@sinclair/typebox';
import { getAddress } from 'viem';
import { defineRoute } from '../http/route.ts';
import { errorReply } from '../http/errors.ts';
import type { Services } from '../services.ts';
import { engineError } from './engineErrors.ts';
import { AddressSchema, C6String, Nullable } from './schemas.ts';

const both = ['current', 'earlier'] as const;
const referral = { forms: both, group: 'account', tags: ['referrals'] } as const;
const CODE = '^[A-Z0-9]{4,16}$';
const codeMessage = 'code must be 4 to 16 characters A-Z and 0-9';
const Code = Type.String({ pattern: CODE, description: 'referral code: 4 to 16 characters A-Z and 0-9', errorMessage: codeMessage });

/** A code for a wallet that asked for none: upper-case hex of its address, 8 characters (longer while taken). */
export function codeCandidates(address: string): string[] {
  const hex = address.slice(2).toUpperCase();
  return [8, 10, 12, 14, 16].map((n) => hex.slice(0, n));
}

export function referralRoutes(s: Services) {
  const wallet = (address: string) => getAddress(address);
  return [
    defineRoute({
      ...referral,
      method: 'POST',
      path: '/api/referral/code',
      auth: 'required',
      scope: 'trade',
      summary: 'Create your referral code',
      description: `One code per wallet, for good. \`code\` (optional): 4 to 16 characters A-Z and 0-9; without it the venue picks one from your address. Refusals (400 \`failed_precondition\`, \`details.reason\`): \`referral_code_exists\` (you already have one; \`details.code\` is it), \`referral_code_taken\` (another wallet owns it); a malformed code is 400 \`invalid_argument\` \`${codeMessage}\`.`,
      body: Type.Object({ code: Type.Optional(Code) }),
      responses: { 200: Type.Object({ code: Type.String() }) },
      examples: { body: { code: 'ALICE2026' } },
      handler: async ({ auth, body }) => {
        const owner = wallet(auth.address);
        const candidates = body.code !== undefined ? [body.code] : codeCandidates(owner);
        let last: ReturnType<typeof engineError> | null = null;
        for (const code of candidates) {
          const r = await s.pipeline.submit({ type: 'referral_code', owner, code });
          if (r.ok) return { body: { code } };
          last = engineError(r.rejection);
          if (r.rejection.code !== 'referral_code_taken') break;
        }
        return last!;
      },
    }),
    defineRoute({
      ...referral,
      method: 'GET',
      path: '/api/referral/code/:code',
      auth: 'none',
      summary: 'Check a referral code',
      description: '`{ code, valid: true }` for a code that exists; 404 `not_found` otherwise (a malformed code included).',
      params: Type.Object({ code: Type.String({ maxLength: 64, description: 'referral code' }) }),
      responses: { 200: Type.Object({ code: Type.String(), valid: Type.Literal(true) }) },
      examples: { params: { code: 'ALICE2026' } },
      handler: ({ params }) =>
        s.reads.referrals.ownerOf(params.code) !== undefined ? { body: { code: params.code, valid: true as const } } : errorReply('not_found', `Referral code not found: ${params.code.slice(0, 64)}`, { code: params.code.slice(0, 64) }),
    }),
    defineRoute({
      ...referral,
      method: 'POST',
      path: '/api/referral/apply',
      auth: 'required',
      scope: 'trade',
      errors: [404],
      summary: "Apply another wallet's referral code",
      description:
        'Once per wallet, never your own code, and only before your first trade. From then on, at every fill where you pay a taker fee, `REFERRAL_REBATE_BPS` (default 1000 = 10%) of that fee goes to the referrer\'s portfolio 0, in the same command. Refusals: unknown code 404 (`referral_unknown_code`); 400 `failed_precondition` with `details.reason` `referral_own_code`, `referral_already_applied`, `referral_after_trade`. Replies `{ referredBy }`: the referrer\'s address.',
      body: Type.Object({ code: Type.String({ maxLength: 64, description: 'referral code' }) }),
      responses: { 200: Type.Object({ referredBy: AddressSchema }) },
      examples: { body: { code: 'ALICE2026' } },
      handler: async ({ auth, body }) => {
        const r = await s.pipeline.submit({ type: 'referral_apply', owner: wallet(auth.address), code: body.code });
        if (!r.ok) return engineError(r.rejection);
        return { body: { referredBy: (r.value as { referrer: string }).referrer } };
      },
    }),
    defineRoute({
      ...referral,
      method: 'GET',
      path: '/api/referral/me',
      auth: 'required',
      scope: 'read',
      summary: 'Your referral code and figures',
      description: '`code` (null until created), `referredBy` (null unless you applied a code), `referees` (how many wallets applied your code), `rebatesEarned` (COLLATERAL6, paid into your portfolio 0), `volumeReferred` (COLLATERAL6 notional of your referees\' fills since they applied, each side a referee took counted).',
      responses: { 200: Type.Object({ code: Nullable(Type.String()), referredBy: Nullable(AddressSchema), referees: Type.Integer(), rebatesEarned: C6String, volumeReferred: C6String }) },
      handler: ({ auth }) => {
        const v = s.reads.referrals.get(wallet(auth.address));
        return { body: { code: v.code, referredBy: v.referredBy, referees: v.referees, rebatesEarned: v.rebatesEarned.toString(), volumeReferred: v.volumeReferred.toString() } };
      },
    }),
  ];
}
