// How a pool rides out what goes wrong between a worker and the host (docs/pools.md "What each failure
// does"), with real processes: a test redis-server, the worker door and the host's PoolTransport in
// this process (pool-fixture.ts), real `backlot worker` processes, and a small TCP proxy between the
// workers and the door that can cut an upload mid-way and then refuse every connection for a while:
// 1. an upload cut mid-way, the host's door then unreachable for twice the lease: the worker waits with
//    backoff (its lock renewed), goes on from the byte the host holds, and the unit ends once, whole;
// 2. a worker that lacks the engine a unit names (WORKER_ENGINE_MISSING) hands the unit back, takes the
//    lane out of service and pulls no more of its work; `backlot lanes --json` says why; every unit
//    ends once on the other worker and none fails;
// 3. the engine's log lines on a worker (plain and keyed) reach the unit's run log as they come,
//    tagged with the worker, each once; a flood is bounded (LogForwarder's limits).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEMP_DIR_NAME } from '../../src-main/engines/commit-output';
import { DoorProxy, testEngineBytes } from './door-proxy';
import { BIN, LONG, PoolRig, lineOf, type WorkerProc } from './pool-fixture';
import type { EngineOutcome } from '../../src-main/engines/runner';
import { LogForwarder } from '../../src-main/worker/log-forwarder';
import type { LogMessage } from '../../src-shared/runs/log-keys';
import type { PoolLogs } from '../../src-main/pools/transport/job-schema';
import type { LaneStatusDto } from '../../src-shared/api/contract';

const BIG = 'item-big';
const BIG_BYTES = 8_000_000;
const LEASE_S = 5;
const FAULTS = JSON.stringify({ [BIG]: { bytes: BIG_BYTES } });

let rig: PoolRig;
let proxy: DoorProxy;

beforeAll(async () => {
  rig = await PoolRig.start('pool-robust');
  proxy = await DoorProxy.open(rig.doorPort);
}, LONG);

afterAll(async () => {
  await proxy?.down();
  await rig?.close();
}, LONG);

describe('an upload cut mid-way while the host is away', () => {
  it('waits for the door with backoff, keeps its lock, goes on from the byte the host holds, and ends once with the same bytes', async () => {
    // The join file sends workers to the proxy; the door listens behind it.
    const join = await rig.addPool({ name: 'studio', leaseS: LEASE_S }, `127.0.0.1:${proxy.port}`);
    const worker = await rig.startWorker(join, { name: 'worker-upload', env: { BACKLOT_TEST_FAULTS: FAULTS }, ready: /serving cpu@studio/ });
    await rig.lanesUntil((ls) => ls.some((l) => l.queueKey === 'cpu@studio' && l.hold === null));

    const job = await rig.unitJob(BIG, 'cut');
    const cut = proxy.cutPutAfter(BIG_BYTES / 4);
    const running = rig.run('studio', job);
    await cut;
    const cutAt = Date.now();
    // The worker finds the door gone and waits, more than once, with growing pauses.
    await lineOf(worker, new RegExp(`${job.jobId} door unreachable \\(\\w+\\) during the upload of .*; try 3 in`));
    // The host stays away for twice the lease (this case's input, not a race with the work): a lock
    // the worker stopped renewing would have lapsed and the unit been taken again.
    await sleep(Math.max(0, cutAt + 2 * LEASE_S * 1000 - Date.now()));
    await proxy.up();

    const outcome = await running;
    expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.outputs).toHaveLength(1);
    const bytes = fs.readFileSync(outcome.outputs[0].path);
    const expected = testEngineBytes(BIG_BYTES);
    expect(bytes.length).toBe(BIG_BYTES);
    expect(crypto.createHash('sha256').update(bytes).digest('hex')).toBe(crypto.createHash('sha256').update(expected).digest('hex'));
    // Taken once, ended once: the lock held through the outage, nothing ran twice.
    expect(worker.out.filter((l) => l.includes(`took ${job.jobId} `))).toHaveLength(1);
    expect(worker.out.filter((l) => l.includes(`${job.jobId} ended: `))).toEqual([`backlot worker: ${job.jobId} ended: ok`]);
    // The upload began at byte 0 and went on from a byte inside the file, never from the start again.
    const starts = proxy.ranges.filter((r) => r.total === BIG_BYTES).map((r) => r.start);
    expect(starts[0]).toBe(0);
    expect(starts.length).toBeGreaterThanOrEqual(2);
    expect(starts.slice(1).every((s) => s > 0 && s < BIG_BYTES)).toBe(true);
    // The job's folder holds the one output, nothing of a lost attempt.
    expect(fs.readdirSync(job.outputDir)).toEqual([path.basename(outcome.outputs[0].path)]);
    fs.rmSync(job.outputDir, { recursive: true, force: true });
    await rig.transport.settled();
    expect(await rig.noJobLeft('studio')).toBe(true);
    expect(fs.readdirSync(path.join(rig.lib, TEMP_DIR_NAME))).toEqual([]);
    await rig.stopWorker(worker);
  }, LONG);
});

describe('a worker whose engine for the unit is missing', () => {
  it('hands the unit back and stops pulling the lane\'s work; the other worker runs every unit once, none fails, and backlot lanes says why', async () => {
    // A lease longer than the second worker's start: the unit waits in the queue meanwhile, and a lane with
    // no worker in service gives its waiting units back after the lease (docs/pools.md "What each failure does").
    const join = await rig.addPool({ name: 'twin', leaseS: 120 });
    // Its digest engine's model is missing; its other cpu-lane engines are ready, so the lane starts in service.
    const lacking = await rig.startWorker(join, { name: 'worker-lacking', env: { BACKLOT_TEST_FAULTS: JSON.stringify({ 'preflight:digest': { code: 'MODEL_MISSING' } }) }, ready: /serving cpu@twin/ });
    await rig.lanesUntil((ls) => ls.some((l) => l.queueKey === 'cpu@twin' && l.hold === null));

    const first = await rig.unitJob('item-twin-0', 'twin');
    const running = [rig.run('twin', first)];
    await lineOf(lacking, new RegExp(`${first.jobId} handed back: WORKER_ENGINE_MISSING`));
    await lineOf(lacking, /cpu@twin out of service: WORKER_ENGINE_MISSING: The host runs digest with test, which cannot run here \(MODEL_MISSING: /);
    // No worker can run the lane's work now: it holds, and says why.
    const held = await rig.lanesUntil((ls) => ls.some((l) => l.queueKey === 'cpu@twin' && l.hold?.code === 'POOL_OFFLINE' && l.hold.params.code === 'WORKER_ENGINE_MISSING'));
    expect(held.find((l) => l.queueKey === 'cpu@twin')!.workers.map((w) => [w.id, w.outOfService?.params.code])).toEqual([[lacking.id, 'WORKER_ENGINE_MISSING']]);
    // The unit waits in the queue for a worker that can run it; it did not end.
    expect((await rig.jobCounts('twin')).wait).toBe(1);

    const able = await rig.startWorker(join, { name: 'worker-able', ready: /serving cpu@twin/ });
    const more = await Promise.all([1, 2, 3, 4].map((n) => rig.unitJob(`item-twin-${n}`, 'twin')));
    running.push(...more.map((job) => rig.run('twin', job)));
    const outcomes = await Promise.all(running);
    for (const [i, job] of [first, ...more].entries()) {
      expect(outcomes[i].ok, JSON.stringify(outcomes[i])).toBe(true);
      const outcome = outcomes[i];
      if (outcome.ok) expect((outcome.metadata.pool as { worker: { id: string } }).worker.id).toBe(able.id);
      expect(able.out.filter((l) => l.includes(`took ${job.jobId} `))).toHaveLength(1);
      expect(able.out.filter((l) => l.includes(`${job.jobId} ended: `))).toEqual([`backlot worker: ${job.jobId} ended: ok`]);
      fs.rmSync(job.outputDir, { recursive: true, force: true });
    }
    // The lacking worker took the first unit once and handed it back; it pulled nothing after.
    expect(lacking.out.filter((l) => l.includes('took '))).toEqual([expect.stringContaining(`took ${first.jobId} `)]);
    expect(lacking.out.some((l) => l.includes(' ended: '))).toBe(false);

    // `backlot lanes --json` (another process, reading the heartbeats) shows the lane open on the able
    // worker, and the lacking one out of service with its reason.
    const listed = spawnSync(process.execPath, [BIN, 'lanes', '--json', '--data', rig.lib], { encoding: 'utf8', env: { ...process.env, BACKLOT_DATA: '' }, timeout: LONG });
    expect(listed.status, listed.stderr).toBe(0);
    const lane = (JSON.parse(listed.stdout) as { lanes: LaneStatusDto[] }).lanes.find((l) => l.lane === 'cpu@twin')!;
    expect(lane.hold).toBeNull();
    const byId = new Map(lane.pool!.workers.map((w) => [w.id, w]));
    expect(byId.get(able.id)?.outOfService).toBeNull();
    expect(byId.get(lacking.id)?.outOfService).toMatchObject({ code: 'PREFLIGHT_FAILED', params: { lane: 'cpu@twin', code: 'WORKER_ENGINE_MISSING', engine: 'test', operation: 'digest' } });
    const text = spawnSync(process.execPath, [BIN, 'lanes', '--data', rig.lib], { encoding: 'utf8', env: { ...process.env, BACKLOT_DATA: '' }, timeout: LONG });
    expect(text.stdout).toContain(`worker ${lacking.id} `);
    expect(text.stdout).toMatch(/out of service: PREFLIGHT_FAILED \(WORKER_ENGINE_MISSING\)/);

    await rig.transport.settled();
    expect(await rig.noJobLeft('twin')).toBe(true);
    expect(fs.readdirSync(path.join(rig.lib, TEMP_DIR_NAME))).toEqual([]);
    await rig.stopWorker(lacking);
    await rig.stopWorker(able);
  }, LONG);
});

describe('a worker out of service for a missing engine', () => {
  /** A worker whose digest engine fails its check while `marker` exists (its model missing), as the worker above; then the unit it handed back. */
  async function outOfService(pool: string, recheckMs: number): Promise<{ worker: WorkerProc; marker: string; running: Promise<EngineOutcome>; jobId: string }> {
    const join = await rig.addPool({ name: pool, leaseS: 60 });
    const marker = path.join(rig.root, `${pool}-model-missing`);
    fs.writeFileSync(marker, '');
    const worker = await rig.startWorker(join, {
      name: `worker-${pool}`, ready: new RegExp(`serving cpu@${pool}`),
      env: { BACKLOT_TEST_FAULTS: JSON.stringify({ 'preflight:digest': { code: 'MODEL_MISSING', whileExists: marker } }), BACKLOT_WORKER_ENGINE_RECHECK_MS: String(recheckMs) },
    });
    await rig.lanesUntil((ls) => ls.some((l) => l.queueKey === `cpu@${pool}` && l.hold === null));
    const job = await rig.unitJob(`item-${pool}`, pool);
    const running = rig.run(pool, job);
    await lineOf(worker, new RegExp(`${job.jobId} handed back: WORKER_ENGINE_MISSING`));
    await rig.lanesUntil((ls) => ls.some((l) => l.queueKey === `cpu@${pool}` && l.hold?.code === 'POOL_OFFLINE' && l.hold.params.code === 'WORKER_ENGINE_MISSING'));
    return { worker, marker, running, jobId: job.jobId };
  }

  /** Back in service as its heartbeat says, then the unit it handed back runs on it once, ok. */
  async function backInService(pool: string, o: { worker: WorkerProc; running: Promise<EngineOutcome>; jobId: string }): Promise<void> {
    const lanes = await rig.lanesUntil((ls) => ls.some((l) => l.queueKey === `cpu@${pool}` && l.hold === null && l.workers.some((w) => w.id === o.worker.id && w.outOfService === null)));
    expect(lanes.find((l) => l.queueKey === `cpu@${pool}`)!.workers.map((w) => w.lanes)).toEqual([['cpu']]);
    const outcome = await o.running;
    expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
    expect(o.worker.out.filter((l) => l.includes(`took ${o.jobId} `))).toHaveLength(2);
    expect(o.worker.out.filter((l) => l.includes(`${o.jobId} ended: `))).toEqual([`backlot worker: ${o.jobId} ended: ok`]);
    expect(await rig.noJobLeft(pool)).toBe(true);
    await rig.stopWorker(o.worker);
  }

  it('returns to service on its own once the engine passes its check again (a short recheck for the test)', async () => {
    const o = await outOfService('mend', 200);
    // The model appears: the next check (on the worker's backoff) finds the engine ready.
    fs.rmSync(o.marker);
    await lineOf(o.worker, /serving cpu@mend \(1 slot\) as \S+ \(judged again\)/);
    await backInService('mend', o);
  }, LONG);

  it('returns to service at once on SIGHUP, long before its next check', async () => {
    const o = await outOfService('hup', 600_000);
    fs.rmSync(o.marker);
    o.worker.child.kill('SIGHUP');
    await lineOf(o.worker, /serving cpu@hup \(1 slot\) as \S+ \(judged again\)/);
    await backInService('hup', o);
  }, LONG);
});

describe('the engine\'s log lines on a worker', () => {
  it('reach the unit\'s run log while it runs, tagged with the worker, plain and keyed, each once', async () => {
    const join = await rig.addPool({ name: 'logs', leaseS: 10 });
    const faults = JSON.stringify({ 'item-logs': { logKeyed: true, bytes: 4096 }, 'item-slow-logs': { logKeyed: true, chunks: 400, chunkMs: 250 } });
    const worker = await rig.startWorker(join, { name: 'worker-logs', env: { BACKLOT_TEST_FAULTS: faults }, ready: /serving cpu@logs/ });
    await rig.lanesUntil((ls) => ls.some((l) => l.queueKey === 'cpu@logs' && l.hold === null));

    const lines: { level: string; m: LogMessage }[] = [];
    const log = (level: string, line: string | LogMessage) => { lines.push({ level, m: typeof line === 'string' ? { text: line } : line }); };
    const job = await rig.unitJob('item-logs', 'logs');
    const outcome = await rig.run('logs', job, { log });
    expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
    const texts = lines.map((l) => l.m.text);
    expect(texts.filter((t) => t === `[${worker.id}] job ${job.jobId} digest`)).toHaveLength(1);
    // The long-lived test engine says which process took the job: that line too, once.
    expect(texts.filter((t) => t.startsWith(`[${worker.id}] long-lived pid `))).toHaveLength(1);
    const keyed = lines.filter((l) => l.m.key === 'downloaded');
    expect(keyed).toHaveLength(1);
    expect(keyed[0].m).toEqual({ text: `[${worker.id}] downloaded 4096 bytes`, key: 'downloaded', params: { bytes: 4096, onWorker: worker.id } });
    fs.rmSync(job.outputDir, { recursive: true, force: true });

    // While a unit runs: its first lines are in the run log before it ends (cancelled here once they are).
    const slow = await rig.unitJob('item-slow-logs', 'logs');
    const abort = new AbortController();
    const early: string[] = [];
    let seen: () => void = () => undefined;
    const heard = new Promise<void>((resolve) => { seen = resolve; });
    const running = rig.run('logs', slow, { signal: abort.signal, log: (_level, line) => { early.push(typeof line === 'string' ? line : line.text); if (early.some((t) => t.includes(`job ${slow.jobId} digest`))) seen(); } });
    await heard;
    abort.abort();
    expect(await running).toMatchObject({ ok: false, code: 'ENGINE_CANCELLED' });
    fs.rmSync(slow.outputDir, { recursive: true, force: true });
    await rig.transport.settled();
    expect(await rig.noJobLeft('logs')).toBe(true);
    await rig.stopWorker(worker);
  }, LONG);

  it('are bounded: a burst, then a rate, a cap per unit, and a count of what was left out', async () => {
    const batches: PoolLogs[] = [];
    const forward = new LogForwarder('w-1', (b) => { batches.push(b); return Promise.resolve(); }, { perSecond: 0, burst: 5, perUnit: 1000, batchMs: 10, maxText: 8 });
    for (let i = 0; i < 12; i++) forward.log({ level: 'info', text: `line number ${i}` });
    forward.progressed(0.5, 'half');
    await forward.close();
    const lines = batches.flatMap((b) => b.lines);
    expect(lines.map((l) => [l.seq, l.text])).toEqual([[0, 'line num'], [1, 'line num'], [2, 'line num'], [3, 'line num'], [4, 'line num']]);
    expect(batches.reduce((n, b) => n + b.dropped, 0)).toBe(7);
    // The progress message travels as the engine protocol's: its text, and its key and params when keyed.
    expect(batches.at(-1)!.progress).toEqual({ ratio: 0.5, message: { text: 'half' } });
    // Numbers go on after the dropped ones: the result's lines carry the same numbers.
    expect(forward.log({ level: 'info', text: 'late' })).toBe(12);

    const capped: PoolLogs[] = [];
    const cap = new LogForwarder('w-2', (b) => { capped.push(b); return Promise.resolve(); }, { perSecond: 1000, burst: 1000, perUnit: 3, batchMs: 10, maxText: 100 });
    for (let i = 0; i < 10; i++) cap.log({ level: 'warn', text: `x${i}`, key: 'downloaded', params: { bytes: i, nested: { no: 1 } } });
    await cap.close();
    expect(capped.flatMap((b) => b.lines)).toEqual([0, 1, 2].map((i) => ({ seq: i, level: 'warn', text: `x${i}`, key: 'downloaded', params: { bytes: i } })));
    expect(capped.reduce((n, b) => n + b.dropped, 0)).toBe(7);

    const keyed: PoolLogs[] = [];
    const progress = new LogForwarder('w-3', (b) => { keyed.push(b); return Promise.resolve(); }, { perSecond: 1000, burst: 1000, perUnit: 10, batchMs: 10, maxText: 100 });
    progress.progressed(0.25, { text: 'chunk 1 of 4', key: 'chunkOf', params: { chunk: 1, of: 4, nested: { no: 1 } } });
    await progress.close();
    expect(keyed.at(-1)!.progress).toEqual({ ratio: 0.25, message: { text: 'chunk 1 of 4', key: 'chunkOf', params: { chunk: 1, of: 4 } } });
  });
});
