/**
 * Market maker protection (extensions.md "Market maker protection (MMP)", docs/engine.md "Market
 * maker protection"): the `set_mmp` and `reset_mmp` commands, the guard a match runs under on a
 * pair where some wallet has a config, the `mmp` events, and unfreezing when a freeze runs out.
 * What a trip cancels (the wallet's open mmp orders on the pair) is done by the order flow
 * (orders.ts), which owns order removal.
 */
import type { Hex } from '../domain/hex.ts';
import { WAD } from '../domain/fixed.ts';
import { reject, type Rejection } from '../codes.ts';
import type { VenueState } from '../state.ts';
import type { SeriesActor, MatchGuard } from '../actors/series.ts';
import type { OrderRecord } from '../actors/orderRecord.ts';
import { MMP_FROZEN_MS, MMP_WINDOW_MS, type MmpConfig, type MmpReason } from '../domain/mmp.ts';
import { isFrozenAt, reachedLimit, type MmpActor, type MmpEntry, type MmpWindow } from '../actors/mmp.ts';
import type { EventSink } from './eventSink.ts';

const abs = (x: bigint): bigint => (x < 0n ? -x : x);

/** `set_mmp`: validate and store a wallet's config on a pair (its window and frozen state are kept). */
export function setMmp(state: VenueState, sink: EventSink, owner: string, config: MmpConfig): { readonly config: MmpConfig } | Rejection {
  if (!state.pairs.has(config.pairId)) return reject('unknown_pair', { pairId: config.pairId });
  if (!Number.isSafeInteger(config.windowMs) || config.windowMs < MMP_WINDOW_MS.min || config.windowMs > MMP_WINDOW_MS.max) {
    return reject('mmp_bad_window', { field: 'windowMs', min: MMP_WINDOW_MS.min, max: MMP_WINDOW_MS.max });
  }
  if (!Number.isSafeInteger(config.frozenMs) || config.frozenMs < MMP_FROZEN_MS.min || config.frozenMs > MMP_FROZEN_MS.max) {
    return reject('mmp_bad_frozen', { field: 'frozenMs', min: MMP_FROZEN_MS.min, max: MMP_FROZEN_MS.max });
  }
  for (const field of ['qtyLimit', 'deltaLimit', 'vegaLimit'] as const) {
    if (typeof config[field] !== 'bigint' || config[field] < 0n) return reject('mmp_bad_limit', { field });
  }
  if (!Number.isSafeInteger(config.tradeCountLimit) || config.tradeCountLimit < 0) return reject('mmp_bad_limit', { field: 'tradeCountLimit' });
  const stored: MmpConfig = {
    pairId: config.pairId,
    windowMs: config.windowMs,
    frozenMs: config.frozenMs,
    qtyLimit: config.qtyLimit,
    deltaLimit: config.deltaLimit,
    vegaLimit: config.vegaLimit,
    tradeCountLimit: config.tradeCountLimit,
  };
  const e = state.mmp.configure(owner, stored);
  sink.push(mmpEvent(state.mmp, e, state.now));
  return { config: stored };
}

/** `reset_mmp`: unfreeze a wallet on a pair; its window starts empty. */
export function resetMmp(state: VenueState, sink: EventSink, owner: string, pairId: Hex): { readonly config: MmpConfig } | Rejection {
  const e = state.mmp.get(owner, pairId);
  if (e === undefined) return reject('mmp_not_configured', { pairId });
  state.mmp.unfreeze(e);
  sink.push(mmpEvent(state.mmp, e, state.now));
  return { config: e.config };
}

/** The freezes that ran out by now are lifted, each with its event (run after every successful command). */
export function unfreezeDue(state: VenueState, sink: EventSink): void {
  if (!state.mmp.anyTimed()) return; // the usual command: no call with the venue time (a double passed is boxed)
  const due = state.mmp.due(state.now);
  for (let i = 0; i < due.length; i++) {
    const e = due[i]!;
    state.mmp.unfreeze(e);
    sink.push(mmpEvent(state.mmp, e, state.now));
  }
}

/** The `mmp` event of an entry as it stands at `nowMs` (its window as a prune at `nowMs` would leave it; nothing changes). */
export function mmpEvent(mmp: MmpActor, e: MmpEntry, nowMs: number) {
  const frozen = isFrozenAt(e, nowMs);
  const w = mmp.sumsAt(e, nowMs);
  return {
    type: 'mmp' as const,
    owner: e.owner,
    pairId: e.pairId,
    config: e.config,
    frozen,
    frozenUntil: frozen ? e.frozenUntil : null,
    reason: frozen ? e.reason : null,
    window: { qty: w.qty, delta: w.delta, vega: w.vega, trades: w.trades },
  };
}

/** Whether an mmp order of `owner` on `pairId` is refused at `nowMs` (the instruction rule). */
export function mmpFrozen(state: VenueState, owner: string, pairId: Hex, nowMs: number): Rejection | null {
  const e = state.mmp.get(owner, pairId);
  if (e === undefined || !isFrozenAt(e, nowMs)) return null;
  return reject('mmp_frozen', { field: 'mmp', pairId, frozenUntil: e.frozenUntil });
}

/**
 * The guard of one match on a pair where some wallet has a config. Live, it adds each fill of an
 * mmp order to its wallet's window and trips the wallet whose window reaches a limit; `stops`
 * then answers true for that wallet's mmp orders, so the book removes its further quotes instead
 * of matching them and a taker of it stops. Dry (`dry = true`), it works on scratch sums and
 * changes nothing: the fill-or-kill check.
 */
export class MmpGuard implements MatchGuard {
  /** Entries whose window changed, in first-change order. */
  readonly changed: MmpEntry[] = [];
  /** Entries this match froze. */
  readonly tripped: MmpEntry[] = [];
  private readonly scratch: Map<MmpEntry, { w: MmpWindow; frozen: boolean }> | null;
  private readonly pairId: Hex;

  constructor(
    private readonly state: VenueState,
    private readonly series: SeriesActor,
    private readonly sizeStep: bigint,
    dry = false,
  ) {
    this.pairId = series.spec.pairId;
    this.scratch = dry ? new Map() : null;
  }

  /** A guard for a match on `series`, or null when no wallet has a config on its pair. */
  static of(state: VenueState, series: SeriesActor, sizeStep: bigint, dry = false): MmpGuard | null {
    return state.mmp.armed(series.spec.pairId) ? new MmpGuard(state, series, sizeStep, dry) : null;
  }

  filled(record: OrderRecord, lots: number): void {
    if (!record.instructions.mmp) return;
    const mmp = this.state.mmp;
    const e = mmp.get(record.owner, this.pairId);
    if (e === undefined) return;
    const now = this.state.now;
    const size = BigInt(lots) * this.sizeStep;
    const marks = this.series.marks;
    const delta = marks === null ? 0n : abs((marks.delta * size) / WAD);
    const vega = marks === null ? 0n : abs((marks.vega * size) / WAD);
    if (this.scratch !== null) {
      let s = this.scratch.get(e);
      if (s === undefined) this.scratch.set(e, (s = { w: mmp.sumsAt(e, now), frozen: isFrozenAt(e, now) }));
      s.w.qty += size;
      s.w.delta += delta;
      s.w.vega += vega;
      s.w.trades++;
      if (!s.frozen && reachedLimit(e.config, s.w) !== null) s.frozen = true;
      return;
    }
    const wasFrozen = isFrozenAt(e, now);
    if (e.frozen && !wasFrozen) {
      // A freeze that ran out and was not lifted yet: lifted now, so the window starts empty.
      mmp.unfreeze(e);
    }
    const reason: MmpReason | null = mmp.add(e, now, size, delta, vega);
    if (!this.changed.includes(e)) this.changed.push(e);
    if (reason !== null && !wasFrozen) {
      mmp.trip(e, now, reason);
      this.tripped.push(e);
    }
  }

  stops(record: OrderRecord): boolean {
    if (!record.instructions.mmp) return false;
    const e = this.state.mmp.get(record.owner, this.pairId);
    if (e === undefined) return false;
    if (this.scratch !== null) return this.scratch.get(e)?.frozen ?? isFrozenAt(e, this.state.now);
    return isFrozenAt(e, this.state.now);
  }

  /** The events of the entries this match changed (one each, as they stand after it). */
  events(sink: EventSink): void {
    for (const e of this.changed) sink.push(mmpEvent(this.state.mmp, e, this.state.now));
  }
}
