/**
 * A MatchSink that records every event as numbers, so that two books' event streams can be
 * compared cheaply for hundreds of thousands of commands: a fill is [FILL, makerRef, makerOwner,
 * tick, qty, makerRemaining], a self-trade cancel is [STP, makerRef, remaining], a resting order
 * the screen removed (FrozenRecorder) is [SCREEN, makerRef, remaining].
 */
import type { MatchSink } from '../../../../engine/book/types.ts';

export const FILL = 1;
export const STP = 2;
export const SCREEN = 3;

export class Recorder implements MatchSink {
  events: number[] = [];

  onFill(makerRef: number, makerOwner: number, tick: number, qty: number, makerRemaining: number): void {
    this.events.push(FILL, makerRef, makerOwner, tick, qty, makerRemaining);
  }

  onSelfTradeCancel(makerRef: number, remaining: number): void {
    this.events.push(STP, makerRef, remaining);
  }

  /** The events since the last take(), as readable lines (`fill 1 3 101 5 0`, `stp 2 4`). */
  take(): string[] {
    const out: string[] = [];
    const e = this.events;
    for (let i = 0; i < e.length; ) {
      if (e[i] === FILL) {
        out.push(`fill ${e.slice(i + 1, i + 6).join(' ')}`);
        i += 6;
      } else {
        out.push(`${e[i] === SCREEN ? 'screen' : 'stp'} ${e.slice(i + 1, i + 3).join(' ')}`);
        i += 3;
      }
    }
    this.events = [];
    return out;
  }
}

/** A sink for replays and setups that must not match anything. */
export const refuseEvents: MatchSink = {
  onFill(makerRef) {
    throw new Error(`unexpected fill against ${makerRef}`);
  },
  onSelfTradeCancel(makerRef) {
    throw new Error(`unexpected self-trade cancel of ${makerRef}`);
  },
};

/**
 * A recorder with market-maker-protection-like screening, for the differential streams: an
 * owner's fills (as maker or taker) are counted, and the fill that brings its count to `limit`
 * freezes it. A frozen owner's resting orders are removed instead of matched (the screen), and a
 * taker whose owner froze stops (onFill returns true). `thaw()` unfreezes everyone. Both books see
 * the same events, so two recorders fed by them stay in the same state.
 */
export class FrozenRecorder extends Recorder {
  readonly frozen = new Set<number>();
  private readonly counts = new Map<number, number>();
  taker = -1;
  stops = 0;
  screened = 0;

  constructor(private readonly limit: number) {
    super();
  }

  readonly screen = (_makerRef: number, makerOwner: number): boolean => this.frozen.has(makerOwner);

  override onFill(makerRef: number, makerOwner: number, tick: number, qty: number, makerRemaining: number): boolean {
    super.onFill(makerRef, makerOwner, tick, qty, makerRemaining);
    this.count(makerOwner);
    this.count(this.taker);
    if (this.frozen.has(this.taker)) {
      this.stops++;
      return true;
    }
    return false;
  }

  onScreenCancel(makerRef: number, remaining: number): void {
    this.screened++;
    this.events.push(SCREEN, makerRef, remaining);
  }

  private count(owner: number): void {
    const n = (this.counts.get(owner) ?? 0) + 1;
    this.counts.set(owner, n);
    if (n >= this.limit) this.frozen.add(owner);
  }

  thaw(): void {
    this.frozen.clear();
    this.counts.clear();
  }
}
