// Smooth weighted round-robin must reproduce nginx's sequence exactly: the weighted-fair mode and
// its persisted current weights (DESIGN §3) are only predictable if this primitive is.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { swrrPick, type SwrrCandidate } from '../../src-shared/policy/swrr';

function candidates(weights: Record<string, number>): SwrrCandidate[] {
  return Object.entries(weights).map(([id, weight]) => ({ id, weight, current: 0 }));
}

function picks(cs: SwrrCandidate[], n: number): string[] {
  return Array.from({ length: n }, () => cs[swrrPick(cs)].id);
}

describe('swrrPick', () => {
  it("gives nginx's vector for weights a=5, b=1, c=1, and the cycle repeats", () => {
    const cs = candidates({ a: 5, b: 1, c: 1 });
    expect(picks(cs, 7)).toEqual(['a', 'a', 'b', 'a', 'c', 'a', 'a']);
    expect(cs.map((c) => c.current)).toEqual([0, 0, 0]);
    expect(picks(cs, 14)).toEqual(['a', 'a', 'b', 'a', 'c', 'a', 'a', 'a', 'a', 'b', 'a', 'c', 'a', 'a']);
  });

  it('rotates equal weights in declaration order', () => {
    expect(picks(candidates({ x: 1, y: 1, z: 1 }), 7)).toEqual(['x', 'y', 'z', 'x', 'y', 'z', 'x']);
    expect(picks(candidates({ x: 3, y: 3 }), 4)).toEqual(['x', 'y', 'x', 'y']);
  });

  it('continues from persisted current weights as if never stopped', () => {
    const whole = picks(candidates({ a: 5, b: 1, c: 1 }), 7);
    const first = candidates({ a: 5, b: 1, c: 1 });
    const head = picks(first, 3);
    // What a restart does: only ids, weights and current weights survive, in new objects.
    const restored = first.map((c) => ({ ...c }));
    expect([...head, ...picks(restored, 4)]).toEqual(whole);
  });

  it('returns -1 when there is no candidate', () => {
    expect(swrrPick([])).toBe(-1);
  });

  it('over a full cycle picks each candidate exactly its weight times, and current weights sum to 0 after every pick', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 3 }), (weights, cycles) => {
        const cs = weights.map((weight, i) => ({ id: `n${i}`, weight, current: 0 }));
        const total = weights.reduce((a, b) => a + b, 0);
        for (let cycle = 0; cycle < cycles; cycle++) {
          const count = new Array<number>(weights.length).fill(0);
          for (let step = 0; step < total; step++) {
            const i = swrrPick(cs);
            expect(i).toBeGreaterThanOrEqual(0);
            count[i]++;
            expect(cs.reduce((sum, c) => sum + c.current, 0)).toBe(0);
          }
          expect(count).toEqual(weights);
          // A full cycle returns every current weight to 0, so the next cycle is the same sequence.
          expect(cs.map((c) => c.current)).toEqual(weights.map(() => 0));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('never lets a candidate wait longer than the cycle (smoothness)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 8 }), (weights) => {
        const cs = weights.map((weight, i) => ({ id: `n${i}`, weight, current: 0 }));
        const total = weights.reduce((a, b) => a + b, 0);
        const last = new Array<number>(weights.length).fill(-1);
        for (let step = 0; step < 2 * total; step++) {
          const i = swrrPick(cs);
          if (last[i] >= 0) expect(step - last[i]).toBeLessThanOrEqual(total);
          last[i] = step;
        }
        expect(last.every((s) => s >= total)).toBe(true); // everyone picked in the second cycle
      }),
      { numRuns: 300 },
    );
  });
});
