/**
 * The HTTP framework's public API. Routes import `defineRoute`, `errorReply`, `ApiError`
 * and the types; the gateway's wiring imports the factories.
 */
export { defineRoute, pathForForm, httpMethods, forms, rateLimitGroups, authModes, scopes, credentialKinds } from './route.ts';
export type {
  Route,
  RouteSpec,
  RouteContext,
  RouteHandler,
  HandlerResult,
  JsonReply,
  RawReply,
  ReplyHeaders,
  ResponseSchemas,
  EarlierFormOptions,
  HttpMethod,
  Form,
  RateLimitGroup,
  AuthMode,
  Scope,
  CredentialKind,
} from './route.ts';
export { ApiError, errorReply, errorBody, errorCodes, earlierErrorCodes, statusOf, isErrorCode } from './errors.ts';
export type { ErrorCode, EarlierErrorCode, ErrorReply, ErrorDetails, CurrentErrorBody, EarlierErrorBody } from './errors.ts';
export { anonymous, parseCookies, sessionCookie } from './auth.ts';
export type { AuthResult, UserAuth, Authenticator, IsAdmin, RouteRef, RateIdentity } from './auth.ts';
export { createRateLimiter, defaultRateLimits } from './rateLimit.ts';
export type { RateLimiter, RateLimiterOptions, RateDecision, GroupLimits, Tier } from './rateLimit.ts';
export { createMetrics } from './metrics.ts';
export type { Metrics, MetricsOptions } from './metrics.ts';
export { jsonLogger, silentLogger } from './log.ts';
export type { Logger, LogLevel } from './log.ts';
export { createHttpServer } from './server.ts';
export type { HttpServer, HttpServerOptions } from './server.ts';
export { systemRoutes } from './systemRoutes.ts';
export type { SystemRoutesOptions } from './systemRoutes.ts';
export { buildOpenApi, openApiYaml } from './openapi.ts';
export type { OpenApiInfo, OpenApiDocument } from './openapi.ts';
export { buildLlmsTxt } from './llmsTxt.ts';
export { createAsyncApiRegistry } from './asyncapi.ts';
export type { AsyncApiRegistry, ChannelDefinition, MessageDefinition, ServerDefinition, AsyncApiInfo } from './asyncapi.ts';
