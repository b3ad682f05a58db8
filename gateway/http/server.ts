/**
 * The uWebSockets.js adapter: registers compiled routes on a uWS app and moves bytes
 * between uWS and the pipeline, following the uWS rules (style.md):
 *
 * - everything needed from `req` (headers, parameters, query, IP) is read synchronously
 *   in the route callback: uWS invalidates `req` when the callback returns;
 * - `onAborted` is registered before anything can await; nothing is written after an
 *   abort;
 * - the body is read with `onData`, copied chunk by chunk up to `maxBodyBytes`; beyond
 *   it the reply is 413 and the connection is closed so the client stops sending;
 * - every reply is written inside `res.cork`.
 *
 * Unknown paths answer 404 and known paths with another method 405, each in the shape
 * of the form the path belongs to. GET routes also answer HEAD (uWS drops the body);
 * OPTIONS answers CORS preflight for every known path.
 */
import type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket } from 'uWebSockets.js';

/** uWS ListenOptions.LIBUS_LISTEN_EXCLUSIVE_PORT: bind without SO_REUSEPORT. */
const LIBUS_LISTEN_EXCLUSIVE_PORT = 1;
/** The binding takes (host, port, options, cb); the package's typings only declare (port, options, cb). */
type ExclusiveListen = { listen(host: string, port: number, options: number, cb: (socket: us_listen_socket | false) => void): unknown };
import type { Authenticator, IsAdmin } from './auth.ts';
import { compileRoutes, type CompiledRoute } from './compile.ts';
import { errorReply } from './errors.ts';
import { jsonLogger, type Logger } from './log.ts';
import { unmatchedRoute, type Metrics, type RequestRecorder } from './metrics.ts';
import { createPipeline, type RawRequest } from './pipeline.ts';
import type { RateLimiter } from './rateLimit.ts';
import { errorWire, formOfPath, statusLine, type WireReply } from './reply.ts';
import type { HttpMethod, Route } from './route.ts';
import { loadUws, type Uws } from '../uws.ts';
import { UnavailableError } from '../commandPipeline.ts';

export type HttpServerOptions = {
  readonly routes: readonly Route[];
  /** Checks credentials; without it every request is anonymous. */
  readonly authenticate?: Authenticator;
  /** Admin wallets (`auth: 'admin'` routes); default nobody. */
  readonly isAdmin?: IsAdmin;
  /** null or absent: no rate limiting. */
  readonly rateLimiter?: RateLimiter | null;
  /** null or absent: no request metrics. */
  readonly metrics?: Metrics | null;
  readonly log?: Logger;
  /** Largest request body read, in bytes (default 64 KiB); larger bodies answer 413. */
  readonly maxBodyBytes?: number;
  /** Unix ms for `ctx.now` (default Date.now). */
  readonly clock?: () => number;
  /** `Access-Control-Allow-Origin: *` on every reply and preflight answers (default true). */
  readonly cors?: boolean;
  /** Take the client IP from the first `X-Forwarded-For` entry (only behind a trusted proxy; default false). */
  readonly trustProxy?: boolean;
  /** Check every JSON reply against its declared response schema; a mismatch answers 500 and logs (tests, development). */
  readonly validateResponses?: boolean;
  /** The uWS module (default: the native binding from `loadUws()`). */
  readonly uws?: Uws;
  /** Runs before each request's pipeline (the command pipeline's read barrier, gateway/commandPipeline.ts `replyFirst`). */
  readonly beforeDispatch?: () => void;
};

export type HttpServer = {
  /** The uWS app, for other layers to add WebSocket routes (`app.ws(...)`). */
  readonly app: TemplatedApp;
  readonly routes: readonly CompiledRoute[];
  /** Starts listening; resolves with the actual port (pass 0 for an ephemeral one). */
  listen(host: string, port: number): Promise<number>;
  /** Stops listening and closes open connections. */
  close(): void;
};

const corsAllowHeaders = 'Authorization, Content-Type, X-API-Key, X-API-Timestamp, X-API-Signature';
const corsExposeHeaders = 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After';
const uwsMethod = { GET: 'get', POST: 'post', PUT: 'put', PATCH: 'patch', DELETE: 'del' } as const satisfies Record<HttpMethod, string>;
const knownMethods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Headers read only when `X-API-Key` is present. */
const apiKeyHeaders = ['x-api-timestamp', 'x-api-signature'] as const;

/**
 * One request in flight, and the pipeline's view of it (`RawRequest`). A class rather
 * than closures: one allocation per request; the functions that use it are created once
 * per route, not per request.
 */
class Exchange implements RawRequest {
  aborted = false;
  done = false;
  /** True while uWS is inside the route callback, where the response is already corked. */
  inCallback = true;
  readonly headers: Record<string, string> = {};
  readonly params: string[] = [];
  query = '';
  body: Uint8Array | null = null;
  private ipText: string | null = null;
  constructor(
    readonly res: HttpResponse,
    /** Null for the framework's own replies (404, 405, OPTIONS), which never reach a pipeline. */
    readonly routeOrNull: CompiledRoute | null,
    readonly recorder: RequestRecorder,
    readonly started: number,
    private readonly trustProxy: boolean,
  ) {}

  get route(): CompiledRoute {
    return this.routeOrNull!;
  }

  /** The peer address as text (uWS gives ASCII bytes); memoised, never read from a finished response. */
  ip(): string {
    if (this.ipText !== null) return this.ipText;
    let ip = 'unknown';
    const forwarded = this.trustProxy ? this.headers['x-forwarded-for']?.split(',')[0]?.trim() : undefined;
    if (forwarded) ip = forwarded;
    else if (!this.aborted && !this.done) ip = String.fromCharCode.apply(null, new Uint8Array(this.res.getRemoteAddressAsText()) as unknown as number[]);
    this.ipText = ip;
    return ip;
  }
}

export function createHttpServer(options: HttpServerOptions): HttpServer {
  const uws = options.uws ?? loadUws().uws;
  const log = options.log ?? jsonLogger();
  const metrics = options.metrics ?? null;
  const maxBodyBytes = options.maxBodyBytes ?? 64 * 1024;
  const cors = options.cors ?? true;
  const trustProxy = options.trustProxy ?? false;
  const beforeDispatch = options.beforeDispatch;
  const compiled = compileRoutes(options.routes, {
    validateResponses: options.validateResponses ?? false,
    extraHeaders: trustProxy ? ['x-forwarded-for'] : [],
  });
  const pipeline = createPipeline({
    ...(options.authenticate === undefined ? {} : { authenticate: options.authenticate }),
    ...(options.isAdmin === undefined ? {} : { isAdmin: options.isAdmin }),
    rateLimiter: options.rateLimiter ?? null,
    clock: options.clock ?? Date.now,
    log,
  });
  const app = uws.App();
  let listenSocket: us_listen_socket | null = null;

  const noRecorder: RequestRecorder = { record: () => {}, aborted: () => {} };
  const recorders = new Map<string, RequestRecorder>();
  /** Metrics slots are resolved once per (pattern, method), not per request. */
  function recorderFor(label: string, method: string): RequestRecorder {
    if (metrics === null) return noRecorder;
    const key = `${method} ${label}`;
    let r = recorders.get(key);
    if (r === undefined) {
      r = metrics.recorder(label, method);
      recorders.set(key, r);
    }
    return r;
  }

  function write(res: HttpResponse, reply: WireReply, closeConnection: boolean): void {
    res.writeStatus(statusLine(reply.status));
    if (cors) {
      res.writeHeader('Access-Control-Allow-Origin', '*');
      // Only replies that carry rate-limit headers have anything to expose.
      if (reply.headers.length > 0) res.writeHeader('Access-Control-Expose-Headers', corsExposeHeaders);
    }
    res.writeHeader('X-Content-Type-Options', 'nosniff');
    if (reply.contentType !== null) res.writeHeader('Content-Type', reply.contentType);
    for (const [name, value] of reply.headers) res.writeHeader(name, value);
    // A 204 or 304 carries no body and no Content-Length. (Never with closeConnection; passing
    // an explicit undefined to endWithoutBody aborts the process.)
    if (reply.status === 204 || reply.status === 304) res.endWithoutBody();
    else res.end(reply.body, closeConnection);
  }

  /** Writes the reply once, never after an abort; corked unless uWS already corks (inside its callback). */
  function send(exchange: Exchange, reply: WireReply, closeConnection = false): void {
    if (exchange.aborted || exchange.done) return;
    exchange.done = true;
    const res = exchange.res;
    try {
      if (exchange.inCallback) write(res, reply, closeConnection);
      else res.cork(() => write(res, reply, closeConnection));
    } catch (err) {
      // Half a reply may be out: the only safe answer left is to drop the connection.
      log.error('writing a reply failed', { error: err instanceof Error ? err.message : String(err) });
      res.close();
    }
    if (metrics !== null) exchange.recorder.record(reply.status, (performance.now() - exchange.started) / 1000);
  }

  /** Collects the body; calls `done` once with the bytes, or answers 413 and closes. */
  function readBody(res: HttpResponse, exchange: Exchange, done: (exchange: Exchange, body: Uint8Array) => void): void {
    const chunks: Uint8Array[] = [];
    let size = 0;
    res.onData((chunk, isLast) => {
      if (exchange.aborted || exchange.done) return;
      size += chunk.byteLength;
      if (size > maxBodyBytes) {
        chunks.length = 0;
        tooLarge(exchange);
        return;
      }
      // uWS neuters the chunk when this callback returns: copy it.
      chunks.push(new Uint8Array(chunk.slice(0)));
      if (!isLast) return;
      done(exchange, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    });
  }

  function tooLarge(exchange: Exchange): void {
    const reply = errorReply('payload_too_large', `Request body exceeds ${maxBodyBytes} bytes`, { limit: maxBodyBytes });
    send(exchange, errorWire(exchange.route.form, reply), true);
  }

  function internalError(exchange: Exchange, what: string, err: unknown, close = false): void {
    log.error(what, { error: err instanceof Error ? err.message : String(err), stack: err instanceof Error ? err.stack : undefined });
    send(exchange, errorWire(exchange.route.form, errorReply('internal')), close);
  }

  /** Runs the pipeline and writes its reply, now or when its promise settles. */
  function dispatch(exchange: Exchange, body: Uint8Array | null): void {
    let out: WireReply | Promise<WireReply>;
    try {
      beforeDispatch?.();
      exchange.body = body;
      out = pipeline(exchange.route, exchange);
    } catch (err) {
      internalError(exchange, 'pipeline threw', err);
      return;
    }
    if (out instanceof Promise) {
      out.then(
        (reply) => send(exchange, reply),
        (err: unknown) =>
          err instanceof UnavailableError ? send(exchange, errorWire(exchange.route.form, errorReply('unavailable', err.message))) : internalError(exchange, 'pipeline rejected', err),
      );
    } else {
      send(exchange, out);
    }
  }

  /** Everything the pipeline needs from `req`, now: uWS invalidates it when the callback returns. */
  function readRequest(exchange: Exchange, req: HttpRequest): void {
    const route = exchange.route;
    const headers = exchange.headers;
    for (const name of route.readHeaders) {
      const value = req.getHeader(name);
      if (value !== '') headers[name] = value;
    }
    if (headers['x-api-key'] !== undefined) {
      for (const name of apiKeyHeaders) {
        const value = req.getHeader(name);
        if (value !== '') headers[name] = value;
      }
    }
    for (let i = 0; i < route.paramNames.length; i++) exchange.params.push(req.getParameter(i) ?? '');
    exchange.query = req.getQuery() ?? '';
  }

  function routeHandler(route: CompiledRoute, method: string) {
    const readsBody = route.takesBody;
    const recorder = recorderFor(route.path, method);
    return (res: HttpResponse, req: HttpRequest): void => {
      const exchange = new Exchange(res, route, recorder, metrics === null ? 0 : performance.now(), trustProxy);
      res.onAborted(() => {
        exchange.aborted = true;
        if (!exchange.done) recorder.aborted();
      });
      try {
        readRequest(exchange, req);
        if (!readsBody) {
          dispatch(exchange, null);
          return;
        }
        if (Number(req.getHeader('content-length') || '0') > maxBodyBytes) {
          tooLarge(exchange);
          return;
        }
        readBody(res, exchange, dispatch);
      } catch (err) {
        internalError(exchange, 'request adapter failed', err, true);
      } finally {
        // Leaving uWS's callback: a reply written after an await must cork itself.
        exchange.inCallback = false;
      }
    };
  }

  // Routes, with HEAD beside every GET.
  const methodsByPath = new Map<string, { form: CompiledRoute['form']; methods: Set<string> }>();
  for (const route of compiled) {
    const method = route.route.method;
    app[uwsMethod[method]](route.path, routeHandler(route, method));
    if (method === 'GET') app.head(route.path, routeHandler(route, 'HEAD'));
    const entry = methodsByPath.get(route.path) ?? { form: route.form, methods: new Set<string>() };
    entry.methods.add(method);
    if (method === 'GET') entry.methods.add('HEAD');
    methodsByPath.set(route.path, entry);
  }

  // Known paths: preflight for OPTIONS, 405 for any other method (uWS prefers the method-specific handlers above).
  for (const [path, { form, methods }] of methodsByPath) {
    const allow = [...methods, 'OPTIONS'].join(', ');
    const optionsRecorder = recorderFor(path, 'OPTIONS');
    app.options(path, (res) => {
      const headers: Array<readonly [string, string]> = [['Allow', allow]];
      if (cors) headers.push(['Access-Control-Allow-Methods', allow], ['Access-Control-Allow-Headers', corsAllowHeaders], ['Access-Control-Max-Age', '86400']);
      send(new Exchange(res, null, optionsRecorder, performance.now(), trustProxy), { status: 204, contentType: null, headers, body: '' });
    });
    app.any(path, (res, req) => {
      const method = req.getMethod().toUpperCase();
      const reply = errorWire(form, errorReply('method_not_allowed', `Method ${method.slice(0, 16)} not allowed on ${path}`, { allow: [...methods] }), [['Allow', allow]]);
      send(new Exchange(res, null, recorderFor(path, knownMethods.has(method) ? method : 'OTHER'), performance.now(), trustProxy), reply);
    });
  }

  // Everything else.
  app.any('/*', (res, req) => {
    const url = req.getUrl();
    const method = req.getMethod().toUpperCase();
    const shown = url.length > 200 ? `${url.slice(0, 200)}...` : url;
    const reply = errorWire(formOfPath(url), errorReply('not_found', `Route ${method.slice(0, 16)} ${shown} not found`));
    send(new Exchange(res, null, recorderFor(unmatchedRoute, knownMethods.has(method) ? method : 'OTHER'), performance.now(), trustProxy), reply);
  });

  return {
    app,
    routes: compiled,
    listen(host, port) {
      return new Promise<number>((resolve, reject) => {
        // Exclusive: uWS sets SO_REUSEPORT by default, and a second venue on the same port would
        // bind too and the kernel would split connections between the two.
        const exclusive = (app as unknown as ExclusiveListen).listen.bind(app);
        exclusive(host, port, LIBUS_LISTEN_EXCLUSIVE_PORT, (socket) => {
          if (socket === false) {
            reject(new Error(`cannot listen on ${host}:${port}: port ${port} is in use by another process (or the address is not available here); stop it or set PORT`));
            return;
          }
          listenSocket = socket;
          resolve(uws.us_socket_local_port(socket));
        });
      });
    },
    close() {
      if (listenSocket !== null) {
        uws.us_listen_socket_close(listenSocket);
        listenSocket = null;
      }
      // Not in the package's typings, but present in the binding: closes open connections too.
      (app as unknown as { close?: () => void }).close?.();
    },
  };
}
