/**
 * A MatchSink that records every event as numbers, so that two books' event streams can be
 * compared cheaply for hundreds of thousands of commands: a fill is [FILL, makerRef, makerOwner,
 * tick, qty, makerRemaining], a self-trade cancel is [STP, makerRef, remaining].
 */
import type { MatchSink } from '../../../../engine/book/types.ts';

export const FILL = 1;
export const STP = 2;

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
        out.push(`stp ${e.slice(i + 1, i + 3).join(' ')}`);
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
