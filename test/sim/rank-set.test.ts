// The preview's in-memory work table finds "the first ready row at or after p" through RankSet
// (src-main/sim/fast/rank-set.ts): checked against a plain array over random adds and deletes,
// across the word and summary boundaries of its three levels.
import { describe, expect, it } from 'vitest';
import { RankSet } from '../../src-main/sim/fast/rank-set';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('RankSet', () => {
  for (const capacity of [1, 31, 32, 33, 1024, 1025, 40_000]) {
    it(`answers next() as a scan would (capacity ${capacity})`, () => {
      const set = new RankSet(capacity);
      const plain = new Uint8Array(capacity);
      const rand = rng(capacity);
      const scan = (p: number) => {
        for (let i = Math.max(0, p); i < capacity; i++) if (plain[i]) return i;
        return -1;
      };
      for (let step = 0; step < 3000; step++) {
        const p = Math.floor(rand() * capacity);
        if (rand() < 0.55) { set.add(p); plain[p] = 1; } else { set.delete(p); plain[p] = 0; }
        const q = Math.floor(rand() * (capacity + 2)) - 1;
        expect(set.next(q)).toBe(scan(q));
        expect(set.has(p)).toBe(plain[p] === 1);
      }
      expect(set.size).toBe(plain.reduce((s, x) => s + x, 0));
      // Sparse: a single member far from the start is found through the summaries.
      for (let i = 0; i < capacity; i++) set.delete(i);
      expect(set.next(0)).toBe(-1);
      set.add(capacity - 1);
      expect(set.next(0)).toBe(capacity - 1);
    });
  }
});
