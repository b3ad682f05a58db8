/** Every API route of the venue, with the authenticator and rate limiter they run behind. */
import { getAddress } from 'viem';
import type { Route } from '../http/route.ts';
import type { Authenticator } from '../http/auth.ts';
import { createRateLimiter, type RateLimiter, type Tier } from '../http/rateLimit.ts';
import { rateLimitHits } from '../http/opsMetrics.ts';
import type { OpenApiInfo } from '../http/openapi.ts';
import type { AppConfig } from '../config.ts';
import type { Services } from '../services.ts';
import { healthRoutes } from './health.ts';
import { marketRoutes } from './markets.ts';
import { helperRoutes } from './helpers.ts';
import { createAuthenticator } from '../auth/authenticator.ts';
import { authRoutes } from './auth.ts';
import { keyRoutes } from './keys.ts';
import { accountRoutes } from './account.ts';
import { portfolioRoutes } from './portfolio.ts';
import { adminRoutes } from './admin.ts';
import { orderRoutes } from './orders.ts';
import { massCancelRoutes } from './massCancel.ts';
import { whatIfRoutes } from './whatIf.ts';
import { rfqRoutes } from './rfq.ts';
import { mmpRoutes } from './mmp.ts';
import { platformRoutes } from './platform.ts';
import { leaderboardRoutes } from './leaderboard.ts';
import { pointsRoutes } from './points.ts';
import { userRoutes } from './user.ts';
import { referralRoutes } from './referral.ts';
import { webhookRoutes } from './webhooks.ts';
import { strategyRoutes } from './strategies.ts';
import { liquidationRoutes } from './liquidations.ts';
import { journalRoutes } from './journal.ts';

/** 30-day traded notional (COLLATERAL6) at which a wallet reaches tiers 2 and 3 (interface.md "Limits"). */
const TIER2 = 100_000n * 1_000_000n;
const TIER3 = 1_000_000n * 1_000_000n;

export type ApiRoutes = { routes: Route[]; authenticate: Authenticator; rateLimiter: RateLimiter };

export function apiRoutes(s: Services): ApiRoutes {
  const tierOf = (wallet: string): Tier => {
    const volume = s.reads.accounts.volume30d(getAddress(wallet), s.pipeline.now());
    return volume >= TIER3 ? 3 : volume >= TIER2 ? 2 : 1;
  };
  // Refusals are counted by group for Prometheus and in total for the monitoring stream
  // (rate-limit storms on venue@alerts).
  const countHit = rateLimitHits(s.metrics);
  const rateLimiter = createRateLimiter({
    clock: () => s.pipeline.wallNow(),
    tierOf,
    limits: s.config.rateLimits,
    onRefused: (group, identity) => {
      s.rateLimited.count++;
      countHit(group, identity);
    },
  });
  const authenticate = createAuthenticator(s.stores, () => s.pipeline.wallNow());
  const routes: Route[] = [
    ...healthRoutes(),
    ...marketRoutes(s),
    ...helperRoutes(s),
    ...authRoutes(s),
    ...keyRoutes(s),
    ...accountRoutes(s),
    ...portfolioRoutes(s),
    ...adminRoutes(s),
    ...orderRoutes(s),
    ...massCancelRoutes(s),
    ...whatIfRoutes(s),
    ...rfqRoutes(s),
    ...mmpRoutes(s),
    ...platformRoutes(s),
    ...leaderboardRoutes(s),
    ...pointsRoutes(s),
    ...userRoutes(s),
    ...referralRoutes(s),
    ...webhookRoutes(s),
    ...strategyRoutes(s),
    ...liquidationRoutes(s),
    ...journalRoutes(s),
  ];
  return { routes, authenticate, rateLimiter };
}

export function apiInfo(config: AppConfig): OpenApiInfo {
  return {
    title: `${config.serviceName} options venue`,
    version: '1.0.0',
    description: `Options on ${config.pairs.map((p) => p.symbol).join(', ')}, network \`${config.network}\` (chain id ${config.chainId}). Money values are integer strings in fixed point: WAD (18 decimals) for prices, sizes and Greeks, COLLATERAL6 (6 decimals) for cash.`,
    servers: [{ url: `http://${config.host}:${config.port}` }],
    // The package is private and carries no licence; the operators of this deployment answer for it.
    contact: { name: `${config.serviceName} venue operators`, url: `http://${config.host}:${config.port}/llms.txt` },
    license: { name: 'Proprietary: no licence is granted by this document', identifier: 'LicenseRef-Proprietary' },
  };
}
