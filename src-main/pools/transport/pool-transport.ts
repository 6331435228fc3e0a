// The host's side of the pools (docs/pools.md "A unit on a worker"): implements PoolRuntime on BullMQ.
// A claimed unit of a pool lane becomes one job on the pool's queue for its base lane, with a door
// ticket for its input files; its end is read back from Redis and checked at every fence (the claim
// token, the ticket, the uploaded bytes) before it is handed to the executor as an EngineOutcome.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { Job, Queue, QueueEvents } from 'bullmq';
import type { LaneKey } from '../../../src-shared/catalog/lanes';
import type { OperationId } from '../../../src-shared/catalog/operations';
import { isBacklotError } from '../../../src-shared/errors';
import type { InProcessIo } from '../../engines/adapter';
import type { EngineFailure, EngineOutcome } from '../../engines/runner';
import type { Db } from '../../db/connection';
import { SettingsStore } from '../../settings/settings-store';
import { PoolStore, type PoolRecord } from '../pool-store';
import type { WorkerDoor } from '../worker-door/door-server';
import type { PoolAdoptQuery, PoolLaneState, PoolRuntime, PoolUnitRequest } from '../pool-runtime';
import type { TicketBook } from '../worker-door/tickets';
import { checkOutputName } from '../worker-door/uploads';
import { bullConnection, hostPlace, type RedisPlace } from './connections';
import { jobSettings, settingsRef } from './job-settings';
import { JOB_FORMAT, STALLED_REASON, poolLogsSchema, cancelChannel, cancelKey, check, hostSettingsKey, hostSettingsRefKey, laneQueueName, poolBullPrefix, poolJobSchema, poolResultSchema, type PoolJob, type PoolResult } from './job-schema';
import { laneStates, readHeartbeats, signature, type PoolView } from './lane-states';
import { CLOSE_GRACE_MS, RedisFleet, closeBounded, settlesWithin } from './redis-fleet';
import { isLogKey, logLine, type LogMessage } from '../../../src-shared/runs/log-keys';

export interface PoolTransportOptions {
  pools: PoolStore;
  /** The worker door's tickets (`WorkerDoor.tickets`); the door must be open while units run on pools. */
  tickets: TicketBook;
  /** The transport settings, for the host's Redis place of each pool (connections.ts `hostPlace`). */
  settings?: SettingsStore;
  /** Instead of `settings`: where the host reaches a pool's Redis (tests). */
  place?: (pool: PoolRecord) => RedisPlace;
  /** How often the heartbeats are read while a pool exists (default 2 s). */
  pollMs?: number;
}

interface Conn {
  record: PoolRecord;
  place: RedisPlace | null;
  /** Every connection to this pool's Redis (the client, the queues', the events'), dropped at once on a stop while Redis is down. */
  fleet: RedisFleet;
  client: Redis | null;
  queues: Map<LaneKey, Queue>;
  events: Map<LaneKey, QueueEvents>;
  view: PoolView;
  /** The job settings last written to the pool's host-settings key (job-schema.ts), so a change is written once. */
  settingsSent?: string;
  /** Job settings (their JSON) written under their hash (hostSettingsRefKey), with when: jobs name them by it. */
  settingsRefs: Map<string, { sha256: string; at: number }>;
  /** Lanes whose first unit was sent: that one's state is read at once, in case its follower was not reading yet. */
  followed: Set<LaneKey>;
}

interface Waiter {
  pool: string;
  lane: LaneKey;
  /** Resolves the run, or (after an abort) only removes the job once it ends. */
  end(job: Ended): void;
  /** An adopted unit: called once with its job as soon as it can be read (its ticket is put back then). */
  adopt?: (job: Job) => void;
  /** The unit's run log and progress: the worker's lines are written there as they come (docs/pools.md "Log lines on the host"). */
  io?: InProcessIo;
  /** The highest line number of the worker's log written so far, and how many were written. */
  heard?: { seq: number; written: number };
  /** An adopted unit (an earlier host process may have cancelled it: its cancel key is deleted at the end). */
  adopted?: boolean;
  /** Being withdrawn from the queue (its lane had no worker in service for the lease): settle leaves it alone. */
  withdrawing?: boolean;
  /** When the host began following it (sent or adopted), by the host's clock. */
  since?: number;
}

/** At most this many of a worker's lines are written into one unit's run log (a flood is cut short, said once). */
const WORKER_LINES_PER_UNIT = 2000;
/** At a unit's end, at most this many lines of the result that were not heard while it ran. */
const RESULT_LINES_AT_END = 200;

type Ended = Job | null | 'closed' | 'refused' | { withdrawn: PoolLaneState['hold'] };

const failure = (code: string, params: Record<string, unknown>, diagnostic = ''): EngineFailure => ({ ok: false, code, params, diagnostic, logs: [] });
const ADD_TIMEOUT_MS = 10_000;
/** How long the settings a job names by hash stay in Redis after this host last wrote them (a job may wait that long). */
const SETTINGS_REF_TTL_S = 30 * 86_400;
/** Job ids whose end event came before their unit was followed, kept to settle them at once (at most this many). */
const EARLY_ENDS = 1024;

export class PoolTransport implements PoolRuntime {
  private readonly conns = new Map<string, Conn>();
  private readonly waiters = new Map<string, Waiter>();
  private readonly listeners = new Set<() => void>();
  private readonly idle = new Set<() => void>();
  /** Ends heard for jobs no waiter followed yet (an event can beat the add's answer): settled when followed. */
  private readonly earlyEnds = new Set<string>();
  /** Jobs whose cancel key this process set: only theirs is deleted at the end (one Redis write per unit less). */
  private readonly cancelled = new Set<string>();
  private removing = 0;
  private states: PoolLaneState[] = [];
  private last = '';
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private closed = false;
  /** Since when each pool lane (`cpu@studio`) has held POOL_OFFLINE, by the host's clock. */
  private readonly offlineSince = new Map<string, number>();

  constructor(private readonly options: PoolTransportOptions) {
    if (!options.settings && !options.place) throw new Error('PoolTransport needs settings or place');
    this.timer = setInterval(() => { void this.refresh(); }, options.pollMs ?? 2000);
    this.timer.unref();
    void this.refresh();
  }

  lanes(): PoolLaneState[] {
    return this.states;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves once no job is followed any more (cancelled ones included: they are removed at their end). */
  settled(): Promise<void> {
    if (this.waiters.size === 0 && this.removing === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.add(resolve));
  }

  private forget(jobId: string): void {
    this.waiters.delete(jobId);
    if (this.waiters.size > 0 || this.removing > 0) return;
    for (const resolve of [...this.idle]) resolve();
    this.idle.clear();
  }

  /** Reads the pools and their heartbeats now (the poll does it every pollMs); resolves once lanes() holds the result. */
  refresh(): Promise<void> {
    // A poll that fails (the database closing under it) leaves lanes() as they were; the next one tries again.
    this.ticking ??= this.tick().catch(() => undefined).finally(() => { this.ticking = null; });
    return this.ticking;
  }

  private async tick(): Promise<void> {
    if (this.closed) return;
    const records = this.options.pools.list();
    for (const [name, conn] of this.conns) if (!records.some((r) => r.name === name)) await this.drop(conn);
    // No pool: no connection, nothing touches Redis (docs/pools.md "Transport").
    for (const record of records) {
      const conn = this.connFor(record);
      conn.record = record;
      conn.view.record = record;
      if (!conn.client) continue;
      try {
        if (conn.client.status === 'wait') await conn.client.connect();
        conn.view.workers = await readHeartbeats(conn.client, record.name);
        conn.view.down = null;
      } catch (e) {
        conn.view.workers = [];
        conn.view.down = { code: 'TRANSPORT_UNREACHABLE', message: String((e as Error)?.message ?? e) };
      }
      conn.view.seen = true;
    }
    if (this.closed) return;
    // Jobs whose end event was missed (a reconnect) are read back here.
    for (const [jobId, w] of this.waiters) void this.settle(jobId, w);
    this.states = laneStates([...this.conns.values()].map((c) => c.view));
    this.withdrawStranded();
    const now = signature(this.states);
    if (now !== this.last) {
      this.last = now;
      for (const l of [...this.listeners]) {
        try { l(); } catch { /* a listener's bug is not the transport's */ }
      }
    }
  }

  private connFor(record: PoolRecord): Conn {
    let conn = this.conns.get(record.name);
    if (conn) return conn;
    conn = { record, place: null, fleet: new RedisFleet(), client: null, queues: new Map(), events: new Map(), view: { record, workers: [], down: null, seen: false }, settingsRefs: new Map(), followed: new Set() };
    this.conns.set(record.name, conn);
    try {
      conn.place = this.options.place ? this.options.place(record) : hostPlace(this.options.settings!, record);
      conn.client = conn.fleet.open(bullConnection(conn.place, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true }));
    } catch (e) {
      conn.view.down = { code: isBacklotError(e) ? e.code : 'TRANSPORT_FAILED', message: String((e as Error)?.message ?? e) };
    }
    return conn;
  }

  private queueOf(conn: Conn, lane: LaneKey): Queue {
    let queue = conn.queues.get(lane);
    if (!queue) {
      queue = new Queue(laneQueueName(lane), { connection: conn.fleet.open(bullConnection(conn.place!, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true })), prefix: poolBullPrefix(conn.record.name), skipVersionCheck: true });
      queue.on('error', () => undefined);
      conn.queues.set(lane, queue);
    }
    return queue;
  }

  private async eventsOf(conn: Conn, lane: LaneKey): Promise<void> {
    if (conn.events.has(lane)) return;
    // BullMQ reads the events on a copy of this connection (which joins the fleet); this one never connects.
    const events = new QueueEvents(laneQueueName(lane), { connection: conn.fleet.open(bullConnection(conn.place!, { lazyConnect: true })), prefix: poolBullPrefix(conn.record.name), skipVersionCheck: true });
    events.on('error', () => undefined);
    const wake = ({ jobId }: { jobId: string }) => {
      const w = this.waiters.get(jobId);
      if (w) {
        void this.settle(jobId, w, 'ended');
        return;
      }
      this.earlyEnds.add(jobId);
      if (this.earlyEnds.size > EARLY_ENDS) this.earlyEnds.delete(this.earlyEnds.values().next().value!);
    };
    events.on('completed', wake);
    events.on('failed', wake);
    events.on('progress', ({ jobId, data }: { jobId: string; data: unknown }) => {
      const w = this.waiters.get(jobId);
      if (w) this.workerLines(w, data);
    });
    conn.events.set(lane, events);
    await events.waitUntilReady();
  }

  async run(request: PoolUnitRequest, io: InProcessIo): Promise<EngineOutcome> {
    try {
      return await this.runOnce(request, io);
    } catch (e) {
      return failure(isBacklotError(e) ? e.code : 'POOL_TRANSPORT_FAILED', {}, String((e as Error)?.message ?? e));
    }
  }

  /**
   * At start, for a claim a dead host process left on a pool lane (PoolRuntime.inquire): is its job
   * still there to be followed? A job of another claim is not this claim's (left alone); a failed one
   * is removed, and the claim is released as before (the unit runs again, no attempt counted).
   */
  async inquire(query: PoolAdoptQuery): Promise<'adopt' | 'gone'> {
    const record = this.options.pools.get(query.pool);
    if (!record || !record.lanes.includes(query.lane)) return 'gone';
    const conn = this.connFor(record);
    if (!conn.view.seen) await this.refresh();
    if (!conn.client || !conn.place) return 'gone';
    // Redis cannot be asked now: the unit is followed once it is back (a job gone then is WORKER_LOST, requeued).
    if (conn.view.down) return 'adopt';
    try {
      const queue = this.queueOf(conn, query.lane);
      const state = await withTimeout(queue.getJobState(query.jobId), ADD_TIMEOUT_MS);
      if (state === 'unknown') return 'gone';
      const job = await withTimeout(Job.fromId(queue, query.jobId), ADD_TIMEOUT_MS);
      const data = job?.data as Partial<PoolJob> | undefined;
      if (!job || data?.claimToken !== query.claimToken || data?.unitKey !== query.unitKey) return 'gone';
      if (state !== 'failed') return 'adopt';
      await job.remove().catch(() => undefined);
      await conn.client.del(cancelKey(record.name, query.jobId)).catch(() => undefined);
      return 'gone';
    } catch {
      return 'adopt';
    }
  }

  private async runOnce(request: PoolUnitRequest, io: InProcessIo): Promise<EngineOutcome> {
    const { job } = request;
    if (io.signal.aborted) return failure('ENGINE_CANCELLED', { phase: 'before-start' });
    if (job.rollup) return failure('POOL_NOT_REMOTABLE', { operation: job.operation }, 'A channel roll-up reads host files by path; it runs on the host.');
    const record = this.options.pools.get(request.pool);
    if (!record || !record.lanes.includes(request.lane)) return failure('POOL_LANE_GONE', { lane: `${request.lane}@${request.pool}` });
    const conn = this.connFor(record);
    if (!conn.view.seen) await this.refresh();
    if (request.adopt && conn.client && conn.place) return this.adoptOnce(conn, request, io);
    if (conn.view.down) return failure('POOL_TRANSPORT_DOWN', { pool: record.name, reason: conn.view.down.code }, conn.view.down.message);
    if (!conn.client || !conn.place) return failure('POOL_TRANSPORT_DOWN', { pool: record.name, reason: 'TRANSPORT_FAILED' });

    const { paths, media, inputs } = unitFiles(job);
    const unitId = job.jobId;
    const issued = this.options.tickets.issueUnitTicket(record.name, unitId, paths, { jobId: job.jobId });
    const revoke = () => this.options.tickets.revokeUnit(record.name, unitId);
    const data: PoolJob = {
      format: JOB_FORMAT, pool: record.name, lane: request.lane, jobId: job.jobId, unitKey: request.unitKey, claimToken: request.claimToken,
      operation: job.operation, engineId: request.engineId, channel: { ...job.channel }, item: job.item ? { ...job.item, media_path: null } : null,
      // Shared media (docs/pools.md "Shared storage"): the worker reads each file through its mapping.
      attempts: job.attempts, budgetUsd: job.budgetUsd, files: record.media === 'shared' ? issued.files.map((f, i) => ({ ...f, hostPath: paths[i] })) : issued.files, media, inputs,
      door: { ticket: issued.ticket, uploadToken: issued.uploadToken, unitId }, leaseMs: record.leaseS * 1000,
    };
    // The settings go by reference (docs/pools.md "Settings travel with the job"): written once under
    // their hash, named by it in each job; where that write fails, the job carries them itself.
    const sent = jobSettings(job.env.settings);
    const settingsText = JSON.stringify(sent);
    const ref = await this.settingsRefOf(conn, settingsText);
    if (ref) data.settingsRef = ref;
    else data.settings = sent;

    // Workers judge their engines by the settings units run with (docs/pools.md "Preflight with the host's settings").
    if (conn.settingsSent !== settingsText) {
      await withTimeout(conn.client.set(hostSettingsKey(record.name), settingsText), ADD_TIMEOUT_MS).then(() => { conn.settingsSent = settingsText; }, () => undefined);
    }
    const queue = this.queueOf(conn, request.lane);
    let endWith: (job: Ended) => void = () => undefined;
    const ended = new Promise<Ended>((resolve) => { endWith = resolve; });
    try {
      await withTimeout(this.eventsOf(conn, request.lane), ADD_TIMEOUT_MS);
      await withTimeout(queue.add(job.operation, data, { jobId: job.jobId, attempts: 1, removeOnComplete: false, removeOnFail: false }), ADD_TIMEOUT_MS);
    } catch (e) {
      this.forget(job.jobId);
      revoke();
      return failure('POOL_TRANSPORT_DOWN', { pool: record.name }, String((e as Error)?.message ?? e));
    }
    io.log('info', logLine('poolSent', { pool: record.name, lane: request.lane, job: job.jobId }));
    // Followed only once it is in Redis: a poll that read the state of a job not added yet would
    // take "unknown" for a job gone. The job may have ended already; settle reads its state now.
    const waiter: Waiter = { pool: record.name, lane: request.lane, end: endWith, io, heard: { seq: -1, written: 0 } };
    return this.follow(conn, request, io, waiter, ended);
  }

  /** The hash the pool's Redis holds `text` under (written now if this process has not lately), or null where it could not be written. */
  private async settingsRefOf(conn: Conn, text: string): Promise<string | null> {
    const known = conn.settingsRefs.get(text);
    // Written again once a day, so settings in use never expire under a waiting job.
    if (known && Date.now() - known.at < 86_400_000) return known.sha256;
    const sha256 = settingsRef(text);
    try {
      await withTimeout(conn.client!.set(hostSettingsRefKey(conn.record.name, sha256), text, 'EX', SETTINGS_REF_TTL_S), ADD_TIMEOUT_MS);
    } catch {
      return null;
    }
    if (conn.settingsRefs.size >= 8) conn.settingsRefs.delete(conn.settingsRefs.keys().next().value!);
    conn.settingsRefs.set(text, { sha256, at: Date.now() });
    return sha256;
  }

  /**
   * A unit an earlier host process sent (docs/pools.md "Host restarts"): nothing is sent again. Its
   * job is followed where it is; as soon as it can be read its ticket is put back with the tokens the
   * worker holds, so the worker's uploads land in the same temporary folder (kept at the start's sweep).
   */
  private adoptOnce(conn: Conn, request: PoolUnitRequest, io: InProcessIo): Promise<EngineOutcome> {
    const { job } = request;
    let endWith: (job: Ended) => void = () => undefined;
    const ended = new Promise<Ended>((resolve) => { endWith = resolve; });
    io.log('info', `unit adopted on pool ${conn.record.name} (${request.lane}@${conn.record.name}), job ${job.jobId}: followed after the host's restart`);
    const waiter: Waiter = {
      pool: conn.record.name, lane: request.lane, end: endWith, io, heard: { seq: -1, written: 0 }, adopted: true,
      adopt: (found) => {
        const data = check(poolJobSchema, found.data);
        try {
          if (!data.ok || data.value.claimToken !== request.claimToken || data.value.unitKey !== request.unitKey || data.value.engineId !== request.engineId || data.value.door.unitId !== job.jobId) {
            throw new Error('the job in Redis is not this claim\'s');
          }
          const { paths } = unitFiles(job);
          this.options.tickets.restoreUnitTicket(conn.record.name, data.value.door.unitId, paths,
            { ticket: data.value.door.ticket, uploadToken: data.value.door.uploadToken }, data.value.files, { jobId: job.jobId });
        } catch (e) {
          io.log('warn', `unit ${job.jobId} cannot be adopted: ${(e as Error)?.message ?? String(e)}`);
          endWith('refused');
        }
      },
    };
    return this.follow(conn, request, io, waiter, ended);
  }

  private async follow(conn: Conn, request: PoolUnitRequest, io: InProcessIo, waiter: Waiter, ended: Promise<Ended>): Promise<EngineOutcome> {
    const { job } = request;
    const record = conn.record;
    const revoke = () => this.options.tickets.revokeUnit(record.name, job.jobId);
    waiter.since = Date.now();
    this.waiters.set(job.jobId, waiter);
    // Events of the lane's queue wake the waiter; the poll reads its state anyway (a missed event, Redis down at start).
    void withTimeout(this.eventsOf(conn, request.lane), ADD_TIMEOUT_MS).catch(() => undefined);
    // Read at once: an adopted unit (its job may have ended meanwhile), a job whose end was heard
    // before it was followed, and a lane's first unit (its follower may not have been reading yet).
    // Any other job's end wakes it, so its state is not read twice.
    if (waiter.adopted || this.earlyEnds.delete(job.jobId)) void this.settle(job.jobId, waiter);
    else if (!conn.followed.has(request.lane)) {
      conn.followed.add(request.lane);
      void this.settle(job.jobId, waiter);
    }

    const aborted = new Promise<'aborted'>((resolve) => io.signal.addEventListener('abort', () => resolve('aborted'), { once: true }));
    const first = await Promise.race([ended, aborted]);
    if (first === 'aborted' || first === 'refused') {
      revoke();
      if (this.waiters.get(job.jobId) === waiter) this.waiters.delete(job.jobId);
      await withTimeout(this.cancel(conn, request.lane, job.jobId), ADD_TIMEOUT_MS).catch(() => undefined);
      if (first === 'refused') return failure('POOL_FENCE_REFUSED', { fence: 'adopt', pool: record.name }, 'The job left in Redis does not match the claim, or the unit\'s files changed, so it was not adopted.');
      return failure('ENGINE_CANCELLED', { phase: 'running', pool: record.name });
    }
    // Fence 2 first: from here no late upload can change what is checked below.
    revoke();
    if (first === 'closed') return failure('POOL_TRANSPORT_CLOSED', { pool: record.name }, 'The host stopped following the unit; it stays in the queue.');
    if (first !== null && 'withdrawn' in first) {
      const lane = `${request.lane}@${record.name}`;
      const why = typeof first.withdrawn?.params.code === 'string' ? first.withdrawn.params.code : null;
      io.log('warn', `unit withdrawn from pool ${record.name}: no worker in service on ${lane} for the lease (${record.leaseS} s)${why ? `, ${why}` : ''}; it goes back to the tree`);
      return failure('POOL_UNIT_WITHDRAWN', { pool: record.name, lane, leaseS: record.leaseS, ...(why ? { code: why } : {}) },
        `No worker in service took the unit from ${lane} within the pool's lease (${record.leaseS} s); it was taken back from the queue, not counted as the item's failure.`);
    }
    return this.outcome(first, request, waiter);
  }

  /**
   * Units that no worker can take (docs/pools.md "What each failure does"): while a pool lane holds
   * POOL_OFFLINE (no worker alive, or every live one out of service for it) the arbiter sends it
   * nothing new; once it has held that for the pool's lease, each of its units still waiting in the
   * queue (followed for the lease too) is taken back and ends POOL_UNIT_WITHDRAWN (requeued, no attempt counted), so the tree can
   * give it to another lane. A unit a worker holds (its lock alive) is never taken back.
   */
  private withdrawStranded(): void {
    const now = Date.now();
    for (const state of this.states) {
      if (state.hold?.code !== 'POOL_OFFLINE') {
        this.offlineSince.delete(state.queueKey);
        continue;
      }
      const since = this.offlineSince.get(state.queueKey) ?? now;
      this.offlineSince.set(state.queueKey, since);
      const conn = this.conns.get(state.pool);
      if (!conn) continue;
      const lease = conn.record.leaseS * 1000;
      for (const [jobId, w] of this.waiters) {
        // Both the lane's hold and the unit's wait have lasted the lease (a unit sent just now gets its lease too).
        if (w.pool !== state.pool || w.lane !== state.lane || !w.io || w.adopt || w.withdrawing) continue;
        if (now - Math.max(since, w.since ?? now) >= lease) void this.withdraw(conn, jobId, w, state.hold);
      }
    }
    for (const key of [...this.offlineSince.keys()]) if (!this.states.some((s) => s.queueKey === key)) this.offlineSince.delete(key);
  }

  /** Removes a unit's job if no worker holds it (BullMQ refuses to remove a locked job), then ends its waiter. */
  private async withdraw(conn: Conn, jobId: string, w: Waiter, hold: PoolLaneState['hold']): Promise<void> {
    w.withdrawing = true;
    let removed = false;
    try {
      const queue = this.queueOf(conn, w.lane);
      const job = await withTimeout(Job.fromId(queue, jobId), ADD_TIMEOUT_MS);
      const state = job ? await withTimeout(job.getState(), ADD_TIMEOUT_MS) : 'unknown';
      // An active job is removed only when its lock has lapsed (its worker is gone): remove() refuses a locked one.
      if (job && (state === 'waiting' || state === 'prioritized' || state === 'delayed' || state === 'active')) {
        await withTimeout(job.remove(), ADD_TIMEOUT_MS);
        removed = true;
      }
    } catch {
      // Taken by a worker meanwhile, or Redis away: the unit is followed as before.
    } finally {
      w.withdrawing = false;
    }
    if (!removed || this.waiters.get(jobId) !== w) return;
    this.waiters.delete(jobId);
    await conn.client?.del(cancelKey(w.pool, jobId)).catch(() => undefined);
    w.end({ withdrawn: hold });
    this.forget(jobId);
  }

  /**
   * Reads a waiting job's state; once it ended, removes it from Redis and ends its waiter. `ended`:
   * an end event named the job, so its record is read at once and its end (`finishedOn`, which
   * BullMQ sets as it moves a job to completed or failed) is the state; without it, the state first.
   */
  private async settle(jobId: string, w: Waiter, hint?: 'ended'): Promise<void> {
    const conn = this.conns.get(w.pool);
    if (!conn || this.waiters.get(jobId) !== w || w.withdrawing) return;
    let job: Job | undefined;
    let state: string;
    try {
      const queue = this.queueOf(conn, w.lane);
      const read = hint === 'ended' && !w.adopt ? await Job.fromId(queue, jobId) : undefined;
      if (read?.finishedOn) {
        job = read;
        state = read.failedReason ? 'failed' : 'completed';
      } else {
        // The state first: a job read before its end would carry no result yet. An ended job changes no more.
        state = await queue.getJobState(jobId);
        if (state === 'completed' || state === 'failed' || (w.adopt && state !== 'unknown')) job = await Job.fromId(queue, jobId);
      }
    } catch {
      return;
    }
    if (this.waiters.get(jobId) !== w || w.withdrawing) return;
    if (w.adopt && job) {
      const adopt = w.adopt;
      w.adopt = undefined;
      adopt(job);
      if (this.waiters.get(jobId) !== w) return;
    }
    if (state !== 'completed' && state !== 'failed' && state !== 'unknown') return;
    // Claimed by this call (a second settle of the same job stops above), then removed from Redis.
    this.removing++;
    this.waiters.delete(jobId);
    try { await job?.remove(); } catch { /* gone already */ }
    // A cancel key exists only where a host cancelled the unit: this process, or one before an adoption.
    if (this.cancelled.delete(jobId) || w.adopted) await conn.client?.del(cancelKey(w.pool, jobId)).catch(() => undefined);
    this.removing--;
    w.end(job ?? null);
    this.forget(jobId);
  }

  /** The host gives a unit up: a waiting job is removed; one a worker runs is cancelled there, and removed once it ends. */
  private async cancel(conn: Conn, lane: LaneKey, jobId: string): Promise<void> {
    this.waiters.set(jobId, { pool: conn.record.name, lane, end: () => undefined });
    this.cancelled.add(jobId);
    await conn.client!.set(cancelKey(conn.record.name, jobId), '1', 'EX', 86_400);
    await conn.client!.publish(cancelChannel(conn.record.name), jobId);
    try {
      const job = await Job.fromId(this.queueOf(conn, lane), jobId);
      if (job && (await job.getState()) !== 'active') {
        await job.remove();
        await conn.client!.del(cancelKey(conn.record.name, jobId));
        this.cancelled.delete(jobId);
        this.forget(jobId);
      }
    } catch {
      // Locked by its worker: the worker hears the cancel, and settle() removes the job at its end.
    }
  }

  /** Fences 1 and 3: the claim token the worker echoes, and the outputs really uploaded, byte for byte. */
  /** A batch of a worker's lines and progress (log-forwarder.ts): checked, then written into the unit's run log. */
  private workerLines(w: Waiter, data: unknown): void {
    if (!w.io || !w.heard) return;
    let value = data;
    if (typeof value === 'string') {
      try { value = JSON.parse(value); } catch { return; }
    }
    const checked = check(poolLogsSchema, value);
    if (!checked.ok) return;
    const batch = checked.value;
    for (const line of batch.lines) {
      if (line.seq <= w.heard.seq) continue;
      w.heard.seq = line.seq;
      this.writeWorkerLine(w, batch.worker, line);
    }
    if (batch.dropped > 0 && w.heard.written < WORKER_LINES_PER_UNIT) {
      w.heard.written++;
      w.io.log('warn', `[${batch.worker}] ${batch.dropped} log line(s) of the engine left out here (the worker forwards at most 20 a second, 1,000 a unit)`);
    }
    if (batch.progress) w.io.progress(batch.progress.ratio, batch.progress.message);
  }

  /** One worker line in the run log, tagged with the worker: a keyed line keeps its key (the window says it) and names the worker in `onWorker`. */
  private writeWorkerLine(w: Waiter, worker: string, line: { level: 'debug' | 'info' | 'warn' | 'error'; text: string; key?: string; params?: Record<string, unknown> }): void {
    if (!w.io || !w.heard) return;
    if (w.heard.written >= WORKER_LINES_PER_UNIT) return;
    w.heard.written++;
    if (w.heard.written === WORKER_LINES_PER_UNIT) {
      w.io.log('warn', `[${worker}] the rest of the engine's log is left out of the run log (${WORKER_LINES_PER_UNIT} lines written)`);
      return;
    }
    const text = `[${worker}] ${line.text.slice(0, 2000)}`;
    const params: Record<string, string | number | boolean | null> = {};
    for (const [k, v] of Object.entries(line.params ?? {}).slice(0, 32)) {
      if (v === null || typeof v === 'number' || typeof v === 'boolean') params[k] = v;
      else if (typeof v === 'string') params[k] = v.slice(0, 500);
    }
    const message: LogMessage = line.key && isLogKey(line.key) ? { text, key: line.key, params: { ...params, onWorker: worker } } : { text };
    w.io.log(line.level, message);
  }

  /** At the unit's end: the result's lines the run log has not heard (a missed batch, an adopted unit), the last ones only. */
  private resultLines(w: Waiter | undefined, worker: string, logs: PoolResult['logs']): void {
    if (!w?.io || !w.heard) return;
    const heard = w.heard.seq;
    const unheard = logs.map((l, i) => ({ l, seq: l.seq ?? i })).filter((x) => x.seq > heard);
    const shown = unheard.slice(-RESULT_LINES_AT_END);
    if (unheard.length > shown.length) w.io.log('warn', `[${worker}] ${unheard.length - shown.length} earlier log line(s) of the engine left out here`);
    for (const x of shown) this.writeWorkerLine(w, worker, x.l);
    w.heard.seq = Math.max(heard, ...shown.map((x) => x.seq));
  }

  private async outcome(job: Job | null, request: PoolUnitRequest, waiter?: Waiter): Promise<EngineOutcome> {
    if (!job) return failure('WORKER_LOST', { pool: request.pool, reason: 'job-gone' });
    if (job.failedReason) {
      // An adopted unit whose job failed lost its worker's attempt across the host's restart (an upload
      // refused while no door or ticket was there): the unit runs again, not the item's failure.
      if (request.adopt) return failure('WORKER_LOST', { pool: request.pool, lane: `${request.lane}@${request.pool}`, reason: 'adopted-job-failed' }, String(job.failedReason).slice(0, 2000));
      if (job.failedReason === STALLED_REASON) return failure('WORKER_LOST', { pool: request.pool, lane: `${request.lane}@${request.pool}` }, job.failedReason);
      // The worker waited out its patience for this host's door (docs/pools.md "What each failure does"): not the item's fault.
      if (job.failedReason.startsWith('WORKER_DOOR_UNREACHABLE:')) return failure('WORKER_LOST', { pool: request.pool, lane: `${request.lane}@${request.pool}`, reason: 'door-unreachable' }, job.failedReason.slice(0, 2000));
      return failure('POOL_WORKER_FAILED', { pool: request.pool }, String(job.failedReason).slice(0, 2000));
    }
    const checked = check(poolResultSchema, job.returnvalue);
    if (!checked.ok) return failure('POOL_RESULT_INVALID', { pool: request.pool }, checked.reason);
    const result: PoolResult = checked.value;
    if (result.jobId !== request.job.jobId || result.unitKey !== request.unitKey || result.claimToken !== request.claimToken) {
      return failure('POOL_FENCE_REFUSED', { fence: 'claim', pool: request.pool });
    }
    this.resultLines(waiter, result.worker.id, result.logs);
    const logs = result.logs;
    const base = { pool: request.pool, worker: result.worker, engine: { id: `${result.engine.id}@${request.pool}`, fingerprint: result.engine.fingerprint } };
    if (!result.outcome.ok) return { ok: false, code: result.outcome.code, params: { ...result.outcome.params, ...base }, diagnostic: result.diagnostic, logs };
    const dir = request.job.outputDir;
    const outputs: { name: string; path: string; bytes: number }[] = [];
    for (const o of result.outcome.outputs) {
      const refused = await verifyUpload(dir, o);
      if (refused) return failure('POOL_OUTPUT_REFUSED', { ...base, name: o.name, reason: refused }, `output ${o.name}: ${refused}`);
      if (outputs.some((x) => path.basename(x.path) === o.file)) return failure('POOL_OUTPUT_REFUSED', { ...base, name: o.name, reason: 'repeated-file' });
      outputs.push({ name: o.name, path: path.join(dir, o.file), bytes: o.bytes });
    }
    // Each upload takes the engine's own file name; what a lost attempt left behind goes.
    for (const [i, o] of result.outcome.outputs.entries()) fs.renameSync(path.join(dir, o.uploaded), outputs[i].path);
    const keep = new Set(outputs.map((o) => path.basename(o.path)));
    for (const name of fs.readdirSync(dir)) if (!keep.has(name)) fs.rmSync(path.join(dir, name), { recursive: true, force: true });
    return { ok: true, outputs, metadata: { ...result.outcome.metadata, pool: base }, logs, diagnostic: result.diagnostic };
  }

  /** Bounded, Redis reachable or not (docs/pools.md "Stopping while Redis is down"). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    if (this.ticking) await settlesWithin(this.ticking, CLOSE_GRACE_MS);
    for (const [jobId, w] of [...this.waiters]) {
      w.end('closed');
      this.forget(jobId);
    }
    await Promise.all([...this.conns.values()].map((c) => this.drop(c)));
  }

  /** BullMQ's closes, then every connection of the pool dropped; a close Redis's absence holds up is cut short. */
  private async drop(conn: Conn): Promise<void> {
    this.conns.delete(conn.record.name);
    await closeBounded([...[...conn.events.values()].map((e) => e.close()), ...[...conn.queues.values()].map((q) => q.close())], conn.fleet);
  }
}

/** The unit's input files, by number: the item's media and each committed output it builds on (the same list at send and at adoption). */
function unitFiles(job: PoolUnitRequest['job']): { paths: string[]; media: number | null; inputs: Partial<Record<OperationId, number>> } {
  const paths: string[] = [];
  const indexOf = (p: string): number => {
    const i = paths.indexOf(p);
    return i >= 0 ? i : paths.push(p) - 1;
  };
  const media = job.item?.media_path ? indexOf(job.item.media_path) : null;
  const inputs: Partial<Record<OperationId, number>> = {};
  for (const [op, p] of Object.entries(job.inputs) as [OperationId, string][]) if (p && fs.existsSync(p)) inputs[op] = indexOf(p);
  return { paths, media, inputs };
}

async function verifyUpload(dir: string, o: { file: string; uploaded: string; bytes: number; sha256: string }): Promise<string | null> {
  try {
    checkOutputName(o.file);
    checkOutputName(o.uploaded);
  } catch {
    return 'name';
  }
  const file = path.join(dir, o.uploaded);
  let stat: fs.Stats;
  try { stat = fs.lstatSync(file); } catch { return 'not-uploaded'; }
  if (!stat.isFile()) return 'not-a-file';
  if (stat.size !== o.bytes) return 'size-mismatch';
  const hash = crypto.createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex') === o.sha256 ? null : 'sha256-mismatch';
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`no answer from Redis within ${ms} ms`)), ms); });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/**
 * The host's transport for an open library (app/open-app.ts): only where the worker door is open,
 * i.e. the host dispatches and a pool exists; otherwise null, and nothing touches Redis.
 */
export function openPoolTransport(db: Db, door: WorkerDoor | null, options: { pollMs?: number } = {}): PoolTransport | null {
  if (door === null) return null;
  const pools = new PoolStore(db);
  if (pools.count() === 0) return null;
  return new PoolTransport({ pools, tickets: door.tickets, settings: new SettingsStore(db), ...options });
}
