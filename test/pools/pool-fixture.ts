// One host-side rig for the pool tests that drive the transport in-process (docs/pools.md "Tests"):
// a test redis-server, a library database with the transport settings, `PoolAdmin` for pools, the
// worker door and the host's PoolTransport, plus real `backlot worker` processes and the helpers each
// test used to copy (a worker's line, the lanes until a condition, BullMQ's counts, a unit's job).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { Queue } from 'bullmq';
import { openDatabase, type Db } from '../../src-main/db/connection';
import { SettingsStore } from '../../src-main/settings/settings-store';
import { PoolAdmin } from '../../src-main/pools/pool-admin';
import type { PoolSpec } from '../../src-main/pools/pool-spec';
import { openWorkerDoor, type WorkerDoor } from '../../src-main/pools/worker-door/door-server';
import { openPoolTransport, type PoolTransport } from '../../src-main/pools/transport/pool-transport';
import { bullOptions } from '../../src-main/pools/transport/connections';
import { poolBullPrefix } from '../../src-main/pools/transport/job-schema';
import { TEMP_DIR_NAME, prepareTemporaryOutputDir } from '../../src-main/engines/commit-output';
import { defaultOutputDir } from '../../src-main/engines/job-paths';
import { defaultSettings, type SettingsValues } from '../../src-shared/settings/settings-schema';
import type { InProcessIo, JobContext } from '../../src-main/engines/adapter';
import type { EngineOutcome } from '../../src-main/engines/runner';
import type { ChannelRecord, ItemRecord } from '../../src-main/library/repository';
import type { PoolLaneState } from '../../src-main/pools/pool-runtime';
import { exitOf, freePort, startRedis, waitForLine, type TestRedis } from './redis-server';

export const BIN = path.resolve('bin/backlot.mjs');
/** Deadlines for a loaded 2-core machine (process starts, a lease to lapse), never a measure of speed. */
export const LONG = 240_000;

export interface WorkerProc {
  child: ChildProcess;
  /** Its stdout, line by line, as it arrives. */
  out: string[];
  /** The worker id it printed when it started serving (empty when no lane is in service). */
  id: string;
}

export interface StartWorkerOptions {
  /** `--data` folder name under the rig's root. */
  name: string;
  extra?: string[];
  env?: NodeJS.ProcessEnv;
  /** The line that says it is ready (default: serving, or no lane in service). */
  ready?: RegExp;
  engines?: 'test' | 'production';
  /** `--slots cpu=N` (default 1). */
  cpuSlots?: number;
}

export const channel: ChannelRecord = { id: 'ch-1', kind: 'folder', platform: 'local', title: 'Channel', source: '/nowhere', sync_interval_s: null, last_sync_at: null, settings_json: '{}', created_at: 1, removed_at: null };

export class PoolRig {
  readonly started: ChildProcess[] = [];
  readonly mediaDir: string;

  private opened: PoolTransport | null = null;

  private constructor(
    readonly root: string, readonly lib: string, readonly redis: TestRedis, readonly db: Db,
    readonly admin: PoolAdmin, readonly door: WorkerDoor, readonly doorPort: number, private readonly pollMs: number,
  ) {
    this.mediaDir = path.join(root, 'media');
    fs.mkdirSync(this.mediaDir, { recursive: true });
  }

  /** The host's transport: opened with the first pool, as the host's is at its start (none while no pool exists). */
  get transport(): PoolTransport {
    if (!this.opened) throw new Error('no pool yet: addPool first');
    return this.opened;
  }

  /** Redis, a library, the door; the CLI built once (before workers would all find it stale). */
  static async start(prefix: string, options: { pollMs?: number } = {}): Promise<PoolRig> {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), `backlot-${prefix}-`));
    const redis = await startRedis(root);
    const lib = path.join(root, 'library');
    fs.mkdirSync(lib);
    const db = openDatabase(path.join(lib, 'backlot.sqlite'));
    const settings = new SettingsStore(db);
    settings.set('transport.redisUrl', `redis://backlot-admin@127.0.0.1:${redis.port}`);
    settings.set('transport.redisPassword', redis.password);
    const admin = new PoolAdmin(db, settings);
    const doorPort = await freePort();
    const door = await openWorkerDoor({ pools: admin.store, listen: `127.0.0.1:${doorPort}`, jobDir: (jobId) => path.join(lib, TEMP_DIR_NAME, jobId) });
    const built = spawnSync(process.execPath, [BIN, '--help'], { encoding: 'utf8', timeout: LONG });
    expect(built.status).toBe(0);
    return new PoolRig(root, lib, redis, db, admin, door, doorPort, options.pollMs ?? 300);
  }

  /**
   * Declares a pool and writes its join file; the transport opens with the first pool. `workerListen`
   * is where the join file sends workers (default: the door itself).
   */
  async addPool(spec: Partial<PoolSpec> & { name: string }, workerListen = `127.0.0.1:${this.doorPort}`): Promise<string> {
    const join = path.join(this.root, `${spec.name}.join`);
    await this.admin.add({ lanes: ['cpu'], slots: {}, media: 'http', maps: [], leaseS: 10, ...spec }, join, { workerListen });
    this.opened ??= openPoolTransport(this.db, this.door, { pollMs: this.pollMs });
    return join;
  }

  spawn(args: string[], env: NodeJS.ProcessEnv = {}): WorkerProc {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, BACKLOT_DATA: '', ...env } });
    this.started.push(child);
    const out: string[] = [];
    child.stdout!.on('data', (c: Buffer) => out.push(...c.toString('utf8').split('\n').filter((l) => l !== '')));
    child.stderr!.resume();
    return { child, out, id: '' };
  }

  async startWorker(join: string, o: StartWorkerOptions): Promise<WorkerProc> {
    const p = this.spawn(['worker', '--join', join, '--engines', o.engines ?? 'test', '--data', path.join(this.root, o.name), '--slots', `cpu=${o.cpuSlots ?? 1}`, ...(o.extra ?? [])], o.env);
    const ready = await waitForLine(p.child, o.ready ?? /backlot worker: (serving|no lane is in service)/);
    p.id = / as (\S+)/.exec(ready)?.[1] ?? '';
    if (!p.id) p.id = p.out.map((l) => / as (\S+)/.exec(l)?.[1]).find((x) => x !== undefined) ?? '';
    return p;
  }

  async stopWorker(p: WorkerProc): Promise<void> {
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM');
    expect(await exitOf(p.child)).toBe(0);
  }

  /** Resolves once `cond` holds, checked at each change of the pool lanes. */
  lanesUntil(cond: (lanes: PoolLaneState[]) => boolean, limitMs = 120_000): Promise<PoolLaneState[]> {
    const t = this.transport;
    return new Promise((resolve, reject) => {
      const done = () => {
        if (!cond(t.lanes())) return;
        off();
        clearTimeout(timer);
        resolve(t.lanes());
      };
      const off = t.onChange(done);
      const timer = setTimeout(() => { off(); reject(new Error(`lanes never matched: ${JSON.stringify(t.lanes())}`)); }, limitMs);
      done();
    });
  }

  async jobCounts(pool: string, lane = 'cpu'): Promise<Record<string, number>> {
    const queue = new Queue(lane, { connection: bullOptions({ url: `redis://127.0.0.1:${this.redis.port}`, ca: null, username: 'backlot-admin', password: this.redis.password }), prefix: poolBullPrefix(pool) });
    try {
      return await queue.getJobCounts('active', 'wait', 'waiting', 'completed', 'failed', 'delayed', 'prioritized', 'waiting-children');
    } finally {
      await queue.close();
    }
  }

  async noJobLeft(pool: string): Promise<boolean> {
    return Object.values(await this.jobCounts(pool)).every((n) => n === 0);
  }

  /** A unit's job as the executor prepares it: the item's media (random bytes) in the rig's media folder. */
  async unitJob(itemId: string, tag: string, settings: SettingsValues = defaultSettings(), operation: 'digest' | 'transcribe' = 'digest', mediaBytes = 50_000): Promise<JobContext> {
    const media = path.join(this.mediaDir, `${itemId}.opus`);
    if (!fs.existsSync(media)) fs.writeFileSync(media, crypto.randomBytes(mediaBytes));
    const item: ItemRecord = { id: itemId, channel_id: channel.id, external_id: itemId, title: itemId, published_at: 1, duration_s: 60, media_path: media, size_bytes: mediaBytes, mtime_ms: 1, fingerprint: null, media_state: 'local' };
    const jobId = `${tag}-${operation}-${itemId}`;
    const env = { dataDir: this.lib, modelsDir: path.join(this.lib, 'models'), resourcesDir: '', settings, gpu: { controllers: [], usable: [], slots: 0, reason: 'no GPU in the test' } };
    return {
      env, jobId, outputDir: await prepareTemporaryOutputDir(this.lib, jobId), operation, channel, item,
      inputs: { download: media }, attempts: 0, defaultOutputDir: defaultOutputDir(this.lib, channel.id, itemId, operation), budgetUsd: null,
    };
  }

  /** Runs a unit on the pool as the executor does; `io` collects the run log lines the transport writes. */
  run(pool: string, job: JobContext, options: { signal?: AbortSignal; engineId?: string; log?: InProcessIo['log'] } = {}): Promise<EngineOutcome> {
    const io: InProcessIo = { signal: options.signal ?? new AbortController().signal, progress: () => undefined, log: options.log ?? (() => undefined) };
    return this.transport.run({ pool, lane: 'cpu', unitKey: `${job.operation}:${job.jobId}`, claimToken: `claim-${job.jobId}`, engineId: options.engineId ?? 'test', job }, io);
  }

  /** Every process this rig started killed, then the transport, the door, the database and Redis; the folder removed. */
  async close(): Promise<void> {
    for (const child of this.started) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exitOf(child);
    }
    await this.opened?.close();
    await this.door?.close();
    this.db?.close();
    await this.redis?.stop();
    fs.rmSync(this.root, { recursive: true, force: true });
  }
}

/** A line on a worker's stdout, waited for as it arrives (from any of `from`). */
export function lineOf(from: WorkerProc | WorkerProc[], re: RegExp, limitMs = 120_000): Promise<{ worker: WorkerProc; line: string }> {
  const procs = Array.isArray(from) ? from : [from];
  return new Promise((resolve, reject) => {
    const listeners: [ChildProcess, () => void][] = [];
    const cleanup = () => { clearTimeout(timer); for (const [c, l] of listeners) c.stdout!.off('data', l); };
    const timer = setTimeout(() => { cleanup(); reject(new Error(`no worker printed ${re}: ${procs.map((p) => p.out.join('\n')).join('\n--\n')}`)); }, limitMs);
    const scan = () => {
      for (const p of procs) {
        const line = p.out.find((l) => re.test(l));
        if (line) { cleanup(); resolve({ worker: p, line }); return true; }
      }
      return false;
    };
    if (scan()) return;
    for (const p of procs) {
      const l = () => setImmediate(scan);
      listeners.push([p.child, l]);
      p.child.stdout!.on('data', l);
    }
  });
}
