// The ETA a running unit shows (issue 20 item 6): hidden at first, then from the smoothed pace, and
// never growing while the unit's ratio rises (docs/window.md "Progress and ETA"); and the "waiting for
// CPU" mark from its engine's readings (docs/architecture.md "Engines at low priority").
import { describe, expect, it } from 'vitest';
import { UnitProgress, type CpuReader } from '../../src-main/dispatch/unit-progress';
import type { RunningUnit } from '../../src-main/arbiter/arbiter';
import { progressMessage } from '../../src-shared/runs/progress-keys';

const chunk1 = progressMessage('chunkOf', { chunk: 1, of: 12 });

const unit = { key: 'transcribe:i1', token: 't1' } as RunningUnit;

describe('UnitProgress', () => {
  it('hides the ETA until the pace is measured, then never raises it while the ratio rises', () => {
    const p = new UnitProgress();
    p.started(unit, 1000);
    // The pattern from issue 20: a slow first report, then a steadier, faster pace.
    p.report(unit, { ratio: 0.01, message: chunk1 }, 1005);
    expect(p.of(unit)!.etaS).toBeNull();
    const etas: number[] = [];
    for (let i = 1; i <= 40; i++) {
      p.report(unit, { ratio: 0.01 + i * 0.02, message: chunk1 }, 1005 + i * 2);
      const eta = p.of(unit)!.etaS;
      if (eta !== null) etas.push(eta);
    }
    expect(etas.length).toBeGreaterThan(30);
    for (let i = 1; i < etas.length; i++) expect(etas[i]).toBeLessThanOrEqual(etas[i - 1]);
    expect(p.of(unit)!.message).toEqual({ text: 'chunk 1 of 12', key: 'chunkOf', params: { chunk: 1, of: 12 } });
  });

  it('keeps the last message, keyed or plain, when a report comes without one', () => {
    const p = new UnitProgress();
    p.started(unit, 0);
    p.report(unit, { ratio: 0.1, message: { text: 'an old engine says this' } }, 1);
    p.report(unit, { ratio: 0.2 }, 2);
    expect(p.of(unit)!.message).toEqual({ text: 'an old engine says this' });
    p.report(unit, { ratio: 0.3, message: chunk1 }, 3);
    p.report(unit, { ratio: 0.4 }, 4);
    expect(p.of(unit)!.message?.key).toBe('chunkOf');
  });

  it('ignores a report from an earlier attempt of the same unit', () => {
    const p = new UnitProgress();
    p.started(unit, 0);
    expect(p.report({ ...unit, token: 'old' }, { ratio: 0.5 }, 10)).toBe(false);
    expect(p.of(unit)!.ratio).toBe(0);
  });

  it('marks a unit whose engine waited rather than worked, and clears the mark once its engine cannot be read', () => {
    const readings: ReturnType<CpuReader>[] = [{ runMs: 0, waitMs: 0 }, { runMs: 30, waitMs: 1900 }, { runMs: 60, waitMs: 3800 }, null];
    const asked: number[] = [];
    const p = new UnitProgress((pid) => { asked.push(pid); return readings.shift() ?? null; });
    p.started(unit, 0);
    // No engine known yet (an in-process or pool unit): nothing is read.
    expect(p.enginesFollowed).toBe(0);
    expect(p.sampleCpu(0)).toBe(false);
    expect(asked).toEqual([]);
    p.engineStarted(unit, 4242);
    expect(p.enginesFollowed).toBe(1);
    // The first reading is a mark to measure from.
    expect(p.sampleCpu(0)).toBe(false);
    expect(p.sampleCpu(2000)).toBe(true);
    expect(p.of(unit)!.waitingForCpu).toBe(true);
    // Still waiting: no change to announce.
    expect(p.sampleCpu(4000)).toBe(false);
    // The engine is gone while the unit commits its output: the mark leaves, and that is announced.
    expect(p.sampleCpu(6000)).toBe(true);
    expect(p.of(unit)!.waitingForCpu).toBe(false);
    expect(asked).toEqual([4242, 4242, 4242, 4242]);
    // Another attempt's engine is not this unit's.
    p.engineStarted({ ...unit, token: 'old' }, 1);
    expect(p.sampleCpu(8000)).toBe(false);
    expect(asked).toEqual([4242, 4242, 4242, 4242, 4242]);
  });
});
