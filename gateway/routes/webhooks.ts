/**
 * Chain webhooks (extensions.md "Webhooks", docs/webhooks.md): a chain-indexing provider tells
 * the venue about on-chain events. Authenticated by the provider's HMAC, not a wallet:
 * `X-Webhook-Signature: sha256=<hex HMAC-SHA256(WEBHOOK_SECRET, timestamp + "." + raw body)>`
 * with `X-Webhook-Timestamp` (Unix ms) within 5 minutes of the venue's clock. Each event is the
 * engine command `chain_event`, taken once by its `id` (the ids are engine state: a repeat,
 * also after a restart, answers 200 `{ duplicate: true }` and changes nothing).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import { getAddress, isAddress } from 'viem';
import { defineRoute, type TypedRoute } from '../http/route.ts';
import { compileInput } from '../http/validation.ts';
import { docsOnly } from '../orders/orderSchemas.ts';
import { errorReply, type ErrorReply } from '../http/errors.ts';
import type { Services } from '../services.ts';
import { chainEventKinds, type ChainEventData, type Hex } from '../../engine/index.ts';
import { engineError } from './engineErrors.ts';
import { findDeposit } from '../../chain/depositLookup.ts';

/** How far the provider's timestamp may be from the venue's clock (ms). */
export const WEBHOOK_TOLERANCE_MS = 5 * 60_000;

/** The signature header's value for a body sent at `timestamp` (the provider's side; tests use it). */
export function webhookSignature(secret: string, timestamp: string, rawBody: Uint8Array | string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex')}`;
}

const HASH = /^0x[0-9a-fA-F]{64}$/;

/**
 * The body, shown in the documents but checked in the handler after the group's 503 and the
 * signature's 401: a caller without the secret learns nothing about bodies.
 */
const WebhookBody = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 200, description: "the provider's event id (idempotency key)", errorMessage: 'id must be a string of 1 to 200 characters' }),
  type: Type.String({ maxLength: 64, description: `one of ${chainEventKinds.join(', ')}` }),
  data: Type.Object({}, { additionalProperties: true, description: 'fields of the type', errorMessage: 'data must be an object' }),
});
const checkBody = compileInput(WebhookBody, 'body', false);
const WebhookReply = Type.Object({ id: Type.String(), duplicate: Type.Boolean() });
const unauthorized = (message: string) => errorReply('unauthenticated', message);
const bad = (field: string, message: string) => errorReply('invalid_argument', message, { field: `data.${field}`, location: 'body' });

/** The provider's `data` for a type, checked; or the 400 naming the field. */
function parseData(type: string, data: Record<string, unknown>): ChainEventData | ErrorReply {
  if (!(chainEventKinds as readonly string[]).includes(type)) return errorReply('invalid_argument', `unknown webhook type: ${type.slice(0, 64)} (one of ${chainEventKinds.join(', ')})`, { field: 'type', location: 'body' });
  const txHash = data['txHash'];
  if (typeof txHash !== 'string' || !HASH.test(txHash)) return bad('txHash', 'txHash must be a hex string (0x + 64 hex characters)');
  const tx = txHash.toLowerCase() as Hex;
  const owner = () => (typeof data['owner'] === 'string' && isAddress(data['owner'], { strict: false }) ? getAddress(data['owner']) : null);
  switch (type) {
    case 'deposit': {
      const o = owner();
      if (o === null) return bad('owner', 'Invalid wallet address');
      const portfolioId = data['portfolioId'];
      if (typeof portfolioId !== 'number' || !Number.isSafeInteger(portfolioId) || portfolioId < 0) return bad('portfolioId', 'portfolioId must be a non-negative integer');
      const amount = data['amount'];
      if (typeof amount !== 'string' || !/^[0-9]{1,78}$/.test(amount) || BigInt(amount) === 0n) return bad('amount', 'amount must be a positive numeric string');
      return { kind: 'deposit', owner: o, portfolioId, amount: BigInt(amount), txHash: tx };
    }
    case 'withdrawal_confirmed': {
      const o = owner();
      if (o === null) return bad('owner', 'Invalid wallet address');
      const w = data['withdrawalId'];
      if (!((typeof w === 'string' && w.length > 0 && w.length <= 100) || (typeof w === 'number' && Number.isSafeInteger(w)))) return bad('withdrawalId', 'withdrawalId must be a string (1-100 characters) or an integer');
      return { kind: 'withdrawal_confirmed', owner: o, withdrawalId: String(w), txHash: tx };
    }
    case 'relay_confirmed':
    case 'relay_failed': {
      const ids = data['orderIds'];
      if (!Array.isArray(ids) || ids.length === 0 || ids.length > 100 || !ids.every((x) => typeof x === 'string' && HASH.test(x))) return bad('orderIds', 'orderIds must be 1 to 100 order ids (bytes32 hex)');
      const reason = data['reason'];
      if (reason !== undefined && reason !== null && (typeof reason !== 'string' || reason.length > 500)) return bad('reason', 'reason must be a string of at most 500 characters');
      return { kind: type, orderIds: ids.map((x: string) => x.toLowerCase() as Hex), txHash: tx, reason: typeof reason === 'string' ? reason : null };
    }
    default:
      throw new Error(`unhandled webhook type ${type}`); // every kind of chainEventKinds is a case above
  }
}

export function webhookRoutes(s: Services) {
  const secret = s.config.webhookSecret;
  return [
    defineRoute({
      method: 'POST',
      path: '/api/webhooks/chain',
      forms: ['current', 'earlier'],
      group: 'webhooks',
      auth: 'none',
      tags: ['webhooks'],
      headers: ['x-webhook-timestamp', 'x-webhook-signature'],
      errors: [401, 503],
      summary: 'On-chain events from the chain-indexing provider',
      description:
        'Headers `X-Webhook-Timestamp` (Unix ms, within 5 minutes of the venue\'s clock) and `X-Webhook-Signature: sha256=<hex HMAC-SHA256(WEBHOOK_SECRET, timestamp + "." + raw body)>`. Types: `deposit` `{ owner, portfolioId, amount (COLLATERAL6), txHash }` credits collateral (every network); `withdrawal_confirmed` `{ owner, withdrawalId, txHash }` is recorded; `relay_confirmed` / `relay_failed` `{ orderIds, txHash, reason? }` are recorded and shown in order reads as `relayTx`, `relayStatus`. Idempotent by `id`: a repeat answers 200 `{ duplicate: true }` and changes nothing, also after a restart. With a settlement chain (docs/chain.md) a `deposit` must be in the vault: the transaction must hold its `Deposited` log (else 400, `details.reason: deposit_not_on_chain`), CONFIRMATIONS deep (else 400 `failed_precondition`, `deposit_not_final`: send it again later; a chain that does not answer is 503 `unavailable`, `chain_unreachable`), and it is taken under the chain event\'s own id `chainId:txHash:logIndex`, so a deposit the venue\'s indexer already credited, or another delivery of the same deposit, answers `{ duplicate: true }`. Checked in this order: without `WEBHOOK_SECRET` configured, 503 `unavailable`; a bad or missing signature or a stale timestamp, 401; then the body (a malformed body or an unknown type), 400.',
      body: docsOnly(WebhookBody),
      responses: { 200: WebhookReply },
      examples: { body: { id: 'evt_1', type: 'deposit', data: { owner: '0x000000000000000000000000000000000000dEaD', portfolioId: 0, amount: '1000000', txHash: `0x${'ab'.repeat(32)}` } } },
      handler: async ({ body: rawJson, headers, rawBody, now }) => {
        if (secret === null) return errorReply('unavailable', 'webhooks are not configured (WEBHOOK_SECRET)');
        const timestamp = headers['x-webhook-timestamp'];
        const signature = headers['x-webhook-signature'];
        if (timestamp === undefined || signature === undefined) return unauthorized('missing webhook signature');
        if (!/^[0-9]{1,16}$/.test(timestamp)) return unauthorized('invalid webhook timestamp');
        const expected = Buffer.from(webhookSignature(secret, timestamp, rawBody ?? new Uint8Array()));
        const given = Buffer.from(signature);
        if (given.length !== expected.length || !timingSafeEqual(given, expected)) return unauthorized('invalid webhook signature');
        if (Math.abs(now - Number(timestamp)) > WEBHOOK_TOLERANCE_MS) return unauthorized('stale webhook timestamp');
        const parsed = checkBody.parse(rawJson);
        if (!parsed.ok) return errorReply('invalid_argument', parsed.error.message, { field: parsed.error.field, location: 'body' });
        const body = parsed.value as Static<typeof WebhookBody>;
        let event = parseData(body.type, body.data as Record<string, unknown>);
        if ('error' in event) return event;
        let id = body.id;
        // With a settlement chain a reported deposit must be one the vault holds: checked there, and taken under the chain event's own id.
        if (event.kind === 'deposit' && s.config.chain !== null && s.chain.info.rpcUrl !== null) {
          const found = await findDeposit(s.chain.info.rpcUrl, s.config.chainId, s.config.contracts.collateralVault, s.config.chain.confirmations, event);
          if (!found.ok) {
            if (found.reason === 'chain_unreachable') return errorReply('unavailable', found.message, { reason: found.reason });
            return errorReply(found.reason === 'deposit_not_final' ? 'failed_precondition' : 'invalid_argument', found.message, { reason: found.reason, field: 'data.txHash', location: 'body' });
          }
          id = found.deposit.id;
          event = { ...event, depositId: found.deposit.depositId };
        }
        const r = await s.pipeline.submit({ type: 'chain_event', id, event });
        if (r.ok) return { body: { id: body.id, duplicate: false } };
        if (r.rejection.code === 'chain_event_duplicate') return { body: { id: body.id, duplicate: true } };
        return engineError(r.rejection);
      },
      // The body is checked in the handler rather than the framework (docsOnly): typed clients see it.
    }) as TypedRoute<'POST', '/api/webhooks/chain', undefined, undefined, typeof WebhookBody, { 200: typeof WebhookReply }, 'none'>,
  ];
}
