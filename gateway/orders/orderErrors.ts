/**
 * The error replies of order entry and RFQ (api.md "Orders"): malformed order bodies,
 * partial signatures and mixed batches are 400 `invalid_argument` with
 * `details.error: 'OrderValidationError'`; state-dependent refusals are the engine's codes
 * through the one mapping of gateway/routes/engineErrors.ts.
 */
import { ResultCodes, type Rejection } from '../../engine/index.ts';
import { errorReply, type ErrorDetails, type ErrorReply } from '../http/errors.ts';
import { engineError } from '../routes/engineErrors.ts';
import type { Eip712Domain } from '../../workers/eip712/types.ts';

export const ORDER_VALIDATION_ERROR = 'OrderValidationError';

/** 400 invalid_argument carrying `details.error: 'OrderValidationError'` and the field. */
export function orderValidation(message: string, details: ErrorDetails = {}): ErrorReply {
  return errorReply('invalid_argument', message, { error: ORDER_VALIDATION_ERROR, location: 'body', ...details });
}

/**
 * An engine rejection as HTTP. Codes of kind `invalid` are invalid order bodies, so they
 * carry OrderValidationError too; `InvalidNonce` (a quote at a stale nonce) names the
 * on-chain error as well.
 */
export function orderEngineError(rejection: Rejection, message?: string): ErrorReply {
  const kind = ResultCodes[rejection.code].kind;
  const details: ErrorDetails =
    kind === 'invalid' ? { error: ORDER_VALIDATION_ERROR } : rejection.code === 'quote_invalid_nonce' ? { error: 'InvalidNonce' } : {};
  return engineError(rejection, message === undefined ? { details } : { details, message });
}

export function seriesNotFound(seriesId: string): ErrorReply {
  return errorReply('not_found', `Series not found: ${seriesId}`, { reason: 'unknown_series', seriesId });
}

export function orderNotFound(orderId: string): ErrorReply {
  return errorReply('not_found', `Order not found: ${orderId}`, { reason: 'unknown_order', orderId });
}

export function portfolioNotFound(portfolioId: string | number): ErrorReply {
  return errorReply('not_found', `Portfolio not found: ${portfolioId}`, { reason: 'unknown_portfolio', portfolioId: String(portfolioId) });
}

export function mmmRequired(): ErrorReply {
  return errorReply('permission_denied', 'MMM membership required', { reason: 'not_mmm' });
}

/** An EIP-712 domain as JSON, as `/api/markets/contracts` lists it. */
export function domainJson(domain: Eip712Domain): { name: string; version: string; chainId: number; verifyingContract: string } {
  return { name: domain.name, version: domain.version, chainId: domain.chainId, verifyingContract: domain.verifyingContract };
}

/**
 * What a `wrong_signer` refusal adds to its details: the digest the venue computed from the
 * body and the domain it used, so a client can compare them with its own.
 */
export function signedWith(domain: Eip712Domain, digest: string | null): ErrorDetails {
  return { digest, domain: domainJson(domain) };
}
