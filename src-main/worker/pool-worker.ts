// `backlot worker --join FILE` (docs/pools.md "A unit on a worker"): a machine that runs a pool's
// units. It resolves each job's engine in its own registry (never a command it was sent), fetches
// the unit's files through the worker door into its scratch folder, runs the engine there, uploads
// the outputs back through the door and answers with a checked result; BullMQ moves the jobs and
// notices a lost worker (its lock, renewed while the unit runs, lapses after the pool's lease).
// Long-lived engines stay warm between units, media is kept by its tag, and engines are judged by the
// host's settings once the host has written them (docs/pools.md "A unit on a worker").
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WaitingError, Worker, type Job } from 'bullmq';
import { BacklotError, isBacklotError } from '../../src-shared/errors';
import type { LaneKey } from '../../src-shared/catalog/lanes';
import type { OperationId } from '../../src-shared/catalog/operations';
import { defaultSettings } from '../../src-shared/settings/settings-schema';
import { readJoinFile, type JoinFile } from '../pools/join-file';
import type { PathMap } from '../pools/pool-spec';
import { bullConnection, workerPlace } from '../pools/transport/connections';
import { CLOSE_GRACE_MS, RedisFleet, settlesWhileReachable, settlesWithin } from '../pools/transport/redis-fleet';
import { redisError } from '../pools/redis-client';
import { settingsForJob, settingsRef } from '../pools/transport/job-settings';
import { RESULT_FORMAT, cancelChannel, cancelKey, check, heartbeatKey, hostSettingsKey, hostSettingsRefKey, jobSettingsSchema, laneQueueName, poolBullPrefix, poolJobSchema, type Heartbeat, type PoolJob, type PoolResult } from '../pools/transport/job-schema';
import { buildEngineRegistry, type EngineRegistry } from '../engines/registry';
import type { EngineProfile, JobContext } from '../engines/adapter';
import type { TestEngineOptions } from '../engines/test-engine/adapter';
import { DEFAULT_WORKER_IDLE_MS, EngineProcess, type EngineLogEntry, type EngineOutcome, type EngineProgress } from '../engines/engine-process';
import { EngineWorkers } from '../engines/workers';
import { setEnginePriority } from '../engines/engine-priority';
import { mapHostPath, mappedFolderProblem } from '../pools/library-marker';
import { MediaCache } from './media-cache';
import { ScratchDirs } from './scratch-dirs';
import { LogForwarder } from './log-forwarder';
import { resourcesDir, appRoot } from '../system/app-layout';
import { detectGpus } from '../gates/gpu';
import { DEFAULT_DOOR_PATIENCE, fetchUnitFile, uploadUnitOutput, type DoorPatience, type DoorUnit } from './door-client';

export interface PoolWorkerOptions {
  joinFile: string;
  /** The lanes to serve (default: the pool's); each must be one the pool declares. */
  lanes?: LaneKey[];
  /** Slots per lane (default: the pool's declared slots, else 1). */
  slots?: Partial<Record<LaneKey, number>>;
  dataDir: string;
  /** Where units' files and outputs live while they run (default `<data>/scratch`). */
  scratch?: string;
  maps?: PathMap[];
  engines: EngineProfile;
  test?: TestEngineOptions;
  /** One line per event worth a person's eye (ready, a unit taken, out of service). */
  say?: (line: string) => void;
  /** How long an idle long-lived engine is kept (default: the host's, 2 minutes). */
  engineIdleMs?: number;
  /**
   * The first wait before a lane out of service for a missing engine is judged again (default 30 s,
   * doubling to 10 minutes; docs/pools.md "An engine a worker lacks"). Tests shorten it.
   */
  engineRecheckMs?: number;
}

export interface PoolWorkerHandle {
  id: string;
  /** The lanes taking units, with their slots, and those out of service with why. */
  serving: { lane: LaneKey; slots: number }[];
  outOfService: { lane: LaneKey; code: string; message: string }[];
  /** Judges every lane again now (SIGHUP): an engine or a mount that appeared brings its lane back. */
  recheck(): Promise<void>;
  close(): Promise<void>;
}

/** The longest wait between two checks of a lane out of service for a missing engine. */
const ENGINE_RECHECK_MAX_MS = 10 * 60_000;


/** This build's version, read once (every heartbeat and result carries it). */
let versionRead: string | null = null;
const version = (): string => {
  if (versionRead !== null) return versionRead;
  try { versionRead = String((JSON.parse(fs.readFileSync(path.join(appRoot(), 'package.json'), 'utf8')) as { version?: unknown }).version ?? '0'); } catch { versionRead = '0'; }
  return versionRead;
};

/**
 * Which lanes this worker can serve: each mapped folder is there (and, for shared media, holds this
 * library's marker), and at least one engine of its registry on the lane has passed its preflight.
 */
function laneReadiness(registry: EngineRegistry, lane: LaneKey, maps: PathMap[], join: JoinFile): { ok: true } | { ok: false; code: string; message: string } {
  for (const m of maps) {
    if (!fs.existsSync(m.worker) || !fs.statSync(m.worker).isDirectory()) return { ok: false, code: 'MAP_TARGET_MISSING', message: `${m.worker}, where the host's ${m.host} should be mounted, is not a folder here.` };
    if (join.media === 'shared') {
      const problem = mappedFolderProblem(join.library, m.host, m.worker);
      if (problem) return { ok: false, ...problem };
    }
  }
  const engines = registry.engines.filter((e) => e.enabled && e.lane.queueKey === lane);
  if (engines.length === 0) return { ok: false, code: 'NO_ENGINE_FOR_LANE', message: `No engine of this build runs on the ${lane} lane here.` };
  if (engines.some((e) => e.preflight.ok)) return { ok: true };
  const first = engines[0].preflight as { ok: false; code: string; message: string };
  return { ok: false, code: 'PREFLIGHT_FAILED', message: `${engines[0].adapter.id}: ${first.code}: ${first.message}` };
}

export async function startPoolWorker(options: PoolWorkerOptions): Promise<PoolWorkerHandle> {
  const say = options.say ?? ((line: string) => process.stdout.write(`${line}\n`));
  const { join } = readJoinFile(options.joinFile);
  const lanes = options.lanes ?? join.lanes;
  for (const lane of lanes) {
    if (!join.lanes.includes(lane)) throw new BacklotError('WORKER_LANE_NOT_IN_POOL', `--lanes names ${lane}, which pool ${join.pool} does not declare (${join.lanes.join(', ')}).`, { lane });
  }
  for (const lane of Object.keys(options.slots ?? {})) {
    if (!lanes.includes(lane as LaneKey)) throw new BacklotError('POOL_SLOTS_LANE', `--slots names lane ${lane}, which this worker does not serve (${lanes.join(', ')}).`, { lane });
  }
  const dataDir = path.resolve(options.dataDir);
  const scratch = path.resolve(options.scratch ?? path.join(dataDir, 'scratch'));
  fs.mkdirSync(scratch, { recursive: true, mode: 0o700 });
  const env = { dataDir, modelsDir: path.join(dataDir, 'models'), resourcesDir: resourcesDir(), settings: defaultSettings(), gpu: await detectGpus() };
  const buildRegistry = (settings: typeof env.settings) => buildEngineRegistry({ profile: options.engines, env: { ...env, settings }, ...(options.test ? { test: options.test } : {}) });
  let registry = await buildRegistry(env.settings);
  /** The host's settings the registry was judged by (their JSON), or null for this build's defaults. */
  let judgedBy: string | null = null;
  /** The settings the registry was built with (the host's once judged by them, else the defaults). */
  let judgedSettings = env.settings;
  const maps = options.maps ?? join.maps;
  const id = `${os.hostname().replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 40) || 'worker'}-${process.pid}-${crypto.randomBytes(3).toString('hex')}`;
  const leaseMs = join.leaseS * 1000;

  /**
   * Lanes whose unit named an engine this worker cannot run (WORKER_ENGINE_MISSING): out of service
   * until that engine passes its preflight again (checked on a backoff, and at once on SIGHUP), the
   * host's settings change (the engines are judged again then) or the worker restarts.
   */
  const engineMissing = new Map<LaneKey, { engine: string; operation: string; code: string; message: string }>();
  const serving: { lane: LaneKey; slots: number }[] = [];
  const outOfService: { lane: LaneKey; code: string; message: string }[] = [];
  const slotsOf = (lane: LaneKey): number => options.slots?.[lane] ?? join.slots[lane] ?? 1;
  /** Judges every lane again (the registry or the mappings changed); the lists are changed in place. */
  const judgeLanes = (): void => {
    serving.splice(0);
    outOfService.splice(0);
    for (const lane of lanes) {
      const ready = laneReadiness(registry, lane, maps, join);
      const missing = engineMissing.get(lane);
      if (ready.ok && missing) outOfService.push({ lane, code: 'WORKER_ENGINE_MISSING', message: missing.message });
      else if (ready.ok) serving.push({ lane, slots: slotsOf(lane) });
      else outOfService.push({ lane, code: ready.code, message: ready.message });
    }
  };
  judgeLanes();
  const engines = new EngineWorkers(options.engineIdleMs ?? DEFAULT_WORKER_IDLE_MS);
  const cache = new MediaCache(path.join(dataDir, 'cache', 'media', join.pool));
  const dirs = new ScratchDirs(scratch);

  await checkDoorToken(join);
  const place = workerPlace(join);
  // Every connection to Redis, BullMQ's included, so a stop while Redis is away can drop them all.
  const fleet = new RedisFleet();
  const client = fleet.open(bullConnection(place, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true }));
  let lastError: unknown = null;
  client.on('error', (e) => { lastError = e; });
  const subscriber = fleet.open(bullConnection(place, { lazyConnect: true }));
  const running = new Map<string, AbortController>();
  let lanesReady = false;
  let judging: Promise<void> = Promise.resolve();
  const busy = new Map<LaneKey, number>();
  const unit: Pick<DoorUnit, 'door' | 'pool'> = { door: join.door, pool: join.pool };

  const beat = (): Heartbeat => ({
    id, host: os.hostname().slice(0, 255), version: version(), lanes: serving.map((s) => s.lane),
    slots: Object.fromEntries(serving.map((s) => [s.lane, s.slots])),
    freeSlots: Object.fromEntries(serving.map((s) => [s.lane, Math.max(0, s.slots - (busy.get(s.lane) ?? 0))])),
    engines: registry.engines.filter((e) => e.enabled && lanes.includes(e.lane.queueKey as LaneKey)).map((e) => ({
      id: e.adapter.id, fingerprint: e.fingerprint, preflight: e.preflight.ok ? { ok: true as const } : { ok: false as const, code: e.preflight.code },
    })),
    lastHeartbeat: Date.now(),
    outOfService: outOfService[0] ? { code: 'PREFLIGHT_FAILED', params: {
      lane: `${outOfService[0].lane}@${join.pool}`, code: outOfService[0].code, message: outOfService[0].message.slice(0, 500),
      ...(engineMissing.has(outOfService[0].lane) ? { engine: engineMissing.get(outOfService[0].lane)!.engine, operation: engineMissing.get(outOfService[0].lane)!.operation } : {}),
    } } : null,
  });
  const writeBeat = () => client.set(heartbeatKey(join.pool, id), JSON.stringify(beat()), 'PX', leaseMs).catch(() => undefined);
  // Free slots change with every unit; the host reads them at its polls, so one write per quarter
  // second carries the latest without a Redis write per unit start and end (docs/benchmarks.md "Pools").
  let beatTimer: NodeJS.Timeout | null = null;
  const beatSoon = (): void => {
    beatTimer ??= setTimeout(() => { beatTimer = null; void writeBeat(); }, 250);
  };
  try {
    await client.connect().catch((e: unknown) => { throw lastError ?? e; });
    // A host that has sent units wrote its settings: the engines are judged by them from the start.
    const sent = await client.get(hostSettingsKey(join.pool));
    if (sent !== null) await judgeBy(sent);
    await client.set(heartbeatKey(join.pool, id), JSON.stringify(beat()), 'PX', leaseMs);
    await subscriber.connect();
    await subscriber.subscribe(cancelChannel(join.pool));
  } catch (e) {
    fleet.drop();
    const err = isBacklotError(e) ? e : redisError(e, join.redis.url);
    throw new BacklotError(err.code === 'TRANSPORT_AUTH_FAILED' ? 'POOL_AUTH_FAILED' : err.code, `${err.message} (backlot worker check --join ${options.joinFile} says more.)`, err.params);
  }
  subscriber.on('message', (_channel: string, jobId: string) => running.get(jobId)?.abort('ENGINE_CANCELLED'));
  const timer = setInterval(() => {
    void writeBeat();
    void client.get(hostSettingsKey(join.pool)).then((sent) => (sent !== null && sent !== judgedBy ? judging = judging.then(() => judgeBy(sent)) : undefined), () => undefined);
  }, Math.max(1000, Math.floor(leaseMs / 3)));
  timer.unref();

  // One BullMQ worker per lane, taking jobs only while its lane is in service: a lane the host's
  // settings take out of service stops taking units, and one they bring back starts.
  const workers = new Map<LaneKey, { worker: Worker; started: boolean; paused: boolean; pausing?: Promise<void> }>();
  for (const lane of lanes) {
    const worker = new Worker(laneQueueName(lane), async (job: Job, token?: string, signal?: AbortSignal) => {
      busy.set(lane, (busy.get(lane) ?? 0) + 1);
      beatSoon();
      try {
        return await runJob(job, lane, signal);
      } catch (e) {
        if (!(e instanceof HandBack)) throw e;
        // This lane's BullMQ worker is paused first, so the unit put back goes to another worker.
        await workers.get(lane)?.pausing;
        // A lock lost meanwhile: the job is no longer this worker's to move (BullMQ's stalled check has it).
        await job.moveToWait(token).catch(() => undefined);
        throw new WaitingError();
      } finally {
        busy.set(lane, (busy.get(lane) ?? 1) - 1);
        beatSoon();
      }
    }, {
      connection: fleet.open(bullConnection(place, { lazyConnect: true })), prefix: poolBullPrefix(join.pool), concurrency: slotsOf(lane), name: id,
      lockDuration: leaseMs, stalledInterval: Math.max(1000, Math.floor(leaseMs / 2)), maxStalledCount: 1,
      skipVersionCheck: true, autorun: false,
    });
    worker.on('error', () => undefined);
    // A lock this worker could not renew means another may already run the unit: stop its engine (DESIGN §9).
    worker.on('lockRenewalFailed', (jobIds: string[]) => { for (const jobId of jobIds) running.get(jobId)?.abort('WORKER_LOCK_LOST'); });
    workers.set(lane, { worker, started: false, paused: false });
  }
  let closed = false;
  /** Starts, resumes or pauses each lane's BullMQ worker as its lane is in service or not. */
  function applyLanes(): void {
    if (!lanesReady || closed) return;
    for (const [lane, w] of workers) {
      const inService = serving.some((s) => s.lane === lane);
      if (inService && !w.started) {
        w.started = true;
        void w.worker.run().catch(() => undefined);
      } else if (inService && w.paused) {
        w.paused = false;
        w.worker.resume();
      } else if (!inService && w.started && !w.paused) {
        w.paused = true;
        // Units running on it finish; it takes no new one.
        w.pausing = w.worker.pause(true).catch(() => undefined);
      }
    }
  }
  lanesReady = true;
  applyLanes();
  await Promise.all([...workers.values()].filter((w) => w.started).map((w) => w.worker.waitUntilReady()));
  for (const s of serving) say(`backlot worker: serving ${s.lane}@${join.pool} (${s.slots} slot${s.slots === 1 ? '' : 's'}) as ${id}`);
  for (const o of outOfService) say(`backlot worker: ${o.lane}@${join.pool} out of service: ${o.code}: ${o.message}`);

  /** Judges the engines again by the host's settings (`sent`, their JSON), and the lanes with them. */
  async function judgeBy(sent: string): Promise<void> {
    if (sent === judgedBy) return;
    let parsed: unknown;
    try { parsed = JSON.parse(sent); } catch { return; }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return;
    const fromHost = settingsForJob(parsed as Record<string, unknown>);
    // Settings this build refuses are not judged by: a unit with them fails as POOL_JOB_INVALID.
    if (!fromHost.ok) return;
    const before = JSON.stringify({ serving, outOfService });
    registry = await buildRegistry(fromHost.settings);
    judgedBy = sent;
    judgedSettings = fromHost.settings;
    // The host's choice of the engines' CPU priority holds on its workers too (docs/pools.md).
    setEnginePriority(fromHost.settings['engines.priority']);
    // Other settings may run other engines: a lane out of service for a missing one is judged again.
    engineMissing.clear();
    judgeLanes();
    applyLanes();
    if (!lanesReady || before === JSON.stringify({ serving, outOfService })) return;
    for (const s of serving) say(`backlot worker: serving ${s.lane}@${join.pool} (${s.slots} slot${s.slots === 1 ? '' : 's'}) as ${id} (judged by the host's settings)`);
    for (const o of outOfService) say(`backlot worker: ${o.lane}@${join.pool} out of service: ${o.code}: ${o.message} (judged by the host's settings)`);
    void writeBeat();
  }

  // A lane out of service for a missing engine is judged again on a backoff (docs/pools.md "An engine
  // a worker lacks"): 30 s, doubling to 10 minutes, from the first wait again once it came back.
  const recheckFirstMs = Math.max(1, options.engineRecheckMs ?? 30_000);
  let recheckDelay = recheckFirstMs;
  let recheckTimer: NodeJS.Timeout | null = null;
  function scheduleRecheck(): void {
    if (closed || recheckTimer || engineMissing.size === 0) return;
    recheckTimer = setTimeout(() => {
      recheckTimer = null;
      void recheck(false);
    }, recheckDelay);
    recheckTimer.unref();
    recheckDelay = Math.min(recheckDelay * 2, ENGINE_RECHECK_MAX_MS);
  }

  /**
   * Builds the registry again with the settings it was judged by (each engine's preflight runs again)
   * and judges every lane: a missing engine that passes now brings its lane back. `all` (SIGHUP) does
   * it whatever the lanes; the backoff only while a lane waits for its engine.
   */
  function recheck(all: boolean): Promise<void> {
    judging = judging.then(async () => {
      if (closed || (!all && engineMissing.size === 0)) return;
      registry = await buildRegistry(judgedSettings);
      for (const [lane, missing] of [...engineMissing]) {
        const engine = registry.engines.find((e) => e.enabled && e.adapter.id === missing.engine && e.adapter.operation === missing.operation);
        if (engine?.preflight.ok) engineMissing.delete(lane);
      }
      const before = JSON.stringify({ serving, outOfService });
      judgeLanes();
      applyLanes();
      if (engineMissing.size === 0) recheckDelay = recheckFirstMs;
      else scheduleRecheck();
      if (before === JSON.stringify({ serving, outOfService })) return;
      for (const s of serving) say(`backlot worker: serving ${s.lane}@${join.pool} (${s.slots} slot${s.slots === 1 ? '' : 's'}) as ${id} (judged again)`);
      for (const o of outOfService) say(`backlot worker: ${o.lane}@${join.pool} out of service: ${o.code}: ${o.message} (judged again)`);
      void writeBeat();
    }).catch(() => undefined);
    return judging;
  }

  async function runJob(job: Job, lane: LaneKey, signal?: AbortSignal): Promise<PoolResult> {
    const checked = check(poolJobSchema, job.data);
    if (!checked.ok) throw new Error(`POOL_JOB_INVALID: ${checked.reason}`);
    const data = checked.value;
    if (data.pool !== join.pool || data.lane !== lane || data.jobId !== job.id) throw new Error('POOL_JOB_INVALID: the job is not for this queue');
    if ((await client.exists(cancelKey(join.pool, data.jobId))) === 1) throw new Error('ENGINE_CANCELLED: the host cancelled the unit');
    const abort = new AbortController();
    signal?.addEventListener('abort', () => abort.abort('ENGINE_CANCELLED'), { once: true });
    running.set(data.jobId, abort);
    say(`backlot worker: took ${data.jobId} (${data.operation}) on ${lane}@${join.pool}`);
    const dir = dirs.take();
    // Kept for the next unit only after a clean end: a stopped engine never writes into another unit's folder.
    let clean = false;
    // The engine's lines and progress reach the host's run log while the unit runs (docs/pools.md "Log lines on the host").
    const forward = new LogForwarder(id, (batch) => job.updateProgress(batch));
    try {
      const answer = await execute(data, dir, abort.signal, forward);
      clean = answer.outcome.ok;
      say(`backlot worker: ${data.jobId} ended: ${answer.outcome.ok ? 'ok' : answer.outcome.code}`);
      return answer;
    } catch (e) {
      if (e instanceof HandBack) {
        say(`backlot worker: ${data.jobId} handed back: ${e.code}`);
        throw e;
      }
      say(`backlot worker: ${data.jobId} ended: ${isBacklotError(e) ? e.code : abort.signal.aborted ? String(abort.signal.reason) : 'WORKER_FAILED'}`);
      // The job's failed reason is what the host reads: it starts with the code (pool-transport.ts).
      if (isBacklotError(e)) throw new Error(`${e.code}: ${e.message}`);
      throw e;
    } finally {
      await forward.close();
      running.delete(data.jobId);
      dirs.give(dir, clean);
    }
  }

  // One environment per distinct host settings, kept while they stay the same: adapters cache what
  // they detect per environment (pocketsphinx's decoder), which a fresh object per unit would redo.
  const envs = new Map<string, typeof env>();
  function envForSettings(key: string, sent: Record<string, unknown>): typeof env {
    let found = envs.get(key);
    if (!found) {
      const fromHost = settingsForJob(sent);
      if (!fromHost.ok) throw new Error(`POOL_JOB_INVALID: ${fromHost.reason}`);
      if (envs.size >= 8) envs.delete(envs.keys().next().value!);
      found = { ...env, settings: fromHost.settings };
      envs.set(key, found);
    }
    return found;
  }

  /**
   * The host's settings a job runs with, as their JSON and parsed: carried in the job, or named by
   * their hash (docs/pools.md "Settings travel with the job"), read from the pool's Redis once per
   * hash, checked against it and kept. A hash Redis does not hold fails the job as invalid.
   */
  const settingsByRef = new Map<string, { text: string; sent: Record<string, unknown> }>();
  async function settingsOfJob(data: PoolJob): Promise<{ text: string; sent: Record<string, unknown> }> {
    if (data.settings) return { text: JSON.stringify(data.settings), sent: data.settings };
    const ref = data.settingsRef!;
    const kept = settingsByRef.get(ref);
    if (kept) return kept;
    const text = await client.get(hostSettingsRefKey(join.pool, ref));
    if (text === null) throw new Error(`POOL_JOB_INVALID: the host's settings the job names (settingsRef ${ref.slice(0, 12)}…) are not in the pool's Redis`);
    if (settingsRef(text) !== ref) throw new Error(`POOL_JOB_INVALID: the settings under settingsRef ${ref.slice(0, 12)}… do not have that hash`);
    let parsed: unknown;
    try { parsed = JSON.parse(text); } catch { throw new Error(`POOL_JOB_INVALID: the settings under settingsRef ${ref.slice(0, 12)}… are not JSON`); }
    const checked = check(jobSettingsSchema, parsed);
    if (!checked.ok) throw new Error(`POOL_JOB_INVALID: the settings under settingsRef ${ref.slice(0, 12)}…: ${checked.reason}`);
    if (settingsByRef.size >= 8) settingsByRef.delete(settingsByRef.keys().next().value!);
    const found = { text, sent: checked.value };
    settingsByRef.set(ref, found);
    return found;
  }

  /** A shared pool's host file through this worker's mapping: inside the mapped folder (links resolved), a file of the ticket's size. */
  function throughMapping(hostPath: string, size: number): string | null {
    const mapped = mapHostPath(maps, hostPath);
    if (!mapped) return null;
    try {
      const real = fs.realpathSync(mapped);
      const inside = maps.some((m) => {
        const root = fs.realpathSync(m.worker);
        return real === root || real.startsWith(`${root}${path.sep}`);
      });
      const stat = fs.statSync(real);
      return inside && stat.isFile() && stat.size === size ? mapped : null;
    } catch {
      return null;
    }
  }

  async function execute(data: PoolJob, dir: string, signal: AbortSignal, forward: LogForwarder): Promise<PoolResult> {
    const door: DoorUnit = { ...unit, unitId: data.door.unitId };
    // The host away (down, restarting, a cut network): the transfer waits for it, the lock renewed meanwhile.
    const patience = (what: string): DoorPatience => ({
      ...DEFAULT_DOOR_PATIENCE,
      onWait: ({ attempt, waitMs, reason }) => say(`backlot worker: ${data.jobId} door unreachable (${reason}) during ${what}; try ${attempt + 1} in ${(waitMs / 1000).toFixed(1)} s`),
    });
    const fingerprint = (): string => registry.engines.find((e) => e.enabled && e.adapter.id === data.engineId && e.adapter.operation === data.operation)?.fingerprint ?? '';
    const result = (outcome: PoolResult['outcome'], logs: EngineLogEntry[] = [], diagnostic = ''): PoolResult => ({
      format: RESULT_FORMAT, jobId: data.jobId, unitKey: data.unitKey, claimToken: data.claimToken,
      worker: { id, host: os.hostname().slice(0, 255), version: version() },
      // Numbered as the forwarder numbered them, so the host writes at the end only what it has not heard.
      engine: { id: data.engineId, fingerprint: fingerprint() }, logs: logs.map((l, seq) => ({ ...l, seq, text: l.text.slice(0, 64 * 1024) })).slice(-10_000),
      diagnostic: diagnostic.slice(-64 * 1024), outcome,
    });
    const settings = await settingsOfJob(data);
    const jobEnv = envForSettings(settings.text, settings.sent);
    // The engines are judged by the settings this unit runs with before it starts (docs/pools.md
    // "Preflight with the host's settings"): a lane they take out of service hands the unit back.
    const sent = settings.text;
    if (sent !== judgedBy) await (judging = judging.then(() => judgeBy(sent)));
    const out = outOfService.find((o) => o.lane === data.lane);
    // A unit taken alongside the one that found its engine missing goes back to the queue the same way.
    if (out?.code === 'WORKER_ENGINE_MISSING') throw new HandBack('WORKER_ENGINE_MISSING');
    if (out) return result({ ok: false, code: 'WORKER_OUT_OF_SERVICE', params: { lane: `${data.lane}@${join.pool}`, code: out.code, worker: id } }, [], out.message);
    const engine = registry.engines.find((e) => e.enabled && e.adapter.id === data.engineId && e.adapter.operation === data.operation);
    if (!engine || !engine.preflight.ok) {
      // The host runs this lane's work with an engine this worker cannot run: the worker takes the lane
      // out of service (its heartbeat says why) and hands the unit back to the queue, where a worker
      // that can run it takes it; no item fails and this worker is not sent the lane's work again.
      const why = engine && !engine.preflight.ok ? `${engine.preflight.code}: ${engine.preflight.message}` : 'not in this build';
      const message = `The host runs ${data.operation} with ${data.engineId}, which cannot run here (${why}).`;
      if (engineMissing.size === 0) recheckDelay = recheckFirstMs;
      engineMissing.set(data.lane, { engine: data.engineId, operation: data.operation, code: engine && !engine.preflight.ok ? engine.preflight.code : 'ENGINE_NOT_INSTALLED', message });
      judgeLanes();
      applyLanes();
      scheduleRecheck();
      say(`backlot worker: ${data.lane}@${join.pool} out of service: WORKER_ENGINE_MISSING: ${message}`);
      void writeBeat();
      throw new HandBack('WORKER_ENGINE_MISSING');
    }
    const inDir = path.join(dir, 'in');
    const outDir = path.join(dir, 'out');
    fs.mkdirSync(outDir, { recursive: true, mode: 0o700 });
    const local = new Map<number, string>();
    for (const f of data.files) {
      const dest = path.join(inDir, String(f.index), f.name);
      fs.mkdirSync(path.dirname(dest), { recursive: true, mode: 0o700 });
      // Shared media: the file as mounted here, when it is there whole (else through the door).
      const mounted = join.media === 'shared' && f.hostPath ? throughMapping(f.hostPath, f.size) : null;
      if (mounted) {
        local.set(f.index, mounted);
        continue;
      }
      // Media kept from an earlier unit (same tag: the same version of the same host file) is not fetched again.
      if (!cache.take(f.tag, f.size, dest)) {
        await fetchUnitFile(door, data.door.ticket, f.index, f.size, dest, signal, patience(`the read of ${f.name}`));
        cache.keep(f.tag, f.size, dest);
      }
      local.set(f.index, dest);
    }
    const inputs: Partial<Record<OperationId, string>> = {};
    for (const [op, n] of Object.entries(data.inputs) as [OperationId, number][]) inputs[op] = local.get(n)!;
    // The engine runs with the host's settings, so its output is what the host's fingerprint says.
    const job: JobContext = {
      env: jobEnv, jobId: data.jobId, outputDir: outDir, operation: data.operation,
      channel: data.channel as unknown as JobContext['channel'],
      item: data.item ? { ...(data.item as unknown as NonNullable<JobContext['item']>), media_path: data.media === null ? null : local.get(data.media)! } : null,
      inputs, attempts: data.attempts, defaultOutputDir: path.join(dir, 'final'), budgetUsd: data.budgetUsd,
    };
    const launch = await engine.adapter.launch(job);
    if (launch.kind === 'in-process') return result({ ok: false, code: 'ENGINE_NOT_REMOTABLE', params: { engine: data.engineId } });
    const request = { jobId: data.jobId, operation: data.operation, outputDir: outDir, input: launch.input };
    let heard = false;
    const runOptions = {
      signal, ...(launch.timeoutMs ? { timeoutMs: launch.timeoutMs } : {}),
      // Its first line: the engine is at work on this unit (warm or just started).
      onLog: (entry: EngineLogEntry) => {
        if (!heard) { heard = true; say(`backlot worker: ${data.jobId} engine started`); }
        forward.log(entry);
      },
      onProgress: (p: EngineProgress) => {
        if (!heard) { heard = true; say(`backlot worker: ${data.jobId} engine started`); }
        forward.progressed(p.ratio, p.message);
      },
    };
    // A long-lived engine is kept warm per key, as the host keeps its own (engines/workers.ts): a
    // cancel or a lost lock kills that process (the next unit starts a new one), an idle one is closed.
    const outcome: EngineOutcome = launch.kind === 'worker'
      ? await engines.run(`${engine.adapter.id}:${launch.key}`, launch.command, request, runOptions)
      : await new EngineProcess(launch.command, 'one-shot').run(request, runOptions);
    // An engine stopped by this worker says why it was stopped (the host's cancel, a lock this worker lost).
    const code = !outcome.ok && outcome.code === 'ENGINE_CANCELLED' && typeof signal.reason === 'string' ? signal.reason : null;
    // The engine's last lines reach the host before the uploads, which may take a while; a unit that
    // ends within the forwarder's first batch, with little to upload, sends them with its result only
    // (the host writes the result's unheard lines at the end: one Redis write per unit less).
    const uploadBytes = outcome.ok ? outcome.outputs.reduce((n, o) => n + o.bytes, 0) : 0;
    await forward.close({ leaveToResult: uploadBytes <= SMALL_UPLOAD_BYTES });
    if (!outcome.ok) return result({ ok: false, code: code ?? outcome.code, params: outcome.params }, outcome.logs, outcome.diagnostic);
    // Each attempt uploads under its own name, so a lost attempt's partial bytes never join this one's.
    const tag = crypto.randomBytes(4).toString('hex');
    const outputs: Extract<PoolResult['outcome'], { ok: true }>['outputs'] = [];
    for (const o of outcome.outputs) {
      const file = path.relative(outDir, o.path);
      if (file.includes(path.sep) || !/^[A-Za-z0-9][A-Za-z0-9._-]{0,110}$/.test(file)) {
        return result({ ok: false, code: 'ENGINE_OUTPUT_INVALID', params: { name: o.name, reason: 'not-a-plain-name' } }, outcome.logs, outcome.diagnostic);
      }
      const uploaded = `u${tag}-${file}`;
      // A name of this attempt's own: the host holds none of it yet, so the first try sends without asking.
      await uploadUnitOutput(door, data.door.uploadToken, uploaded, o.path, signal, patience(`the upload of ${file}`), { fresh: true });
      outputs.push({ name: o.name, file, uploaded, bytes: o.bytes, sha256: await sha256(o.path) });
    }
    return result({ ok: true, outputs, metadata: outcome.metadata }, outcome.logs, outcome.diagnostic);
  }

  let closing: Promise<void> | null = null;
  return {
    id, serving, outOfService,
    recheck: () => recheck(true),
    close() {
      closing ??= (async () => {
        clearInterval(timer);
        if (recheckTimer) clearTimeout(recheckTimer);
        // Running units finish and are answered; no new one is taken meanwhile.
        closed = true;
        const closes = Promise.all([...workers.values()].map((w) => w.worker.close().catch(() => undefined)));
        // While Redis cannot be reached no unit can answer (its lock lapses and it runs again elsewhere)
        // and BullMQ's close would wait for ever: the stop waits for Redis only a moment, then drops
        // every connection (docs/pools.md "Stopping while Redis is down").
        const answered = await settlesWhileReachable(closes, () => client.status === 'ready');
        if (!answered) {
          say(`backlot worker: Redis cannot be reached; stopping without it${running.size > 0 ? ` (${running.size} unit(s) stopped, to run again elsewhere)` : ''}`);
          for (const abort of running.values()) abort.abort('WORKER_STOPPED');
        }
        engines.stop();
        dirs.close();
        if (beatTimer) clearTimeout(beatTimer);
        if (answered) await client.del(heartbeatKey(join.pool, id)).catch(() => undefined);
        fleet.drop();
        // Dropped connections end BullMQ's waits; what it still winds up is given a moment, no more.
        if (!answered) await settlesWithin(closes, CLOSE_GRACE_MS);
      })();
      return closing;
    },
  };
}

/** Outputs up to this size go up in moments: the engine's last lines may wait for the result. */
const SMALL_UPLOAD_BYTES = 1024 * 1024;

/** A unit this worker puts back in the queue for another worker (not an answer, not a failure). */
class HandBack extends Error {
  constructor(readonly code: string) {
    super(code);
  }
}

/** A refused door token means this join file is stale (rotated, removed): no unit could be fetched, so the worker does not start. */
async function checkDoorToken(join: JoinFile): Promise<void> {
  let res: Response;
  try {
    res = await fetch(new URL(`/worker/v1/pools/${encodeURIComponent(join.pool)}/hello`, join.door.url), { headers: { authorization: `Bearer ${join.door.token}` }, signal: AbortSignal.timeout(10_000) });
  } catch {
    // The host may be starting or away for a moment; units wait in the queue meanwhile.
    return;
  }
  if (res.status === 401) {
    throw new BacklotError('DOOR_TOKEN_INVALID', `The worker door at ${join.door.url} refused pool ${join.pool}'s token; the token was rotated or the pool removed (copy the new join file here).`);
  }
}

async function sha256(file: string): Promise<string> {
  const hash = crypto.createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export type { JoinFile };
