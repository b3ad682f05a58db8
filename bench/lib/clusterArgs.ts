/**
 * bench/cluster.ts's flags (`npm run bench -- cluster --kills=3 --duration=1000`): each is
 * `--name=value` (bench/run.ts passes only arguments starting with `-` to a benchmark).
 */

export const CLUSTER_PARTS = ['orders', 'takeover', 'fanout'] as const;
export type ClusterPart = (typeof CLUSTER_PARTS)[number];

export type ClusterArgs = {
  /** Length of each throughput round and of each latency round, per setup (ms). */
  durationMs: number;
  /** Rounds of each, the setups alternating within a round. */
  rounds: number;
  /** The latency rounds' fixed rate (orders/s), the same for every setup; null: half the lowest throughput measured. */
  rate: number | null;
  /** Leader kills in the takeover part. */
  kills: number;
  /** NATS nodes (1 or 3, the lease bucket's and the stream's replicas) in the takeover part. */
  takeoverNats: 1 | 3;
  /** LEASE_TTL_MS of the engine nodes in the takeover part. */
  leaseTtlMs: number;
  /** WebSocket subscribers in the fan-out part (spread over one edge, then over two). */
  subscribers: number;
  /** The parts to run (all by default). */
  only: ClusterPart[];
};

export const CLUSTER_DEFAULTS: ClusterArgs = { durationMs: 2500, rounds: 2, rate: null, kills: 10, takeoverNats: 3, leaseTtlMs: 1500, subscribers: 2000, only: [...CLUSTER_PARTS] };

const USAGE = '--duration=<ms> --rounds=<n> --rate=<orders/s> --kills=<n> --takeover-nats=1|3 --lease-ttl-ms=<ms> --subscribers=<n> --only=orders,takeover,fanout';

function whole(name: string, raw: string, min: number, max: number): number {
  const n = Number(raw);
  if (raw === '' || !Number.isSafeInteger(n) || n < min || n > max) throw new Error(`bench/cluster: --${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  return n;
}

/** Parses the flags; throws on an unknown flag or a value out of range, naming the known ones. */
export function parseClusterArgs(argv: readonly string[]): ClusterArgs {
  const args: ClusterArgs = { ...CLUSTER_DEFAULTS, only: [...CLUSTER_DEFAULTS.only] };
  for (const a of argv) {
    const m = /^--([a-z-]+)=(.*)$/.exec(a);
    if (m === null) throw new Error(`bench/cluster: unknown argument "${a}" (known: ${USAGE})`);
    const [, name, value] = m as unknown as [string, string, string];
    if (name === 'duration') args.durationMs = whole(name, value, 200, 600_000);
    else if (name === 'rounds') args.rounds = whole(name, value, 1, 100);
    else if (name === 'rate') args.rate = whole(name, value, 1, 1_000_000);
    else if (name === 'kills') args.kills = whole(name, value, 1, 1000);
    else if (name === 'takeover-nats') {
      if (value !== '1' && value !== '3') throw new Error(`bench/cluster: --takeover-nats must be 1 or 3, got "${value}"`);
      args.takeoverNats = value === '1' ? 1 : 3;
    } else if (name === 'lease-ttl-ms') args.leaseTtlMs = whole(name, value, 300, 60_000);
    else if (name === 'subscribers') args.subscribers = whole(name, value, 2, 20_000);
    else if (name === 'only') {
      const parts = value.split(',');
      for (const p of parts) if (!(CLUSTER_PARTS as readonly string[]).includes(p)) throw new Error(`bench/cluster: --only takes ${CLUSTER_PARTS.join(', ')} (comma-separated), got "${p}"`);
      args.only = CLUSTER_PARTS.filter((p) => parts.includes(p));
    } else throw new Error(`bench/cluster: unknown argument "${a}" (known: ${USAGE})`);
  }
  return args;
}

/** Min, median and max of a sample (nearest rank), rounded to whole units; nulls when empty. */
export function minMedianMax(xs: readonly number[]): { min: number | null; p50: number | null; max: number | null } {
  if (xs.length === 0) return { min: null, p50: null, max: null };
  const s = [...xs].sort((a, b) => a - b);
  return { min: Math.round(s[0]!), p50: Math.round(s[Math.ceil(s.length / 2) - 1]!), max: Math.round(s[s.length - 1]!) };
}
