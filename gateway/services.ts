/**
 * What routes and streams are given: the venue (read access), the command pipeline (the
 * only way to change it), read models, stores and workers. Built once in app.ts.
 */
import type { Venue } from '../engine/venue.ts';
import type { Stores } from '../persistence/stores.ts';
import type { SignatureVerifier } from '../workers/signatureVerifier.ts';
import type { MarkComputer } from '../workers/markComputer.ts';
import type { AppConfig } from './config.ts';
import type { CommandPipeline } from './commandPipeline.ts';
import type { MarketData } from './readModels/marketData.ts';
import type { Metrics } from './http/metrics.ts';
import type { Logger } from './http/log.ts';
import type { SiweDomains } from './auth/siweDomains.ts';

export type Services = {
  readonly config: AppConfig;
  readonly venue: Venue;
  readonly pipeline: CommandPipeline;
  readonly market: MarketData;
  readonly stores: Stores;
  readonly verifier: SignatureVerifier;
  readonly marks: MarkComputer;
  readonly metrics: Metrics;
  readonly log: Logger;
  /** The domains SIWE messages may name (known fully once the server listens). */
  readonly siweDomains: SiweDomains;
};
