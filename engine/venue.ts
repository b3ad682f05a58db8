/**
 * The venue as a reducer: `apply(command)` returns a result and the events it produced,
 * and nothing else changes the state. No clock, no randomness, no I/O: replaying the same
 * commands gives the same state (architecture.md rules 1 and 2).
 */
import type { Hex } from './domain/hex.ts';
import type { CancelOrder, Command, PlaceOrder } from './commands.ts';
import type { EngineEvent, VenueEvent } from './events.ts';
import { reject, type Rejection } from './codes.ts';
import { defaultVenueConfig, type VenueConfig } from './config.ts';
import { VenueState } from './state.ts';
import { EventSink } from './flows/eventSink.ts';
import { enterOrders, type EngineOrderOutcome, type OrderOutcome } from './flows/orders.ts';
import { faucetDeposit, withdraw, transfer, setMmm } from './flows/cash.ts';
import { listPair, updateOracle } from './flows/market.ts';
import { tick } from './flows/clock.ts';
import { createRequest, submitQuote, fillQuote } from './flows/rfq.ts';
import { cancelAll, setCancelAfter } from './flows/massCancel.ts';
import { serializeState, restoreSnapshot, hashBytes } from './snapshot.ts';
import { precheck, precheckEntries, type CancelDraft, type PlaceDraft } from './precheck.ts';
import { nextOrderNonce, orderNonceUsed } from './queries.ts';
import { imageEvents } from './image.ts';
import { whatIf, type WhatIf, type WhatIfOrder } from './flows/whatIf.ts';
import { setMmp, resetMmp, unfreezeDue } from './flows/mmp.ts';
import type { MmpConfig } from './domain/mmp.ts';
import { createReferralCode, applyReferralCode } from './flows/referrals.ts';
import { chainEvent } from './flows/chain.ts';
import { depositToFund, liquidationPass } from './flows/liquidation.ts';
import { executeStrategy } from './flows/strategy.ts';

/**
 * A command's result value. The order commands' outcomes are in the wire form by default
 * (`OrderOutcome`: WAD sizes and prices); `Venue.apply` gives them in the engine's compact form
 * (`EngineCommandValue`: lots, ticks, in the venue's reused storage, valid until its next apply)
 * and `WireEvents.result` (engine/wire.ts) converts them.
 */
export type CommandValue<O = OrderOutcome> =
  | null
  | { readonly portfolioId: number }
  | { readonly outcomes: readonly O[] }
  | { readonly strategyId: Hex; readonly outcomes: readonly O[] }
  | { readonly requestId: Hex }
  | { readonly tradeId: string }
  | { readonly orderIds: readonly Hex[] }
  | { readonly cancelAt: number | null }

  | { readonly config: MmpConfig }
  | { readonly referralCode: string }
  | { readonly referrer: string };

/**
 * What a command did: its result and its events. `Venue.apply` gives them in the engine's
 * compact form (`EngineEvent`, engine/events.ts); `WireEvents.result` (engine/wire.ts) turns them
 * into the wire form (`VenueEvent`, the default), which is what the gateway hands on.
 */
export type ApplyResult<E = VenueEvent, V = CommandValue> =
  | { readonly ok: true; readonly value: V; readonly events: readonly E[] }
  | { readonly ok: false; readonly rejection: Rejection; readonly events: readonly E[] };

/** The order commands' value in the engine's compact form (flows/orderResults.ts). */
export type EngineCommandValue = CommandValue<EngineOrderOutcome>;
/** What `Venue.apply` returns: compact events and values, which `WireEvents.result` turns into an `ApplyResult`. */
export type EngineApplyResult = ApplyResult<EngineEvent, EngineCommandValue>;

/** A command's missing half (a place's cancels, a cancel's places): one empty list, never written, instead of a literal per command. */
const NO_ENTRIES: readonly never[] = [];

/**
 * A replace's cancels and its places as the two lists enterOrders takes: two lists rewritten by
 * every replace (enterOrders reads them during its call only), not two arrays per command.
 */
const REPLACE_CANCELS: CancelOrder[] = [];
const REPLACE_PLACES: PlaceOrder[] = [];

type ReplacePair = { readonly cancel: CancelOrder; readonly place: PlaceOrder };

function replaceHalf<K extends keyof ReplacePair>(pairs: readonly ReplacePair[], into: ReplacePair[K][], half: K): readonly ReplacePair[K][] {
  if (into.length > pairs.length) into.length = pairs.length;
  for (let i = 0; i < pairs.length; i++) {
    if (i < into.length) into[i] = pairs[i]![half];
    else into.push(pairs[i]![half]);
  }
  return into;
}

/**
 * What a venue takes beside its config and state, none of it in any output or snapshot.
 * `idHashSeed`: the seed of the open order index's string hash (actors/orderIdIndex.ts), a
 * 32-bit integer the gateway draws per process so that clients cannot grind order ids that
 * collide in it; the engine draws no random numbers itself. 0 when not given.
 */
export type VenueOptions = { readonly idHashSeed?: number };

export class Venue {
  /** One sink, reset for every command: its bookkeeping is reused (apply never re-enters). */
  private readonly sink = new EventSink();
  /** What `apply` returns, rewritten by every apply (valid until the next: flows/eventPool.ts): no object per command. */
  private readonly applied: { ok: true; value: EngineCommandValue; events: readonly EngineEvent[] } = { ok: true, value: null, events: [] };
  private readonly refused: { ok: false; rejection: Rejection; events: readonly EngineEvent[] } = { ok: false, rejection: null as unknown as Rejection, events: Object.freeze([]) };

  /** Restored from an older snapshot format (migrated): the hash of the bytes restored (restoredHash). */
  private migratedHash: Hex | null = null;

  constructor(readonly state: VenueState = new VenueState(defaultVenueConfig)) {}

  static create(config: VenueConfig = defaultVenueConfig, options: VenueOptions = {}): Venue {
    return new Venue(new VenueState(config, options.idHashSeed));
  }

  /** A snapshot's venue; an older format's is migrated, its conversion checked (engine/snapshot.ts restoreSnapshot). */
  static restore(bytes: Uint8Array, options: VenueOptions = {}): Venue {
    const r = restoreSnapshot(bytes, options.idHashSeed);
    const venue = new Venue(r.state);
    if (r.migratedFrom !== null) venue.migratedHash = hashBytes(bytes);
    return venue;
  }

  /**
   * Right after `restore`, for recovery's check: the hash the snapshot should have recorded,
   * as its format computes it. The current format: the restored state's hash (the restore
   * reproduced the bytes). An older format (docs/persistence.md "Snapshot formats"): the hash
   * of the bytes restored, as that format hashed them (its migration was checked by restore).
   */
  restoredHash(): Hex {
    return this.migratedHash ?? this.stateHash();
  }

  /**
   * Apply one command: its result and events in the compact form. The result, its events and an
   * order command's value are the venue's reused storage (flows/eventPool.ts,
   * flows/orderResults.ts): convert them (`WireEvents.result`) or read them before the next
   * `apply`.
   */
  apply(cmd: Command): EngineApplyResult {
    const state = this.state;
    // The end of the previous command: the order records that left a book in it are free again
    // (actors/recordPool.ts). Not earlier: its events and results, valid until now, may read them.
    state.series.records.recycle();
    state.seq = cmd.seq;
    // The command's time, read at a load site per order-entry type. Commands of many shapes pass
    // here, and a site that sees them all reads a field through the generic (megamorphic) lookup,
    // which returns a double field's value as a new heap number (a command's time is a double
    // beyond the small integers). A site that sees one shape reads the double in place. Each
    // site reads through its own variable: loads of one name from one variable share a site.
    let ts: number;
    switch (cmd.type) {
      case 'place': {
        const place = cmd;
        ts = place.ts;
        break;
      }
      case 'cancel': {
        const cancel = cmd;
        ts = cancel.ts;
        break;
      }
      case 'replace': {
        const replace = cmd;
        ts = replace.ts;
        break;
      }
      default:
        ts = +cmd.ts; // a number, as the other cases' (else the merge of the four is a boxed value)
    }
    if (ts > state.now) state.now = ts;
    const sink = this.sink;
    sink.begin(cmd.seq, state); // the venue time read inside: a double passed to a call is boxed
    const outcome = this.dispatch(cmd, sink);
    if (outcome !== null && 'code' in outcome) {
      const refused = this.refused;
      refused.rejection = outcome;
      return refused;
    }
    liquidationPass(state, sink); // accounts the command left below maintenance margin (flows/liquidation.ts)
    unfreezeDue(state, sink); // market maker protection whose freeze ran out (flows/mmp.ts)
    const applied = this.applied;
    applied.value = outcome;
    applied.events = sink.finish(state);
    return applied;
  }

  private dispatch(cmd: Command, sink: EventSink): EngineCommandValue | Rejection {
    const s = this.state;
    switch (cmd.type) {
      case 'list_pair':
        return listPair(s, sink, cmd.pair);
      case 'oracle':
        return updateOracle(s, sink, cmd.pairId, cmd.spot, cmd.volatility, cmd.riskFreeRate, cmd.marks);
      case 'clock':
        return tick(s, sink);
      case 'set_oi_caps': {
        const pair = s.pairs.get(cmd.pairId);
        if (!pair) return reject('unknown_pair', { pairId: cmd.pairId });
        pair.maxCallOI = cmd.maxCallOI;
        pair.maxPutOI = cmd.maxPutOI;
        sink.push({ type: 'oi_caps', pairId: cmd.pairId, maxCallOI: cmd.maxCallOI, maxPutOI: cmd.maxPutOI });
        return null;
      }
      case 'set_mmm':
        return setMmm(s, sink, cmd.address, cmd.isMmm);
      case 'create_portfolio': {
        const portfolioId = s.accounts.createPortfolio(cmd.owner, s.now);
        sink.portfolio(s.accounts.portfolio(cmd.owner, 0)!);
        sink.portfolio(s.accounts.portfolio(cmd.owner, portfolioId)!);
        return { portfolioId };
      }
      case 'deposit':
        return faucetDeposit(s, sink, cmd.owner, cmd.portfolioId, cmd.amount);
      case 'withdraw':
        return withdraw(s, sink, cmd.owner, cmd.portfolioId, cmd.amount);
      case 'transfer':
        return transfer(s, sink, cmd.owner, cmd.fromPortfolioId, cmd.toPortfolioId, cmd.amount);
      case 'place':
        return enterOrders(s, sink, NO_ENTRIES, cmd.orders);
      case 'cancel':
        return enterOrders(s, sink, cmd.cancels, NO_ENTRIES);
      case 'replace':
        return enterOrders(s, sink, replaceHalf(cmd.pairs, REPLACE_CANCELS, 'cancel'), replaceHalf(cmd.pairs, REPLACE_PLACES, 'place'), 'replace');
      case 'strategy':
        return executeStrategy(s, sink, cmd.strategyId, cmd.orders);
      case 'rfq_request':
        return createRequest(s, sink, cmd);
      case 'rfq_quote':
        return submitQuote(s, sink, cmd.requestId, cmd.quote);
      case 'rfq_fill':
        return fillQuote(s, sink, cmd);
      case 'cancel_all':
        return cancelAll(s, sink, cmd.owner, cmd.scope, cmd.reason);
      case 'cancel_after':
        return setCancelAfter(s, sink, cmd.owner, cmd.timeoutMs);
      case 'mmm_nonce_increment': {
        const w = s.accounts.wallet(cmd.mmm);
        const nonce = ++s.accounts.mmmNonce[w]!;
        sink.push({ type: 'mmm_nonce', address: cmd.mmm, nonce });
        return null;
      }
      case 'set_mmp':
        return setMmp(s, sink, cmd.owner, cmd);
      case 'reset_mmp':
        return resetMmp(s, sink, cmd.owner, cmd.pairId);
      case 'referral_code':
        return createReferralCode(s, sink, cmd.owner, cmd.code);
      case 'referral_apply':
        return applyReferralCode(s, sink, cmd.owner, cmd.code);
      case 'chain_event':
        return chainEvent(s, sink, cmd.id, cmd.event);
      case 'insurance_fund_deposit':
        return depositToFund(s, sink, cmd.amount, cmd.reason);
    }
  }

  /**
   * How many objects the reused result storage (flows/eventPool.ts) has made so far: it grows
   * only to the largest command's need and then stays flat. For tests and benchmarks.
   */
  storageMade(): number {
    return this.sink.storageMade();
  }

  /** The sequence number of the last command applied. */
  get seq(): number {
    return this.state.seq;
  }

  /** The venue clock (Unix ms): the last command's timestamp; it never moves backwards. */
  get now(): number {
    return this.state.now;
  }

  /** The venue's configuration (fixed when the venue was created; part of its state). */
  get config(): VenueConfig {
    return this.state.config;
  }

  /** The refusal `apply(command)` would give for an order rule, or null (engine/precheck.ts). Changes nothing. */
  precheck(command: Command): Rejection | null {
    return precheck(this.state, command);
  }

  /** The order rules for entries not signed yet, at time `tsMs` (engine/precheck.ts). Changes nothing. */
  precheckEntries(tsMs: number, cancels: readonly CancelDraft[], places: readonly PlaceDraft[]): Rejection | null {
    return precheckEntries(this.state, tsMs, cancels, places);
  }

  /** A wallet's next unused order nonce (engine/queries.ts). */
  nextOrderNonce(owner: string): bigint {
    return nextOrderNonce(this.state, owner);
  }

  /** Whether a wallet has used an order nonce (engine/queries.ts). */
  orderNonceUsed(owner: string, nonce: bigint): boolean {
    return orderNonceUsed(this.state, owner, nonce);
  }

  /**
   * A portfolio's risk now and with `orders` filled at their prices, and whether the venue
   * would take them as orders (engine/flows/whatIf.ts); null for a portfolio the wallet does
   * not have. Changes nothing.
   */
  whatIf(owner: string, portfolioId: number, orders: readonly WhatIfOrder[]): WhatIf | null {
    const p = this.state.accounts.portfolio(owner, portfolioId);
    if (p === undefined || p.id < 0) return null;
    return whatIf(this.state, p, orders);
  }

  /** Events describing the state as it stands, in the compact form, to seed read models that have no earlier events (engine/image.ts) and the converter (engine/wire.ts). */
  imageEvents(): EngineEvent[] {
    return imageEvents(this.state);
  }

  serialize(): Uint8Array {
    return serializeState(this.state);
  }

  /** keccak-256 of the canonical serialisation: equal hashes mean equal venues. */
  stateHash(): Hex {
    return hashBytes(this.serialize());
  }
}
