/**
 * The client's route table: every current-form (`/api/...`) route of the venue, keyed
 * `'METHOD /api/path/:param'`, with its request and reply types taken from the route's own
 * TypeBox schemas (gateway/routes/*.ts keep them on what `defineRoute` returns). Types only:
 * nothing here is loaded at runtime, so the client does not depend on the gateway's code.
 *
 * A new route in an existing route module is in the table as soon as it is declared; a new
 * route module is one line in `Modules` below.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import type { healthRoutes } from '../gateway/routes/health.ts';
import type { marketRoutes } from '../gateway/routes/markets.ts';
import type { helperRoutes } from '../gateway/routes/helpers.ts';
import type { authRoutes } from '../gateway/routes/auth.ts';
import type { keyRoutes } from '../gateway/routes/keys.ts';
import type { accountRoutes } from '../gateway/routes/account.ts';
import type { portfolioRoutes } from '../gateway/routes/portfolio.ts';
import type { adminRoutes } from '../gateway/routes/admin.ts';
import type { orderRoutes } from '../gateway/routes/orders.ts';
import type { massCancelRoutes } from '../gateway/routes/massCancel.ts';
import type { whatIfRoutes } from '../gateway/routes/whatIf.ts';
import type { rfqRoutes } from '../gateway/routes/rfq.ts';
import type { mmpRoutes } from '../gateway/routes/mmp.ts';
import type { platformRoutes } from '../gateway/routes/platform.ts';
import type { leaderboardRoutes } from '../gateway/routes/leaderboard.ts';
import type { pointsRoutes } from '../gateway/routes/points.ts';
import type { userRoutes } from '../gateway/routes/user.ts';
import type { referralRoutes } from '../gateway/routes/referral.ts';
import type { strategyRoutes } from '../gateway/routes/strategies.ts';
import type { liquidationRoutes } from '../gateway/routes/liquidations.ts';
import type { journalRoutes } from '../gateway/routes/journal.ts';
import type { webhookRoutes } from '../gateway/routes/webhooks.ts';

/** The route modules, one line each. */
type Modules =
  | typeof healthRoutes
  | typeof marketRoutes
  | typeof helperRoutes
  | typeof authRoutes
  | typeof keyRoutes
  | typeof accountRoutes
  | typeof portfolioRoutes
  | typeof adminRoutes
  | typeof orderRoutes
  | typeof massCancelRoutes
  | typeof whatIfRoutes
  | typeof rfqRoutes
  | typeof mmpRoutes
  | typeof platformRoutes
  | typeof leaderboardRoutes
  | typeof pointsRoutes
  | typeof userRoutes
  | typeof referralRoutes
  | typeof strategyRoutes
  | typeof liquidationRoutes
  | typeof journalRoutes
  | typeof webhookRoutes;

type Declared = ReturnType<Modules>[number];

/** What a route declares (kept on `schemas` by defineRoute); earlier-form-only paths are left out. */
type ShapesOf<R> = R extends { schemas?: infer S }
  ? S extends { method: infer M extends string; path: infer P extends string; params: infer Pa; query: infer Q; body: infer B; responses: infer Rs; auth: infer A }
    ? P extends `/api/${string}`
      ? { method: M; path: P; params: Pa; query: Q; body: B; responses: Rs; auth: A }
      : never
    : never
  : never;
export type Shapes = ShapesOf<Declared>;

type StaticOf<S> = S extends TSchema ? Static<S> : never;
type Empty<S> = [S] extends [undefined] ? true : false;
/** Query objects whose fields are all optional may be left out. */
type AllOptional<T> = {} extends T ? true : false;
type Success<R> = { [S in keyof R]: S extends 200 | 201 | 202 | 204 ? StaticOf<R[S]> : never }[keyof R];

/** The input of a route: `{ params, query, body }`, each present when the route declares it (query optional when all its fields are). */
type InputFor<S extends Shapes> = (Empty<S['params']> extends true ? {} : { params: StaticOf<S['params']> }) &
  (Empty<S['query']> extends true ? {} : AllOptional<StaticOf<S['query']>> extends true ? { query?: StaticOf<S['query']> } : { query: StaticOf<S['query']> }) &
  (Empty<S['body']> extends true ? {} : { body: StaticOf<S['body']> });

/** Every current-form route: `'GET /api/markets/:seriesId'` -> its input, body and reply (computed once, not per call). */
export type Routes = {
  [S in Shapes as `${S['method']} ${S['path']}`]: { input: InputFor<S>; body: StaticOf<S['body']>; reply: Success<S['responses']>; args: {} extends InputFor<S> ? [input?: InputFor<S>] : [input: InputFor<S>] };
};
export type RouteKey = keyof Routes & string;

export type InputOf<K extends RouteKey> = Routes[K]['input'];
export type BodyOf<K extends RouteKey> = Routes[K]['body'];
/** The 2xx reply body of a route. */
export type ReplyOf<K extends RouteKey> = Routes[K]['reply'];
/** The arguments after the route key: the input, optional when the route needs none. */
export type CallArgs<K extends RouteKey> = Routes[K]['args'];
