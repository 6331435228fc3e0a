// An upload cut mid-way by the host going down (issue 18 §3 "an upload cut mid-way resumes"; docs/pools.md
// "When the host is away"), through real processes: a redis-server, `backlot serve --engines test` with
// the local cpu lane paused, one `backlot worker` whose engines write 8 MB outputs, and a TCP proxy
// between the worker and the host's door (door-proxy.ts). The proxy cuts the first upload after 2 MB
// and refuses connections; the host is killed (-9) and started again; then the proxy listens again.
// The worker waited with backoff, the restarted host adopted the unit and put its ticket back, the
// upload went on from the bytes the host kept, and the unit is committed once with the engine's bytes.
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { allDone, BIN, openDb, removeTempDirs, serve, tempDir, until, type Served, type Snapshot } from '../reliability/fixtures/host';
import { exitOf, freePort, startRedis, waitForLine, type TestRedis } from './redis-server';
import { pooledLibrary, untilSnapshot } from './pooled-library';
import { DoorProxy, testEngineBytes } from './door-proxy';
import { bullOptions } from '../../src-main/pools/transport/connections';
import { poolBullPrefix } from '../../src-main/pools/transport/job-schema';
import { TEMP_DIR_NAME } from '../../src-main/engines/commit-output';

/** Deadlines for a loaded 2-core machine (process starts, units), never a measure of speed. */
const LONG = 240_000;
const BYTES = 8_000_000;

let root: string;
let data: string;
let redis: TestRedis;
let proxy: DoorProxy;
let host: Served | null = null;
let worker: ChildProcess | null = null;
const said: string[] = [];

let ok: (args: string[]) => string;

beforeAll(async () => {
  root = tempDir('pool-upload-restart');
  redis = await startRedis(root);
  const doorPort = await freePort();
  proxy = await DoorProxy.open(doorPort);
  // The host's door listens on doorPort; the join file sends the worker to the proxy in front of it.
  ({ data, ok } = await pooledLibrary(root, redis, { items: 2, media: 'pool-upload-media', leaseS: 10, doorPort, joinPort: proxy.port }));
}, LONG);

afterAll(async () => {
  if (worker && worker.exitCode === null && worker.signalCode === null) worker.kill('SIGKILL');
  if (worker) await exitOf(worker);
  if (host && host.proc.exitCode === null) await host.kill9();
  await proxy?.down();
  await redis?.stop();
  removeTempDirs();
}, LONG);

describe('an upload cut by the host going down', () => {
  it('waits for the restarted host, goes on from the bytes it kept, and the unit is committed once with the engine\'s bytes', { timeout: LONG * 2 }, async () => {
    host = await serve(data, { chunkMs: 10 });
    const cut = proxy.cutPutAfter(BYTES / 4);
    worker = spawn(process.execPath, [BIN, 'worker', '--join', path.join(root, 'studio.join'), '--engines', 'test', '--data', path.join(root, 'worker-1'), '--slots', 'cpu=1'], {
      stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, BACKLOT_DATA: '', BACKLOT_TEST_FAULTS: JSON.stringify({ '*': { bytes: BYTES } }) },
    });
    for (const stream of [worker.stdout!, worker.stderr!]) stream.on('data', (c: Buffer) => said.push(...c.toString('utf8').split('\n').filter((l) => l !== '')));
    await waitForLine(worker, /backlot worker: serving /);
    const explain = async (e: Error): Promise<Error> => new Error(`${e.message}\nhost stderr: ${host?.stderr() ?? ''}\nworker: ${said.join('\n')}\nlanes: ${JSON.stringify(await host?.call('lanes.list').catch(() => null))}`);

    await cut;
    const waiting = await until('the worker waits for the door', () => said.map((l) => /backlot worker: (\S+) door unreachable /.exec(l)?.[1]).find((j) => j !== undefined), LONG, 50)
      .catch(async (e: Error) => { throw await explain(e); });
    // The host goes down mid-upload and comes back; only then is the door reachable again.
    await host.kill9();
    host = await serve(data, { chunkMs: 10 });
    await proxy.up();

    const itemWorkDone = (s: Snapshot) => s.channels.length > 0 && s.channels.every((c) => Object.entries(c.operations)
      .every(([op, o]) => op === 'channel-digest' || (o.missing === 0 && o.stale === 0 && o.deferred === 0 && o.blocked === 0 && o.missingInput === 0)));
    await untilSnapshot(host!, 'the item work done on the pool', itemWorkDone, explain);
    ok(['lanes', 'resume', 'cpu']);
    await untilSnapshot(host!, 'all work done', allDone, explain);

    // The worker took the unit once and it ended ok; its upload went on from a byte inside the file.
    expect(said.filter((l) => l.includes(`took ${waiting} `))).toHaveLength(1);
    expect(said.filter((l) => l.includes(`${waiting} ended: `))).toEqual([`backlot worker: ${waiting} ended: ok`]);
    const starts = proxy.ranges.filter((r) => r.total === BYTES).map((r) => r.start);
    expect(starts.some((s) => s > 0 && s < BYTES)).toBe(true);

    const db = openDb(data);
    try {
      await until('no claim left', () => ((db.prepare('SELECT COUNT(*) FROM claims').pluck().get() as number) === 0 ? true : undefined), 60_000, 100);
      // The restarted host adopted the unit (its run log says so) and committed it once, with the engine's bytes.
      const adopted = db.prepare("SELECT COUNT(*) FROM run_logs WHERE text LIKE 'unit adopted on pool studio%' AND text LIKE ?").pluck().get(`%${waiting}%`) as number;
      expect(adopted).toBe(1);
      const rows = db.prepare('SELECT output_path, output_bytes, output_engine, attempts FROM work WHERE output_job = ?').all(waiting) as { output_path: string; output_bytes: number; output_engine: string; attempts: number }[];
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ output_bytes: BYTES, attempts: 0 });
      expect(rows[0].output_engine).toMatch(/@studio@/);
      const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');
      expect(sha(fs.readFileSync(rows[0].output_path))).toBe(sha(testEngineBytes(BYTES)));
      expect(db.prepare('SELECT COUNT(*) FROM work WHERE attempts > 0').pluck().get()).toBe(0);
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
    const queue = new Queue('cpu', { connection: bullOptions({ url: `redis://127.0.0.1:${redis.port}`, ca: null, username: 'backlot-admin', password: redis.password }), prefix: poolBullPrefix('studio') });
    try {
      const counts = await queue.getJobCounts('active', 'wait', 'waiting', 'completed', 'failed', 'delayed', 'prioritized', 'waiting-children');
      expect(Object.values(counts).every((n) => n === 0), JSON.stringify(counts)).toBe(true);
    } finally {
      await queue.close();
    }
    const tmp = path.join(data, TEMP_DIR_NAME);
    expect(fs.existsSync(tmp) ? fs.readdirSync(tmp) : []).toEqual([]);
    expect(await host.stop()).toBe(0);
  });
});
