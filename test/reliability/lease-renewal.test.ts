// The follow step renews a reporting unit's lease once a quarter of it has passed, not on every
// line (docs/architecture.md "The one pipeline of a unit", follow): an engine that keeps
// reporting never lets its claim lapse, and a burst of lines writes the claim once at most.
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { addFolder, makeMediaFolder, openDb, removeTempDirs, tempDir } from './fixtures/host';
import { Host } from '../../src-main/host/host';
import { Arbiter, type ArbiterConfig } from '../../src-main/arbiter/arbiter';
import { DEFAULT_LANES } from '../../src-main/arbiter/lanes';
import { buildEngineRegistry } from '../../src-main/engines/registry';
import { defaultSettings } from '../../src-shared/settings/settings-schema';
import { localWallTime } from '../../src-main/gates/quiet-hours';
import { VirtualClock } from '../../src-main/system/clock';
import { UnitProgress } from '../../src-main/dispatch/unit-progress';
import { followUnit } from '../../src-main/units/unit-launch';
import type { UnitContext } from '../../src-main/units/unit-context';

afterAll(() => removeTempDirs());

describe('the lease of a reporting unit', () => {
  it('is renewed a quarter lease after the claim or the last renewal, and never lapses while the engine reports', async () => {
    const data = tempDir('lease-renewal');
    addFolder(data, makeMediaFolder(1));
    const clock = new VirtualClock(1_000_000);
    const host = new Host({ databaseFile: path.join(data, 'backlot.sqlite'), clock });
    try {
      const gpu = { controllers: [], usable: [], slots: 0, reason: 'none in this test' };
      const registry = await buildEngineRegistry({ profile: 'test', env: { dataDir: data, modelsDir: path.join(data, 'models'), resourcesDir: data, settings: defaultSettings(), gpu } });
      const leaseS = 60;
      const config: ArbiterConfig = {
        lanes: Object.values(DEFAULT_LANES).map((l) => ({ ...l, contendsFor: [...l.contendsFor], slots: l.queueKey === 'gpu' ? 0 : l.slots })),
        bindings: registry.bindings, retry: { maxAttempts: 3, baseS: 30, maxS: 900, jitter: 0 }, disk: null,
        spendCapUsd: null, spendWindowStart: () => 0, quietHours: [], wallTime: localWallTime, leaseS, actor: 'arbiter',
      };
      const arbiter = new Arbiter(host, config);
      expect(arbiter.leaseRenewalS).toBe(leaseS / 4);
      const t0 = clock.now();
      const [unit] = host.transaction(() => arbiter.fill(t0));
      expect(unit).toBeDefined();
      const progress = new UnitProgress();
      progress.started(unit, t0);
      const ctx = { host, arbiter, progress } as unknown as UnitContext;
      const follower = followUnit(ctx, unit);
      const expiry = () => {
        const db = openDb(data);
        try {
          return (db.prepare('SELECT expires_at FROM claims WHERE key = ?').get(unit.key) as { expires_at: number }).expires_at;
        } finally {
          db.close();
        }
      };
      // The claim's first lease also covers the unit's expected length.
      const first = expiry();
      expect(first).toBeGreaterThanOrEqual(t0 + leaseS);

      // A burst of lines within the first quarter: no write.
      for (let i = 1; i <= 20; i++) {
        clock.set(t0 + i * 0.5);
        follower.progress({ ratio: i / 100 });
        follower.log('info', `line ${i}`);
      }
      expect(expiry()).toBe(first);

      // A quarter lease after the claim: renewed from that moment.
      clock.set(t0 + 15);
      follower.progress({ ratio: 0.3 });
      expect(expiry()).toBe(t0 + 15 + leaseS);
      clock.set(t0 + 29);
      follower.log('info', 'still working');
      expect(expiry()).toBe(t0 + 15 + leaseS);

      // Reports every 14 s for ten leases: the claim is always at least three quarters of a lease away.
      for (let t = t0 + 30; t < t0 + 10 * leaseS; t += 14) {
        clock.set(t);
        follower.progress({ ratio: 0.5 });
        expect(expiry() - t).toBeGreaterThanOrEqual(leaseS * 0.75 - 14);
        expect(expiry()).toBeGreaterThan(t);
      }
      expect(arbiter.renew(unit, clock.now())).toBe(true);
    } finally {
      host.close();
    }
  }, 120_000);
});
