// A unit no live worker can run does not wait in a pool's queue for ever (docs/pools.md "What each
// failure does"), with real processes: a redis-server, `backlot serve --engines test` with the local cpu
// lane paused, and one `backlot worker` whose transcribe engine fails its check. It hands the
// transcription back and takes the lane out of service; the lane holds POOL_OFFLINE, so the host sends
// it nothing new, and after the pool's lease it takes the waiting unit back (POOL_UNIT_WITHDRAWN, no
// attempt counted). The local lane resumed, the transcription runs there and is committed once.
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { LONG } from './pool-fixture';
import { exitOf, startRedis, waitForLine, type TestRedis } from './redis-server';
import { pooledLibrary, untilSnapshot } from './pooled-library';
import { allDone, BIN, openDb, removeTempDirs, serve, tempDir, until, type Served } from '../reliability/fixtures/host';
import { bullOptions } from '../../src-main/pools/transport/connections';
import { poolBullPrefix } from '../../src-main/pools/transport/job-schema';

const LEASE_S = 10;
let redis: TestRedis | null = null;
let host: Served | null = null;
let worker: ChildProcess | null = null;

afterAll(async () => {
  if (worker && worker.exitCode === null && worker.signalCode === null) worker.kill('SIGKILL');
  if (worker) await exitOf(worker);
  if (host && host.proc.exitCode === null && host.proc.signalCode === null) await host.kill9();
  await redis?.stop();
  removeTempDirs();
}, LONG);

describe('a pool lane whose only worker is out of service for it', () => {
  it('takes the waiting unit back after the lease, and the local lane runs it once, not failed', async () => {
    const root = tempDir('pool-withdraw');
    redis = await startRedis(root);
    const { data, joinFile, ok } = await pooledLibrary(root, redis, { items: 1, media: 'pool-withdraw-media', leaseS: LEASE_S });

    host = await serve(data);
    worker = spawn(process.execPath, [BIN, 'worker', '--join', joinFile, '--engines', 'test', '--data', path.join(root, 'worker'), '--slots', 'cpu=1'], {
      stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, BACKLOT_DATA: '', BACKLOT_TEST_FAULTS: JSON.stringify({ 'preflight:transcribe': { code: 'MODEL_MISSING' } }) },
    });
    let said = '';
    for (const stream of [worker.stdout!, worker.stderr!]) stream.on('data', (c: Buffer) => { said += c.toString('utf8'); });
    await waitForLine(worker, /backlot worker: serving cpu@studio/);
    const explain = (e: Error): Error => new Error(`${e.message}\nworker: ${said}\nhost: ${host?.stderr() ?? ''}`);

    // The transcription goes to the pool (the local lane is paused); the worker cannot run it.
    const handedBack = await until('the worker handed the transcription back', () => /backlot worker: (\S+) handed back: WORKER_ENGINE_MISSING/.exec(said)?.[1], LONG, 50).catch((e: Error) => { throw explain(e); });
    // After the lease with no worker in service, the host takes it back from the queue.
    const withdrawn = await until('the host took the unit back', () => {
      const db = openDb(data);
      try {
        return db.prepare("SELECT text FROM run_logs WHERE text LIKE 'unit withdrawn from pool studio%'").pluck().all().length > 0 ? true : undefined;
      } finally {
        db.close();
      }
    }, LONG, 100).catch((e: Error) => { throw explain(e); });
    expect(withdrawn).toBe(true);
    const queue = new Queue('cpu', { connection: bullOptions({ url: `redis://127.0.0.1:${redis.port}`, ca: null, username: 'backlot-admin', password: redis.password }), prefix: poolBullPrefix('studio') });
    try {
      expect(await queue.getJobState(handedBack)).toBe('unknown');
    } finally {
      await queue.close();
    }

    ok(['lanes', 'resume', 'cpu']);
    await untilSnapshot(host, 'all work done', allDone, explain);

    const db = openDb(data);
    try {
      // Ran on the local lane, once, with no attempt counted and no failure recorded.
      const transcribe = db.prepare("SELECT output_engine, attempts FROM work WHERE operation = 'transcribe'").all() as { output_engine: string; attempts: number }[];
      expect(transcribe).toHaveLength(1);
      expect(transcribe[0].output_engine).not.toContain('@studio');
      expect(db.prepare('SELECT COUNT(*) FROM work WHERE attempts > 0').pluck().get()).toBe(0);
      expect(db.prepare("SELECT COUNT(*) FROM runs WHERE lane = 'cpu@studio' AND reason_code = 'POOL_UNIT_WITHDRAWN'").pluck().get()).toBeGreaterThanOrEqual(1);
      expect(db.prepare('SELECT COUNT(*) FROM claims').pluck().get()).toBe(0);
    } finally {
      db.close();
    }
    // The worker never took it again.
    expect(said.split('\n').filter((l) => l.includes(`took ${handedBack} `))).toHaveLength(1);
    worker.kill('SIGTERM');
    expect(await exitOf(worker)).toBe(0);
    expect(await host.stop()).toBe(0);
  }, LONG * 2);
});
