// Seeded randomness for the randomized tests: a seed replays its case exactly.

/** Floats in [0, 1). */
export type Random = () => number;

/** mulberry32: a tiny, well-mixed 32-bit generator. */
export function prng(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One of `items`, none of which may be missing. */
export const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

/** True with probability `p`. */
export const chance = (random: Random, p: number): boolean => random() < p;
