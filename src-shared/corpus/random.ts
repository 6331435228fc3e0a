// A seeded pseudo-random generator (mulberry32): the corpus, the jitter of retries and anything
// else that must repeat byte for byte draws from this, never from Math.random.
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A stable hash of a string to 32 bits (FNV-1a), for per-key deterministic draws. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A deterministic fraction in [0, 1) for a key. */
export function fractionFor(key: string): number {
  return mulberry32(hash32(key))();
}
