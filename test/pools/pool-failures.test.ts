// The failures of issue 18 §3 that take down the host or Redis mid-unit (docs/pools.md "What each
// failure does"), through real processes: a redis-server run as `transport serve` runs it (append-only,
// an ACL file) and restarted on the same port and folder, `backlot serve --engines test` with the local
// cpu lane paused, and two `backlot worker` processes whose test engines hold each unit mid-way while a
// hold file exists (they say so with a marker file), so every kill lands mid-unit by an event:
// 1. kill -9 of the host, then a restart: the units on the workers are adopted and committed once;
// 2. kill -9 of Redis, restarted at once (shorter than the lease): the units end normally, once;
// 3. kill -9 of Redis for twice the lease: the pool lane holds POOL_TRANSPORT_DOWN while the local
//    lane keeps working; the units whose locks lapsed run again and are committed once, no attempt counted.
// After it all: each output once, no claim, no BullMQ job, no upload left, integrity_check ok.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { allDone, BIN, openDb, removeTempDirs, serve, tempDir, until, type Served } from '../reliability/fixtures/host';
import { exitOf, startRedis, waitForLine, type TestRedis } from './redis-server';
import { pooledLibrary, untilSnapshot } from './pooled-library';
import { bullOptions } from '../../src-main/pools/transport/connections';
import { poolBullPrefix } from '../../src-main/pools/transport/job-schema';
import { TEMP_DIR_NAME } from '../../src-main/engines/commit-output';

/** Deadlines for a loaded 2-core machine (process starts, units), never a measure of speed. */
const LONG = 240_000;
/** Long enough that a restart of Redis on a loaded machine stays well inside it (BullMQ renews at half of it). */
const LEASE_S = 10;

let root: string;
let data: string;
let holdDir: string;
let hold: string;
let redis: TestRedis;
let host: Served | null = null;
const workers: ChildProcess[] = [];
const output: string[] = [];

let ok: (args: string[]) => string;

async function startWorker(n: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BIN, 'worker', '--join', path.join(root, 'studio.join'), '--engines', 'test', '--data', path.join(root, `worker-${n}`), '--slots', 'cpu=1'], {
    stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, BACKLOT_DATA: '', BACKLOT_TEST_FAULTS: JSON.stringify({ '*': { holdWhile: hold } }) },
  });
  workers.push(child);
  for (const stream of [child.stdout!, child.stderr!]) stream.on('data', (c: Buffer) => output.push(`[worker ${n}] ${c.toString('utf8').trimEnd()}`));
  await waitForLine(child, /backlot worker: serving /);
  return child;
}

/** The units holding now or before, by marker file (HOLD.JOBID.PID.held). */
const held = (): string[] => fs.readdirSync(holdDir).filter((n) => n.endsWith('.held'));
const jobOf = (marker: string): string => marker.slice('hold.'.length).split('.')[0];

/** Makes the engines hold, and resolves once `n` units hold that did not before. */
async function holdUnits(n: number): Promise<string[]> {
  const before = new Set(held());
  fs.writeFileSync(hold, '');
  return until(`${n} units holding on the workers`, () => {
    const now = held().filter((m) => !before.has(m));
    return now.length >= n ? now.map(jobOf) : undefined;
  }, LONG, 50).catch((e: Error) => { throw explain(e); });
}

function explain(e: Error): Error {
  let logs = '';
  try {
    const db = openDb(data);
    logs = (db.prepare("SELECT run_id || ' ' || level || ' ' || text FROM run_logs WHERE level <> 'info' OR text LIKE '%pool%'").pluck().all() as string[]).join('\n');
    logs += `\nruns: ${JSON.stringify(db.prepare('SELECT id, operation, lane, outcome, reason_code, items_done, items_failed FROM runs').all())}`;
    db.close();
  } catch { /* the failure is what matters */ }
  return new Error(`${e.message}\nhost stderr: ${host?.stderr() ?? ''}\nprocesses: ${output.join('\n')}\nrun logs: ${logs}`);
}

async function jobStates(ids: string[]): Promise<string[]> {
  const queue = new Queue('cpu', { connection: bullOptions({ url: `redis://127.0.0.1:${redis.port}`, ca: null, username: 'backlot-admin', password: redis.password }), prefix: poolBullPrefix('studio') });
  try {
    return await Promise.all(ids.map((id) => queue.getJobState(id)));
  } finally {
    await queue.close();
  }
}

async function jobCounts(): Promise<Record<string, number>> {
  const queue = new Queue('cpu', { connection: bullOptions({ url: `redis://127.0.0.1:${redis.port}`, ca: null, username: 'backlot-admin', password: redis.password }), prefix: poolBullPrefix('studio') });
  try {
    return await queue.getJobCounts('active', 'wait', 'waiting', 'completed', 'failed', 'delayed', 'prioritized', 'waiting-children');
  } finally {
    await queue.close();
  }
}

function claimedJobs(): number {
  const db = openDb(data);
  try {
    return db.prepare("SELECT COUNT(*) FROM claims WHERE lane = 'cpu@studio'").pluck().get() as number;
  } finally {
    db.close();
  }
}

const poolLaneHold = async (): Promise<string | null> => {
  const lanes = await host!.call<{ lanes: { queueKey?: string; key?: string; hold?: { code: string } | null }[] }>('lanes.list').catch(() => null);
  const text = JSON.stringify(lanes);
  return text.includes('POOL_TRANSPORT_DOWN') ? 'POOL_TRANSPORT_DOWN' : null;
};

beforeAll(async () => {
  root = tempDir('pool-failures');
  holdDir = path.join(root, 'holds');
  fs.mkdirSync(holdDir);
  hold = path.join(holdDir, 'hold');
  const redisDir = path.join(root, 'redis');
  fs.mkdirSync(redisDir);
  redis = await startRedis(redisDir, undefined, { persistent: true });
  ({ data, ok } = await pooledLibrary(root, redis, { items: 6, media: 'pool-failures-media', leaseS: LEASE_S }));
}, LONG);

afterAll(async () => {
  for (const w of workers) {
    if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
    await exitOf(w);
  }
  if (host && host.proc.exitCode === null) await host.kill9();
  await redis?.stop();
  removeTempDirs();
}, LONG);

describe('a pool whose host or Redis is killed mid-unit', () => {
  it('adopts the units after a host restart, rides out a short Redis outage and reruns the units of a long one, each committed once', { timeout: LONG * 4 }, async () => {
    host = await serve(data, { chunkMs: 10 });
    await startWorker(1);
    await startWorker(2);

    output.push('[test] 1: host kill');
    // 1. kill -9 of the host while both workers hold a unit; the restarted host adopts them.
    const first = await holdUnits(2);
    await host.kill9();
    host = await serve(data, { chunkMs: 10 });
    const adopted = await until('both units adopted by the restarted host', () => {
      const db = openDb(data);
      try {
        const lines = db.prepare("SELECT text FROM run_logs WHERE text LIKE 'unit adopted on pool studio%'").pluck().all() as string[];
        return first.every((j) => lines.some((l) => l.includes(j))) ? lines : undefined;
      } finally {
        db.close();
      }
    }, LONG, 100).catch((e: Error) => { throw explain(e); });
    expect(adopted).toHaveLength(2);
    expect(claimedJobs()).toBe(2);
    fs.rmSync(hold);
    await until('the adopted units ended on their workers', () => (first.every((j) => output.some((l) => l.includes(`${j} ended: ok`))) ? true : undefined), LONG, 100)
      .catch((e: Error) => { throw explain(e); });

    output.push('[test] 2: short Redis outage');
    // 2. kill -9 of Redis, restarted on the same port and folder at once: shorter than the lease.
    const second = await holdUnits(2);
    await redis.kill9();
    await redis.restart();
    // The jobs came back with Redis (append-only file, replayed: transport-server.ts's ACL note).
    expect(await jobStates(second)).toEqual(['active', 'active']);
    fs.rmSync(hold);
    await until('the units in flight ended normally', () => (second.every((j) => output.some((l) => l.includes(`${j} ended: ok`))) ? true : undefined), LONG, 100)
      .catch((e: Error) => { throw explain(e); });

    output.push('[test] 3: long Redis outage');
    // 3. kill -9 of Redis for twice the lease.
    const third = await holdUnits(2);
    await redis.kill9();
    const downAt = Date.now();
    await until('the pool lane held POOL_TRANSPORT_DOWN', poolLaneHold, LONG, 200).catch((e: Error) => { throw explain(e); });
    // The local lane keeps working meanwhile: resumed, it commits a unit of its own while Redis is down.
    const localBefore = localDone();
    ok(['lanes', 'resume', 'cpu']);
    await until('a local cpu unit committed while Redis is down', () => (localDone() > localBefore ? true : undefined), LONG, 100).catch((e: Error) => { throw explain(e); });
    expect(await poolLaneHold()).toBe('POOL_TRANSPORT_DOWN');
    // The outage's length is this case's input, not a race with the work.
    await sleep(Math.max(0, downAt + 2 * LEASE_S * 1000 - Date.now()));
    await redis.restart();
    // Their locks lapsed: each worker stops its engine, and the unit runs again (on a worker, or on the
    // resumed local lane as the tree allows), committed once.
    await until('the workers stopped the units whose locks lapsed', () => (third.every((j) => output.some((l) => l.includes(`${j} ended: WORKER_LOCK_LOST`))) ? true : undefined), LONG, 100)
      .catch((e: Error) => { throw explain(e); });
    fs.rmSync(hold);

    await untilSnapshot(host!, 'all work done', allDone, explain);

    const db = openDb(data);
    try {
      await until('no claim left', () => ((db.prepare('SELECT COUNT(*) FROM claims').pluck().get() as number) === 0 ? true : undefined), 60_000, 100);
      // Every unit of the three cases ended on the pool, was committed once and counted no attempt.
      for (const j of [...first, ...second, ...third]) expect(output.some((l) => l.includes(`took ${j}`))).toBe(true);
      // Committed once: the pool runs counted as many done units as there are outputs made on the pool.
      const onPool = db.prepare("SELECT COUNT(*) FROM work WHERE output_engine LIKE '%@studio@%'").pluck().get() as number;
      const counted = db.prepare("SELECT COALESCE(SUM(items_done), 0) FROM runs WHERE lane = 'cpu@studio'").pluck().get() as number;
      expect(onPool).toBeGreaterThan(0);
      expect(counted).toBe(onPool);
      // The adopted units and those that rode out the short outage kept their jobs: each recorded once.
      const jobs = db.prepare('SELECT output_job FROM work WHERE output_job IS NOT NULL').pluck().all() as string[];
      for (const j of [...first, ...second]) expect(jobs.filter((x) => x === j)).toHaveLength(1);
      expect(db.prepare('SELECT COUNT(*) FROM work WHERE attempts > 0').pluck().get()).toBe(0);
      const outputs = db.prepare('SELECT output_path, output_bytes FROM work WHERE output_job IS NOT NULL AND output_path IS NOT NULL').all() as { output_path: string; output_bytes: number }[];
      for (const o of outputs) expect(fs.statSync(o.output_path).size).toBe(o.output_bytes);
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
    const counts = await jobCounts();
    expect(Object.values(counts).every((n) => n === 0), JSON.stringify(counts)).toBe(true);
    const tmp = path.join(data, TEMP_DIR_NAME);
    expect(fs.existsSync(tmp) ? fs.readdirSync(tmp) : []).toEqual([]);
    expect(await host.stop()).toBe(0);
  });
});

function localDone(): number {
  const db = openDb(data);
  try {
    return db.prepare("SELECT COALESCE(SUM(items_done), 0) FROM runs WHERE lane = 'cpu'").pluck().get() as number;
  } finally {
    db.close();
  }
}
