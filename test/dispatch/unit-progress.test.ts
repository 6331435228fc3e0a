// The ETA a running unit shows (issue 20 item 6): hidden at first, then from the smoothed pace, and
// never growing while the unit's ratio rises (docs/window.md "Progress and ETA").
import { describe, expect, it } from 'vitest';
import { UnitProgress } from '../../src-main/dispatch/unit-progress';
import type { RunningUnit } from '../../src-main/arbiter/arbiter';

const unit = { key: 'transcribe:i1', token: 't1' } as RunningUnit;

describe('UnitProgress', () => {
  it('hides the ETA until the pace is measured, then never raises it while the ratio rises', () => {
    const p = new UnitProgress();
    p.started(unit, 1000);
    // The pattern from issue 20: a slow first report, then a steadier, faster pace.
    p.report(unit, { ratio: 0.01, message: 'chunk 0' }, 1005);
    expect(p.of(unit)!.etaS).toBeNull();
    const etas: number[] = [];
    for (let i = 1; i <= 40; i++) {
      p.report(unit, { ratio: 0.01 + i * 0.02, message: 'chunk 0' }, 1005 + i * 2);
      const eta = p.of(unit)!.etaS;
      if (eta !== null) etas.push(eta);
    }
    expect(etas.length).toBeGreaterThan(30);
    for (let i = 1; i < etas.length; i++) expect(etas[i]).toBeLessThanOrEqual(etas[i - 1]);
    expect(p.of(unit)!.message).toBe('chunk 0');
  });

  it('ignores a report from an earlier attempt of the same unit', () => {
    const p = new UnitProgress();
    p.started(unit, 0);
    expect(p.report({ ...unit, token: 'old' }, { ratio: 0.5 }, 10)).toBe(false);
    expect(p.of(unit)!.ratio).toBe(0);
  });
});
