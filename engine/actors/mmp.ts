/**
 * Market maker protection (docs/engine.md "Market maker protection (MMP)"): per (wallet, pair) a
 * config, a sliding window of the wallet's fills of `mmp` orders on that pair, and whether the
 * wallet is frozen there. Data and exact arithmetic only; the flow (engine/flows/mmp.ts) decides
 * what a trip cancels and what events say.
 *
 * The window is a queue of fills (command time, |size|, |delta x size|, |vega x size|, all WAD
 * bigints) with running sums: an entry leaves once it is older than `now - windowMs`, so the sums
 * are exact whatever the order of fills and prunes. Frozen means `frozen && (frozenUntil ===
 * null || now < frozenUntil)`: the stored flag is cleared (and an event sent) at the first
 * command past `frozenUntil`, but every rule reads the time, so the moment the flag flips never
 * changes a decision.
 */
import type { Hex } from '../domain/hex.ts';
import { Deque } from './deque.ts';
import type { MmpConfig, MmpReason } from '../domain/mmp.ts';

export type { MmpConfig, MmpReason } from '../domain/mmp.ts';

/** The window's sums: WAD for qty, delta and vega; a count of fills. */
export type MmpWindow = { qty: bigint; delta: bigint; vega: bigint; trades: number };

/** One fill in a window: [ts ms, |size|, |delta x size|, |vega x size|]. */
export type MmpFill = readonly [number, bigint, bigint, bigint];

export type MmpEntry = {
  readonly owner: string;
  readonly pairId: Hex;
  config: MmpConfig;
  frozen: boolean;
  /** ms; null while not frozen, or frozen until a reset. */
  frozenUntil: number | null;
  reason: MmpReason | null;
  readonly fills: Deque<MmpFill>;
  readonly window: MmpWindow;
};

export const emptyWindow = (): MmpWindow => ({ qty: 0n, delta: 0n, vega: 0n, trades: 0 });

/** The first limit (qty, delta, vega, trades) the window's sums have reached; null when none. */
export function reachedLimit(c: MmpConfig, w: MmpWindow): MmpReason | null {
  if (c.qtyLimit !== 0n && w.qty >= c.qtyLimit) return 'qty';
  if (c.deltaLimit !== 0n && w.delta >= c.deltaLimit) return 'delta';
  if (c.vegaLimit !== 0n && w.vega >= c.vegaLimit) return 'vega';
  if (c.tradeCountLimit !== 0 && w.trades >= c.tradeCountLimit) return 'trades';
  return null;
}

/** Whether `e` is frozen at `nowMs` (its stored flag and its time). */
export function isFrozenAt(e: MmpEntry, nowMs: number): boolean {
  return e.frozen && (e.frozenUntil === null || nowMs < e.frozenUntil);
}

const key = (owner: string, pairId: Hex): string => `${owner}|${pairId}`;

/** What `due` gives when nothing is due: shared, never written. */
const NOTHING_DUE: readonly MmpEntry[] = Object.freeze([]);

export class MmpActor {
  /** Every (wallet, pair) with a config, in the order first configured (snapshots keep it). */
  readonly entries = new Map<string, MmpEntry>();
  /** Configs per pair: a pair with none needs no screening while matching. Derived. */
  private readonly perPair = new Map<Hex, number>();
  /** Entries frozen with a time limit: the clock's work to unfreeze. Derived. */
  private timed = 0;
  /** No timed freeze ends before this (ms): until then `due` has nothing to look at. Derived; may be early, never late. */
  private nextDue = Infinity;

  get(owner: string, pairId: Hex): MmpEntry | undefined {
    return this.entries.get(key(owner, pairId));
  }

  /** Whether any wallet has a config on `pairId`. */
  armed(pairId: Hex): boolean {
    return this.perPair.has(pairId);
  }

  isFrozen(owner: string, pairId: Hex, nowMs: number): boolean {
    const e = this.entries.get(key(owner, pairId));
    return e !== undefined && isFrozenAt(e, nowMs);
  }

  /** Set (or replace) the config of (owner, pair); the window and the frozen state are kept. */
  configure(owner: string, config: MmpConfig): MmpEntry {
    let e = this.entries.get(key(owner, config.pairId));
    if (e === undefined) {
      e = { owner, pairId: config.pairId, config, frozen: false, frozenUntil: null, reason: null, fills: new Deque(), window: emptyWindow() };
      this.entries.set(key(owner, config.pairId), e);
      this.perPair.set(config.pairId, (this.perPair.get(config.pairId) ?? 0) + 1);
    } else {
      e.config = config;
    }
    return e;
  }

  /** Drop fills older than `nowMs - windowMs` from the window. */
  prune(e: MmpEntry, nowMs: number): void {
    const cutoff = nowMs - e.config.windowMs;
    const w = e.window;
    for (let f = e.fills.first(); f !== undefined && f[0] < cutoff; f = e.fills.first()) {
      e.fills.shift();
      w.qty -= f[1];
      w.delta -= f[2];
      w.vega -= f[3];
      w.trades--;
    }
  }

  /** The window's sums at `nowMs` without changing it (what prune would leave). */
  sumsAt(e: MmpEntry, nowMs: number): MmpWindow {
    const cutoff = nowMs - e.config.windowMs;
    const w = { ...e.window };
    for (const f of e.fills) {
      if (f[0] >= cutoff) break;
      w.qty -= f[1];
      w.delta -= f[2];
      w.vega -= f[3];
      w.trades--;
    }
    return w;
  }

  /** Add a fill at `nowMs` to the window (pruned first); returns the limit it reached, or null. */
  add(e: MmpEntry, nowMs: number, qty: bigint, delta: bigint, vega: bigint): MmpReason | null {
    this.prune(e, nowMs);
    e.fills.push([nowMs, qty, delta, vega]);
    e.window.qty += qty;
    e.window.delta += delta;
    e.window.vega += vega;
    e.window.trades++;
    return reachedLimit(e.config, e.window);
  }

  /** Freeze `e` at `nowMs` for `reason`. */
  trip(e: MmpEntry, nowMs: number, reason: MmpReason): void {
    if (e.frozen && e.frozenUntil !== null) this.timed--;
    e.frozen = true;
    e.frozenUntil = e.config.frozenMs === 0 ? null : nowMs + e.config.frozenMs;
    e.reason = reason;
    if (e.frozenUntil !== null) {
      this.timed++;
      if (e.frozenUntil < this.nextDue) this.nextDue = e.frozenUntil;
    }
  }

  /** Unfreeze `e` (a reset, or its time passed): the window starts empty. */
  unfreeze(e: MmpEntry): void {
    if (e.frozen && e.frozenUntil !== null) this.timed--;
    e.frozen = false;
    e.frozenUntil = null;
    e.reason = null;
    e.fills.clear();
    Object.assign(e.window, emptyWindow());
  }

  /** Whether some entry is frozen until a time (one may then come due). */
  anyTimed(): boolean {
    return this.timed !== 0;
  }

  /** Entries whose freeze has run out at `nowMs` (frozen, frozenUntil <= nowMs), in entry order. */
  due(nowMs: number): readonly MmpEntry[] {
    if (this.timed === 0 || nowMs < this.nextDue) return NOTHING_DUE; // every command asks: no array made
    const out: MmpEntry[] = [];
    let next = Infinity;
    for (const e of this.entries.values()) {
      if (!e.frozen || e.frozenUntil === null) continue;
      if (e.frozenUntil <= nowMs) out.push(e);
      else if (e.frozenUntil < next) next = e.frozenUntil;
    }
    // The caller unfreezes what is due; the next look is at the earliest freeze left.
    this.nextDue = next;
    return out;
  }

  /** Rebuild an entry from a snapshot (sums from its fills). */
  restore(owner: string, config: MmpConfig, frozen: boolean, frozenUntil: number | null, reason: MmpReason | null, fills: readonly MmpFill[]): void {
    const e = this.configure(owner, config);
    e.frozen = frozen;
    e.frozenUntil = frozenUntil;
    e.reason = reason;
    if (frozen && frozenUntil !== null) {
      this.timed++;
      if (frozenUntil < this.nextDue) this.nextDue = frozenUntil;
    }
    for (const f of fills) {
      e.fills.push(f);
      e.window.qty += f[1];
      e.window.delta += f[2];
      e.window.vega += f[3];
      e.window.trades++;
    }
  }
}
