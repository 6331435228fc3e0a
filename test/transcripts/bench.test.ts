// `backlot bench search` on a small library: it indexes every generated transcript through the
// real writer and reports latency per search kind and the index size. Shape only: figures depend
// on the machine and belong in docs/benchmarks.md.
import { describe, expect, it } from 'vitest';
import { QUERY_KINDS, runSearchBench } from '../../src-main/bench/search-bench';

describe('search benchmark', () => {
  it('indexes the library and times every kind of search', () => {
    const r = runSearchBench({ items: 300, channels: 4, segments: 6, queries: 8, seed: 5 });
    expect(r).toMatchObject({ items: 300, channels: 4, seed: 5 });
    expect(r.segments).toBeGreaterThan(300 * 3);
    expect(r.words).toBeGreaterThan(r.segments * 5);
    expect(r.ftsMb).toBeGreaterThan(0);
    expect(r.all.queries).toBe(QUERY_KINDS.length * 8);
    for (const kind of QUERY_KINDS) {
      expect(r.byKind[kind].queries).toBe(8);
      // Every search was drawn from indexed text, so it finds something.
      expect(r.byKind[kind].meanHits).toBeGreaterThan(0);
      expect(r.byKind[kind].cpu.p99Ms).toBeGreaterThanOrEqual(r.byKind[kind].cpu.p50Ms);
    }
  }, 120_000);
});
