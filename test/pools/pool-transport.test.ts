// Units of a pool lane run on real `backlot worker` processes (docs/pools.md "A unit on a worker"):
// a test redis-server with the pool's ACL user, the worker door over HTTP, the host's PoolTransport,
// and two workers with the test engines. Every unit ends once with the bytes a local run writes;
// kill -9 of the worker holding a unit hands it to the other; stale or foreign credentials are
// refused; no BullMQ job and no upload is left behind.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, Worker } from 'bullmq';
import { openDatabase } from '../../src-main/db/connection';
import type { PoolAdmin } from '../../src-main/pools/pool-admin';
import { PoolStore } from '../../src-main/pools/pool-store';
import { readJoinFile, writeJoinFile } from '../../src-main/pools/join-file';
import type { WorkerDoor } from '../../src-main/pools/worker-door/door-server';
import { PoolTransport } from '../../src-main/pools/transport/pool-transport';
import { Redis } from 'ioredis';
import { bullConnection, bullOptions, workerPlace } from '../../src-main/pools/transport/connections';
import { JOB_FORMAT, RESULT_FORMAT, hostSettingsRefKey, poolBullPrefix, type PoolJob, type PoolResult } from '../../src-main/pools/transport/job-schema';
import { jobSettings, settingsRef } from '../../src-main/pools/transport/job-settings';
import type { PoolLaneState } from '../../src-main/pools/pool-runtime';
import { TEMP_DIR_NAME, prepareTemporaryOutputDir } from '../../src-main/engines/commit-output';
import { defaultOutputDir } from '../../src-main/engines/job-paths';
import { testAdapter } from '../../src-main/engines/test-engine/adapter';
import { runEngine, type EngineOutcome } from '../../src-main/engines/runner';
import { defaultSettings } from '../../src-shared/settings/settings-schema';
import type { JobContext } from '../../src-main/engines/adapter';
import type { ChannelRecord, ItemRecord } from '../../src-main/library/repository';
import { fetchUnitFile } from '../../src-main/worker/door-client';
import { exitOf, freePort, type TestRedis } from './redis-server';
import { BIN, LONG, PoolRig, lineOf as lineOnWorkers, type WorkerProc } from './pool-fixture';

const SLOW_ITEM = 'item-slow';
const FAULTS = JSON.stringify({ [SLOW_ITEM]: { chunkMs: 250, chunks: 40 } });

let rig: PoolRig;
let root: string;
let lib: string;
let redis: TestRedis;
let admin: PoolAdmin;
let door: WorkerDoor;
let transport: PoolTransport;
let joinFile: string;
let seedboxJoin: string;
const workers: WorkerProc[] = [];
const env = { dataDir: '', modelsDir: '', resourcesDir: '', settings: defaultSettings(), gpu: { controllers: [], usable: [], slots: 0, reason: 'no GPU in the test' } };

beforeAll(async () => {
  rig = await PoolRig.start('transport');
  ({ root, lib, redis, admin, door } = rig);
  env.dataDir = lib;
  env.modelsDir = path.join(lib, 'models');
  joinFile = await rig.addPool({ name: 'studio', leaseS: 10 });
  seedboxJoin = await rig.addPool({ name: 'seedbox', slots: { cpu: 1 }, leaseS: 5 });
  // As the host makes it: from its database and its open worker door.
  transport = rig.transport;
  for (const n of [1, 2]) workers.push(await startWorker(n));
}, LONG * 2);

afterAll(async () => {
  await rig?.close();
}, LONG);

const startWorker = (n: number): Promise<WorkerProc> =>
  rig.startWorker(joinFile, { name: `worker-${n}`, cpuSlots: 2, env: { BACKLOT_TEST_FAULTS: FAULTS }, ready: /backlot worker: serving cpu@studio \(2 slots\) as (\S+)/ });

/** Resolves once `cond` holds, checked at each change of the pool lanes; fails after the limit. */
const lanesUntil = (cond: (lanes: PoolLaneState[]) => boolean, limitMs = 60_000): Promise<PoolLaneState[]> => rig.lanesUntil(cond, limitMs);

/** A line on a worker's stdout, waited for as it arrives. */
const lineOf = (re: RegExp, from = workers, limitMs = 60_000): Promise<{ worker: WorkerProc; line: string }> => lineOnWorkers(from, re, limitMs);

const channel: ChannelRecord = { id: 'ch-1', kind: 'folder', platform: 'local', title: 'Channel', source: '/nowhere', sync_interval_s: null, last_sync_at: null, settings_json: '{}', created_at: 1, removed_at: null };

async function unitJob(itemId: string, tag = 'run1'): Promise<JobContext> {
  const media = path.join(lib, 'media', `${itemId} episode.opus`);
  fs.mkdirSync(path.dirname(media), { recursive: true });
  fs.writeFileSync(media, crypto.randomBytes(200_000 + itemId.length));
  const transcript = path.join(lib, 'outputs', itemId, 'transcript.json');
  fs.mkdirSync(path.dirname(transcript), { recursive: true });
  fs.writeFileSync(transcript, JSON.stringify({ item: itemId }));
  const item: ItemRecord = { id: itemId, channel_id: channel.id, external_id: itemId, title: itemId, published_at: 1, duration_s: 60, media_path: media, size_bytes: 200_000, mtime_ms: 1, fingerprint: null, media_state: 'local' };
  const jobId = `${tag}-digest-${itemId}`;
  return {
    env, jobId, outputDir: await prepareTemporaryOutputDir(lib, jobId), operation: 'digest', channel, item,
    inputs: { download: media, transcribe: transcript }, attempts: 0, defaultOutputDir: defaultOutputDir(lib, channel.id, itemId, 'digest'), budgetUsd: null,
  };
}

const io = (signal = new AbortController().signal) => ({ signal, progress: () => undefined, log: () => undefined });

/** What the same test engine writes for this item when run here. */
async function localBytes(job: JobContext): Promise<Buffer> {
  const faults = JSON.parse(FAULTS) as Record<string, Record<string, unknown>>;
  const launch = await testAdapter('digest', { faults }).launch(job);
  if (launch.kind !== 'process') throw new Error('the test engine is a process');
  const dir = fs.mkdtempSync(path.join(root, 'local-'));
  const outcome = await runEngine(launch.command, { jobId: job.jobId, operation: 'digest', outputDir: dir, input: launch.input });
  if (!outcome.ok) throw new Error(outcome.code);
  return fs.readFileSync(outcome.outputs[0].path);
}

const jobCounts = (pool: string): Promise<Record<string, number>> => rig.jobCounts(pool);

const tookLines = (jobId: string): number => workers.reduce((n, w) => n + w.out.filter((l) => l.includes(`took ${jobId} `)).length, 0);

/** The executor's part after a run: the outcome's files are all that lies in the job's folder; then the folder goes. */
function settleLikeExecutor(job: JobContext, outcome: EngineOutcome): void {
  if (outcome.ok) expect(fs.readdirSync(job.outputDir).sort()).toEqual(outcome.outputs.map((o) => path.basename(o.path)).sort());
  fs.rmSync(job.outputDir, { recursive: true, force: true });
}

describe('the transport itself', () => {
  it('touches no Redis while no pool exists, and holds every lane with POOL_TRANSPORT_DOWN when Redis cannot be reached', async () => {
    const other = openDatabase(path.join(root, 'no-pools.sqlite'));
    let asked = 0;
    const idle = new PoolTransport({ pools: new PoolStore(other), tickets: door.tickets, place: () => { asked++; throw new Error('no pool, no Redis'); }, pollMs: 100 });
    await idle.refresh();
    expect(idle.lanes()).toEqual([]);
    expect(asked).toBe(0);
    await idle.close();
    other.close();

    const deadPort = await freePort();
    const down = new PoolTransport({ pools: admin.store, tickets: door.tickets, place: () => ({ url: `redis://127.0.0.1:${deadPort}`, ca: null, username: 'backlot-admin', password: 'x' }), pollMs: 100 });
    try {
      await down.refresh();
      expect(down.lanes().map((l) => [l.queueKey, l.hold?.code])).toEqual([['cpu@seedbox', 'POOL_TRANSPORT_DOWN'], ['cpu@studio', 'POOL_TRANSPORT_DOWN']]);
      const job = await unitJob('item-down', 'down');
      const outcome = await down.run({ pool: 'studio', lane: 'cpu', unitKey: 'digest:item-down', claimToken: 'c', engineId: 'test', job }, io());
      expect(outcome).toMatchObject({ ok: false, code: 'POOL_TRANSPORT_DOWN' });
      settleLikeExecutor(job, outcome);
    } finally {
      await down.close();
    }
  });
  it('refuses, before touching Redis, a unit for a lane or pool it does not serve, and a channel roll-up', async () => {
    const job = await unitJob('item-refused', 'refused');
    const before = await jobCounts('studio');
    for (const [pool, lane] of [['studio', 'gpu'], ['gone', 'cpu']] as const) {
      const outcome = await transport.run({ pool, lane, unitKey: 'digest:item-refused', claimToken: 'c', engineId: 'test', job }, io());
      expect(outcome).toMatchObject({ ok: false, code: 'POOL_LANE_GONE', params: { lane: `${lane}@${pool}` } });
    }
    const rollup = await transport.run({ pool: 'studio', lane: 'cpu', unitKey: 'channel-digest:ch-1', claimToken: 'c', engineId: 'test', job: { ...job, rollup: { items: [] } } as unknown as JobContext }, io());
    expect(rollup).toMatchObject({ ok: false, code: 'POOL_NOT_REMOTABLE' });
    expect(await jobCounts('studio')).toEqual(before);
    settleLikeExecutor(job, rollup);
  });
});

describe('the fences against what a worker answers', () => {
  it('refuses a forged claim token, outputs never uploaded, names that are paths and answers of the wrong shape', async () => {
    // A worker of pool seedbox that lies in each way a compromised one could, with seedbox's own credentials.
    const { join } = readJoinFile(seedboxJoin);
    const lies: Record<string, (data: PoolJob) => unknown> = {
      'forged-claim': (d) => answer(d, { claimToken: 'someone-else' }),
      'not-uploaded': (d) => answer(d, { outcome: { ok: true, outputs: [{ name: 'output', file: 'output.bin', uploaded: 'uffff-output.bin', bytes: 3, sha256: '0'.repeat(64) }], metadata: {} } }),
      'path-name': (d) => answer(d, { outcome: { ok: true, outputs: [{ name: 'output', file: '../../escape.bin', uploaded: 'u1-output.bin', bytes: 3, sha256: '0'.repeat(64) }], metadata: {} } }),
      'bad-shape': () => ({ format: 'anything', run: 'rm -rf /' }),
    };
    const forger = new Worker('cpu', async (job) => lies[(job.data as PoolJob).unitKey](job.data as PoolJob), { connection: bullOptions(workerPlace(join)), prefix: poolBullPrefix('seedbox'), concurrency: 4 });
    try {
      const expected: Record<string, string> = { 'forged-claim': 'POOL_FENCE_REFUSED', 'not-uploaded': 'POOL_OUTPUT_REFUSED', 'path-name': 'POOL_RESULT_INVALID', 'bad-shape': 'POOL_RESULT_INVALID' };
      for (const [unitKey, code] of Object.entries(expected)) {
        const job = await unitJob(`item-${unitKey}`, 'forged');
        const outcome = await transport.run({ pool: 'seedbox', lane: 'cpu', unitKey, claimToken: 'claim-real', engineId: 'test', job }, io());
        expect(outcome, JSON.stringify(outcome)).toMatchObject({ ok: false, code });
        settleLikeExecutor(job, outcome);
      }
    } finally {
      await forger.close();
    }
    expect(Object.values(await jobCounts('seedbox')).every((n) => n === 0)).toBe(true);
    expect(fs.existsSync(path.join(lib, 'escape.bin'))).toBe(false);
  }, LONG);
});

function answer(d: PoolJob, over: Partial<PoolResult>): PoolResult {
  return {
    format: RESULT_FORMAT, jobId: d.jobId, unitKey: d.unitKey, claimToken: d.claimToken, worker: { id: 'forger', host: 'forger', version: '0' },
    engine: { id: 'test', fingerprint: 'x' }, logs: [], diagnostic: '', outcome: { ok: false, code: 'NEVER', params: {} }, ...over,
  };
}

describe('units of a pool lane on two backlot worker processes', () => {
  it('shows the lane with both workers, runs every unit once with the local bytes, and leaves nothing behind', async () => {
    const lanes = await lanesUntil((ls) => ls.some((l) => l.queueKey === 'cpu@studio' && l.workers.length === 2 && l.hold === null));
    expect(lanes.find((l) => l.queueKey === 'cpu@studio')).toMatchObject({ pool: 'studio', lane: 'cpu', slots: 4, hold: null });
    // Seedbox has no worker: offline, with its declared slot.
    expect(lanes.find((l) => l.queueKey === 'cpu@seedbox')).toMatchObject({ slots: 1, hold: { code: 'POOL_OFFLINE' } });

    const jobs = await Promise.all(['item-a', 'item-b', 'item-c', 'item-d', 'item-e', 'item-f'].map((id) => unitJob(id)));
    const outcomes = await Promise.all(jobs.map((job, i) => transport.run({ pool: 'studio', lane: 'cpu', unitKey: `digest:${job.item!.id}`, claimToken: `claim-${i}`, engineId: 'test', job }, io())));
    for (const [i, outcome] of outcomes.entries()) {
      expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
      if (!outcome.ok) continue;
      expect(outcome.outputs).toHaveLength(1);
      expect(path.dirname(outcome.outputs[0].path)).toBe(jobs[i].outputDir);
      expect(fs.readFileSync(outcome.outputs[0].path).equals(await localBytes(jobs[i]))).toBe(true);
      expect((outcome.metadata.pool as { engine: { id: string } }).engine.id).toBe('test@studio');
      expect(tookLines(jobs[i].jobId)).toBe(1);
      settleLikeExecutor(jobs[i], outcome);
    }
    expect(Object.values(await jobCounts('studio')).every((n) => n === 0)).toBe(true);
    expect(fs.readdirSync(path.join(lib, TEMP_DIR_NAME))).toEqual([]);
  }, LONG);

  it('refuses a stale door token, another pool\'s credentials and a ticket that is not the unit\'s', async () => {
    const { join } = readJoinFile(joinFile);
    const seedbox = readJoinFile(seedboxJoin).join;
    const file = path.join(lib, 'media', 'ticketed.opus');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, 'bytes on a ticket');
    const t = door.tickets.issueUnitTicket('studio', 'unit-refusals', [file]);
    const dest = path.join(root, 'fetched.opus');
    const codeOf = (p: Promise<unknown>) => p.then(() => 'accepted', (e: { code?: string }) => e.code ?? String(e));
    expect(await codeOf(fetchUnitFile({ door: { url: join.door.url, token: 'a-wrong-door-token-0000000000' }, pool: 'studio', unitId: 'unit-refusals' }, t.ticket, 0, 17, dest))).toBe('DOOR_TOKEN_INVALID');
    expect(await codeOf(fetchUnitFile({ door: seedbox.door, pool: 'studio', unitId: 'unit-refusals' }, t.ticket, 0, 17, dest))).toBe('DOOR_TOKEN_INVALID');
    expect(await codeOf(fetchUnitFile({ door: join.door, pool: 'studio', unitId: 'unit-refusals' }, 'not-the-ticket-of-this-unit-000', 0, 17, dest))).toBe('TICKET_INVALID');
    await fetchUnitFile({ door: join.door, pool: 'studio', unitId: 'unit-refusals' }, t.ticket, 0, 17, dest);
    expect(fs.readFileSync(dest, 'utf8')).toBe('bytes on a ticket');

    // A worker started with a stale door token, or with seedbox's Redis user on studio's queue, refuses to start.
    const stale = writeJoinFile(path.join(root, 'stale-door.join'), { ...join, door: { ...join.door, token: 'a-wrong-door-token-0000000000' } });
    const foreign = writeJoinFile(path.join(root, 'foreign.join'), { ...join, redis: { ...join.redis, url: seedbox.redis.url } });
    // (Spawned, not spawnSync: the door answers from this process.)
    for (const [file2, code] of [[stale, 'DOOR_TOKEN_INVALID'], [foreign, 'TRANSPORT_NOT_ALLOWED']] as const) {
      const child = spawn(process.execPath, [BIN, 'worker', '--join', file2, '--engines', 'test', '--data', path.join(root, 'worker-refused')], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, BACKLOT_DATA: '' } });
      let said = '';
      child.stdout!.on('data', (c: Buffer) => { said += c.toString('utf8'); });
      child.stderr!.on('data', (c: Buffer) => { said += c.toString('utf8'); });
      const ended = await Promise.race([exitOf(child), new Promise<'running'>((resolve) => setTimeout(() => resolve('running'), 60_000))]);
      if (ended === 'running') child.kill('SIGKILL');
      expect(said).toContain(code);
      expect(ended).toBe(1);
    }
  }, LONG);

  it('hands the host the engine\'s keyed progress while a worker runs the unit; cancels it when the host gives it up, and removes its job', async () => {
    const job = await unitJob(SLOW_ITEM, 'run2');
    const abort = new AbortController();
    // The worker reports the engine's progress as the job's; the host hands it on checked and keyed
    // (docs/i18n.md "Progress messages"). The slow unit reports until cancelled, so this waits on an event.
    const reports: { ratio: number; message?: unknown }[] = [];
    let keyed!: () => void;
    const heardKeyed = new Promise<void>((resolve) => { keyed = resolve; });
    const unitIo = { ...io(abort.signal), progress: (ratio: number, message?: unknown) => { reports.push({ ratio, message }); if ((message as { key?: string } | undefined)?.key) keyed(); } };
    const running = transport.run({ pool: 'studio', lane: 'cpu', unitKey: `digest:${SLOW_ITEM}`, claimToken: 'claim-cancelled', engineId: 'test', job }, unitIo);
    await lineOf(new RegExp(`took ${job.jobId} `));
    await heardKeyed;
    const first = reports.find((r) => (r.message as { key?: string } | undefined)?.key)!;
    expect(first.ratio).toBeGreaterThan(0);
    expect(first.message).toEqual({ text: expect.stringMatching(/^chunk \d+ of 40$/), key: 'chunkOf', params: { chunk: expect.any(Number), of: 40 } });
    abort.abort();
    expect(await running).toMatchObject({ ok: false, code: 'ENGINE_CANCELLED' });
    // The worker stops the engine and answers; the host removes the job then.
    await transport.settled();
    expect(Object.values(await jobCounts('studio')).every((n) => n === 0)).toBe(true);
    settleLikeExecutor(job, await running);
    for (const w of workers) w.out.splice(0);
  }, LONG);

  it('refuses the late answer of a worker frozen past its lease; the other worker\'s is committed once', async () => {
    const job = await unitJob(SLOW_ITEM, 'run3');
    const running = transport.run({ pool: 'studio', lane: 'cpu', unitKey: `digest:${SLOW_ITEM}`, claimToken: 'claim-frozen', engineId: 'test', job }, io());
    const frozen = (await lineOf(new RegExp(`took ${job.jobId} `))).worker;
    // A sleeping laptop: its process stops, its lock lapses, the other worker takes the unit.
    process.kill(frozen.child.pid!, 'SIGSTOP');
    let outcome: EngineOutcome;
    try {
      outcome = await running;
    } finally {
      process.kill(frozen.child.pid!, 'SIGCONT');
    }
    expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
    if (!outcome.ok) return;
    const survivor = workers.find((w) => w !== frozen)!;
    expect((outcome.metadata.pool as { worker: { id: string } }).worker.id).toBe(survivor.id);
    expect(fs.readFileSync(outcome.outputs[0].path).equals(await localBytes(job))).toBe(true);
    settleLikeExecutor(job, outcome);
    // Awake again, the frozen worker finds its unit gone: its lock, its upload token or both refuse it.
    const late = await lineOf(new RegExp(`${job.jobId} ended: `), [frozen]);
    expect(late.line).toMatch(/ended: (WORKER_LOCK_LOST|UPLOAD_TOKEN_REFUSED|UPLOAD_TOKEN_REVOKED|TICKET_REVOKED)$/);
    expect(fs.existsSync(job.outputDir)).toBe(false);
    expect(Object.values(await jobCounts('studio')).every((n) => n === 0)).toBe(true);
    for (const w of workers) w.out.splice(0);
  }, LONG);

  it('hands a unit whose worker is killed mid-job to the other worker, which finishes it exactly once', async () => {
    const job = await unitJob(SLOW_ITEM);
    const running = transport.run({ pool: 'studio', lane: 'cpu', unitKey: `digest:${SLOW_ITEM}`, claimToken: 'claim-slow', engineId: 'test', job }, io());
    const first = await lineOf(new RegExp(`took ${job.jobId} `));
    first.worker.child.kill('SIGKILL');
    await exitOf(first.worker.child);
    const outcome = await running;
    expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
    if (!outcome.ok) return;
    const survivor = workers.find((w) => w !== first.worker)!;
    expect((outcome.metadata.pool as { worker: { id: string } }).worker.id).toBe(survivor.id);
    expect(survivor.out.filter((l) => l.includes(`took ${job.jobId} `))).toHaveLength(1);
    expect(fs.readFileSync(outcome.outputs[0].path).equals(await localBytes(job))).toBe(true);
    settleLikeExecutor(job, outcome);
    expect(Object.values(await jobCounts('studio')).every((n) => n === 0)).toBe(true);
    expect(fs.readdirSync(path.join(lib, TEMP_DIR_NAME))).toEqual([]);
    // The dead worker's heartbeat lapses with the lease: the lane keeps the survivor's slots only.
    await lanesUntil((ls) => ls.some((l) => l.queueKey === 'cpu@studio' && l.workers.length === 1 && l.slots === 2));
  }, LONG);

  it('at a host\'s start, adopts a claim whose job is still there and lets a missing, failed or foreign one go (the failed job removed)', async () => {
    const admin = (pool: string) => new Queue('cpu', { connection: bullOptions({ url: `redis://127.0.0.1:${redis.port}`, ca: null, username: 'backlot-admin', password: redis.password }), prefix: poolBullPrefix(pool) });
    const claim = { pool: 'studio', lane: 'cpu' as const, unitKey: 'digest\u0000item-adopt', claimToken: 'token-adopt', jobId: 'adopt-1' };
    expect(await transport.inquire(claim)).toBe('gone');
    const studio = admin('studio');
    const seedbox = admin('seedbox');
    try {
      // A job of the wrong shape: a worker fails it (POOL_JOB_INVALID).
      await studio.add('digest', { format: 'not-a-job', claimToken: claim.claimToken, unitKey: claim.unitKey }, { jobId: claim.jobId, attempts: 1, removeOnComplete: false, removeOnFail: false });
      for (let i = 0; (await studio.getJobState(claim.jobId)) !== 'failed'; i++) {
        if (i > 600) throw new Error('no worker failed the job');
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(await transport.inquire({ ...claim, claimToken: 'another-claim' })).toBe('gone');
      expect(await studio.getJobState(claim.jobId)).toBe('failed');
      expect(await transport.inquire(claim)).toBe('gone');
      expect(await studio.getJobState(claim.jobId)).toBe('unknown');
      // A job of this claim still waiting (no worker serves seedbox): followed, not sent again.
      await seedbox.add('digest', { claimToken: claim.claimToken, unitKey: claim.unitKey }, { jobId: 'adopt-2', attempts: 1, removeOnComplete: false, removeOnFail: false });
      expect(await transport.inquire({ ...claim, pool: 'seedbox', jobId: 'adopt-2' })).toBe('adopt');
      await (await seedbox.getJob('adopt-2'))!.remove();
    } finally {
      await studio.close();
      await seedbox.close();
    }
  });

  it('sends the settings by reference, and a job whose reference Redis does not hold fails as POOL_JOB_INVALID, saying so', async () => {
    const studio = new Queue('cpu', { connection: bullOptions({ url: `redis://127.0.0.1:${redis.port}`, ca: null, username: 'backlot-admin', password: redis.password }), prefix: poolBullPrefix('studio') });
    try {
      // The units above named the host's settings by their hash: written once, under the pool's prefix.
      const text = JSON.stringify(jobSettings(defaultSettings()));
      const client = new Redis(bullConnection({ url: `redis://127.0.0.1:${redis.port}`, ca: null, username: 'backlot-admin', password: redis.password }));
      try {
        expect(await client.get(hostSettingsRefKey('studio', settingsRef(text)))).toBe(text);
      } finally {
        client.disconnect();
      }
      const missing = 'f'.repeat(64);
      const data: PoolJob = {
        format: JOB_FORMAT, pool: 'studio', lane: 'cpu', jobId: 'ref-missing', unitKey: 'digest:item-ref', claimToken: 'claim-ref', operation: 'digest', engineId: 'test',
        channel: { id: 'ch-1', kind: 'folder', platform: 'local', title: 'Channel', source: '/nowhere', sync_interval_s: null, last_sync_at: null, settings_json: '{}', created_at: 1, removed_at: null },
        item: null, attempts: 0, budgetUsd: null, files: [], media: null, inputs: {},
        door: { ticket: 't'.repeat(32), uploadToken: 'u'.repeat(32), unitId: 'ref-missing' }, leaseMs: 10_000, settingsRef: missing,
      };
      await studio.add('digest', data, { jobId: 'ref-missing', attempts: 1, removeOnComplete: false, removeOnFail: false });
      for (let i = 0; (await studio.getJobState('ref-missing')) !== 'failed'; i++) {
        if (i > 600) throw new Error('no worker failed the job');
        await new Promise((r) => setTimeout(r, 100));
      }
      const failed = await studio.getJob('ref-missing');
      expect(failed!.failedReason).toBe(`POOL_JOB_INVALID: the host's settings the job names (settingsRef ${missing.slice(0, 12)}…) are not in the pool's Redis`);
      await failed!.remove();
    } finally {
      await studio.close();
    }
  });

  it('stops a worker on SIGTERM after the unit it runs is answered, and the lane goes offline', async () => {
    const last = workers.find((w) => w.child.exitCode === null && w.child.signalCode === null)!;
    const job = await unitJob('item-last', 'run4');
    const running = transport.run({ pool: 'studio', lane: 'cpu', unitKey: 'digest:item-last', claimToken: 'claim-last', engineId: 'test', job }, io());
    await lineOf(new RegExp(`took ${job.jobId} `), [last]);
    last.child.kill('SIGTERM');
    const outcome = await running;
    expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
    settleLikeExecutor(job, outcome);
    expect(await exitOf(last.child)).toBe(0);
    // Its heartbeat went with it: no live worker, so the lane holds.
    await lanesUntil((ls) => ls.some((l) => l.queueKey === 'cpu@studio' && l.workers.length === 0 && l.hold?.code === 'POOL_OFFLINE'));
    expect(Object.values(await jobCounts('studio')).every((n) => n === 0)).toBe(true);
  }, LONG);
});
