/**
 * The one registry of HTTP error codes (style.md habit 3). Every error reply of every
 * route goes through `errorBody`, so a code cannot answer with the wrong status or
 * shape, and test/gateway/http/errors.test.ts checks that every code here is documented
 * in docs/errors.md.
 *
 * Current form: `{ code, message, details }` (details null when none).
 * Earlier form: `{ error, message, details? }` with the earlier code names.
 */
import type { Form } from './route.ts';

export type ErrorDetails = Readonly<Record<string, unknown>>;

/** Earlier-form codes: the interface's list plus our additive ones (marked in docs/errors.md). */
export const earlierErrorCodes = {
  validation_error: 400,
  failed_precondition: 400,
  unauthorized: 401,
  auth_error: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  indexer_error: 500,
  chain_error: 500,
  cache_update_error: 500,
  unavailable: 503,
} as const satisfies Record<string, number>;

export type EarlierErrorCode = keyof typeof earlierErrorCodes;

type ErrorCodeSpec = {
  readonly status: number;
  /** The earlier-form code used unless a reply names another one of the same status. */
  readonly earlier: EarlierErrorCode;
  /** Message used when the framework itself raises the code without a specific one. */
  readonly defaultMessage: string;
};

/** Current-form codes: the interface's, `failed_precondition` (api.md) and three for 405/413/415. */
export const errorCodes = {
  invalid_argument: { status: 400, earlier: 'validation_error', defaultMessage: 'Invalid argument' },
  failed_precondition: { status: 400, earlier: 'failed_precondition', defaultMessage: 'Failed precondition' },
  unauthenticated: { status: 401, earlier: 'unauthorized', defaultMessage: 'No auth data available' },
  permission_denied: { status: 403, earlier: 'forbidden', defaultMessage: 'Permission denied' },
  not_found: { status: 404, earlier: 'not_found', defaultMessage: 'Not found' },
  method_not_allowed: { status: 405, earlier: 'method_not_allowed', defaultMessage: 'Method not allowed' },
  payload_too_large: { status: 413, earlier: 'payload_too_large', defaultMessage: 'Request body too large' },
  unsupported_media_type: { status: 415, earlier: 'unsupported_media_type', defaultMessage: 'Content-Type must be application/json' },
  resource_exhausted: { status: 429, earlier: 'rate_limited', defaultMessage: 'rate limit exceeded' },
  internal: { status: 500, earlier: 'internal_error', defaultMessage: 'An unexpected error occurred' },
  unavailable: { status: 503, earlier: 'unavailable', defaultMessage: 'Service unavailable' },
} as const satisfies Record<string, ErrorCodeSpec>;

export type ErrorCode = keyof typeof errorCodes;

/** An expected rejection, returned by a handler as a value (no stack trace is built). */
export type ErrorReply = {
  readonly error: {
    readonly code: ErrorCode;
    readonly message: string;
    readonly details: ErrorDetails | null;
    /** Earlier-form code override, e.g. `auth_error` for a failed SIWE verify; must share the status. */
    readonly earlierCode?: EarlierErrorCode;
  };
  readonly headers?: Readonly<Record<string, string | readonly string[]>>;
};

export type ErrorReplyOptions = {
  readonly earlierCode?: EarlierErrorCode;
  readonly headers?: Readonly<Record<string, string | readonly string[]>>;
};

/** Build an expected rejection: `return errorReply('not_found', 'Series not found: 0x..')`. */
export function errorReply(
  code: ErrorCode,
  message: string = errorCodes[code].defaultMessage,
  details: ErrorDetails | null = null,
  options: ErrorReplyOptions = {},
): ErrorReply {
  const error = options.earlierCode === undefined ? { code, message, details } : { code, message, details, earlierCode: options.earlierCode };
  return options.headers === undefined ? { error } : { error, headers: options.headers };
}

/**
 * The same rejection as an exception, for code paths deep inside a handler where
 * returning is awkward. The framework answers it exactly like `errorReply`; anything
 * else thrown becomes a 500 `internal`.
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails | null;
  readonly earlierCode: EarlierErrorCode | undefined;

  constructor(code: ErrorCode, message: string = errorCodes[code].defaultMessage, details: ErrorDetails | null = null, earlierCode?: EarlierErrorCode) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.details = details;
    this.earlierCode = earlierCode;
  }

  toReply(): ErrorReply {
    return errorReply(this.code, this.message, this.details, this.earlierCode === undefined ? {} : { earlierCode: this.earlierCode });
  }
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(errorCodes, value);
}

export function statusOf(code: ErrorCode): number {
  return errorCodes[code].status;
}

/** The earlier-form code for a reply: the override when it has the same status, else the registry's. */
export function earlierCodeOf(code: ErrorCode, override?: EarlierErrorCode): EarlierErrorCode {
  const spec = errorCodes[code];
  if (override !== undefined && earlierErrorCodes[override] === spec.status) return override;
  return spec.earlier;
}

export type CurrentErrorBody = { code: ErrorCode; message: string; details: ErrorDetails | null };
export type EarlierErrorBody = { error: EarlierErrorCode; message: string; details?: ErrorDetails };

/** The error body in the shape of the given form. */
export function errorBody(form: Form, error: ErrorReply['error']): CurrentErrorBody | EarlierErrorBody {
  if (form === 'current') return { code: error.code, message: error.message, details: error.details };
  const body: EarlierErrorBody = { error: earlierCodeOf(error.code, error.earlierCode), message: error.message };
  if (error.details !== null) body.details = error.details;
  return body;
}
