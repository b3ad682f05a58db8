/** Seeded PRNG for reproducible random tests (mulberry32): the engine itself never draws. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Uniform integer in [lo, hi]. */
export function randInt(rnd: () => number, lo: number, hi: number): number {
  return lo + Math.floor(rnd() * (hi - lo + 1));
}

/** Random bigint with up to `digits` decimal digits. */
export function randBig(rnd: () => number, digits: number): bigint {
  const n = randInt(rnd, 1, digits);
  let s = String(randInt(rnd, 1, 9));
  for (let i = 1; i < n; i++) s += String(randInt(rnd, 0, 9));
  return BigInt(s);
}
