import { describe, expect, it } from "vitest";
import { seededRandom } from "./random.js";

describe("seededRandom", () => {
  it("gives the same sequence for the same seed, another for another seed, all in [0, 1)", () => {
    const take = (seed: number) => {
      const random = seededRandom(seed);
      return Array.from({ length: 1000 }, () => random());
    };
    const a = take(7);
    expect(take(7)).toEqual(a);
    expect(take(8)).not.toEqual(a);
    expect(a.every((x) => x >= 0 && x < 1)).toBe(true);
    // Spread over the interval, not stuck in one part of it.
    const buckets = new Array(10).fill(0);
    for (const x of a) buckets[Math.floor(x * 10)]++;
    expect(Math.min(...buckets)).toBeGreaterThan(50);
  });
});
