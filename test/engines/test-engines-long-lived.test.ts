// The test engines as long-lived workers (BACKLOT_TEST_LONG_LIVED=1, the load benchmark's engines):
// the flag is read one way for serve and run, and a host dispatching with them does every unit of a
// small library through a few reused processes, not one process a unit.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openApp, type BacklotApp } from '../../src-main/app/open-app';
import { addSource } from '../../src-main/library/add-source';
import { testEngineOptions } from '../../src-main/cli/engine-flags';
import type { GpuReport } from '../../src-main/gates/gpu';
import { makeTone, tempDir } from '../library/helpers';

const noGpu: GpuReport = { controllers: [], usable: [], slots: 0, reason: 'none in this test' };
const apps: BacklotApp[] = [];
afterEach(async () => { for (const a of apps.splice(0)) await a.close(); });

describe('BACKLOT_TEST_LONG_LIVED', () => {
  it('is read only for the test profile, as 1 or 0, and refuses anything else with one sentence', () => {
    expect(testEngineOptions('test', undefined, undefined, '1')).toEqual({ chunkMs: undefined, faults: undefined, longLived: true });
    expect(testEngineOptions('test', '20', undefined, '1')).toEqual({ chunkMs: 20, faults: undefined, longLived: true });
    expect(testEngineOptions('test', undefined, undefined, '0')).toBeUndefined();
    expect(testEngineOptions('test', undefined, undefined, '')).toBeUndefined();
    expect(testEngineOptions('test', undefined, undefined, undefined)).toBeUndefined();
    expect(testEngineOptions('production', undefined, undefined, '1')).toBeUndefined();
    expect(() => testEngineOptions('test', undefined, undefined, 'yes')).toThrow('BACKLOT_TEST_LONG_LIVED must be 1 or 0, got "yes".');
  });
});

describe('long-lived test engines on a dispatching host', () => {
  it('do every unit of the library, each process taking several units', async () => {
    const data = tempDir('long-lived');
    const media = tempDir('long-lived-media');
    for (let i = 0; i < 4; i++) makeTone(path.join(media, `tone ${i}.wav`), 1, 300 + i * 20);
    const setup = await openApp({ dataDir: data });
    await addSource(setup.host, media);
    await setup.close();

    const app = await openApp({ dataDir: data, dispatch: true, engines: 'test', test: { chunkMs: 5, longLived: true }, gpu: noGpu });
    apps.push(app);
    let done = 0;
    app.dispatcher.onUnitEnded((e) => { if (e.result.outcome === 'done') done++; });
    await new Promise<void>((resolve) => {
      const off = app.dispatcher.onSettled(() => { off(); resolve(); });
      if (app.dispatcher.isSettled()) { off(); resolve(); }
    });
    const items = app.host.db.prepare('SELECT id FROM items').pluck().all() as string[];
    expect(items).toHaveLength(4);
    for (const id of items) expect(app.host.work.row('transcribe', id)!.state).toBe('done');
    // Each unit's log names the long-lived process that ran it: fewer processes than units.
    const pids = app.host.db.prepare("SELECT text FROM run_logs WHERE text LIKE 'long-lived pid %'").pluck().all() as string[];
    expect(pids.length).toBe(done);
    expect(done).toBeGreaterThan(4);
    expect(new Set(pids).size).toBeLessThan(done);
  });
});
