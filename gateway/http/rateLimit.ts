/**
 * Per-group request rate limits (api.md "Rate limits", docs/rate-limits.md).
 *
 * Algorithm: a token bucket per (group, key) of capacity `limit` refilled at
 * `limit / window`, implemented as GCRA: one number per key, the "theoretical arrival
 * time" (tat). A request at `now` is allowed when the bucket, after taking one token,
 * is not over capacity: `max(tat, now) + interval - now <= window`. So `limit` requests
 * at the same instant pass and the next one gets 429; afterwards one token comes back
 * every `window / limit` ms. A key whose tat is in the past has a full bucket and holds
 * no information, which is what makes eviction safe: a key whose tat has passed and a key
 * that is absent are the same full bucket, whether or not the idle sweep removed it yet.
 *
 * Keys: the wallet (every session, cookie and API key of it share one budget per group),
 * else the IP. The limit depends on the group and, for wallets, on the wallet's tier (an
 * injected `tierOf`).
 *
 * Memory: idle keys are swept a few per request, and the map is a least-recently-seen
 * list (each request moves its key to the end). At the hard bound `maxKeys` the victim is
 * an idle key near the front if there is one, else the key seen least recently: never the
 * key that is being limited right now, which would regain a full bucket mid-burst.
 */
import type { RateIdentity } from './auth.ts';
import type { RateLimitGroup } from './route.ts';

export type Tier = 1 | 2 | 3;

/** Requests per window (default one minute); null = unlimited. */
export type GroupLimits = {
  readonly anonymous: number | null;
  readonly tier1: number | null;
  readonly tier2: number | null;
  readonly tier3: number | null;
};

function flat(n: number | null): GroupLimits {
  return { anonymous: n, tier1: n, tier2: n, tier3: n };
}

/**
 * The tier table (interface.md "Limits") for markets ("data") and for orders/account
 * ("orders"); the current reference table for helpers, auth and platform. Anonymous
 * callers of orders/account routes (public RFQ reads, 401s) get the tier-1 figure by IP,
 * since the table gives none. The earlier-form tables are not applied: both forms share
 * one budget per caller (docs/rate-limits.md).
 */
export const defaultRateLimits: Readonly<Record<RateLimitGroup, GroupLimits>> = {
  markets: { anonymous: 600, tier1: 300, tier2: 600, tier3: 1000 },
  orders: { anonymous: 600, tier1: 600, tier2: 1200, tier3: 2400 },
  account: { anonymous: 600, tier1: 600, tier2: 1200, tier3: 2400 },
  helpers: flat(120),
  auth: flat(20),
  platform: flat(600),
  webhooks: flat(6000),
  admin: flat(600),
  health: flat(null),
  docs: flat(120),
};

export type RateDecision = {
  readonly allowed: boolean;
  readonly limit: number;
  /** Requests still allowed right now after this one. */
  readonly remaining: number;
  /** Unix ms when the bucket is full again (Remaining back at Limit). */
  readonly resetAt: number;
  /** Unix ms when the next request will be accepted (= now when tokens remain). */
  readonly retryAt: number;
};

export type RateLimiter = {
  /** Take one request from the caller's bucket for the group; null when the group is unlimited for it. */
  take(group: RateLimitGroup, identity: RateIdentity): RateDecision | null;
  /** The limit that applies, without taking (null = unlimited). */
  limitFor(group: RateLimitGroup, identity: RateIdentity): number | null;
  /** Number of keys held (bounded by `maxKeys`). */
  size(): number;
};

export type RateLimiterOptions = {
  /** Unix ms; tests pass a fake clock. */
  readonly clock: () => number;
  /** Tier of a wallet (lowercased address); default every wallet is tier 1. */
  readonly tierOf?: (wallet: string) => Tier;
  /** Overrides per group, merged over `defaultRateLimits`. */
  readonly limits?: Partial<Record<RateLimitGroup, Partial<GroupLimits>>>;
  readonly windowMs?: number;
  /** Hard bound on keys held; beyond it an idle key, else the least recently seen one, is dropped (default 100,000). */
  readonly maxKeys?: number;
  /** Called for every refused request (the `rate_limit_hits_total` metric). */
  readonly onRefused?: (group: RateLimitGroup, identity: RateIdentity) => void;
};

/**
 * Float slack (ms) so that `limit` requests of `window / limit` each fit the window exactly.
 * Times are kept relative to the limiter's creation (`origin`): at Unix-epoch magnitudes a
 * double has ~0.0002 ms of resolution, and nine additions of 60000/9 drifted past a 1e-6
 * slack, letting only 8 of 9 requests through at one instant.
 */
const epsilon = 1e-3;
/** Keys examined for idleness per request: amortised eviction with no timer. */
const sweepPerTake = 2;
/** At the hard bound, keys examined from the least recently seen end for an idle one to drop. */
const victimScan = 16;

export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const clock = options.clock;
  const tierOf = options.tierOf ?? (() => 1 as Tier);
  const windowMs = options.windowMs ?? 60_000;
  const maxKeys = options.maxKeys ?? 100_000;
  if (!(windowMs > 0) || !(maxKeys > 0)) throw new Error('rate limiter: windowMs and maxKeys must be positive');
  const limits = {} as Record<RateLimitGroup, GroupLimits>;
  for (const group of Object.keys(defaultRateLimits) as RateLimitGroup[]) {
    const merged = { ...defaultRateLimits[group], ...options.limits?.[group] };
    for (const n of Object.values(merged)) {
      if (n !== null && !(Number.isInteger(n) && n > 0)) throw new Error(`rate limiter: limit for ${group} must be a positive integer or null`);
    }
    limits[group] = merged;
  }
  const origin = Math.floor(clock());
  const tat = new Map<string, number>();
  let sweeper: IterableIterator<[string, number]> = tat.entries();

  function limitFor(group: RateLimitGroup, identity: RateIdentity): number | null {
    const l = limits[group];
    if (identity.kind === 'ip') return l.anonymous;
    // The wallet's tier costs a lookup of its traded volume: skipped when it cannot change the answer.
    if (l.tier1 === l.tier2 && l.tier2 === l.tier3) return l.tier1;
    const tier = tierOf(identity.address.toLowerCase());
    return tier === 3 ? l.tier3 : tier === 2 ? l.tier2 : l.tier1;
  }

  function keyOf(group: RateLimitGroup, identity: RateIdentity): string {
    if (identity.kind === 'wallet') return `${group}|w|${identity.address.toLowerCase()}`;
    return `${group}|i|${identity.ip}`;
  }

  function sweep(now: number): void {
    for (let i = 0; i < sweepPerTake; i++) {
      const next = sweeper.next();
      if (next.done === true) {
        sweeper = tat.entries();
        return;
      }
      if (next.value[1] <= now) tat.delete(next.value[0]);
    }
  }

  /** A relative time as Unix ms, rounded up (float noise below the slack does not add a millisecond). */
  const at = (relative: number): number => origin + Math.ceil(relative - epsilon);

  /** Over the bound: drop an idle key near the least recently seen end, else that end's key. */
  function evictOne(now: number): void {
    let first: string | undefined;
    let scanned = 0;
    for (const [key, value] of tat) {
      first ??= key;
      if (value <= now) {
        tat.delete(key);
        return;
      }
      if (++scanned >= victimScan) break;
    }
    if (first !== undefined) tat.delete(first);
  }

  function take(group: RateLimitGroup, identity: RateIdentity): RateDecision | null {
    const limit = limitFor(group, identity);
    if (limit === null) return null;
    const wall = clock();
    const now = wall - origin;
    sweep(now);
    const interval = windowMs / limit;
    const key = keyOf(group, identity);
    const stored = tat.get(key);
    // Refill is clamped: a tat in the past is a full bucket, never more.
    const start = stored === undefined || stored < now ? now : stored;
    const next = start + interval;
    // Move the key to the most recently seen end (refused requests too: a caller hammering
    // its limit is the last one the bound should forget).
    if (stored !== undefined) tat.delete(key);
    else if (tat.size >= maxKeys) evictOne(now);
    if (next - now <= windowMs + epsilon) {
      tat.set(key, next);
      const remaining = Math.max(0, Math.floor((windowMs - (next - now)) / interval + epsilon));
      return { allowed: true, limit, remaining, resetAt: at(next), retryAt: remaining > 0 ? wall : at(next - windowMs + interval) };
    }
    tat.set(key, start);
    options.onRefused?.(group, identity);
    return { allowed: false, limit, remaining: 0, resetAt: at(start), retryAt: at(start - windowMs + interval) };
  }

  return { take, limitFor, size: () => tat.size };
}
