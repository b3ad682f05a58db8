/** Small measurement helpers shared by the benchmarks. */

/** Percentile (0..100) of a sample, by nearest rank on a sorted copy. */
export function percentile(samples: ArrayLike<number>, p: number): number {
  const n = samples.length;
  if (n === 0) return NaN;
  const sorted = Float64Array.from(samples as ArrayLike<number>).sort();
  const rank = Math.min(n - 1, Math.max(0, Math.ceil((p / 100) * n) - 1));
  return sorted[rank]!;
}

/** Nanoseconds since an arbitrary origin, as a number. */
export function nowNs(): number {
  return Number(process.hrtime.bigint());
}

/**
 * Run `ours` and `peer` alternately `rounds` times and keep the best rate of each:
 * the machines are shared and noisy, so alternating in one run is what makes the
 * ratio meaningful (performance.md).
 */
export async function alternate(
  rounds: number,
  ours: () => number | Promise<number>,
  peer: (() => number | Promise<number>) | null,
): Promise<{ ours: number; peer: number | null }> {
  let bestOurs = 0;
  let bestPeer: number | null = peer ? 0 : null;
  for (let i = 0; i < rounds; i++) {
    bestOurs = Math.max(bestOurs, await ours());
    if (peer) bestPeer = Math.max(bestPeer ?? 0, await peer());
  }
  return { ours: bestOurs, peer: bestPeer };
}
