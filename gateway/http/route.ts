/**
 * Route declarations. A route holds its TypeBox schemas beside its handler (style.md
 * habit 10); the server compiles validation once at start and the OpenAPI document,
 * the llms.txt page and the rate-limit groups are all generated from these objects.
 *
 * Forms: a route is declared once with its current path under `/api`. With the
 * `earlier` form it is also served at the path without `/api` (or at `earlier.path`),
 * answering errors in the earlier shape and optionally reshaping its reply with
 * `earlier.reply`. A route declared only in the earlier form gives its earlier path
 * as `path`.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import type { AuthResult, UserAuth } from './auth.ts';
import type { ApiError, ErrorReply } from './errors.ts';

export const httpMethods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof httpMethods)[number];

export const forms = ['current', 'earlier'] as const;
export type Form = (typeof forms)[number];

/** Rate-limit groups (docs/rate-limits.md). */
export const rateLimitGroups = ['markets', 'helpers', 'auth', 'account', 'orders', 'platform', 'webhooks', 'admin', 'health', 'docs'] as const;
export type RateLimitGroup = (typeof rateLimitGroups)[number];

export const authModes = ['none', 'optional', 'required', 'admin'] as const;
export type AuthMode = (typeof authModes)[number];

/**
 * API-key scopes (docs/auth.md "Scopes"). Every authenticated route declares the one it
 * needs; a login session has them all. `admin` is only ever needed by `auth: 'admin'`
 * routes, on top of the wallet being an admin.
 */
export const scopes = ['read', 'trade', 'withdraw', 'admin'] as const;
export type Scope = (typeof scopes)[number];

export const credentialKinds = ['bearer', 'cookie', 'apikey'] as const;
export type CredentialKind = (typeof credentialKinds)[number];

export type ReplyHeaders = Readonly<Record<string, string | readonly string[]>>;

/** A JSON reply; `body` is serialised with JSON.stringify (bigint values become decimal strings). */
export type JsonReply<T> = { readonly status?: number; readonly body: T; readonly headers?: ReplyHeaders };

/**
 * A pre-serialised reply (read models cache their JSON): written as is, with
 * `contentType` (default JSON). Never reshaped by `earlier.reply`: a handler serving
 * both forms from a cache picks the string for `ctx.form`.
 */
export type RawReply = {
  readonly status?: number;
  readonly raw: string | Uint8Array;
  readonly contentType?: string;
  readonly headers?: ReplyHeaders;
};

/** What a handler returns: a reply, or an expected rejection (`errorReply(...)` or an `ApiError`). */
export type HandlerResult<T> = JsonReply<T> | RawReply | ErrorReply | ApiError;

export type ResponseSchemas = { readonly [status: number]: TSchema };

type StaticOr<S, Fallback> = S extends TSchema ? Static<S> : Fallback;
type EmptyObject = { readonly [key: string]: never };

/** What a handler receives. Everything was read from the request before any await. */
export type RouteContext<P, Q, B, A extends AuthMode> = {
  readonly params: StaticOr<P, EmptyObject>;
  readonly query: StaticOr<Q, EmptyObject>;
  readonly body: StaticOr<B, undefined>;
  /** Lowercased names; only the headers the framework or the route reads (see `headers`). */
  readonly headers: Readonly<Record<string, string>>;
  readonly ip: string;
  /** The body's bytes as received (null without one): for a signature over the raw body (webhooks). */
  readonly rawBody: Uint8Array | null;
  readonly form: Form;
  /** On `required` and `admin` routes this is always a user; elsewhere it may be none or invalid. */
  readonly auth: A extends 'required' | 'admin' ? UserAuth : AuthResult;
  /** Request time, Unix milliseconds, from the server's injected clock. */
  readonly now: number;
};

type BodyOf<R extends ResponseSchemas> = { [K in keyof R]: R[K] extends TSchema ? Static<R[K]> : never }[keyof R];

export type RouteHandler<P, Q, B, R extends ResponseSchemas, A extends AuthMode> = (
  ctx: RouteContext<P, Q, B, A>,
) => HandlerResult<BodyOf<R>> | Promise<HandlerResult<BodyOf<R>>>;

export type EarlierFormOptions<R extends ResponseSchemas> = {
  /** Earlier path; default: `path` without its `/api` prefix. */
  readonly path?: string;
  /** Response schemas of the earlier form when they differ (for docs and response checks). */
  readonly responses?: ResponseSchemas;
  /** Reshape a JSON reply body for the earlier form, e.g. `{ pairs }` instead of an array. */
  readonly reply?: (body: BodyOf<R>) => unknown;
};

/**
 * Example inputs for the generated documents (OpenAPI `example`s, llms.txt): values the
 * venue accepts. Parameters without one here fall back to their schema's `examples[0]` or
 * `default`. A function is called when a document is built, so an example may name what
 * exists then (a listed series); test/gateway/http/examples.test.ts sends every one.
 */
export type RouteExamples = {
  readonly params?: Readonly<Record<string, unknown>>;
  readonly query?: Readonly<Record<string, unknown>>;
  readonly body?: unknown;
};

export type RouteSpec<
  P extends TSchema | undefined,
  Q extends TSchema | undefined,
  B extends TSchema | undefined,
  R extends ResponseSchemas,
  A extends AuthMode,
> = {
  readonly method: HttpMethod;
  /** Current path under `/api`, with `:name` parameters; or the earlier path for earlier-only routes. */
  readonly path: string;
  /** Default `['current']`. */
  readonly forms?: readonly Form[];
  readonly group: RateLimitGroup;
  readonly auth: A;
  /**
   * The scope an API key needs. Required on every `required` route an API key may call
   * (defineRoute throws otherwise), and `admin` on every `admin` route; a route that
   * accepts login sessions only (`accepts` without `apikey`) may leave it out.
   */
  readonly scope?: Scope;
  /** Credential kinds accepted on `required`/`admin` routes (default all), e.g. `['bearer', 'cookie']` where API keys may not be used. */
  readonly accepts?: readonly CredentialKind[];
  /**
   * The earlier form's reply sets the `session` cookie (sign-in). Its body must then be
   * `application/json` whoever sends it, or a cross-site form could sign a browser into
   * someone else's account (login CSRF, csrf.ts).
   */
  readonly setsSessionCookie?: boolean;
  readonly summary: string;
  readonly description?: string;
  /** OpenAPI tags; default: the group. */
  readonly tags?: readonly string[];
  /** Object schemas. Path parameters and query values arrive as strings and are coerced per schema. */
  readonly params?: P;
  readonly query?: Q;
  /** JSON body schema; only routes that declare one read the body. Not coerced. */
  readonly body?: B;
  readonly responses: R;
  /** Content type of the success reply, for docs (default `application/json`). */
  readonly produces?: string;
  /** Extra request headers the handler reads (lowercase), e.g. `['host', 'origin']`. */
  readonly headers?: readonly string[];
  readonly earlier?: EarlierFormOptions<R>;
  /** Statuses the handler itself can answer beyond those derived from auth, inputs and limits (e.g. 404 for a missing resource named in the body). Path-parameter routes get 404 without saying so. */
  readonly errors?: readonly number[];
  readonly examples?: RouteExamples | (() => RouteExamples);
  readonly handler: RouteHandler<P, Q, B, R, A>;
};

/** A route with its types erased, as stored in route tables. */
export type Route = {
  readonly method: HttpMethod;
  readonly path: string;
  readonly forms: readonly Form[];
  readonly group: RateLimitGroup;
  readonly auth: AuthMode;
  readonly scope?: Scope;
  readonly accepts?: readonly CredentialKind[];
  readonly setsSessionCookie?: boolean;
  readonly summary: string;
  readonly description?: string;
  readonly tags?: readonly string[];
  readonly params?: TSchema;
  readonly query?: TSchema;
  readonly body?: TSchema;
  readonly responses: ResponseSchemas;
  readonly produces?: string;
  readonly headers?: readonly string[];
  readonly earlier?: EarlierFormOptions<ResponseSchemas>;
  readonly errors?: readonly number[];
  readonly examples?: RouteExamples | (() => RouteExamples);
  // `any` only here: a table holds routes of many context types, each checked at its defineRoute.
  readonly handler: (ctx: RouteContext<any, any, any, AuthMode>) => HandlerResult<unknown> | Promise<HandlerResult<unknown>>;
};

const paramPattern = /^:[A-Za-z_][A-Za-z0-9_]*$/;
const segmentPattern = /^[A-Za-z0-9._~!$&'()*+,;=@-]+$/;

/** Throws on a malformed path: these are programming errors, caught at import time. */
export function checkPath(path: string): void {
  if (path === '/') return; // the root (the market page)
  if (!path.startsWith('/') || path.endsWith('/')) throw new Error(`route path must start with / and not end with /: ${path}`);
  const names = new Set<string>();
  for (const segment of path.split('/').slice(1)) {
    if (segment.startsWith(':')) {
      // Parameter names become keys of a plain object: keep prototype names out.
      if (!paramPattern.test(segment) || ['__proto__', 'constructor', 'prototype'].includes(segment.slice(1))) throw new Error(`bad path parameter "${segment}" in ${path}`);
      if (names.has(segment)) throw new Error(`duplicate path parameter "${segment}" in ${path}`);
      names.add(segment);
    } else if (!segmentPattern.test(segment)) {
      throw new Error(`bad path segment "${segment}" in ${path}`);
    }
  }
}

/** Parameter names of a path, in order: `/a/:x/b/:y` -> `['x', 'y']`. */
export function pathParams(path: string): string[] {
  return path
    .split('/')
    .filter((s) => s.startsWith(':'))
    .map((s) => s.slice(1));
}

/** The path a route answers at in a form, or null when it does not have that form. */
export function pathForForm(route: Route, form: Form): string | null {
  if (!route.forms.includes(form)) return null;
  if (form === 'current') return route.path;
  if (route.earlier?.path !== undefined) return route.earlier.path;
  if (!route.forms.includes('current')) return route.path;
  return route.path.startsWith('/api/') ? route.path.slice(4) : route.path;
}

/**
 * A route with the types of its method, path and schemas kept beside it, for typed clients
 * (client/routes.ts derives its request and reply types from these; `schemas` is never set at
 * runtime). Assignable to `Route`.
 */
export type TypedRoute<M extends HttpMethod, Path extends string, P, Q, B, R extends ResponseSchemas, A extends AuthMode> = Route & {
  readonly schemas?: { readonly method: M; readonly path: Path; readonly params: P; readonly query: Q; readonly body: B; readonly responses: R; readonly auth: A };
};

/** Declare a route; its handler's context and reply are typed from the schemas, and so is what it returns (`TypedRoute`). */
export function defineRoute<
  P extends TSchema | undefined = undefined,
  Q extends TSchema | undefined = undefined,
  B extends TSchema | undefined = undefined,
  R extends ResponseSchemas = ResponseSchemas,
  A extends AuthMode = AuthMode,
  const M extends HttpMethod = HttpMethod,
  const Path extends string = string,
>(spec: RouteSpec<P, Q, B, R, A> & { readonly method: M; readonly path: Path }): TypedRoute<M, Path, P, Q, B, R, A> {
  const forms = spec.forms ?? ['current'];
  if (forms.length === 0) throw new Error(`route ${spec.method} ${spec.path} has no form`);
  checkPath(spec.path);
  if (forms.includes('current') && !spec.path.startsWith('/api/')) throw new Error(`current-form path must start with /api/: ${spec.path}`);
  if (spec.earlier?.path !== undefined) checkPath(spec.earlier.path);
  if (spec.earlier !== undefined && !forms.includes('earlier')) throw new Error(`route ${spec.path} has earlier options but not the earlier form`);
  if (spec.scope !== undefined && spec.auth !== 'required' && spec.auth !== 'admin') throw new Error(`route ${spec.path}: a scope needs auth 'required' or 'admin'`);
  if (spec.accepts !== undefined && (spec.accepts.length === 0 || (spec.auth !== 'required' && spec.auth !== 'admin'))) throw new Error(`route ${spec.path}: accepts needs auth 'required' or 'admin' and at least one kind`);
  // Every route an API key can reach says which scope it needs, so a new private route cannot be open to every key.
  const keysAccepted = spec.accepts === undefined || spec.accepts.includes('apikey');
  if (spec.auth === 'admin' && spec.scope !== 'admin') throw new Error(`route ${spec.path}: an admin route needs scope 'admin'`);
  if (spec.auth === 'required' && spec.scope === undefined && keysAccepted) throw new Error(`route ${spec.path}: an authenticated route that accepts API keys must declare its scope`);
  if (spec.scope === 'admin' && spec.auth !== 'admin') throw new Error(`route ${spec.path}: scope 'admin' is for admin routes only`);
  const names = pathParams(spec.path);
  const earlierNames = spec.earlier?.path === undefined ? names : pathParams(spec.earlier.path);
  if (names.join() !== earlierNames.join()) throw new Error(`route ${spec.path}: earlier path must have the same parameters`);
  const declared = spec.params === undefined ? [] : Object.keys((spec.params as { properties?: object }).properties ?? {});
  if (names.slice().sort().join() !== declared.slice().sort().join()) {
    throw new Error(`route ${spec.path}: params schema must declare exactly the path parameters (${names.join(', ') || 'none'})`);
  }
  return { ...(spec as unknown as Route), forms } as TypedRoute<M, Path, P, Q, B, R, A>;
}
