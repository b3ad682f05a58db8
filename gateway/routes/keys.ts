/**
 * API keys (interface.md "API key endpoints", api.md "Auth"). Only a login session
 * (bearer token or cookie) may list, create, rotate or revoke keys: a leaked key cannot
 * mint more keys or lock its owner out. A key belongs to the wallet that created it and
 * acts as that wallet with its scopes; a wallet never sees, rotates or revokes another
 * wallet's keys (an unknown and a foreign keyId both answer 404). Only an admin wallet
 * may create a key with scope `admin` (403 otherwise): such a key could do nothing else.
 */
import { Type } from '@sinclair/typebox';
import { getAddress } from 'viem';
import { defineRoute, scopes as allScopes, type Route } from '../http/route.ts';
import { errorReply } from '../http/errors.ts';
import type { UserAuth } from '../http/auth.ts';
import type { Services } from '../services.ts';
import type { ApiKeyRecord } from '../../persistence/stores.ts';
import { KEY_ID_PATTERN, MAX_KEYS_PER_WALLET, newKeyId, newSecret, normaliseScopes } from '../auth/apiKeys.ts';

const ScopeSchema = Type.Union(allScopes.map((s) => Type.Literal(s)), {
  description: '`read` every private read; `trade` orders, RFQ and portfolio moves; `withdraw` withdrawals; `admin` admin actions (admin wallets only). docs/auth.md has the route x scope matrix.',
});
/** A well-formed key id; a real one is what `POST /api/keys` returned. */
const exampleKeyId = `ok_${'0123456789ab'.repeat(2)}`;
const keyIdParam = Type.Object({ keyId: Type.String({ maxLength: 64, description: '`ok_` + 24 hex characters' }) });
const SecretReply = Type.Object({
  keyId: Type.String({ pattern: KEY_ID_PATTERN }),
  secret: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'Shown once. The HMAC-SHA256 key, as this string.' }),
  label: Type.String(),
  scopes: Type.Array(ScopeSchema),
});
const KeyInfo = Type.Object({
  keyId: Type.String(),
  label: Type.String(),
  scopes: Type.Array(ScopeSchema),
  createdAt: Type.String({ description: 'ISO 8601' }),
  lastUsedAt: Type.Union([Type.String({ description: 'ISO 8601, updated at most once a minute' }), Type.Null()]),
});

const iso = (ms: number) => new Date(ms).toISOString();
const sessionsOnly = ['bearer', 'cookie'] as const;

export function keyRoutes(s: Services) {
  const owner = (auth: UserAuth) => getAddress(auth.address).toLowerCase();
  /** The caller's own key, or null: someone else's key is "not found" too, so ids cannot be probed. */
  const ownKey = async (auth: UserAuth, keyId: string): Promise<ApiKeyRecord | null> => {
    const key = await s.stores.apiKeys.get(keyId);
    return key !== null && key.owner.toLowerCase() === owner(auth) ? key : null;
  };
  const notFound = (keyId: string) => errorReply('not_found', `API key not found: ${keyId}`, { keyId });

  return [
    defineRoute({
      method: 'POST',
      path: '/api/keys',
      group: 'account',
      auth: 'required',
      accepts: sessionsOnly,
      summary: 'Create an API key',
      examples: { body: { label: 'market maker bot', scopes: ['read', 'trade'] } },
      description: `Returns the secret once. Sign requests with \`X-API-Key\`, \`X-API-Timestamp\` (Unix ms, within 30 s) and \`X-API-Signature\` (lowercase hex HMAC-SHA256 of the timestamp string keyed with the secret). At most ${MAX_KEYS_PER_WALLET} active keys per wallet. Needs a login session, not a key. Scope \`admin\` is for admin wallets only: another wallet asking for it gets 403 \`permission_denied\` (\`details.reason: admin_scope_needs_admin\`) and no key is created.`,
      body: Type.Object({
        label: Type.String({ minLength: 1, maxLength: 64, errorMessage: 'label must be a string of 1 to 64 characters' }),
        scopes: Type.Array(ScopeSchema, { minItems: 1, maxItems: 8, errorMessage: `scopes must be a non-empty array of ${allScopes.join(', ')}` }),
      }),
      responses: { 200: SecretReply },
      handler: async ({ auth, body }) => {
        if (body.scopes.includes('admin') && !s.config.adminAddresses.has(getAddress(auth.address))) {
          return errorReply('permission_denied', 'Only an admin wallet may create a key with scope admin', { reason: 'admin_scope_needs_admin', field: 'scopes' });
        }
        if (s.stores.apiKeys.list(owner(auth)).length >= MAX_KEYS_PER_WALLET) {
          return errorReply('failed_precondition', `At most ${MAX_KEYS_PER_WALLET} API keys per wallet; revoke one first`, { reason: 'too_many_keys', limit: MAX_KEYS_PER_WALLET });
        }
        const record: ApiKeyRecord = { keyId: newKeyId(), owner: owner(auth), label: body.label, scopes: normaliseScopes(body.scopes), createdAt: s.pipeline.wallNow(), lastUsedAt: null, secret: newSecret() };
        await s.stores.apiKeys.put(record);
        return { body: { keyId: record.keyId, secret: record.secret, label: record.label, scopes: [...record.scopes] as never } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/keys',
      group: 'account',
      auth: 'required',
      accepts: sessionsOnly,
      summary: 'List your active API keys',
      description: 'Oldest first, without secrets.',
      responses: { 200: Type.Object({ keys: Type.Array(KeyInfo) }) },
      handler: ({ auth }) => ({
        body: {
          keys: s.stores.apiKeys.list(owner(auth)).map((k) => ({ keyId: k.keyId, label: k.label, scopes: [...k.scopes] as never, createdAt: iso(k.createdAt), lastUsedAt: k.lastUsedAt === null ? null : iso(k.lastUsedAt) })),
        },
      }),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/keys/:keyId',
      group: 'account',
      auth: 'required',
      accepts: sessionsOnly,
      summary: 'Revoke an API key',
      examples: { params: { keyId: exampleKeyId } },
      description: 'Requests signed with it answer 401 from then on (on public routes they fall back to IP limits).',
      params: keyIdParam,
      responses: { 200: Type.Object({ success: Type.Boolean(), keyId: Type.String() }) },
      handler: async ({ auth, params }) => {
        if ((await ownKey(auth, params.keyId)) === null) return notFound(params.keyId);
        await s.stores.apiKeys.revoke(params.keyId);
        return { body: { success: true, keyId: params.keyId } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/keys/:keyId/rotate',
      group: 'account',
      auth: 'required',
      accepts: sessionsOnly,
      summary: 'Rotate the secret of an API key',
      examples: { params: { keyId: exampleKeyId } },
      description: 'Same keyId, label and scopes; a new secret, shown once. The old secret stops working at once.',
      params: keyIdParam,
      responses: { 200: SecretReply },
      handler: async ({ auth, params }) => {
        const key = await ownKey(auth, params.keyId);
        if (key === null) return notFound(params.keyId);
        const rotated: ApiKeyRecord = { ...key, secret: newSecret() };
        await s.stores.apiKeys.put(rotated);
        return { body: { keyId: rotated.keyId, secret: rotated.secret, label: rotated.label, scopes: [...rotated.scopes] as never } };
      },
    }),
  ];
}
