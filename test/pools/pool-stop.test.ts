// Stopping while Redis is down (docs/pools.md "Stopping while Redis is down"), with real processes and
// a real redis-server killed -9: every close is bounded, so
// 1. `backlot lanes --json` answers (exit 0, the pool lane held POOL_TRANSPORT_DOWN), an idle
//    `backlot worker` told to stop exits, and this test's own rig (its transport had a queue and its
//    events open) closes;
// 2. a `backlot worker` holding a unit mid-way and `backlot serve` following it are told to stop
//    (SIGTERM) after Redis died: both exit by themselves.
// Each waits for the exit event, with a guard far beyond any machine's pace; no duration is asserted.
import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, LONG, PoolRig } from './pool-fixture';
import { exitOf, startRedis, waitForLine, type TestRedis } from './redis-server';
import { pooledLibrary } from './pooled-library';
import { removeTempDirs, serve, tempDir, until, type Served } from '../reliability/fixtures/host';
import type { LaneStatusDto } from '../../src-shared/api/contract';

const started: ChildProcess[] = [];
let redis: TestRedis | null = null;
let host: Served | null = null;

afterAll(async () => {
  for (const child of started) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exitOf(child);
  }
  if (host && host.proc.exitCode === null && host.proc.signalCode === null) await host.kill9();
  await redis?.stop();
  removeTempDirs();
}, LONG);

/** Resolves with the exit once the process has gone by itself; the guard only turns a hang into a failure. */
function exitWithin(child: ChildProcess, what: string, said: () => string = () => ''): Promise<number | string> {
  return new Promise((resolve, reject) => {
    const guard = setTimeout(() => reject(new Error(`${what} did not exit after SIGTERM: ${said()}`)), LONG);
    void exitOf(child).then((code) => { clearTimeout(guard); resolve(code); });
  });
}

describe('a stop while Redis is down', () => {
  it('lanes answers with POOL_TRANSPORT_DOWN, an idle worker exits on SIGTERM, and the rig\'s transport closes', async () => {
    const rig = await PoolRig.start('pool-stop');
    let closed = false;
    try {
      const join = await rig.addPool({ name: 'studio', leaseS: 10 });
      const worker = await rig.startWorker(join, { name: 'worker-idle', ready: /serving cpu@studio/ });
      await rig.lanesUntil((ls) => ls.some((l) => l.queueKey === 'cpu@studio' && l.hold === null));
      // One unit end to end, so the rig's transport holds the lane's queue and its events.
      const job = await rig.unitJob('item-stop', 'stop');
      expect((await rig.run('studio', job)).ok).toBe(true);

      await rig.redis.kill9();
      const listed = spawnSync(process.execPath, [BIN, 'lanes', '--json', '--data', rig.lib], { encoding: 'utf8', env: { ...process.env, BACKLOT_DATA: '' }, timeout: LONG });
      expect(listed.status, listed.stderr).toBe(0);
      const lane = (JSON.parse(listed.stdout) as { lanes: LaneStatusDto[] }).lanes.find((l) => l.lane === 'cpu@studio')!;
      expect(lane.hold?.code).toBe('POOL_TRANSPORT_DOWN');

      worker.child.kill('SIGTERM');
      expect(await exitWithin(worker.child, 'the idle worker')).toBe(0);
      await rig.close();
      closed = true;
    } finally {
      if (!closed) await rig.close();
    }
  }, LONG * 2);

  it('a worker holding a unit and the serve following it both exit on SIGTERM', async () => {
    const root = tempDir('pool-stop-serve');
    const holdDir = path.join(root, 'holds');
    fs.mkdirSync(holdDir);
    const hold = path.join(holdDir, 'hold');
    redis = await startRedis(root);
    const { data, joinFile } = await pooledLibrary(root, redis, { items: 1, media: 'pool-stop-media', leaseS: 10 });

    host = await serve(data);
    fs.writeFileSync(hold, '');
    const worker = spawn(process.execPath, [BIN, 'worker', '--join', joinFile, '--engines', 'test', '--data', path.join(root, 'worker'), '--slots', 'cpu=1'], {
      stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, BACKLOT_DATA: '', BACKLOT_TEST_FAULTS: JSON.stringify({ '*': { holdWhile: hold } }) },
    });
    started.push(worker);
    let said = '';
    for (const stream of [worker.stdout!, worker.stderr!]) stream.on('data', (c: Buffer) => { said += c.toString('utf8'); });
    await waitForLine(worker, /backlot worker: serving cpu@studio/);
    // A unit sent by the host and held mid-way on the worker (its marker file says so).
    await until('a unit holding on the worker', () => (fs.readdirSync(holdDir).some((n) => n.endsWith('.held')) ? true : undefined), LONG, 50);

    await redis.kill9();
    worker.kill('SIGTERM');
    expect(await exitWithin(worker, 'the worker', () => said), said).toBe(0);
    expect(said).toMatch(/Redis cannot be reached; stopping without it \(1 unit\(s\) stopped, to run again elsewhere\)/);
    host.proc.kill('SIGTERM');
    expect(await exitWithin(host.proc, 'backlot serve', () => host!.stderr()), host.stderr()).toBe(0);
  }, LONG * 2);
});
