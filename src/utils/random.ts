/**
 * @module utils/random
 * Deterministic pseudo-random numbers for generated test and benchmark data, so a failure names a seed
 * that reproduces it.
 */

/**
 * A mulberry32 generator: numbers in [0, 1), the same sequence for the same seed.
 * @example const random = seededRandom(7); random() // 0.xxx, identical on every run
 */
export function seededRandom(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
