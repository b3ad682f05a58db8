/**
 * Market maker protection as the gateway reads it (architecture.md rule 6): per wallet and
 * pair the config, the frozen state and the window, folded from `mmp` events (the engine sends
 * one on set, reset, trip, unfreeze and whenever fills change the window; docs/events.md).
 * Also remembers the `seq` of each entry's last change of frozen state, so the publisher sends
 * `account@mmp` on trips and unfreezes only.
 */
import type { Hex, MmpConfig, MmpEvent, MmpReason, VenueEvent } from '../../engine/index.ts';

export type MmpView = {
  readonly owner: string;
  readonly pairId: Hex;
  readonly config: MmpConfig;
  readonly frozen: boolean;
  /** Unix ms; null when not frozen, or frozen until a reset. */
  readonly frozenUntil: number | null;
  readonly reason: MmpReason | null;
  readonly window: MmpEvent['window'];
  /** The command that last froze or unfroze it (0: never). */
  readonly transitionSeq: number;
};

export class MmpBook {
  /** Per wallet, per pair, in the order configured. */
  private readonly byOwner = new Map<string, Map<Hex, MmpView>>();

  apply(e: VenueEvent): void {
    if (e.type !== 'mmp') return;
    let pairs = this.byOwner.get(e.owner);
    if (pairs === undefined) this.byOwner.set(e.owner, (pairs = new Map()));
    const before = pairs.get(e.pairId);
    const transitionSeq = (before?.frozen ?? false) !== e.frozen ? e.seq : (before?.transitionSeq ?? 0);
    pairs.set(e.pairId, { owner: e.owner, pairId: e.pairId, config: e.config, frozen: e.frozen, frozenUntil: e.frozenUntil, reason: e.reason, window: e.window, transitionSeq });
  }

  /** A wallet's configs, in the order configured. */
  configs(owner: string): MmpView[] {
    return [...(this.byOwner.get(owner)?.values() ?? [])];
  }

  get(owner: string, pairId: Hex): MmpView | undefined {
    return this.byOwner.get(owner)?.get(pairId);
  }

  exportState(): MmpView[] {
    const out: MmpView[] = [];
    for (const pairs of this.byOwner.values()) out.push(...pairs.values());
    return out;
  }

  importState(state: MmpView[]): void {
    this.byOwner.clear();
    for (const v of state) {
      let pairs = this.byOwner.get(v.owner);
      if (pairs === undefined) this.byOwner.set(v.owner, (pairs = new Map()));
      pairs.set(v.pairId, v);
    }
  }
}

/** Whether `v` is frozen at `nowMs` (a freeze that ran out before the engine's unfreeze event reached the fold is not). */
export function frozenAt(v: MmpView, nowMs: number): boolean {
  return v.frozen && (v.frozenUntil === null || nowMs < v.frozenUntil);
}
