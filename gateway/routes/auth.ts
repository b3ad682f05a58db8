/**
 * Sign-In with Ethereum, sessions and linked wallets (interface.md "Auth endpoints",
 * docs/auth.md). Both forms: the current one answers a bearer token, the earlier one
 * sets an HttpOnly `session` cookie. Every failed sign-in is 401 `unauthenticated`
 * (earlier code `auth_error`) with the interface's message.
 */
import { Type } from '@sinclair/typebox';
import { getAddress } from 'viem';
import { defineRoute, type Route } from '../http/route.ts';
import { errorReply } from '../http/errors.ts';
import type { UserAuth } from '../http/auth.ts';
import type { Services } from '../services.ts';
import { hashToken } from '../../persistence/stores.ts';
import { alphanumericNonce, hexNonce, NONCE_TTL_MS } from '../auth/nonces.ts';
import { clearedSessionCookie, issueSession, presentedToken, sessionCookieHeader, sessionIdOf, SESSION_TTL_MS } from '../auth/sessions.ts';
import { siweStatement, verifySiwe, type LoginCheck, type SiwePurpose } from '../auth/login.ts';
import { MAX_SIWE_MESSAGE_CHARS } from '../auth/siweMessage.ts';
import { AddressSchema, Nullable } from './schemas.ts';

import { exampleAddress } from './examples.ts';
const both = ['current', 'earlier'] as const;
const SWEEP_EVERY = 256;
/** A well-formed 65-byte signature for the examples (a real one signs a fresh nonce). */
const exampleSignature = `0x${'11'.repeat(64)}1b`;
/** The shape of a sign-in message, for the examples: a real one carries a fresh nonce and is signed by its address. */
const siweExample = (s: Services, statement = `Sign in to ${s.config.serviceName}`) => {
  const authority = s.config.siweDomains[0] ?? `${s.config.host}:${s.config.port}`;
  return [
    `${authority} wants you to sign in with your Ethereum account:`,
    exampleAddress,
    '',
    statement,
    '',
    `URI: http://${authority}`,
    'Version: 1',
    `Chain ID: ${s.config.chainId}`,
    'Nonce: 0123456789abcdef0123456789abcdef',
    `Issued At: ${new Date(s.pipeline.wallNow()).toISOString()}`,
  ].join('\n');
};
const iso = (ms: number) => new Date(ms).toISOString();

const SiweBody = {
  message: Type.String({ minLength: 1, maxLength: MAX_SIWE_MESSAGE_CHARS, description: 'The EIP-4361 message as signed, lines joined by \\n' }),
  signature: Type.String({ maxLength: 1024, description: 'personal_sign signature, 0x hex' }),
};
const UserSchema = Type.Object({ id: Type.String(), address: AddressSchema });
const SessionSchema = Type.Object({ id: Type.String(), expiresAt: Type.String({ description: 'ISO 8601' }) });
const Success = Type.Object({ success: Type.Boolean() });

const PurposeSchema = Type.Optional(
  Type.Union([Type.Literal('login'), Type.Literal('link')], {
    description: 'What the signature will be for: `login` (default, statement `Sign in to <SERVICE_NAME>`) or `link` (linking a wallet, statement `Link wallet to <SERVICE_NAME>`)',
    errorMessage: 'purpose must be login or link',
  }),
);
const StatementSchema = Type.String({ description: 'The statement line the SIWE message must carry for the requested purpose' });

const authFailed = (check: Extract<LoginCheck, { ok: false }>) => errorReply('unauthenticated', check.message, null, { earlierCode: 'auth_error' });

export function authRoutes(s: Services) {
  const secure = s.config.network !== 'local';

  // The stores keep expired nonces and sessions until swept, and have no timers: sweep
  // every SWEEP_EVERY nonces, so that unused nonces cannot pile up (each costs one request
  // of the auth group's 20/min budget).
  let issued = 0;
  const sweep = () => {
    const now = s.pipeline.wallNow();
    Promise.all([s.stores.nonces.sweep(now), s.stores.sessions.sweep(now)]).catch((e: unknown) => s.log.warn('sweeping expired nonces and sessions failed', { error: String(e) }));
  };
  const issueNonce = async (nonce: string, walletAddress: string | undefined) => {
    if (++issued % SWEEP_EVERY === 0) sweep();
    await s.stores.nonces.issue(nonce, { address: walletAddress === undefined ? null : walletAddress.toLowerCase(), chainId: s.config.chainId, expiresAt: s.pipeline.wallNow() + NONCE_TTL_MS });
    return nonce;
  };

  const statementFor = (purpose: SiwePurpose | undefined) => siweStatement(s.config.serviceName, purpose ?? 'login');

  /** The user behind a request, or the interface's "User not found" (an API key of a wallet that never signed in). */
  const userOf = (auth: UserAuth) => s.stores.users.get(auth.userId);
  const userNotFound = () => errorReply('unauthenticated', 'User not found');

  return [
    defineRoute({
      method: 'POST',
      path: '/api/auth/siwe/nonce',
      group: 'auth',
      auth: 'none',
      summary: 'Get a SIWE nonce',
      examples: { body: { walletAddress: exampleAddress, chainId: s.config.chainId, purpose: 'login' } },
      description:
        'A 16-hex-character nonce for the SIWE message, valid 5 minutes and once. It can only be used by `walletAddress` (a failed attempt by another wallet leaves it usable). `chainId`, when given, must be the network\'s. ' +
        '`statement` is the statement line the message must carry for `purpose`: `Sign in to <SERVICE_NAME>` for a login (default), `Link wallet to <SERVICE_NAME>` for linking a wallet.',
      body: Type.Object({ walletAddress: AddressSchema, chainId: Type.Optional(Type.Integer({ minimum: 1, errorMessage: 'chainId must be a positive integer' })), purpose: PurposeSchema }),
      responses: { 200: Type.Object({ nonce: Type.String({ pattern: '^[0-9a-f]{16}$' }), statement: StatementSchema }) },
      handler: async ({ body }) => {
        if (body.chainId !== undefined && body.chainId !== s.config.chainId) {
          return errorReply('invalid_argument', `ChainId mismatch: expected ${s.config.chainId}`, { field: 'chainId', expected: s.config.chainId });
        }
        return { body: { nonce: await issueNonce(hexNonce(), body.walletAddress), statement: statementFor(body.purpose) } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/auth/siwe/nonce',
      forms: both,
      group: 'auth',
      auth: 'none',
      summary: 'Get a SIWE nonce (earlier form)',
      examples: { query: { walletAddress: exampleAddress, purpose: 'login' } },
      description:
        'A 32-character alphanumeric nonce, valid 5 minutes and once. With `walletAddress` it can only be used by that wallet (a failed attempt by another wallet leaves it usable). Served at `/api/auth/siwe/nonce` and `/auth/siwe/nonce`. ' +
        '`statement` is the statement line the message must carry for `purpose`: `Sign in to <SERVICE_NAME>` for a login (default), `Link wallet to <SERVICE_NAME>` for `/auth/api/wallets/verify`.',
      query: Type.Object({ walletAddress: Type.Optional(AddressSchema), purpose: PurposeSchema }),
      responses: { 200: Type.Object({ nonce: Type.String({ pattern: '^[A-Za-z0-9]{32}$' }), statement: StatementSchema }) },
      handler: async ({ query }) => ({ body: { nonce: await issueNonce(alphanumericNonce(), query.walletAddress), statement: statementFor(query.purpose) } }),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/auth/siwe/verify',
      forms: both,
      group: 'auth',
      auth: 'none',
      // The earlier form's reply sets the session cookie: its body must be JSON (csrf.ts).
      setsSessionCookie: true,
      summary: 'Sign in with a signed SIWE message',
      // A refused message, signature or nonce.
      errors: [401],
      examples: () => ({ body: { message: siweExample(s), signature: exampleSignature, walletAddress: exampleAddress, chainId: s.config.chainId } }),
      description:
        'Checks the message (domain = one of SIWE_DOMAIN\'s entries, on NETWORK=local also the venue\'s own listen address, never the Host header; URI on the same host[:port]; chain id = the network\'s; statement `Sign in to <SERVICE_NAME>`; ' +
        '`Issued At` at most 60 s in the future), the EOA signature and the nonce (single use, consumed only by the wallet it was asked for). ' +
        'Current form: `{ token, user, success }`; send the token as `Authorization: Bearer <token>` (24 hours). ' +
        'Earlier form: `{ session, user }` and an HttpOnly `session` cookie (24 hours); its body must be `Content-Type: application/json` (else 415, so that no cross-site form can sign a browser into another account). Failures: 401 with the reason.',
      body: Type.Object({
        ...SiweBody,
        walletAddress: Type.Optional(AddressSchema),
        chainId: Type.Optional(Type.Integer({ minimum: 1, errorMessage: 'chainId must be a positive integer' })),
      }),
      responses: {
        200: Type.Object({
          token: Type.String(),
          user: Type.Object({ id: Type.String(), address: AddressSchema, walletAddress: AddressSchema, chainId: Type.Integer() }),
          success: Type.Boolean(),
          expiresAt: Type.String({ description: 'ISO 8601' }),
        }),
      },
      earlier: { responses: { 200: Type.Object({ session: SessionSchema, user: UserSchema }) } },
      handler: async ({ body, form }) => {
        const check = await verifySiwe(s, {
          message: body.message,
          signature: body.signature,
          purpose: 'login',
          ...(body.walletAddress !== undefined ? { claimedAddress: body.walletAddress } : {}),
          ...(body.chainId !== undefined ? { claimedChainId: body.chainId } : {}),
        });
        if (!check.ok) return authFailed(check);
        const now = s.pipeline.wallNow();
        const user = await s.stores.users.getOrCreate(check.address, now);
        const session = await issueSession(s.stores, user, check.address, form, now);
        if (form === 'earlier') {
          return {
            body: { session: { id: session.id, expiresAt: iso(session.expiresAt) }, user: { id: user.id, address: check.address } } as never,
            headers: { 'Set-Cookie': sessionCookieHeader(session.token, SESSION_TTL_MS / 1000, secure) },
          };
        }
        return {
          body: { token: session.token, user: { id: user.id, address: check.address, walletAddress: check.address, chainId: s.config.chainId }, success: true, expiresAt: iso(session.expiresAt) },
        };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/auth/sign-out',
      forms: both,
      group: 'auth',
      auth: 'required',
      accepts: ['bearer', 'cookie'],
      summary: 'Sign out',
      description: 'Revokes the session of the request (the bearer token, else the cookie); it answers 401 from then on. Also clears the `session` cookie.',
      responses: { 200: Success },
      handler: async ({ auth, headers }) => {
        const token = presentedToken(headers, auth.via === 'cookie' ? 'cookie' : 'bearer');
        if (token !== null) await s.stores.sessions.revoke(hashToken(token));
        return { body: { success: true }, headers: { 'Set-Cookie': clearedSessionCookie(secure) } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/auth/session',
      forms: both,
      group: 'auth',
      auth: 'optional',
      summary: 'The current session',
      description: '`{ user, session }` for a valid token or cookie; `{ user: null, session: null }` without one, or with an expired or revoked one. With an API key: the user and `session: null`.',
      responses: { 200: Type.Object({ user: Nullable(UserSchema), session: Nullable(SessionSchema) }) },
      handler: async ({ auth, headers }) => {
        if (auth.kind !== 'user') return { body: { user: null, session: null } };
        const user = { id: auth.userId, address: getAddress(auth.address) };
        if (auth.via === 'apikey') return { body: { user, session: null } };
        const token = presentedToken(headers, auth.via);
        const record = token === null ? null : await s.stores.sessions.get(hashToken(token), s.pipeline.wallNow());
        if (token === null || record === null) return { body: { user: null, session: null } };
        return { body: { user, session: { id: sessionIdOf(token), expiresAt: iso(record.expiresAt) } } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/auth/api/wallets',
      forms: ['earlier'],
      group: 'auth',
      auth: 'required',
      scope: 'read',
      summary: 'Wallets of the signed-in user',
      description: 'The primary wallet first, then linked wallets by link time. Each wallet has its own portfolios and API keys; signing in with any of them reaches the same user.',
      responses: { 200: Type.Object({ wallets: Type.Array(Type.Object({ address: AddressSchema, isPrimary: Type.Boolean(), linkedAt: Type.String({ description: 'ISO 8601' }) })), total: Type.Integer() }) },
      handler: async ({ auth }) => {
        if ((await userOf(auth)) === null) return userNotFound();
        const wallets = s.stores.users.wallets(auth.userId).map((w) => ({ address: getAddress(w.address), isPrimary: w.isPrimary, linkedAt: iso(w.linkedAt) }));
        return { body: { wallets, total: wallets.length } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/auth/api/wallets/primary',
      forms: ['earlier'],
      group: 'auth',
      auth: 'required',
      scope: 'read',
      summary: 'Primary wallet of the signed-in user',
      description: 'The wallet the user first signed in with.',
      responses: { 200: Type.Object({ address: AddressSchema, userId: Type.String() }) },
      handler: async ({ auth }) => {
        const user = await userOf(auth);
        if (user === null) return userNotFound();
        return { body: { address: getAddress(user.address), userId: user.id } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/api/wallets/verify',
      forms: ['earlier'],
      group: 'auth',
      auth: 'required',
      accepts: ['bearer', 'cookie'],
      summary: 'Link another wallet by a SIWE signature',
      examples: () => ({ body: { message: siweExample(s, siweStatement(s.config.serviceName, 'link')), signature: exampleSignature, address: exampleAddress } }),
      description:
        'The wallet `address` signs a SIWE message like a login (nonce from `/auth/siwe/nonce?purpose=link`, same checks and 401 messages) but with its own statement, `Link wallet to <SERVICE_NAME>`: ' +
        'a message signed to sign in is refused here, and a linking message is refused by verify. On success the wallet is linked to the signed-in user. ' +
        'A wallet already linked to another user is refused with 400 `failed_precondition` (`details.reason: wallet_linked_elsewhere`).',
      body: Type.Object({ ...SiweBody, address: AddressSchema }),
      responses: { 200: Type.Object({ success: Type.Boolean(), message: Type.String(), address: AddressSchema }) },
      handler: async ({ auth, body }) => {
        const check = await verifySiwe(s, { message: body.message, signature: body.signature, purpose: 'link', claimedAddress: body.address });
        if (!check.ok) return authFailed(check);
        const linked = await s.stores.users.link(auth.userId, check.address, s.pipeline.wallNow());
        if (!linked.ok) {
          if (linked.reason === 'unknown-user') return userNotFound();
          return errorReply('failed_precondition', 'Wallet is already linked to another user', { reason: 'wallet_linked_elsewhere', address: check.address });
        }
        return { body: { success: true, message: linked.wallet.isPrimary ? 'Wallet is the primary wallet' : 'Wallet linked', address: check.address } };
      },
    }),
  ];
}
