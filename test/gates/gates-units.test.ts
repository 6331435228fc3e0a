// The gates' pure parts: which GPUs count, the library volume's free space, the disk gate's modes
// quiet-hours windows (crossing midnight, weekdays, the next edge) and the one spend-cap check.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { judgeGpus, MIN_VRAM_MB } from '../../src-main/gates/gpu';
import { SystemDiskProbe } from '../../src-main/gates/disk-probe';
import { diskMode } from '../../src-main/gates/disk-gate';
import { fitsSpendCap, spendCapReached } from '../../src-main/gates/spend-cap';
import { nextQuietBoundary, parseClock, quietUntil, utcWallTime } from '../../src-main/gates/quiet-hours';

describe('GPU detection', () => {
  it('counts discrete GPUs with enough memory and Apple silicon, one slot each', () => {
    const r = judgeGpus([
      { vendor: 'NVIDIA Corporation', model: 'RTX 4090', vramMb: 24564 },
      { vendor: 'Intel Corporation', model: 'UHD 770', vramMb: 128 },
      { vendor: 'Advanced Micro Devices, Inc. [AMD/ATI]', model: 'RX 580', vramMb: 1024 },
    ]);
    expect(r.usable.map((g) => g.model)).toEqual(['RTX 4090']);
    expect(r.slots).toBe(1);
    expect(r.reason).toBeNull();
    expect(judgeGpus([{ vendor: 'Apple', model: 'M2 Max', vramMb: null }]).slots).toBe(1);
  });

  it('says why there is no usable GPU', () => {
    expect(judgeGpus([])).toMatchObject({ slots: 0, reason: 'No graphics controller was found.' });
    expect(judgeGpus([{ vendor: 'Intel', model: 'UHD', vramMb: 256 }]).reason).toBe(`No graphics controller with at least ${MIN_VRAM_MB} MB of dedicated memory was found.`);
  });
});

describe('disk gate', () => {
  it('reads the real volume of the library folder (statfs), or of its nearest existing parent', async () => {
    const probe = new SystemDiskProbe(process.cwd());
    expect(probe.freeBytes()).toBeNull();
    const free = await probe.refresh();
    expect(typeof free).toBe('number');
    expect(free).toBeGreaterThan(0);
    const s = fs.statfsSync(process.cwd());
    // The same volume, read moments apart: within a megabyte of what statfs says now.
    expect(Math.abs(free! - s.bavail * s.bsize)).toBeLessThan(2 ** 20);
    const notYet = new SystemDiskProbe(`${process.cwd()}/no/such/library`);
    expect(await notYet.refresh()).toBeGreaterThan(0);
  });

  it('is open, draining or shut by free space after reservations; no reading means no constraint', () => {
    const t = { drainingBelowBytes: 50, shutBelowBytes: 10 };
    expect(diskMode(100, 0, t)).toBe('open');
    expect(diskMode(100, 60, t)).toBe('draining');
    expect(diskMode(100, 95, t)).toBe('shut');
    expect(diskMode(null, 1e12, t)).toBe('open');
  });
});

describe('quiet hours', () => {
  const day = 86400;
  it('holds inside a window and says until when, also across midnight', () => {
    const windows = [{ lane: 'gpu', from: '22:00', to: '07:00' }];
    expect(quietUntil(windows, 'gpu', 23 * 3600, utcWallTime)).toBe(day + 7 * 3600);
    expect(quietUntil(windows, 'gpu', day + 3600, utcWallTime)).toBe(day + 7 * 3600);
    expect(quietUntil(windows, 'gpu', 12 * 3600, utcWallTime)).toBeNull();
    expect(quietUntil(windows, 'cpu', 23 * 3600, utcWallTime)).toBeNull();
    expect(quietUntil([{ lane: '*', from: '01:00', to: '02:00' }], 'cpu', 3600, utcWallTime)).toBe(7200);
  });

  it('honours weekdays (time 0 is a Thursday, UTC)', () => {
    const thursdaysOnly = [{ lane: 'gpu', from: '00:00', to: '01:00', days: [4] }];
    expect(quietUntil(thursdaysOnly, 'gpu', 60, utcWallTime)).toBe(3600);
    expect(quietUntil(thursdaysOnly, 'gpu', day + 60, utcWallTime)).toBeNull();
  });

  it('finds the next edge for the timer, and refuses a bad time of day', () => {
    const windows = [{ lane: 'gpu', from: '01:00', to: '02:00' }];
    expect(nextQuietBoundary(windows, 'gpu', 0, utcWallTime)).toBe(3600);
    expect(nextQuietBoundary(windows, 'gpu', 3600, utcWallTime)).toBe(7200);
    expect(nextQuietBoundary(windows, 'gpu', 7200, utcWallTime)).toBe(day + 3600);
    expect(() => parseClock('25:00', 'from')).toThrow('from must be a time of day like "22:30" (00:00 to 24:00), got "25:00".');
  });
});

describe('spend cap (the one check the lane gate, the arbiter and the remote engine share)', () => {
  it('lets a cost in while what is committed plus it stays within the cap, a float sum at the cap included', () => {
    expect(fitsSpendCap(null, 1e9, 1e9)).toBe(true);
    expect(fitsSpendCap(1, 0.4, 0.6)).toBe(true);
    expect(fitsSpendCap(0.3, 0.1, 0.2)).toBe(true); // 0.1 + 0.2 > 0.3 in floats
    expect(fitsSpendCap(1, 0.4, 0.61)).toBe(false);
    expect(fitsSpendCap(0, 0, 0.000001)).toBe(false);
  });

  it('reads the cap as reached once what is committed meets it; no cap is never reached', () => {
    expect(spendCapReached(null, 1e9)).toBe(false);
    expect(spendCapReached(1, 0.99)).toBe(false);
    expect(spendCapReached(1, 1)).toBe(true);
    expect(spendCapReached(0, 0)).toBe(true);
  });
});
