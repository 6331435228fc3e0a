// The host's scheduler with pool lanes (docs/pools.md "Pool lanes in the tree"): the Dispatcher takes a
// PoolRuntime (here the in-memory TEST DOUBLE of the transport, which runs the test engine's real
// program), its lanes join the arbiter's, a unit claimed on `cpu@studio` is launched through
// PoolRuntime.run and committed by the host's own code, a pool hold blocks the lane with its code
// until onChange lifts it, and a lost worker requeues the unit without counting an attempt.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openApp, type BacklotApp } from '../../src-main/app/open-app';
import { addSource } from '../../src-main/library/add-source';
import type { GpuReport } from '../../src-main/gates/gpu';
import { makeTone, tempDir } from '../library/helpers';
import { InMemoryPoolRuntimeDouble, poolLane } from './in-memory-pool-runtime';
import type { UnitEnded } from '../../src-main/dispatch/dispatcher';
import { laneStatuses } from '../../src-main/dispatch/lane-status';
import { lanesText } from '../../src-main/cli/commands/lanes';
import { formattersFor } from '../../src-main/shells/electron/text/desktop-text';
import { explain } from '../../src-main/explain/explain';

const noGpu: GpuReport = { controllers: [], usable: [], slots: 0, reason: 'none in this test' };
const apps: BacklotApp[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const a of apps.splice(0)) await a.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/**
 * A folder library of real files, with the local cpu lane paused (so cpu work can only go to a pool),
 * or with no cpu slot (`noCpuSlots`: the local lane cannot run it at all).
 */
async function library(files: number, noCpuSlots = false): Promise<string> {
  const data = tempDir('pool-lanes');
  const media = tempDir('pool-lanes-media');
  dirs.push(data, media);
  for (let i = 0; i < files; i++) makeTone(path.join(media, `tone ${i}.wav`), 1, 300 + i * 20);
  const app = await openApp({ dataDir: data, engines: 'test', gpu: noGpu });
  await addSource(app.host, media);
  if (noCpuSlots) app.dispatcher.settings.set('lanes.cpu.slots', 0);
  else app.host.transaction(() => app.dispatcher.arbiter.holds.setPaused('cpu', true, app.host.now(), 'test'));
  await app.close();
  return data;
}

/** Runs the host until it settles (nothing runs, nothing can start): an event, never a sleep. */
async function settled(app: BacklotApp): Promise<void> {
  await new Promise<void>((resolve) => {
    const off = app.dispatcher.onSettled(() => { off(); resolve(); });
    if (app.dispatcher.isSettled()) { off(); resolve(); }
  });
}

async function open(data: string, runtime: InMemoryPoolRuntimeDouble, ended: UnitEnded[]): Promise<BacklotApp> {
  const app = await openApp({ dataDir: data, dispatch: true, engines: 'test', test: { chunkMs: 5, chunks: 2 }, gpu: noGpu, poolRuntime: runtime });
  apps.push(app);
  app.dispatcher.onUnitEnded((e) => ended.push(e));
  return app;
}

describe('pool lanes in the dispatcher', () => {
  it('with the local cpu lane paused, cpu work runs on cpu@studio through PoolRuntime.run and commits once, as <engine>@<pool>', async () => {
    const data = await library(3);
    const runtime = new InMemoryPoolRuntimeDouble([poolLane('studio', 'cpu', 2)]);
    const ended: UnitEnded[] = [];
    const app = await open(data, runtime, ended);
    expect(app.dispatcher.arbiter.laneKeys()).toEqual(['sync', 'download', 'gpu', 'cpu', 'cpu@studio', 'remote']);
    await settled(app);
    const items = app.host.db.prepare('SELECT id FROM items').pluck().all() as string[];
    expect(items).toHaveLength(3);
    const onPool = ended.filter((e) => e.unit.lane === 'cpu@studio');
    expect(onPool.length).toBeGreaterThanOrEqual(3);
    expect(ended.filter((e) => e.unit.lane === 'cpu')).toEqual([]);
    expect(onPool.every((e) => e.result.outcome === 'done')).toBe(true);
    // Every pool unit went through the runtime once, with its claim's key and token as the fences.
    expect(runtime.requests.map((r) => `${r.pool} ${r.lane} ${r.engineId}`)).toEqual(onPool.map(() => 'studio cpu test'));
    expect(runtime.requests.map((r) => `${r.unitKey} ${r.claimToken}`).sort()).toEqual(onPool.map((e) => `${e.unit.key} ${e.unit.token}`).sort());
    for (const r of runtime.requests) expect(r.job.outputDir).toBe(path.join(data, '.backlot-tmp', r.job.jobId));
    // Each committed once, recorded with the pool's engine id.
    for (const e of onPool) {
      const row = app.host.work.row(e.unit.operation, e.unit.itemId)!;
      expect(row.state).toBe('done');
      expect(row.output_engine).toBe('test@studio@test-engine-1');
      expect(fs.existsSync(row.output_path!)).toBe(true);
    }
    expect(new Set(onPool.map((e) => `${e.unit.operation}:${e.unit.itemId}`)).size).toBe(onPool.length);
    expect(app.host.db.prepare('SELECT COUNT(*) FROM claims').pluck().get()).toBe(0);
    expect(fs.readdirSync(path.join(data, '.backlot-tmp'))).toEqual([]);
    const runs = app.host.db.prepare("SELECT DISTINCT lane FROM runs WHERE lane LIKE 'cpu%'").pluck().all();
    expect(runs).toEqual(['cpu@studio']);
  }, 120_000);

  it("a pool lane's hold blocks it with its code (lanes, explain, backlot lanes); onChange lifting it wakes the arbiter", async () => {
    const data = await library(2, true);
    const runtime = new InMemoryPoolRuntimeDouble([poolLane('studio', 'cpu', 0, { code: 'POOL_OFFLINE', params: {} })]);
    const ended: UnitEnded[] = [];
    const app = await open(data, runtime, ended);
    await settled(app);
    const arbiter = app.dispatcher.arbiter;
    const lane = arbiter.laneConfigs().find((l) => l.queueKey === 'cpu@studio')!;
    expect(arbiter.laneHold(lane, app.host.now())).toEqual({ code: 'POOL_OFFLINE', params: { lane: 'cpu@studio' } });
    expect(ended.filter((e) => e.unit.lane.startsWith('cpu'))).toEqual([]);
    expect(runtime.requests).toEqual([]);
    // The lanes page and `backlot lanes` show the pool lane with its hold; explain names it (the local lane, with no slot, only beside it).
    const status = laneStatuses(arbiter, app.host.now()).find((l) => l.lane === 'cpu@studio')!;
    expect(status).toEqual({ lane: 'cpu@studio', slots: 0, running: 0, paused: false, hold: { code: 'POOL_OFFLINE', params: { lane: 'cpu@studio' } }, pool: { name: 'studio', base: 'cpu', workers: [] } });
    expect(lanesText([status], formattersFor('en'))).toBe('cpu@studio slots 0  running 0  not paused  POOL_OFFLINE: no worker of the pool is live\n  no live worker in pool studio\n');
    const item = app.host.db.prepare('SELECT id FROM items ORDER BY id LIMIT 1').pluck().get() as string;
    expect(explain(app.host, arbiter, item, 'transcribe', app.host.now()).reason).toEqual({
      code: 'POOL_OFFLINE', params: { lane: 'cpu@studio', also: [{ code: 'LANE_NO_SLOTS', params: { lane: 'cpu' } }] },
    });
    // A worker came: two slots, no hold.
    runtime.set([poolLane('studio', 'cpu', 2)]);
    await settled(app);
    expect(arbiter.laneHold(arbiter.laneConfigs().find((l) => l.queueKey === 'cpu@studio')!, app.host.now())).toBeNull();
    expect(ended.filter((e) => e.unit.lane === 'cpu@studio').length).toBeGreaterThanOrEqual(2);
    for (const id of app.host.db.prepare('SELECT id FROM items').pluck().all() as string[]) expect(app.host.work.row('transcribe', id)!.state).toBe('done');
    // The live worker as the lanes page shows it.
    const live = laneStatuses(arbiter, app.host.now()).find((l) => l.lane === 'cpu@studio')!;
    expect(live.pool!.workers).toEqual([{
      id: 'studio-w1', host: 'studio-box', version: '0.1.0', engines: [{ id: 'test', ok: true, code: null }], slots: 2, freeSlots: 2, lastHeartbeat: 1_700_000_000_000, outOfService: null,
    }]);
    expect(lanesText([live], formattersFor('en'))).toBe(
      'cpu@studio slots 2  running 0  not paused  open\n'
      + '  worker studio-w1 on studio-box  version 0.1.0  free 2/2  engines test  last heartbeat 2023-11-14T22:13:20.000Z  in service\n',
    );
  }, 120_000);

  it('a lost worker requeues its unit (WORKER_LOST): no attempt counted, done on the next try', async () => {
    const data = await library(1);
    const runtime = new InMemoryPoolRuntimeDouble([poolLane('studio', 'cpu', 1)]);
    runtime.failNext.push('WORKER_LOST');
    const ended: UnitEnded[] = [];
    const app = await open(data, runtime, ended);
    await settled(app);
    const lost = ended.find((e) => e.result.outcome === 'failed')!;
    expect(lost.result).toMatchObject({ outcome: 'failed', code: 'WORKER_LOST', disposition: 'requeue' });
    expect(lost.failedTerminally).toBe(false);
    const row = app.host.work.row(lost.unit.operation, lost.unit.itemId)!;
    expect(row.state).toBe('done');
    expect(row.attempts).toBe(0);
    expect(runtime.requests.filter((r) => r.job.operation === lost.unit.operation)).toHaveLength(2);
  }, 120_000);
});
