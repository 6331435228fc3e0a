// What a `backlot worker` keeps and checks (docs/pools.md "A unit on a worker", "Shared storage",
// "Preflight with the host's settings"), with real processes: a test redis-server, the worker door,
// the host's PoolTransport and real workers. A long-lived engine serves unit after unit in one
// process; a cancelled unit kills it and the next unit gets a new one; a shared-media worker whose
// mapped folder is not this library's takes its lane out of service and fails no item; engines are
// judged by the host's settings once the host has sent a unit.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJoinFile, writeJoinFile } from '../../src-main/pools/join-file';
import { MARKER_NAME, readLibraryMarker, writeLibraryMarker } from '../../src-main/pools/library-marker';
import { TEMP_DIR_NAME } from '../../src-main/engines/commit-output';
import { defaultSettings, type SettingsValues } from '../../src-shared/settings/settings-schema';
import type { JobContext } from '../../src-main/engines/adapter';
import type { EngineOutcome } from '../../src-main/engines/runner';
import type { PoolLaneState } from '../../src-main/pools/pool-runtime';
import { exitOf } from './redis-server';
import { LONG, PoolRig, lineOf as lineOnWorker, type WorkerProc } from './pool-fixture';

const SLOW_ITEM = 'item-slow';
const FAULTS = JSON.stringify({ [SLOW_ITEM]: { chunkMs: 250, chunks: 400 } });

let rig: PoolRig;
let root: string;
let lib: string;
let warmJoin: string;
let sharedJoin: string;
let mediaDir: string;

type Proc = WorkerProc;

beforeAll(async () => {
  rig = await PoolRig.start('pool-worker');
  ({ root, lib, mediaDir } = rig);
  warmJoin = await rig.addPool({ name: 'warm', leaseS: 10 });
  // The worker machine is this one: the host's media folder is mapped onto itself (or elsewhere, per test).
  // A lease longer than a worker's start: its unit waits in the queue for the right worker meanwhile (a
  // lane with no worker in service gives its waiting units back after the lease, docs/pools.md "What each failure does").
  sharedJoin = await rig.addPool({ name: 'shared', media: 'shared', maps: [{ host: mediaDir, worker: mediaDir }], leaseS: 120 });
}, LONG);

afterAll(async () => {
  await rig?.close();
}, LONG);

const backlot = (args: string[]): Proc => rig.spawn(args);

const startWorker = (join: string, name: string, extra: string[] = [], ready = /backlot worker: (serving|no lane is in service)/, engines: 'test' | 'production' = 'test'): Promise<Proc> =>
  rig.startWorker(join, { name, extra, ready, engines, env: { BACKLOT_TEST_FAULTS: FAULTS } });

const stopWorker = (p: Proc): Promise<void> => rig.stopWorker(p);

/** A line on the worker's stdout, waited for as it arrives. */
const lineOf = async (p: Proc, re: RegExp, limitMs = 120_000): Promise<string> => (await lineOnWorker(p, re, limitMs)).line;

const lanesUntil = (cond: (lanes: PoolLaneState[]) => boolean, limitMs = 120_000): Promise<PoolLaneState[]> => rig.lanesUntil(cond, limitMs);

const unitJob = (itemId: string, tag: string, settings: SettingsValues = defaultSettings(), operation: 'digest' | 'transcribe' = 'digest'): Promise<JobContext> => rig.unitJob(itemId, tag, settings, operation);

async function run(pool: string, job: JobContext, signal?: AbortSignal, engineId = 'test'): Promise<EngineOutcome> {
  try {
    return await rig.run(pool, job, { ...(signal ? { signal } : {}), engineId });
  } finally {
    fs.rmSync(job.outputDir, { recursive: true, force: true });
  }
}

/** The pid the test engine says it runs as (its log line and its result's metadata). */
function enginePid(outcome: EngineOutcome): number {
  expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
  if (!outcome.ok) return -1;
  const pid = outcome.metadata.pid as number;
  expect(outcome.logs.some((l) => l.text.endsWith(`pid ${pid}`))).toBe(true);
  return pid;
}

const alive = (pid: number): boolean => {
  try { process.kill(pid, 0); return true; } catch { return false; }
};

/** Resolves once `pid` has exited (an engine its worker stopped); fails after a deadline. */
async function gone(pid: number, limitMs = 60_000): Promise<void> {
  const limit = Date.now() + limitMs;
  while (alive(pid)) {
    if (Date.now() > limit) throw new Error(`process ${pid} still runs`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const jobCounts = (pool: string): Promise<Record<string, number>> => rig.jobCounts(pool);

describe('warm engines on a worker', () => {
  it('runs unit after unit in one engine process; a cancelled unit kills it and the next unit gets a new one', async () => {
    const worker = await startWorker(warmJoin, 'worker-warm');
    await lanesUntil((ls) => ls.some((l) => l.queueKey === 'cpu@warm' && l.workers.length === 1 && l.hold === null));
    const first = enginePid(await run('warm', await unitJob('item-a', 'w1')));
    const second = enginePid(await run('warm', await unitJob('item-b', 'w2')));
    // The same long-lived process, still alive between units.
    expect(second).toBe(first);
    expect(alive(first)).toBe(true);

    // The host gives up a unit running on that process: the process is killed, not reused.
    const abort = new AbortController();
    const slow = await unitJob(SLOW_ITEM, 'w3');
    const running = run('warm', slow, abort.signal);
    // The engine process is at work on it (its first line reached the worker).
    await lineOf(worker, new RegExp(`${slow.jobId} engine started`));
    abort.abort();
    expect(await running).toMatchObject({ ok: false, code: 'ENGINE_CANCELLED' });
    await lineOf(worker, new RegExp(`${slow.jobId} ended: ENGINE_CANCELLED`));
    await rig.transport.settled();
    expect(alive(first)).toBe(false);

    // What it fetched through the door it kept, one file per media file (item-a, item-b, the slow one).
    expect(fs.readdirSync(path.join(root, 'worker-warm', 'cache', 'media', 'warm'))).toHaveLength(3);
    const third = enginePid(await run('warm', await unitJob('item-c', 'w4')));
    expect(third).not.toBe(first);
    expect(alive(third)).toBe(true);

    // SIGTERM: the worker closes its warm engine as it goes.
    await stopWorker(worker);
    await gone(third);
    expect(Object.values(await jobCounts('warm')).every((n) => n === 0)).toBe(true);
    expect(fs.readdirSync(path.join(lib, TEMP_DIR_NAME))).toEqual([]);
  }, LONG);
});

describe('the shared-storage marker', () => {
  it('marks the mapped host folder with the library id the join file names', () => {
    const { join } = readJoinFile(sharedJoin);
    expect(join.library).toMatch(/^[0-9a-f]{32}$/);
    expect(readLibraryMarker(mediaDir)).toBe(join.library);
    expect(readLibraryMarker(lib)).toBe(join.library);
    // A pool without shared media names the library too, and marks nothing of its own.
    expect(readJoinFile(warmJoin).join.library).toBe(join.library);
  });

  it('takes the lane out of service behind a folder that is not this library, fails no item, and serves behind the right one', async () => {
    const empty = path.join(root, 'empty-mount');
    const other = path.join(root, 'other-library');
    fs.mkdirSync(empty);
    fs.mkdirSync(other);
    writeLibraryMarker(other, 'f'.repeat(32));

    // worker check says so for each, by the join file's mapping.
    const { join } = readJoinFile(sharedJoin);
    for (const [folder, why] of [[empty, `holds no ${MARKER_NAME} marker`], [other, 'is another library\'s']] as const) {
      const file = writeJoinFile(path.join(root, `check-${path.basename(folder)}.join`), { ...join, maps: [{ host: mediaDir, worker: folder }] });
      const check = backlot(['worker', 'check', '--join', file, '--engines', 'test', '--data', path.join(root, 'worker-check'), '--json']);
      expect(await exitOf(check.child)).toBe(1);
      const report = JSON.parse(check.out.join('')) as { checks: { name: string; ok: boolean; code?: string; message: string }[] };
      const map = report.checks.find((c) => c.name === `map ${folder}`)!;
      expect(map).toMatchObject({ ok: false, code: 'MAP_NOT_THIS_LIBRARY' });
      expect(map.message).toContain(why);
    }
    const good = backlot(['worker', 'check', '--join', sharedJoin, '--engines', 'test', '--data', path.join(root, 'worker-check'), '--json']);
    await exitOf(good.child);
    expect((JSON.parse(good.out.join('')) as { checks: { name: string; ok: boolean }[] }).checks.find((c) => c.name === `map ${mediaDir}`)).toMatchObject({ ok: true });

    // A worker mapping the empty mount point: out of service, named on the lane, and the unit waits.
    const wrong = await startWorker(sharedJoin, 'worker-wrong', ['--map', `${mediaDir}=${empty}`]);
    expect(wrong.out.join('\n')).toMatch(/cpu@shared out of service: MAP_NOT_THIS_LIBRARY: /);
    expect(wrong.out.join('\n')).toContain('no lane is in service');
    await lanesUntil((ls) => ls.some((l) => l.queueKey === 'cpu@shared' && l.workers.some((w) => (w.outOfService?.params as { code?: string } | undefined)?.code === 'MAP_NOT_THIS_LIBRARY')));
    const job = await unitJob('item-shared', 's1');
    const running = run('shared', job);
    await new Promise<void>((resolve, reject) => {
      const limit = Date.now() + 120_000;
      const poll = () => void jobCounts('shared').then((c) => ((c.wait ?? 0) + (c.waiting ?? 0) + (c.prioritized ?? 0) > 0 ? resolve() : Date.now() > limit ? reject(new Error('the unit never waited in Redis')) : setTimeout(poll, 100)), reject);
      poll();
    });
    expect(wrong.out.some((l) => l.includes(`took ${job.jobId}`))).toBe(false);

    // The right folder: that worker takes the waiting unit and it ends once, ok.
    const right = await startWorker(sharedJoin, 'worker-right', [], /backlot worker: serving cpu@shared/);
    const outcome = await running;
    expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
    expect(right.out.filter((l) => l.includes(`took ${job.jobId}`))).toHaveLength(1);
    // It read the media through its mapping: nothing was fetched through the door into its cache.
    expect(fs.readdirSync(path.join(root, 'worker-right', 'cache', 'media', 'shared'))).toEqual([]);
    expect(wrong.out.some((l) => l.includes(`took ${job.jobId}`))).toBe(false);
    await stopWorker(wrong);
    await stopWorker(right);
    expect(Object.values(await jobCounts('shared')).every((n) => n === 0)).toBe(true);
  }, LONG * 2);
});

describe('preflight with the host\'s settings', () => {
  it('judges the engines by the settings the host runs units with: an engine the host chose whose model is missing here takes the lane out of service', async () => {
    // The host transcribes with one engine on the cpu lane and runs nothing else there (no diarization, no digest).
    const only = (engine: string) => ({ ...defaultSettings(), 'engines.transcribe': [engine], 'engines.diarize': [], 'engines.attribute-voices': [], 'engines.attribute-words': [], 'engines.digest': [], 'engines.channel-digest': [] }) as unknown as SettingsValues;
    const hostSettings = only('pocketsphinx');
    const worker = await startWorker(warmJoin, 'worker-settings', [], /backlot worker: (serving|no lane is in service)/, 'production');
    expect(worker.out.join('\n')).toMatch(/serving cpu@warm/);

    // The host switches to whisper.cpp on the cpu lane, whose model this worker has not: the worker
    // judges its engines again by the unit's settings before it starts it.
    const outcome = await run('warm', await unitJob('item-settings', 'p1', only('whisper.cpp-cpu'), 'transcribe'), undefined, 'whisper.cpp-cpu');
    // Not the item's failure: the unit goes back to the lane (POOL_REQUEUE_CODES).
    expect(outcome).toMatchObject({ ok: false, code: 'WORKER_OUT_OF_SERVICE', params: { code: 'PREFLIGHT_FAILED' } });
    await lineOf(worker, /cpu@warm out of service: PREFLIGHT_FAILED: whisper\.cpp-cpu: MODEL_MISSING: .*\(judged by the host's settings\)/);
    await lanesUntil((ls) => ls.some((l) => l.queueKey === 'cpu@warm' && l.workers.some((w) => w.outOfService !== null)));

    // worker check reads the same settings from the pool and says the same.
    const check = backlot(['worker', 'check', '--join', warmJoin, '--engines', 'production', '--data', path.join(root, 'worker-settings'), '--json']);
    expect(await exitOf(check.child)).toBe(1);
    const report = JSON.parse(check.out.join('')) as { checks: { name: string; ok: boolean; code?: string; message: string }[] };
    expect(report.checks.find((c) => c.name === 'settings')).toMatchObject({ ok: true, message: expect.stringContaining('the host runs units with') });
    expect(report.checks.find((c) => c.name.startsWith('engine whisper.cpp-cpu '))).toMatchObject({ ok: false, code: 'MODEL_MISSING' });
    expect(report.checks.some((c) => c.name.startsWith('engine pocketsphinx '))).toBe(false);

    // The host's settings change back (its next unit writes them): the lane is in service again.
    const abort = new AbortController();
    const next = run('warm', await unitJob('item-settings-2', 'p2', hostSettings, 'transcribe'), abort.signal, 'pocketsphinx');
    await lineOf(worker, /serving cpu@warm .*\(judged by the host's settings\)/);
    abort.abort();
    await next;
    await rig.transport.settled();
    await stopWorker(worker);
    expect(Object.values(await jobCounts('warm')).every((n) => n === 0)).toBe(true);
  }, LONG);
});
