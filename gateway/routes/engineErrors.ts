/**
 * The one mapping from an engine rejection to an HTTP error reply (api.md "Errors").
 * Every route that submits a command answers a refusal through `engineError`, so one
 * engine code always becomes the same status, code and message on every route.
 *
 *   kind `invalid`      -> 400 invalid_argument   (details.reason = the code)
 *   kind `precondition` -> 400 failed_precondition (details.reason = the code, the rule's name)
 *   kind `not_found`    -> 404 not_found
 *   kind `forbidden`    -> 403 permission_denied
 *
 * The engine's own details (field, limits, ids) are kept next to `reason`.
 */
import { ResultCodes, type Rejection, type ApplyResult } from '../../engine/index.ts';
import { errorReply, type ErrorCode, type ErrorDetails, type ErrorReply } from '../http/errors.ts';

const httpCodeOfKind = {
  invalid: 'invalid_argument',
  precondition: 'failed_precondition',
  not_found: 'not_found',
  forbidden: 'permission_denied',
} as const satisfies Record<Exclude<(typeof ResultCodes)[keyof typeof ResultCodes]['kind'], 'ok'>, ErrorCode>;

export type EngineErrorOptions = {
  /** Replaces the engine's generic message, e.g. `Portfolio not found: 7`. */
  readonly message?: string;
  /** Extra details merged over the engine's (e.g. `{ error: 'OrderValidationError' }`). */
  readonly details?: ErrorDetails;
};

/** The HTTP error reply for an engine rejection. */
export function engineError(rejection: Rejection, options: EngineErrorOptions = {}): ErrorReply {
  const spec = ResultCodes[rejection.code];
  // `ok` cannot occur in a Rejection; the cast narrows the kind for the lookup.
  const code = httpCodeOfKind[spec.kind as keyof typeof httpCodeOfKind];
  const details: Record<string, unknown> = { reason: rejection.code, ...(rejection.details ?? {}), ...(options.details ?? {}) };
  return errorReply(code, options.message ?? spec.message, details);
}

/** The HTTP status an engine rejection answers with (tests and metrics). */
export function engineErrorStatus(rejection: Rejection): 400 | 403 | 404 {
  const kind = ResultCodes[rejection.code].kind;
  return kind === 'not_found' ? 404 : kind === 'forbidden' ? 403 : 400;
}

/** The value of an applied command, or the HTTP error reply for its rejection. */
export function resultOrError<T>(result: ApplyResult, map: (value: Extract<ApplyResult, { ok: true }>['value']) => T, options?: EngineErrorOptions): { ok: true; value: T } | { ok: false; error: ErrorReply } {
  return result.ok ? { ok: true, value: map(result.value) } : { ok: false, error: engineError(result.rejection, options) };
}
