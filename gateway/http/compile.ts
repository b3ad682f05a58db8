/**
 * Compiles route declarations once at start: one entry per (route, form) with its
 * validators, the headers it reads and its path pattern. Conflicts between routes are
 * programming errors and throw here, before the server listens.
 */
import type { TSchema } from '@sinclair/typebox';
import { authHeaders, type RouteRef } from './auth.ts';
import { forms as allForms, pathForForm, pathParams, type Form, type Route } from './route.ts';
import { compileInput, compileResponse, type InputValidator } from './validation.ts';

export type CompiledRoute = {
  readonly route: Route;
  readonly form: Form;
  /** The pattern served for this form (uWS syntax, `:name` parameters); also the metrics label. */
  readonly path: string;
  readonly ref: RouteRef;
  readonly paramNames: readonly string[];
  /** Lowercased headers read from the request before the handler runs. */
  readonly readHeaders: readonly string[];
  readonly params: InputValidator | null;
  readonly query: InputValidator | null;
  readonly body: InputValidator | null;
  /**
   * Whether the request body is read: routes with a body schema and every method but GET.
   * A route without a schema ignores the body's content but still refuses one that is not
   * JSON (400), so a mistyped body is never silently taken as none.
   */
  readonly takesBody: boolean;
  /** Whether an empty body stands for `{}` (object body schemas). */
  readonly emptyBodyIsObject: boolean;
  readonly shape: ((body: never) => unknown) | null;
  /** Reply checks per status, when the server validates replies. */
  readonly responses: ReadonlyMap<number, (value: unknown) => string | null> | null;
};

export type CompileOptions = {
  readonly validateResponses: boolean;
  /** Extra headers every route reads (e.g. `x-forwarded-for` behind a trusted proxy). */
  readonly extraHeaders?: readonly string[];
};

/** `/a/:x/b/:y` and `/a/:z/b/:w` are the same route to uWS. */
function routeKey(method: string, path: string): string {
  return `${method} ${path.replace(/:[^/]+/g, ':')}`;
}

export function compileRoutes(routes: readonly Route[], options: CompileOptions): CompiledRoute[] {
  const seen = new Map<string, string>();
  const out: CompiledRoute[] = [];
  // Schemas are shared between the forms of a route: compile each once.
  const cache = new Map<TSchema, InputValidator>();
  const input = (schema: TSchema | undefined, location: 'path' | 'query' | 'body'): InputValidator | null => {
    if (schema === undefined) return null;
    let v = cache.get(schema);
    if (v === undefined) {
      v = compileInput(schema, location, location !== 'body');
      cache.set(schema, v);
    }
    return v;
  };
  for (const route of routes) {
    for (const form of allForms) {
      const path = pathForForm(route, form);
      if (path === null) continue;
      const key = routeKey(route.method, path);
      const clash = seen.get(key);
      if (clash !== undefined) throw new Error(`route ${route.method} ${path} (${form}) conflicts with ${clash}`);
      seen.set(key, `${route.method} ${path} (${form})`);
      // Routes with a body read its Content-Type: cookie writes must be JSON (csrf.ts).
      const bodyHeaders = route.body !== undefined ? ['content-type'] : [];
      const readHeaders = [...new Set([...authHeaders, ...bodyHeaders, ...(options.extraHeaders ?? []), ...(route.headers ?? []).map((h) => h.toLowerCase())])];
      const responseSchemas = form === 'earlier' ? (route.earlier?.responses ?? route.responses) : route.responses;
      let responses: Map<number, (value: unknown) => string | null> | null = null;
      if (options.validateResponses) {
        responses = new Map();
        for (const [status, schema] of Object.entries(responseSchemas)) responses.set(Number(status), compileResponse(schema));
      }
      const ref: RouteRef = route.scope === undefined
        ? { method: route.method, path, form, group: route.group, auth: route.auth }
        : { method: route.method, path, form, group: route.group, auth: route.auth, scope: route.scope };
      out.push({
        route,
        form,
        path,
        ref,
        paramNames: pathParams(path),
        readHeaders,
        params: input(route.params, 'path'),
        query: input(route.query, 'query'),
        body: input(route.body, 'body'),
        takesBody: route.body !== undefined || route.method !== 'GET',
        emptyBodyIsObject: (route.body as { type?: unknown } | undefined)?.type === 'object',
        shape: form === 'earlier' ? ((route.earlier?.reply as ((body: never) => unknown) | undefined) ?? null) : null,
        responses,
      });
    }
  }
  return out;
}
