// Live settings reach a running dispatcher at once: lane slots, disk thresholds, retry policy,
// spend cap and quiet hours; a restart key is refused unless acknowledged.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openApp, type BacklotApp } from '../../src-main/app/open-app';

let app: BacklotApp | null = null;
let dir = '';
afterEach(async () => {
  await app?.close();
  app = null;
  fs.rmSync(dir, { recursive: true, force: true });
});

it('applies live settings to the arbiter without a restart', async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-live-'));
  app = await openApp({ dataDir: dir, dispatch: true });
  const { dispatcher } = app;
  const arbiter = dispatcher.arbiter;
  expect(arbiter.laneConfigs().find((l) => l.queueKey === 'cpu')?.slots).toBe(2);

  dispatcher.settings.set('lanes.cpu.slots', 0);
  dispatcher.settings.set('diskGate.drainingBelowBytes', 20e9);
  dispatcher.settings.set('diskGate.shutBelowBytes', 5e9);
  dispatcher.settings.set('retry.maxAttempts', 7);
  dispatcher.settings.set('spend.capUsd', 12.5);
  dispatcher.settings.set('quietHours', [{ lane: 'download', from: '09:00', to: '17:00' }]);

  expect(arbiter.laneConfigs().find((l) => l.queueKey === 'cpu')?.slots).toBe(0);
  expect(arbiter.laneHold(arbiter.laneConfigs().find((l) => l.queueKey === 'cpu')!, app.host.now())).toMatchObject({ code: 'LANE_NO_SLOTS' });
  const s = arbiter.settings();
  expect(s.disk?.thresholds).toEqual({ drainingBelowBytes: 20e9, shutBelowBytes: 5e9 });
  expect(s.retry.maxAttempts).toBe(7);
  expect(s.spendCapUsd).toBe(12.5);
  expect(s.quietHours).toEqual([{ lane: 'download', from: '09:00', to: '17:00' }]);
  expect(() => dispatcher.settings.set('claims.leaseS', 90)).toThrow(/restart/i);
});
