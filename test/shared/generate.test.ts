// The one corpus generator: deterministic for a seed, Zipf-skewed channel sizes, and `have` shares
// that respect dependencies.
import { describe, expect, it } from 'vitest';
import { channelSizes, dependencyClosed, generateCorpus, impliedShares } from '../../src-shared/corpus/generate';

describe('generateCorpus', () => {
  const spec = { seed: 42, channels: 12, items: 6000, durationS: { min: 60, max: 600 }, have: { download: 0.7, transcribe: 0.4, 'attribute-words': 0.2 } } as const;

  it('gives the same corpus for the same seed and another for another seed', () => {
    expect(JSON.stringify(generateCorpus(spec))).toBe(JSON.stringify(generateCorpus(spec)));
    expect(JSON.stringify(generateCorpus({ ...spec, seed: 43 }))).not.toBe(JSON.stringify(generateCorpus(spec)));
  });

  it('makes exactly the asked numbers of channels and items, zero-padded ids, durations in range', () => {
    const c = generateCorpus(spec);
    expect(c.map((x) => x.id)).toEqual(Array.from({ length: 12 }, (_, i) => `gc${String(i + 1).padStart(2, '0')}`));
    const items = c.flatMap((x) => x.items);
    expect(items).toHaveLength(6000);
    expect(items[0].id).toBe('gi0001');
    expect(new Set(items.map((i) => i.id)).size).toBe(6000);
    expect(items.every((i) => i.durationS >= 60 && i.durationS <= 600 && i.publishedAt <= 0)).toBe(true);
  });

  it('skews channel sizes: the first channel is the heaviest, every channel has an item', () => {
    const sizes = channelSizes(68, 78000);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(78000);
    expect(Math.min(...sizes)).toBeGreaterThan(0);
    expect(sizes[0]).toBeGreaterThan(10 * sizes[67]);
    expect([...sizes].sort((a, b) => b - a)).toEqual(sizes);
  });

  it('respects the have shares and their dependencies', () => {
    const items = generateCorpus(spec).flatMap((x) => x.items);
    const share = (op: string) => items.filter((i) => i.have.includes(op as never)).length / items.length;
    expect(share('download')).toBeCloseTo(0.7, 1);
    expect(share('transcribe')).toBeCloseTo(0.4, 1);
    expect(share('attribute-words')).toBeCloseTo(0.2, 1);
    // attribute-words needs transcribe and diarize, so diarize is implied at its share.
    expect(share('diarize')).toBeCloseTo(0.2, 1);
    expect(items.every((i) => dependencyClosed(i.have))).toBe(true);
    expect(impliedShares({ digest: 0.1 }).get('download')).toBe(0.1);
  });
});
