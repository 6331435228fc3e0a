// The whole pool path through real processes (issue 18 §3, docs/pools.md "A unit on a worker"): a
// redis-server this test starts, `backlot pool add`, `backlot serve --engines test` (which opens the
// worker door and the transport because a pool exists) and two `backlot worker` processes. With the
// local cpu lane paused, its item work can only run on the pool: it does, each unit committed
// once by the host as `<engine>@studio`, the engines' log lines on the workers are in the host's run
// log of each unit, tagged with the worker, and nothing is left behind (claims, jobs, uploads).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { allDone, BIN, openDb, removeTempDirs, serve, tempDir, until, type Served, type Snapshot } from '../reliability/fixtures/host';
import { exitOf, startRedis, waitForLine, type TestRedis } from './redis-server';
import { pooledLibrary } from './pooled-library';
import { bullOptions } from '../../src-main/pools/transport/connections';
import { poolBullPrefix } from '../../src-main/pools/transport/job-schema';
import { TEMP_DIR_NAME } from '../../src-main/engines/commit-output';

/** Deadlines for a loaded 2-core machine (process starts, units), never a measure of speed. */
const LONG = 240_000;

let root: string;
let data: string;
let redis: TestRedis;
let host: Served | null = null;
const workers: ChildProcess[] = [];
const workerOutput: string[] = [];
const workerIds: string[] = [];

let ok: (args: string[]) => string;

async function startWorker(n: number, joinFile: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BIN, 'worker', '--join', joinFile, '--engines', 'test', '--data', path.join(root, `worker-${n}`), '--slots', 'cpu=1'], {
    // Each engine also writes a keyed line, as production engines do (engine.mjs's logKeyed).
    stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, BACKLOT_DATA: '', BACKLOT_TEST_FAULTS: JSON.stringify({ '*': { logKeyed: true } }) },
  });
  workers.push(child);
  for (const stream of [child.stdout!, child.stderr!]) stream.on('data', (c: Buffer) => workerOutput.push(`[worker ${n}] ${c.toString('utf8').trimEnd()}`));
  workerIds.push(/ as (\S+)/.exec(await waitForLine(child, /backlot worker: serving \S+ \(\d+ slots?\) as \S+/))![1]);
  return child;
}

async function jobCounts(lane: string): Promise<Record<string, number>> {
  const queue = new Queue(lane, { connection: bullOptions({ url: `redis://127.0.0.1:${redis.port}`, ca: null, username: 'backlot-admin', password: redis.password }), prefix: poolBullPrefix('studio') });
  try {
    return await queue.getJobCounts('active', 'wait', 'waiting', 'completed', 'failed', 'delayed', 'prioritized', 'waiting-children');
  } finally {
    await queue.close();
  }
}

beforeAll(async () => {
  root = tempDir('pool-host');
  redis = await startRedis(root);
  ({ data, ok } = await pooledLibrary(root, redis, { items: 4, media: 'pool-media', leaseS: 5 }));
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

describe('a host with a pool and two workers', () => {
  it('runs the paused local lanes\' work on the pool, each unit committed once as <engine>@studio, nothing left behind', { timeout: LONG * 2 }, async () => {
    host = await serve(data, { chunkMs: 10 });
    const joinFile = path.join(root, 'studio.join');
    await startWorker(1, joinFile);
    await startWorker(2, joinFile);
    let last: Snapshot | undefined;
    // Item work first (on the pool); the channel digest waits for the paused local lane.
    const itemWorkDone = (s: Snapshot) => s.channels.length > 0 && s.channels.every((c) => Object.entries(c.operations)
      .every(([op, o]) => op === 'channel-digest' || (o.missing === 0 && o.stale === 0 && o.deferred === 0 && o.blocked === 0 && o.missingInput === 0)));
    const waitFor = (what: string, done: (s: Snapshot) => boolean) => until(what, async () => {
      last = await host!.call<Snapshot>('snapshot.get');
      return done(last) ? last : undefined;
    }, LONG, 200).catch(async (e: Error) => {
      // What was left, for whoever reads the failure: the counts, the lanes, what the processes said.
      const lanes = await host!.call('lanes.list').catch(() => null);
      throw new Error(`${e.message}\nsnapshot: ${JSON.stringify(last)}\nlanes: ${JSON.stringify(lanes)}\nhost stderr: ${host!.stderr()}\nworkers: ${workerOutput.join('\n')}`);
    });
    await waitFor('the item work done on the pool', itemWorkDone);
    ok(['lanes', 'resume', 'cpu']);
    await waitFor('all work done', allDone);
    const db = openDb(data);
    try {
      await until('no claim left', () => ((db.prepare('SELECT COUNT(*) FROM claims').pluck().get() as number) === 0 ? true : undefined), 60_000, 100);
      // Every unit of the paused lanes ran on the pool; none ran locally.
      // The channel digest is channel work built from the host's state: it stays on the host's lane.
      const lanes = db.prepare("SELECT DISTINCT lane FROM runs WHERE lane LIKE 'cpu%' AND operation <> 'channel-digest' ORDER BY lane").pluck().all() as string[];
      expect(lanes).toEqual(['cpu@studio']);
      expect(db.prepare("SELECT DISTINCT lane FROM runs WHERE operation = 'channel-digest'").pluck().all()).toEqual(['cpu']);
      const onPool = db.prepare("SELECT operation, output_engine FROM work WHERE output_job IS NOT NULL AND operation NOT IN ('sync', 'download', 'channel-digest')").all() as { operation: string; output_engine: string }[];
      expect(onPool.length).toBeGreaterThan(0);
      for (const row of onPool) expect(row.output_engine).toMatch(/@studio@/);
      // Each item's outputs are recorded once and complete on disk.
      const outputs = db.prepare("SELECT output_path, output_bytes FROM work WHERE output_job IS NOT NULL AND output_path IS NOT NULL AND operation <> 'channel-digest'").all() as { output_path: string; output_bytes: number }[];
      for (const o of outputs) expect(fs.statSync(o.output_path).size).toBe(o.output_bytes);
      // The engines' own lines on the workers are in each pool unit's run log, tagged with the worker,
      // plain ("job JOBID OPERATION") and keyed ("downloaded", with the worker in its params), once each.
      const poolRuns = db.prepare("SELECT id, operation FROM runs WHERE lane = 'cpu@studio'").all() as { id: number; operation: string }[];
      expect(poolRuns.length).toBeGreaterThan(0);
      const logOf = db.prepare('SELECT level, text, key, params FROM run_logs WHERE run_id = ?');
      for (const run of poolRuns) {
        const logs = logOf.all(run.id) as { level: string; text: string; key: string | null; params: string | null }[];
        const said = logs.filter((l) => new RegExp(`^\\[(${workerIds.join('|')})\\] job \\S+ ${run.operation}$`).test(l.text));
        expect(said.length, JSON.stringify(logs)).toBeGreaterThan(0);
        const jobs = said.map((l) => l.text.split(' ')[2]);
        expect(new Set(jobs).size).toBe(jobs.length);
        const keyed = logs.filter((l) => l.key === 'downloaded');
        expect(keyed).toHaveLength(said.length);
        for (const k of keyed) expect(workerIds).toContain((JSON.parse(k.params!) as { onWorker: string }).onWorker);
      }
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
    const counts = await jobCounts('cpu');
    expect(Object.values(counts).every((n) => n === 0), JSON.stringify(counts)).toBe(true);
    const tmp = path.join(data, TEMP_DIR_NAME);
    expect(fs.existsSync(tmp) ? fs.readdirSync(tmp) : []).toEqual([]);
    expect(await host.stop()).toBe(0);
  });
});
