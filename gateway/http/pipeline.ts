/**
 * The request pipeline of one matched route, independent of the transport, read top to
 * bottom (style.md habit 2):
 *
 *   1. authenticate  (only when a credential is present; may be async)
 *   2. rate-limit    (keyed by wallet, whatever its credential, else IP; invalid credentials -> IP)
 *   3. authorize     (route auth / scope / admin -> 401, 403; a cookie write, or the
 *                    earlier form's sign-in, that is not application/json -> 415, csrf.ts)
 *   4. validate      (path, query, body -> 400 naming the field)
 *   5. handle        (the route's handler; returned or thrown ApiError -> its code)
 *   6. shape         (earlier-form reply hook), serialise, add rate-limit headers
 *
 * Anything unexpected becomes 500 `internal` with a generic message; the stack goes to
 * the log, never to the client. The pipeline stays synchronous when nothing in it is
 * async, so an anonymous read does not allocate a promise.
 */
import { UnavailableError } from '../commandPipeline.ts';
import { anonymous, authorize, hasCredentials, parseCookies, rateIdentity, type Authenticator, type AuthResult, type IsAdmin, type RateIdentity } from './auth.ts';
import type { CompiledRoute } from './compile.ts';
import { ApiError, errorReply, type ErrorReply } from './errors.ts';
import { cookieWriteCheck } from './csrf.ts';
import type { Logger } from './log.ts';
import type { RateDecision, RateLimiter } from './rateLimit.ts';
import type { HandlerResult, RouteContext } from './route.ts';
import { errorWire, headerPairs, jsonContentType, serialiseJson, type WireReply } from './reply.ts';
import { parseQuery } from './validation.ts';

/** What the transport read from the request, synchronously, before any await. */
export type RawRequest = {
  /** Lowercased names; only non-empty headers from the route's read list. */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * The client address, read on first use (it costs a native call): by the limiter for
   * anonymous callers and by handlers that read `ctx.ip`. `unknown` once the client left.
   */
  ip(): string;
  /** Path parameter values as sent (still percent-encoded), in pattern order. */
  readonly params: readonly string[];
  readonly query: string;
  /** The body bytes, or null when the route takes none (GET without a body schema). */
  readonly body: Uint8Array | null;
};

export type PipelineOptions = {
  readonly authenticate?: Authenticator;
  readonly isAdmin?: IsAdmin;
  readonly rateLimiter?: RateLimiter | null;
  readonly clock: () => number;
  readonly log: Logger;
};

export type Pipeline = (route: CompiledRoute, request: RawRequest) => WireReply | Promise<WireReply>;

type Headers = Array<readonly [string, string]>;
/** Replies without extra headers share this list; nothing may push to it. */
const noHeaders = Object.freeze([]) as unknown as Headers;
/** Asks the limiter for its anonymous limit without reading an address. */
const anonymousProbe: RateIdentity = Object.freeze({ kind: 'ip', ip: '' });

const utf8 = new TextDecoder('utf-8', { fatal: true });
/** The query of routes that declare none. */
const noQuery: Readonly<Record<string, never>> = Object.freeze({});

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function validationError(field: string, message: string, location: string): ErrorReply {
  return errorReply('invalid_argument', message, { field, location });
}

/**
 * The handler's `ctx`. A class so that `ip` is a prototype getter (read on demand, it
 * costs a native call) rather than an accessor on every context object.
 */
class HandlerContext {
  constructor(
    readonly params: unknown,
    readonly query: unknown,
    readonly body: unknown,
    private readonly req: RawRequest,
    readonly form: CompiledRoute['form'],
    readonly auth: AuthResult,
    readonly now: number,
  ) {}
  get headers(): Readonly<Record<string, string>> {
    return this.req.headers;
  }
  get ip(): string {
    return this.req.ip();
  }
  get rawBody(): Uint8Array | null {
    return this.req.body;
  }
}

export function createPipeline(options: PipelineOptions): Pipeline {
  const { authenticate, rateLimiter, clock, log } = options;
  const isAdmin = options.isAdmin ?? (() => false);

  function internal(route: CompiledRoute, err: unknown, headers: Headers = noHeaders): WireReply {
    log.error('unhandled error in route', {
      route: `${route.route.method} ${route.path}`,
      error: err instanceof Error ? err.message : String(err),
      stack: err instanceof Error ? err.stack : undefined,
    });
    return errorWire(route.form, errorReply('internal'), headers);
  }

  function fromThrown(route: CompiledRoute, err: unknown, headers: Headers): WireReply {
    if (err instanceof ApiError) return errorWire(route.form, err.toReply(), headers);
    // A write this node cannot take (a standby, no leader answering an edge), or the shared stores not answering: 503, never a 500.
    if (err instanceof UnavailableError) return errorWire(route.form, errorReply('unavailable', err.message), headers);
    return internal(route, err, headers);
  }

  /** Rate-limit headers: current form, authenticated callers (interface.md "Limits"). */
  function rateHeaders(route: CompiledRoute, identity: RateIdentity, decision: RateDecision | null): Headers {
    if (decision === null || route.form !== 'current' || identity.kind === 'ip') return noHeaders;
    return [
      ['X-RateLimit-Limit', String(decision.limit)],
      ['X-RateLimit-Remaining', String(decision.remaining)],
      ['X-RateLimit-Reset', String(Math.ceil(decision.resetAt / 1000))],
    ];
  }

  function tooMany(route: CompiledRoute, decision: RateDecision, now: number, rate: Headers): WireReply {
    const headers: Headers = [...rate, ['Retry-After', String(Math.max(1, Math.ceil((decision.retryAt - now) / 1000)))]];
    return errorWire(route.form, errorReply('resource_exhausted', 'rate limit exceeded', { limit: decision.limit, resetAt: decision.retryAt }), headers);
  }

  function parseBody(route: CompiledRoute, bytes: Uint8Array | null): { ok: true; value: unknown } | { ok: false; reply: ErrorReply } {
    if (bytes === null || bytes.byteLength === 0) {
      if (route.emptyBodyIsObject) return { ok: true, value: {} };
      return { ok: false, reply: validationError('body', 'body is required', 'body') };
    }
    try {
      return { ok: true, value: JSON.parse(utf8.decode(bytes)) as unknown };
    } catch {
      return { ok: false, reply: errorReply('invalid_argument', 'Invalid JSON body', { field: 'body', location: 'body' }) };
    }
  }

  /** Steps 4 and 5: parse inputs and build the handler context; an ErrorReply on bad input. */
  function buildContext(route: CompiledRoute, req: RawRequest, auth: AuthResult, now: number): RouteContext<unknown, unknown, unknown, 'none'> | ErrorReply {
    const params: Record<string, string> = {};
    for (let i = 0; i < route.paramNames.length; i++) {
      const name = route.paramNames[i]!;
      try {
        const raw = req.params[i] ?? '';
        params[name] = raw.includes('%') ? decodeURIComponent(raw) : raw;
      } catch {
        return validationError(name, `${name} is not valid percent-encoding`, 'path');
      }
    }
    let paramsValue: unknown = params;
    if (route.params !== null) {
      const r = route.params.parse(params);
      if (!r.ok) return validationError(r.error.field, r.error.message, 'path');
      paramsValue = r.value;
    }
    let query: unknown = noQuery;
    if (route.query !== null) {
      const r = route.query.parse(parseQuery(req.query));
      if (!r.ok) return validationError(r.error.field, r.error.message, 'query');
      query = r.value;
    }
    let body: unknown = undefined;
    if (route.body !== null) {
      const parsed = parseBody(route, req.body);
      if (!parsed.ok) return parsed.reply;
      const r = route.body.parse(parsed.value);
      if (!r.ok) return validationError(r.error.field, r.error.message, 'body');
      body = r.value;
    } else if (req.body !== null && req.body.byteLength > 0) {
      // No body schema (e.g. an optional, ignored body): whatever is sent must still be JSON.
      const parsed = parseBody(route, req.body);
      if (!parsed.ok) return parsed.reply;
    }
    return new HandlerContext(paramsValue, query, body, req, route.form, auth, now) as unknown as RouteContext<unknown, unknown, unknown, 'none'>;
  }

  /** Step 6: turn what the handler returned into bytes on the wire. */
  function finish(route: CompiledRoute, result: HandlerResult<unknown>, headers: Headers): WireReply {
    if (!isObject(result)) return internal(route, new Error('handler returned no reply'), headers);
    // A returned ApiError is an expected rejection too, like errorReply().
    if (result instanceof ApiError) return errorWire(route.form, result.toReply(), headers);
    if ('error' in result) return errorWire(route.form, result, headers);
    const status = result.status ?? 200;
    if (!Number.isInteger(status) || status < 200 || status > 599) return internal(route, new Error(`handler returned status ${String(status)}`), headers);
    if (result.headers !== undefined) {
      // The shared empty list is never written to.
      if (headers === noHeaders) headers = [];
      headerPairs(result.headers, headers);
    }
    // Not Modified: the headers (ETag, Cache-Control) without a body or a content type.
    if (status === 304) return { status, contentType: null, headers, body: '' };
    if ('raw' in result) {
      if (typeof result.raw !== 'string' && !(result.raw instanceof Uint8Array)) return internal(route, new Error('raw reply is neither a string nor bytes'), headers);
      return { status, contentType: result.contentType ?? jsonContentType, headers, body: result.raw };
    }
    if (!('body' in result)) return internal(route, new Error('handler reply has neither body, raw nor error'), headers);
    if (status === 204) return { status, contentType: null, headers, body: '' };
    const body = route.shape === null ? result.body : route.shape(result.body as never);
    const text = serialiseJson(body);
    if (route.responses !== null) {
      // Checked as the client will read it (bigint already a string), in validating mode only.
      const check = route.responses.get(status);
      const problem = check === undefined ? `status ${status} is not declared` : check(JSON.parse(text));
      if (problem !== null) return internal(route, new Error(`reply does not match the declared ${route.form} response: ${problem}`), headers);
    }
    return { status, contentType: jsonContentType, headers, body: text };
  }

  function afterAuth(route: CompiledRoute, req: RawRequest, auth: AuthResult): WireReply | Promise<WireReply> {
    const now = clock();
    let headers: Headers = noHeaders;
    // Groups without an anonymous limit need no client address for anonymous callers (reading it costs).
    if (rateLimiter && (auth.kind === 'user' || rateLimiter.limitFor(route.route.group, anonymousProbe) !== null)) {
      const identity = rateIdentity(auth, req);
      const decision = rateLimiter.take(route.route.group, identity);
      headers = rateHeaders(route, identity, decision);
      if (decision !== null && !decision.allowed) return tooMany(route, decision, now, headers);
    }
    const denied = authorize(route.route, auth, isAdmin);
    if (denied !== null) return errorWire(route.form, denied, headers);
    const forged = cookieWriteCheck({ auth: route.route.auth, hasBody: route.body !== null, setsSessionCookie: route.form === 'earlier' && route.route.setsSessionCookie === true }, auth, req.headers, req.body);
    if (forged !== null) return errorWire(route.form, forged, headers);
    const ctx = buildContext(route, req, auth, now);
    if ('error' in ctx) return errorWire(route.form, ctx, headers);
    let result: HandlerResult<unknown> | Promise<HandlerResult<unknown>>;
    try {
      result = route.route.handler(ctx);
    } catch (err) {
      return fromThrown(route, err, headers);
    }
    if (isPromise(result)) {
      return result.then(
        (r) => {
          try {
            return finish(route, r, headers);
          } catch (err) {
            return internal(route, err, headers);
          }
        },
        (err: unknown) => fromThrown(route, err, headers),
      );
    }
    return finish(route, result, headers);
  }

  return function run(route, req) {
    try {
      const cookies = parseCookies(req.headers['cookie']);
      if (authenticate === undefined || !hasCredentials(req.headers, cookies)) return afterAuth(route, req, anonymous);
      const auth = authenticate(req.headers, cookies, route.ref);
      if (!isPromise(auth)) return afterAuth(route, req, auth);
      return auth.then(
        (a) => {
          try {
            return afterAuth(route, req, a);
          } catch (err) {
            return fromThrown(route, err, noHeaders);
          }
        },
        (err: unknown) => fromThrown(route, err, noHeaders),
      );
    } catch (err) {
      return fromThrown(route, err, noHeaders);
    }
  };
}
