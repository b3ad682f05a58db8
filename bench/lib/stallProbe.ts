/**
 * Where a server's main thread stalled, and what the garbage collector did meanwhile
 * (bench/orders' latency phase). A 1 ms timer chain notes every turn that came `minMs` or
 * more late (the stall: from when the timer was due to when it ran), and a `gc` performance
 * observer notes every collection. Times are CLOCK_MONOTONIC microseconds
 * (`process.hrtime`), the time base of V8's CPU profiles, so a stall can be looked up in a
 * profile of the same process (`BENCH_PROFILE_DIR`).
 */
import { PerformanceObserver, constants } from 'node:perf_hooks';

export type Stall = { readonly startUs: number; readonly ms: number; readonly gcMs: number };
export type Collection = { readonly startUs: number; readonly ms: number; readonly kind: string };
export type StallReport = {
  readonly minMs: number;
  /** Stalls of minMs or more: how many, their sum and the longest. */
  readonly count: number;
  readonly totalMs: number;
  readonly maxMs: number;
  /** Garbage collection inside those stalls (ms), and every collection of the phase by kind: count, sum, longest. */
  readonly gcMsInStalls: number;
  readonly gcByKind: Record<string, { count: number; totalMs: number; maxMs: number }>;
  readonly stalls: readonly Stall[];
  readonly collections: readonly Collection[];
};

const KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

const nowUs = (): number => Number(process.hrtime.bigint() / 1000n);

export class StallProbe {
  private stalls: Stall[] = [];
  private collections: Collection[] = [];
  private timer: NodeJS.Timeout | null = null;
  private readonly observer: PerformanceObserver;
  /** performance.now() (ms) -> monotonic us: performance's origin in the hrtime base. */
  private readonly originUs = nowUs() - performance.now() * 1000;

  constructor(private readonly minMs = 10) {
    this.observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        const kind = KINDS[(e as unknown as { detail?: { kind?: number } }).detail?.kind ?? -1] ?? 'other';
        this.collections.push({ startUs: Math.round(this.originUs + e.startTime * 1000), ms: e.duration, kind });
      }
    });
  }

  start(): void {
    this.stop();
    this.stalls = [];
    this.collections = [];
    this.observer.observe({ entryTypes: ['gc'] });
    let due = nowUs() + 1000;
    const tick = () => {
      const now = nowUs();
      const lateMs = (now - due) / 1000;
      if (lateMs >= this.minMs) this.stalls.push({ startUs: due, ms: lateMs, gcMs: 0 });
      due = now + 1000;
      this.timer = setTimeout(tick, 1);
    };
    this.timer = setTimeout(tick, 1);
  }

  stop(): StallReport {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.observer.disconnect();
    const stalls = this.stalls.map((s) => ({ ...s, gcMs: overlapMs(s, this.collections) }));
    const gcByKind: StallReport['gcByKind'] = {};
    for (const c of this.collections) {
      const k = (gcByKind[c.kind] ??= { count: 0, totalMs: 0, maxMs: 0 });
      k.count++;
      k.totalMs += c.ms;
      k.maxMs = Math.max(k.maxMs, c.ms);
    }
    return {
      minMs: this.minMs,
      count: stalls.length,
      totalMs: stalls.reduce((n, s) => n + s.ms, 0),
      maxMs: stalls.reduce((n, s) => Math.max(n, s.ms), 0),
      gcMsInStalls: stalls.reduce((n, s) => n + s.gcMs, 0),
      gcByKind,
      stalls,
      collections: this.collections,
    };
  }
}

function overlapMs(s: Stall, collections: readonly Collection[]): number {
  const end = s.startUs + s.ms * 1000;
  let us = 0;
  for (const c of collections) {
    const cEnd = c.startUs + c.ms * 1000;
    us += Math.max(0, Math.min(end, cEnd) - Math.max(s.startUs, c.startUs));
  }
  return us / 1000;
}
