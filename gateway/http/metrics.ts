/**
 * Prometheus metrics on one prom-client Registry owned by the gateway (never the global
 * one, so tests and several servers in one process do not collide). The HTTP layer
 * records requests here; other layers (engine command rate and latency, journal commit
 * latency, worker pool queue and utilisation, WebSocket connections and messages)
 * register their own metrics on the same registry with `counter`, `gauge`,
 * `histogram` and `summary`, and `GET /metrics` serves them all.
 *
 * The two HTTP metrics are on the hot path of every request, where prom-client's
 * label hashing and validation cost more than the rest of a cached read. So they are
 * accumulated in plain per-(route, method) slots that the server resolves once per
 * route, and exposed through small metric objects that render the same Prometheus
 * families (`http_requests_total`, `http_request_duration_seconds`) when scraped.
 */
import client, { type CounterConfiguration, type GaugeConfiguration, type HistogramConfiguration, type SummaryConfiguration } from 'prom-client';
import { exposed, slotCounter, slotHistogram, type MetricValue, type SlotCounter, type SlotCounterConfig, type SlotFamily, type SlotHistogram, type SlotHistogramConfig } from './slotMetrics.ts';

/** Accumulates the requests of one (route pattern, method). */
export type RequestRecorder = {
  record(status: number, seconds: number): void;
  /** The connection closed before the reply was written. */
  aborted(): void;
};

export type Metrics = {
  readonly registry: client.Registry;
  /** The recorder of one declared route pattern and method (the server gets one per route at start). */
  recorder(route: string, method: string): RequestRecorder;
  /** Record one HTTP request. `route` is the declared pattern (never the raw path). */
  observeRequest(route: string, method: string, status: number, seconds: number): void;
  /** Prometheus text exposition of every metric on the registry. */
  text(): Promise<string>;
  readonly contentType: string;
  counter<L extends string>(config: Omit<CounterConfiguration<L>, 'registers'>): client.Counter<L>;
  gauge<L extends string>(config: Omit<GaugeConfiguration<L>, 'registers'>): client.Gauge<L>;
  histogram<L extends string>(config: Omit<HistogramConfiguration<L>, 'registers'>): client.Histogram<L>;
  summary<L extends string>(config: Omit<SummaryConfiguration<L>, 'registers'>): client.Summary<L>;
  /** A histogram for hot paths (slotMetrics.ts): bind a label set once with `child`, then `observe` costs a few increments. */
  slotHistogram<L extends string>(config: SlotHistogramConfig<L>): SlotFamily<L, SlotHistogram>;
  /** A counter for hot paths, like `slotHistogram`. */
  slotCounter<L extends string>(config: SlotCounterConfig<L>): SlotFamily<L, SlotCounter>;
};

export type MetricsOptions = {
  /** Collect prom-client's default process metrics, including event-loop lag (default true). */
  readonly defaultMetrics?: boolean;
  /** Prefix for every metric name of this module (default none). */
  readonly prefix?: string;
  /** Seconds; default suits a sub-millisecond server with slow outliers. */
  readonly durationBuckets?: readonly number[];
  /** Labels added to every metric, e.g. `{ service: 'venue' }`. */
  readonly defaultLabels?: Readonly<Record<string, string>>;
};

/** Label value for requests that matched no route, so that random paths cannot explode cardinality. */
export const unmatchedRoute = 'unmatched';

/** prom-client default metrics that break the naming rules (gauges named *_total); not served. */
export const droppedDefaultGauges = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'] as const;

const defaultBuckets = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

type Slot = {
  readonly route: string;
  readonly method: string;
  readonly statuses: Map<number, number>;
  /** Non-cumulative counts per bucket; the last one is +Inf. */
  readonly buckets: Float64Array;
  sum: number;
  count: number;
  aborted: number;
};

export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new client.Registry();
  const prefix = options.prefix ?? '';
  if (options.defaultLabels !== undefined) registry.setDefaultLabels({ ...options.defaultLabels });
  if (options.defaultMetrics ?? true) {
    client.collectDefaultMetrics({ register: registry, prefix });
    // prom-client's nodejs_active_{handles,requests,resources}_total are gauges, and a gauge
    // must not end in _total (Prometheus naming; `promtool check metrics` flags them). They
    // are dropped: the same totals are sum() of the by-type gauges that stay
    // (nodejs_active_handles{type}, nodejs_active_requests{type}, nodejs_active_resources{type}).
    for (const name of droppedDefaultGauges) registry.removeSingleMetric(prefix + name);
  }
  const bounds = [...(options.durationBuckets ?? defaultBuckets)].sort((a, b) => a - b);
  const slots = new Map<string, Slot>();

  function slotOf(route: string, method: string): Slot {
    const key = `${method} ${route}`;
    let slot = slots.get(key);
    if (slot === undefined) {
      slot = { route, method, statuses: new Map(), buckets: new Float64Array(bounds.length + 1), sum: 0, count: 0, aborted: 0 };
      slots.set(key, slot);
    }
    return slot;
  }

  function recordInto(slot: Slot, status: number, seconds: number): void {
    slot.statuses.set(status, (slot.statuses.get(status) ?? 0) + 1);
    let i = 0;
    while (i < bounds.length && seconds > bounds[i]!) i++;
    slot.buckets[i]! += 1;
    slot.sum += seconds;
    slot.count += 1;
  }

  function recorder(route: string, method: string): RequestRecorder {
    const slot = slotOf(route, method);
    return {
      record: (status, seconds) => recordInto(slot, status, seconds),
      aborted: () => {
        slot.aborted += 1;
      },
    };
  }

  const reset = (): void => {
    for (const slot of slots.values()) {
      slot.statuses.clear();
      slot.buckets.fill(0);
      slot.sum = 0;
      slot.count = 0;
      slot.aborted = 0;
    }
  };
  registry.registerMetric(
    exposed(`${prefix}http_requests_total`, 'HTTP requests answered, by declared route pattern, method and status.', 'counter', () => {
      const out: MetricValue[] = [];
      for (const slot of slots.values()) {
        for (const [status, n] of slot.statuses) out.push({ value: n, labels: { route: slot.route, method: slot.method, status: String(status) } });
      }
      return out;
    }, reset),
  );
  registry.registerMetric(
    exposed(
      `${prefix}http_requests_aborted_total`,
      'HTTP requests whose connection closed before their reply was written (client gone, or a request pipelined behind a pending reply), by declared route pattern and method. A write among them may have been applied.',
      'counter',
      () => {
        const out: MetricValue[] = [];
        for (const slot of slots.values()) if (slot.aborted > 0) out.push({ value: slot.aborted, labels: { route: slot.route, method: slot.method } });
        return out;
      },
      reset,
    ),
  );
  const durationName = `${prefix}http_request_duration_seconds`;
  registry.registerMetric(
    exposed(durationName, 'Time from request to reply written, by declared route pattern and method.', 'histogram', () => {
      const out: MetricValue[] = [];
      for (const slot of slots.values()) {
        if (slot.count === 0) continue;
        const labels = { route: slot.route, method: slot.method };
        let cumulative = 0;
        for (let i = 0; i <= bounds.length; i++) {
          cumulative += slot.buckets[i]!;
          out.push({ value: cumulative, labels: { le: i < bounds.length ? String(bounds[i]) : '+Inf', ...labels }, metricName: `${durationName}_bucket` });
        }
        out.push({ value: slot.sum, labels, metricName: `${durationName}_sum` });
        out.push({ value: slot.count, labels, metricName: `${durationName}_count` });
      }
      return out;
    }, reset),
  );

  return {
    registry,
    recorder,
    observeRequest: (route, method, status, seconds) => recordInto(slotOf(route, method), status, seconds),
    text: () => registry.metrics(),
    contentType: registry.contentType,
    counter: (config) => new client.Counter({ ...config, registers: [registry] }),
    gauge: (config) => new client.Gauge({ ...config, registers: [registry] }),
    histogram: (config) => new client.Histogram({ ...config, registers: [registry] }),
    summary: (config) => new client.Summary({ ...config, registers: [registry] }),
    slotHistogram: (config) => slotHistogram(config, (m) => registry.registerMetric(m)),
    slotCounter: (config) => slotCounter(config, (m) => registry.registerMetric(m)),
  };
}
