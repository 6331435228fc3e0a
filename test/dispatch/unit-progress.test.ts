// The ETA a running unit shows (issue 20 item 6): hidden at first, then from the smoothed pace, and
// never growing while the unit's ratio rises (docs/window.md "Progress and ETA").
import { describe, expect, it } from 'vitest';
import { UnitProgress } from '../../src-main/dispatch/unit-progress';
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
});
