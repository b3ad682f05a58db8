/**
 * The engine's front door (architecture.md rule 5): everything outside `engine/` may use,
 * and nothing else. The gateway imports only this file (a test holds it).
 *
 * - Commands in, events out: `Venue.apply(command)` returns a result and the events the
 *   command produced; events are the only output, and every reader folds them (rule 6). The
 *   engine gives them in its compact form (`EngineEvent`: lots, ticks, cash in doubles);
 *   `WireEvents` turns them into the wire form (`VenueEvent`) that readers fold.
 * - The pure pre-check the engine itself applies first (`Venue.precheck`,
 *   `Venue.precheckEntries`): one set of order rules, run early at the edge.
 * - Read-only queries that are checks, not views (`Venue.nextOrderNonce`, `Venue.orderNonceUsed`).
 * - Result codes, and the value helpers the wire needs (fixed point, ids, ticks, symbols,
 *   instructions, pricing of implied volatility and of marks for the mark workers).
 */
export { Venue, type VenueOptions, type ApplyResult, type CommandValue, type EngineApplyResult, type EngineCommandValue } from './venue.ts';
export type { EngineOrderOutcome, OrderOutcome, OrderTrade } from './flows/orders.ts';
export type { WhatIf, WhatIfOrder, RiskFigures } from './flows/whatIf.ts';
export type * from './commands.ts';
export type * from './events.ts';
export { WireEvents, cashBig, healthRatioOf } from './wire.ts';
export { ResultCodes, reject, messageOf, type Rejection, type ResultCode, type ResultKind } from './codes.ts';
export type { CancelDraft, PlaceDraft } from './precheck.ts';
export { precheckDistinct } from './precheck.ts';
export { defaultVenueConfig, type VenueConfig } from './config.ts';
export { INSURANCE_FUND_OWNER, INSURANCE_FUND_PORTFOLIO } from './actors/insuranceFund.ts';
export { liquidationSpot, type LiquidationSpotInput, type SpotPosition } from './risk/liquidationSpot.ts';
export { hashBytes } from './snapshot.ts';
export { quoteStatus, type QuoteStatus } from './actors/rfq.ts';
export { requestIdOf } from './flows/rfq.ts';
export { computeMarks, SECONDS_PER_YEAR, type MarkInput } from './flows/marks.ts';
export { impliedVol } from './pricing/impliedVol.ts';
export * from './domain/hex.ts';
export * from './domain/fixed.ts';
export * from './domain/ids.ts';
export * from './domain/ticks.ts';
export * from './domain/symbols.ts';
export * from './domain/instructions.ts';
export * from './domain/values.ts';
export * from './domain/result.ts';
export * from './domain/expiries.ts';
export * from './domain/mmp.ts';
export * from './domain/chain.ts';
