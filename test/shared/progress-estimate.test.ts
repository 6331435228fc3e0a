// Progress a person can trust (issue 20 item 6): the ratio moves within a chunk, and the ETA is
// hidden at first, then comes from the smoothed pace and never grows while the work advances.
import { describe, expect, it } from 'vitest';
import { EtaEstimator, inChunkRatio, IN_CHUNK_CAP, RtfMeter } from '../../src-shared/progress/estimate';

describe('inChunkRatio', () => {
  const span = { startRatio: 0, endRatio: 0.4, chunkS: 60 };

  it('rises with elapsed time inside the chunk and never reaches its end', () => {
    const ratios = [0, 2, 4, 10, 30, 48, 60, 120, 240].map((elapsedS) => inChunkRatio({ ...span, elapsedS, rtf: 1 }));
    expect(ratios[0]).toBe(0);
    for (let i = 1; i < ratios.length; i++) expect(ratios[i]).toBeGreaterThan(ratios[i - 1]);
    // A chunk ten times slower than expected still ends below its own end.
    const late = inChunkRatio({ ...span, elapsedS: 6000, rtf: 1 });
    expect(late).toBeGreaterThanOrEqual(ratios.at(-1)!);
    expect(late).toBeLessThanOrEqual(0.4 * IN_CHUNK_CAP);
  });

  it('uses the measured real-time factor: half the elapsed share at rtf 2', () => {
    expect(inChunkRatio({ ...span, elapsedS: 12, rtf: 1 })).toBeCloseTo(0.08, 10);
    expect(inChunkRatio({ ...span, elapsedS: 12, rtf: 2 })).toBeCloseTo(0.04, 10);
    // Before any chunk is timed, a default factor still lets the first chunk move.
    expect(inChunkRatio({ ...span, elapsedS: 12, rtf: null })).toBeGreaterThan(0);
  });

  it('stays within a later chunk\'s span', () => {
    const r = inChunkRatio({ startRatio: 0.4, endRatio: 0.8, chunkS: 60, elapsedS: 30, rtf: 0.5 });
    expect(r).toBeGreaterThan(0.4);
    expect(r).toBeLessThan(0.8);
  });
});

describe('RtfMeter', () => {
  it('is null before any chunk and the ratio of decode to audio seconds after', () => {
    const m = new RtfMeter();
    expect(m.rtf).toBeNull();
    m.add(60, 30);
    m.add(60, 90);
    expect(m.rtf).toBe(1);
  });
});

describe('EtaEstimator', () => {
  it('is hidden at first, then counts down on steady progress without ever growing', () => {
    const e = new EtaEstimator();
    // 1 % every 2 s, with jitter in the pace: 200 s of work.
    const etas: (number | null)[] = [];
    for (let i = 0; i <= 99; i++) etas.push(e.push(i * 2 + (i % 3 === 0 ? 0.7 : 0), i / 100));
    expect(etas.slice(0, 4).every((x) => x === null)).toBe(true);
    const shown = etas.filter((x): x is number => x !== null);
    expect(shown.length).toBeGreaterThan(80);
    for (let i = 1; i < shown.length; i++) expect(shown[i]).toBeLessThanOrEqual(shown[i - 1]);
    // Near the end the estimate is near the truth (2 s per percent).
    expect(shown.at(-1)).toBeGreaterThan(0);
    expect(shown.at(-1)).toBeLessThan(6);
    expect(e.push(200, 1)).toBe(0);
  });

  it('never grows on the pattern from issue 20: a long first step, then steady faster steps', () => {
    const e = new EtaEstimator();
    const samples: [number, number][] = [[0, 0], [120, 0.4], [125, 0.42], [130, 0.44], [135, 0.46], [140, 0.48], [145, 0.5], [150, 0.52]];
    const etas = samples.map(([t, r]) => e.push(t, r)).filter((x): x is number => x !== null);
    expect(etas.length).toBeGreaterThan(4);
    for (let i = 1; i < etas.length; i++) expect(etas[i]).toBeLessThanOrEqual(etas[i - 1]);
  });

  it('stays hidden until both enough progress and enough time have passed', () => {
    const fast = new EtaEstimator({ minRatio: 0.05, minElapsedS: 10 });
    expect([fast.push(0, 0), fast.push(1, 0.2), fast.push(2, 0.3)]).toEqual([null, null, null]);
    expect(fast.push(10, 0.5)).not.toBeNull();
    const slow = new EtaEstimator({ minRatio: 0.05, minElapsedS: 10 });
    expect([slow.push(0, 0), slow.push(20, 0.01), slow.push(40, 0.02)]).toEqual([null, null, null]);
    expect(slow.push(60, 0.06)).not.toBeNull();
  });

  it('ignores rises within noise and lets the ETA grow only after a stall', () => {
    const e = new EtaEstimator({ minRatio: 0, minElapsedS: 0, stallS: 30 });
    e.push(0, 0);
    const before = e.push(10, 0.1)!;
    expect(before).toBeCloseTo(90, 5);
    expect(e.push(11, 0.1005)).toBe(before);
    // Nothing moves for 60 s, then the work resumes: the slower pace may now raise the ETA.
    expect(e.push(70, 0.1008)).toBe(before);
    expect(e.push(80, 0.12)!).toBeGreaterThan(before);
  });

  it('starts afresh when the ratio goes back', () => {
    const e = new EtaEstimator({ minRatio: 0, minElapsedS: 0 });
    e.push(0, 0);
    expect(e.push(10, 0.5)).not.toBeNull();
    expect(e.push(11, 0.1)).toBeNull();
  });
});
