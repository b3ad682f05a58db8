/**
 * The simulated oracle (ORACLE=simulated): a seeded geometric random walk per pair with the
 * pair's volatility, stepped on a timer outside the engine. Same seed, same path.
 */
export type FeedState = { spot: number; volatility: number };

/** Mulberry32: small, fast, seedable. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class SimulatedFeed {
  private readonly random: () => number;
  private spare: number | null = null;

  constructor(seed: number) {
    this.random = seededRandom(seed);
  }

  /** Standard normal by Box-Muller. */
  private gaussian(): number {
    if (this.spare !== null) {
      const s = this.spare;
      this.spare = null;
      return s;
    }
    let u = 0;
    while (u === 0) u = this.random();
    const v = this.random();
    const r = Math.sqrt(-2 * Math.log(u));
    this.spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  }

  /** Spot after `dtSeconds` of a driftless geometric Brownian motion. */
  step(state: FeedState, dtSeconds: number): number {
    const dt = dtSeconds / (365 * 24 * 3600);
    const sigma = state.volatility;
    return state.spot * Math.exp(-0.5 * sigma * sigma * dt + sigma * Math.sqrt(dt) * this.gaussian());
  }
}
