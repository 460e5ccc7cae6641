// Deterministic pseudo-random numbers for tests that generate their inputs, so a failure can be
// replayed from its seed: Marsaglia's xorshift32 (https://www.jstatsoft.org/article/view/v008i14).

/** The next 32-bit unsigned number of the sequence at each call (seed 0 counts as 1). */
export function xorshift32(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
}

/** The same sequence as a number in [0, 1). */
export function seededRandom(seed: number): () => number {
  const next = xorshift32(seed);
  return () => next() / 0x1_0000_0000;
}
