/**
 * A seeded pseudo-random generator (mulberry32): the same seed gives the same sequence on every
 * platform, so shuffles, folds and training runs can be repeated exactly. Not for anything secret.
 * Returns a function giving numbers in [0, 1).
 */
export function seededRandom(seed: number): () => number {
  // Only the low 32 bits of the seed matter; `>>> 0` also maps non-integers and negatives into range.
  let state = Math.trunc(seed) >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seeded Fisher–Yates shuffle: a new array, the input left as it is. */
export function seededShuffle<T>(items: readonly T[], seed: number): T[] {
  const random = seededRandom(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
