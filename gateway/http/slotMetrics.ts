/**
 * Counters and histograms for hot paths, accumulated in plain slots and rendered in the
 * Prometheus families prom-client would render when the registry is scraped. prom-client
 * validates and hashes the labels of every observation; here a label set is bound once
 * (`child(labels)`) and an observation is a few array increments. The HTTP request metrics
 * (metrics.ts) work the same way; the engine and order-entry metrics use these.
 */
import type client from 'prom-client';

export type MetricValue = { value: number; labels: Record<string, string>; metricName?: string };

/** A metric object the Registry can render and reset (the shape prom-client's own metrics have). */
export function exposed(name: string, help: string, type: 'counter' | 'histogram', values: () => MetricValue[], reset: () => void): client.Metric {
  const get = async () => ({ name, help, type, aggregator: 'sum' as const, values: values() });
  return { name, help, type, aggregator: 'sum', get, reset } as unknown as client.Metric;
}

export type SlotHistogram = { observe(seconds: number): void };
export type SlotCounter = { inc(by?: number): void };

/** A family of histograms or counters; `child` binds one label set (the same object for the same labels). */
export type SlotFamily<L extends string, C> = { child(labels: Readonly<Record<L, string>>): C };

export type SlotHistogramConfig<L extends string> = { readonly name: string; readonly help: string; readonly labelNames?: readonly L[]; readonly buckets: readonly number[] };
export type SlotCounterConfig<L extends string> = { readonly name: string; readonly help: string; readonly labelNames?: readonly L[] };

/** `shown`: rendered when scraped (prom-client shows an unlabelled histogram at zero until its first reset, a labelled series once observed). */
type HistogramSlot = { readonly labels: Record<string, string>; readonly buckets: Float64Array; sum: number; count: number; shown: boolean };
/** `shown`: as prom-client, an unlabelled counter is always rendered, a labelled series once incremented (again after a reset). */
type CounterSlot = { readonly labels: Record<string, string>; value: number; shown: boolean };

function keyOf(labelNames: readonly string[], labels: Readonly<Record<string, string>>): string {
  let key = '';
  for (const n of labelNames) {
    const v = labels[n];
    if (typeof v !== 'string') throw new TypeError(`metrics: label ${n} is missing`);
    key += `${v}\u0000`;
  }
  return key;
}

/** Registers the family on `registry` (via `register`) and returns it. */
export function slotHistogram<L extends string>(config: SlotHistogramConfig<L>, register: (m: client.Metric) => void): SlotFamily<L, SlotHistogram> {
  const bounds = [...config.buckets].sort((a, b) => a - b);
  const labelNames = config.labelNames ?? [];
  const slots = new Map<string, { slot: HistogramSlot; child: SlotHistogram }>();
  const name = config.name;
  register(
    exposed(name, config.help, 'histogram', () => {
      const out: MetricValue[] = [];
      for (const { slot } of slots.values()) {
        if (!slot.shown) continue;
        let cumulative = 0;
        for (let i = 0; i <= bounds.length; i++) {
          cumulative += slot.buckets[i]!;
          out.push({ value: cumulative, labels: { le: i < bounds.length ? String(bounds[i]) : '+Inf', ...slot.labels }, metricName: `${name}_bucket` });
        }
        out.push({ value: slot.sum, labels: slot.labels, metricName: `${name}_sum` });
        out.push({ value: slot.count, labels: slot.labels, metricName: `${name}_count` });
      }
      return out;
    }, () => {
      for (const { slot } of slots.values()) {
        slot.buckets.fill(0);
        slot.sum = 0;
        slot.count = 0;
        slot.shown = false;
      }
    }),
  );
  return {
    child(labels) {
      const key = keyOf(labelNames, labels);
      let entry = slots.get(key);
      if (entry === undefined) {
        const slot: HistogramSlot = { labels: Object.fromEntries(labelNames.map((n) => [n, labels[n]])), buckets: new Float64Array(bounds.length + 1), sum: 0, count: 0, shown: labelNames.length === 0 };
        const child: SlotHistogram = {
          observe(seconds) {
            let i = 0;
            while (i < bounds.length && seconds > bounds[i]!) i++;
            slot.buckets[i]! += 1;
            slot.sum += seconds;
            slot.count += 1;
            slot.shown = true;
          },
        };
        entry = { slot, child };
        slots.set(key, entry);
      }
      return entry.child;
    },
  };
}

export function slotCounter<L extends string>(config: SlotCounterConfig<L>, register: (m: client.Metric) => void): SlotFamily<L, SlotCounter> {
  const labelNames = config.labelNames ?? [];
  const slots = new Map<string, { slot: CounterSlot; child: SlotCounter }>();
  register(
    exposed(config.name, config.help, 'counter', () => [...slots.values()].filter(({ slot }) => slot.shown).map(({ slot }) => ({ value: slot.value, labels: slot.labels })), () => {
      for (const { slot } of slots.values()) {
        slot.value = 0;
        slot.shown = labelNames.length === 0;
      }
    }),
  );
  return {
    child(labels) {
      const key = keyOf(labelNames, labels);
      let entry = slots.get(key);
      if (entry === undefined) {
        const slot: CounterSlot = { labels: Object.fromEntries(labelNames.map((n) => [n, labels[n]])), value: 0, shown: labelNames.length === 0 };
        entry = {
          slot,
          child: {
            inc(by = 1) {
              slot.value += by;
              slot.shown = true;
            },
          },
        };
        slots.set(key, entry);
      }
      return entry.child;
    },
  };
}
