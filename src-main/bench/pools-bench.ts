// `backlot bench pools` (issue 18 §4, docs/benchmarks.md "Pools"): the pool transport's own costs on
// loopback, through the host's real PoolTransport, worker door and `backlot worker` processes with
// trivial test-engine units: the overhead per unit, throughput with 1..N workers, recovery after a
// worker's kill -9, and Redis memory (jobs are removed at their end, so nothing grows without bound).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { Queue, QueueEvents } from 'bullmq';
import { BacklotError } from '../../src-shared/errors';
import { defaultSettings } from '../../src-shared/settings/settings-schema';
import { openDatabase } from '../db/connection';
import { SettingsStore } from '../settings/settings-store';
import { PoolAdmin } from '../pools/pool-admin';
import { DEFAULT_LEASE_S } from '../pools/pool-spec';
import { openWorkerDoor } from '../pools/worker-door/door-server';
import { openPoolTransport, type PoolTransport } from '../pools/transport/pool-transport';
import { bullConnection, bullOptions, type RedisPlace } from '../pools/transport/connections';
import { laneQueueName, poolBullPrefix } from '../pools/transport/job-schema';
import { TEMP_DIR_NAME, prepareTemporaryOutputDir } from '../engines/commit-output';
import { defaultOutputDir } from '../engines/job-paths';
import { testAdapter } from '../engines/test-engine/adapter';
import { runEngine, type EngineOutcome } from '../engines/runner';
import type { JobContext } from '../engines/adapter';
import type { ChannelRecord } from '../library/repository';
import { percentile, round } from './snapshot-measure';
import { processCpuSeconds } from './process-cpu';
import { lineOf, startBenchRedis, startBenchWorker, freePort, type BenchWorker } from './pools-rig';

export interface PoolsBenchOptions {
  /** Worker counts for the throughput runs, ascending (default 1, 2, 4). */
  workers: number[];
  /** Units per throughput run (and retained units for the memory figure, at most 1,000). */
  units: number;
  /** The pool's lease in seconds (default: a new pool's, 30 s). */
  leaseS?: number;
}

interface Spread { p50: number; p95: number; max: number }

/**
 * CPU milliseconds per completed unit of a throughput run, by process: the host (this process: the
 * transport, the door, the job folders), the workers (the `backlot worker` processes themselves),
 * their engines (everything the workers started) and redis-server. Read from /proc (Linux); null elsewhere.
 */
export interface CpuPerUnit { host: number; workers: number; engines: number; redis: number; total: number; perWorker: number[] }

interface CpuSample { host: number; workers: ({ self: number; children: number } | null)[]; redis: number | null }

export interface PoolsBenchResult {
  machine: { cpu: string; cores: number; loadAverage1m: number; node: string };
  redis: { version: string };
  leaseS: number;
  slotsPerWorker: number;
  overhead: { units: number; completed: number; totalMs: Spread; hostToAddedMs: Spread; addedToActiveMs: Spread; activeToEngineMs: Spread; engineSpawnLocalMs: Spread };
  throughput: { workers: number; units: number; completed: number; failed: Record<string, number>; seconds: number; unitsPerS: number; loadAverage1m: number; cpuMsPerUnit: CpuPerUnit | null; redisCallsPerUnit: Record<string, number> }[];
  recovery: { leaseS: number; completed: boolean; onAnotherWorker: boolean; killToRetakeMs: number; killToEndMs: number; ratioToLease: number };
  memory: { before: number; afterUnits: number; unitsRun: number; keysBefore: number; keysAfter: number; eventsAfter: number; retainedUnits: number; perRetainedUnit: number; afterRetainedDrained: number };
}

/** Per worker: a realistic CPU box serves a few units at once. */
const SLOTS = 4;
const TRIVIAL = 'item-trivial';
const SLOW = 'item-slow';
/** Trivial units write 64 bytes at once; the recovery's unit runs ~2 s, so it is killed mid-unit. */
const FAULTS = JSON.stringify({ [TRIVIAL]: { chunks: 1, chunkMs: 0, bytes: 64 }, [SLOW]: { chunks: 20, chunkMs: 100, bytes: 64 } });
const PASSWORD = crypto.randomBytes(18).toString('hex');

const spread = (xs: number[]): Spread => {
  const s = [...xs].sort((a, b) => a - b);
  return { p50: round(percentile(s, 50), 1), p95: round(percentile(s, 95), 1), max: round(s[s.length - 1] ?? 0, 1) };
};
/** A BullMQ events stream id is the Redis server's clock in ms (same machine as the workers'). */
const streamMs = (id: string): number => Number(id.split('-')[0]);

export async function benchPools(options: PoolsBenchOptions): Promise<PoolsBenchResult> {
  const leaseS = options.leaseS ?? DEFAULT_LEASE_S;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-bench-pools-'));
  const redis = await startBenchRedis(root, PASSWORD).catch((e: unknown) => { fs.rmSync(root, { recursive: true, force: true }); throw e; });
  const workers: BenchWorker[] = [];
  const closers: (() => Promise<void> | void)[] = [];
  try {
    const lib = path.join(root, 'library');
    fs.mkdirSync(lib);
    const db = openDatabase(path.join(lib, 'backlot.sqlite'));
    closers.push(() => { db.close(); });
    const settings = new SettingsStore(db);
    settings.set('transport.redisUrl', `redis://backlot-admin@127.0.0.1:${redis.port}`);
    settings.set('transport.redisPassword', PASSWORD);
    const admin = new PoolAdmin(db, settings);
    const listen = `127.0.0.1:${await freePort()}`;
    const joinFile = path.join(root, 'bench.join');
    await admin.add({ name: 'bench', lanes: ['cpu'], slots: {}, media: 'http', maps: [], leaseS }, joinFile, { workerListen: listen });
    // A pool no worker serves: its units wait in Redis, which is what a retained unit costs.
    await admin.add({ name: 'idle', lanes: ['cpu'], slots: {}, media: 'http', maps: [], leaseS }, path.join(root, 'idle.join'), { workerListen: listen });
    const door = await openWorkerDoor({ pools: admin.store, listen, jobDir: (jobId) => path.join(lib, TEMP_DIR_NAME, jobId) });
    closers.unshift(() => door.close());
    // Heartbeats are read between phases only (transport.refresh): a poll that lands while a unit's
    // job is being added ends that unit as WORKER_LOST (its job not in Redis yet), which this
    // benchmark found; docs/benchmarks.md "Pools" says more.
    const transport = openPoolTransport(db, door, { pollMs: 3_600_000 })!;
    closers.unshift(() => transport.close());
    const place: RedisPlace = { url: `redis://127.0.0.1:${redis.port}`, ca: null, username: 'backlot-admin', password: PASSWORD };
    const client = new Redis(bullConnection(place, { lazyConnect: false }));
    closers.unshift(() => { client.disconnect(); });
    const memory = async () => Number(/used_memory:(\d+)/.exec(await client.info('memory'))![1]);
    const units = new Units(lib, transport);

    const startWorkers = async (n: number) => {
      while (workers.length < n) workers.push(await startBenchWorker(joinFile, path.join(root, `worker-${workers.length + 1}`), SLOTS, FAULTS));
      await transport.refresh();
    };
    await startWorkers(1);
    const before = await memory();
    const keysBefore = await client.dbsize();

    // 1. Overhead: one unit at a time on one worker, each step timed by the clock that saw it.
    const events = new QueueEvents(laneQueueName('cpu'), { connection: bullOptions(place), prefix: poolBullPrefix('bench') });
    closers.unshift(() => events.close());
    const added = new Map<string, number>();
    const active = new Map<string, number>();
    events.on('added', ({ jobId }: { jobId: string }, id: string) => { added.set(jobId, streamMs(id)); });
    events.on('active', ({ jobId }: { jobId: string }, id: string) => { active.set(jobId, streamMs(id)); });
    await events.waitUntilReady();
    const overheadUnits = Math.min(options.units, 100);
    const ov = { total: [] as number[], host: [] as number[], pickup: [] as number[], start: [] as number[] };
    let overheadDone = 0;
    for (let i = 0; i < overheadUnits; i++) {
      const sent = Date.now();
      const { jobId, outcome } = await units.run('bench', TRIVIAL, `ov${i}`);
      if (!outcome.ok) continue;
      overheadDone++;
      const engine = Math.min(...outcome.logs.map((l) => l.at));
      const a = added.get(jobId);
      const b = active.get(jobId);
      ov.total.push(engine - sent);
      if (a !== undefined && b !== undefined) {
        ov.host.push(a - sent);
        ov.pickup.push(b - a);
        ov.start.push(engine - b);
      }
    }
    const spawnLocal = await engineSpawnLocal(lib, Math.min(overheadUnits, 20));

    // The overhead's own follower would count in the host's CPU below: it is closed now.
    await events.close();

    // 2. Throughput: all units through PoolTransport.run, twice the workers' slots in flight.
    const throughput: PoolsBenchResult['throughput'] = [];
    let unitsRun = overheadDone;
    const sampleCpu = (): CpuSample => {
      const host = process.cpuUsage();
      return { host: (host.user + host.system) / 1e6, workers: workers.map((w) => processCpuSeconds(w.child.pid!)), redis: processCpuSeconds(redis.pid)?.self ?? null };
    };
    for (const n of options.workers) {
      await startWorkers(n);
      await client.config('RESETSTAT');
      const cpu0 = sampleCpu();
      const t0 = Date.now();
      const failed: Record<string, number> = {};
      let next = 0;
      let completed = 0;
      const lane = async () => {
        while (next < options.units) {
          const { outcome } = await units.run('bench', TRIVIAL, `w${n}-${next++}`);
          if (outcome.ok) completed++; else failed[outcome.code] = (failed[outcome.code] ?? 0) + 1;
        }
      };
      await Promise.all(Array.from({ length: 2 * SLOTS * n }, lane));
      const seconds = (Date.now() - t0) / 1000;
      const cpuMsPerUnit = cpuPerUnit(cpu0, sampleCpu(), completed);
      const redisCallsPerUnit = callsPerUnit(await client.info('commandstats'), completed);
      unitsRun += completed;
      throughput.push({ workers: n, units: options.units, completed, failed, seconds: round(seconds, 2), unitsPerS: round(completed / seconds, 1), loadAverage1m: round(os.loadavg()[0], 2), cpuMsPerUnit, redisCallsPerUnit });
    }
    await transport.settled();
    const afterUnits = await memory();
    const keysAfter = await client.dbsize();
    // What remains of the units: BullMQ's events stream, trimmed to about 10,000 entries (its default maxLen).
    const eventsAfter = await client.xlen(`${poolBullPrefix('bench')}:${laneQueueName('cpu')}:events`);

    // 4. Retained units: jobs of a pool without workers wait in Redis; given up, they are removed.
    const retainedUnits = Math.min(options.units, 1000);
    const idleQueue = new Queue(laneQueueName('cpu'), { connection: bullOptions(place), prefix: poolBullPrefix('idle') });
    closers.unshift(() => idleQueue.close());
    const beforeRetained = await memory();
    const aborts = Array.from({ length: retainedUnits }, () => new AbortController());
    const waiting = aborts.map((a, i) => units.run('idle', TRIVIAL, `r${i}`, a.signal));
    const limit = Date.now() + 120_000;
    while ((await idleQueue.getWaitingCount()) < retainedUnits) {
      if (Date.now() > limit) throw new BacklotError('BENCH_FAILED', `the ${retainedUnits} units of the idle pool were not all in Redis within 120 s`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const perRetainedUnit = Math.round((await memory() - beforeRetained) / retainedUnits);
    for (const a of aborts) a.abort();
    await Promise.all(waiting);
    await transport.settled();
    const afterRetainedDrained = await memory();

    // 3. Recovery: the worker holding a ~2 s unit is killed; the unit ends on another after the lease lapses.
    await startWorkers(Math.max(2, workers.length));
    for (const w of workers) w.lines.splice(0);
    const slow = units.run('bench', SLOW, 'recovery');
    const took = await lineOf(workers, /took [^ ]*recovery/, 120_000);
    const killedAt = Date.now();
    took.worker.child.kill('SIGKILL');
    const { outcome } = await slow;
    const endedAt = Date.now();
    const others = workers.filter((w) => w !== took.worker);
    const retake = others.flatMap((w) => w.lines).find((l) => /took [^ ]*recovery/.test(l.text));
    const by = outcome.ok ? (outcome.metadata.pool as { worker?: { id?: string } } | undefined)?.worker?.id : undefined;
    const cpus = os.cpus();
    return {
      machine: { cpu: cpus[0]?.model ?? 'unknown', cores: cpus.length, loadAverage1m: round(os.loadavg()[0], 2), node: process.version },
      redis: { version: redis.version }, leaseS, slotsPerWorker: SLOTS,
      overhead: { units: overheadUnits, completed: overheadDone, totalMs: spread(ov.total), hostToAddedMs: spread(ov.host), addedToActiveMs: spread(ov.pickup), activeToEngineMs: spread(ov.start), engineSpawnLocalMs: spread(spawnLocal) },
      throughput,
      recovery: {
        leaseS, completed: outcome.ok, onAnotherWorker: by !== undefined && by !== took.worker.id,
        killToRetakeMs: retake ? retake.at - killedAt : -1, killToEndMs: endedAt - killedAt, ratioToLease: round((endedAt - killedAt) / (leaseS * 1000), 2),
      },
      memory: { before, afterUnits, unitsRun, keysBefore, keysAfter, eventsAfter, retainedUnits, perRetainedUnit, afterRetainedDrained },
    };
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    for (const close of closers) await Promise.resolve().then(close).catch(() => undefined);
    await redis.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/** Redis commands per completed unit, by command, from `INFO commandstats` (reset before the run), with their total. */
function callsPerUnit(info: string, units: number): Record<string, number> {
  const out: Record<string, number> = {};
  let total = 0;
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    if (m[1] === 'info' || m[1] === 'config') continue;
    out[m[1]] = round(Number(m[2]) / Math.max(1, units), 2);
    total += Number(m[2]);
  }
  return { total: round(total / Math.max(1, units), 2), ...out };
}

function cpuPerUnit(a: CpuSample, b: CpuSample, units: number): CpuPerUnit | null {
  if (units === 0 || a.redis === null || b.redis === null) return null;
  const ms = (seconds: number) => round((seconds * 1000) / units, 2);
  const perWorker: number[] = [];
  let engines = 0;
  for (const [i, after] of b.workers.entries()) {
    const before = a.workers[i];
    if (!after || !before) return null;
    perWorker.push(after.self - before.self);
    engines += after.children - before.children;
  }
  const host = b.host - a.host;
  const workers = perWorker.reduce((x, y) => x + y, 0);
  const redis = b.redis - a.redis;
  return { host: ms(host), workers: ms(workers), engines: ms(engines), redis: ms(redis), total: ms(host + workers + engines + redis), perWorker: perWorker.map(ms) };
}

/** Units as the executor hands them to a pool runtime: a prepared job folder, settled after the run. */
class Units {
  private readonly channel: ChannelRecord = { id: 'ch-bench', kind: 'folder', platform: 'local', title: 'Bench', source: '/nowhere', sync_interval_s: null, last_sync_at: null, settings_json: '{}', created_at: 1, removed_at: null };
  private readonly media: string;

  constructor(private readonly lib: string, private readonly transport: PoolTransport) {
    this.media = path.join(lib, 'media', 'bench.opus');
    fs.mkdirSync(path.dirname(this.media), { recursive: true });
    fs.writeFileSync(this.media, crypto.randomBytes(1024));
  }

  async job(itemId: string, tag: string): Promise<JobContext> {
    const jobId = `${tag}-digest-${itemId}`;
    const env = { dataDir: this.lib, modelsDir: path.join(this.lib, 'models'), resourcesDir: '', settings: defaultSettings(), gpu: { controllers: [], usable: [], slots: 0, reason: 'bench' } };
    return {
      env, jobId, outputDir: await prepareTemporaryOutputDir(this.lib, jobId), operation: 'digest', channel: this.channel,
      item: { id: itemId, channel_id: this.channel.id, external_id: itemId, title: itemId, published_at: 1, duration_s: 60, media_path: this.media, size_bytes: 1024, mtime_ms: 1, fingerprint: null, media_state: 'local' },
      inputs: { download: this.media }, attempts: 0, defaultOutputDir: defaultOutputDir(this.lib, this.channel.id, itemId, 'digest'), budgetUsd: null,
    };
  }

  async run(pool: string, itemId: string, tag: string, signal = new AbortController().signal): Promise<{ jobId: string; outcome: EngineOutcome }> {
    const job = await this.job(itemId, tag);
    try {
      const outcome = await this.transport.run({ pool, lane: 'cpu', unitKey: `digest:${tag}`, claimToken: `claim-${tag}`, engineId: 'test', job }, { signal, progress: () => undefined, log: () => undefined });
      return { jobId: job.jobId, outcome };
    } finally {
      fs.rmSync(job.outputDir, { recursive: true, force: true });
    }
  }
}

/** The test engine's own start here (spawn to its first line), the part of the overhead no transport removes. */
async function engineSpawnLocal(lib: string, n: number): Promise<number[]> {
  const adapter = testAdapter('digest', { chunks: 1, chunkMs: 0, bytes: 64 });
  const units = new Units(lib, null as unknown as PoolTransport);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const job = await units.job(TRIVIAL, `local${i}`);
    const launch = await adapter.launch(job);
    if (launch.kind !== 'process') break;
    const t0 = Date.now();
    const outcome = await runEngine(launch.command, { jobId: job.jobId, operation: 'digest', outputDir: job.outputDir, input: launch.input });
    if (outcome.logs.length > 0) out.push(Math.min(...outcome.logs.map((l) => l.at)) - t0);
    fs.rmSync(job.outputDir, { recursive: true, force: true });
  }
  return out;
}
