/**
 * What routes and streams are given: the engine's front door (its pre-check and queries,
 * never its state), the command pipeline (the only way to change it), the read models
 * (folds of the committed events: every view), stores and workers. Built once in app.ts.
 */
import type { Venue } from '../engine/index.ts';
import type { ReadModels } from './readModels/readModels.ts';
import type { Stores } from '../persistence/stores.ts';
import type { SignatureVerifier } from '../workers/signatureVerifier.ts';
import type { MarkComputer } from '../workers/markComputer.ts';
import type { AppConfig } from './config.ts';
import type { CommandPipeline } from './commandPipeline.ts';
import type { MarketData } from './readModels/marketData.ts';
import type { Metrics } from './http/metrics.ts';
import type { Logger } from './http/log.ts';
import type { SiweDomains } from './auth/siweDomains.ts';
import type { AlertBus } from './monitoring/alertBus.ts';
import type { ChainInfo } from '../chain/venueChain.ts';
import type { PublicJournal } from './publicJournal.ts';

/** The relayer's report of a batch sent or included (final and failed are committed events). */
export type BatchReport = { readonly batch: number; readonly status: string; readonly txHash: `0x${string}` | null; readonly tradeIds: readonly string[]; readonly orderIds: readonly `0x${string}`[] };

/** What the gateway may ask the engine directly: the order rules and checks, not views (architecture.md rule 5). */
export type EngineFront = Pick<Venue, 'precheck' | 'precheckEntries' | 'nextOrderNonce' | 'orderNonceUsed' | 'seq' | 'now' | 'config' | 'whatIf'>;

export type Services = {
  readonly config: AppConfig;
  readonly venue: EngineFront;
  readonly reads: ReadModels;
  readonly pipeline: CommandPipeline;
  /** Public market data: `reads.market`, named here for the routes and streams that serve it. */
  readonly market: MarketData;
  readonly stores: Stores;
  readonly verifier: SignatureVerifier;
  readonly marks: MarkComputer;
  readonly metrics: Metrics;
  readonly log: Logger;
  /** The domains SIWE messages may name (known fully once the server listens). */
  readonly siweDomains: SiweDomains;
  /** Venue alerts (venue@alerts on /ws/monitor): raise one from anywhere. */
  readonly alerts: AlertBus;
  /** Requests refused by a rate limit (HTTP 429) since the start: the monitoring stream watches it for storms. */
  readonly rateLimited: { count: number };
  /** The settlement chain as /api/markets/contracts describes it (mode none without one: docs/chain.md). */
  readonly chain: { info: ChainInfo; readonly statusListeners: ((m: BatchReport) => void)[] };
  /** PUBLIC_JOURNAL=1: the committed journal and the snapshots, read-only (docs/chain.md "The audit"); null otherwise. */
  readonly publicJournal: PublicJournal | null;
};
