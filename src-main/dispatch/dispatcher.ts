// The arbiter in real time: it wakes when a slot frees, work appears, a gate, a setting or the
// tree changes, or a timer (the next retry, the next due sync, a gate's edge) fires, claims the
// picks in one transaction and starts their engines after it commits (docs/architecture.md
// "One pick"). No busy polling. It holds the dispatcher lock so a second one on the same library
// is refused.
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Host } from '../host/host';
import { Arbiter, type ArbiterConfig, type RunningUnit } from '../arbiter/arbiter';
import { DEFAULT_LANES, type LaneConfig } from '../arbiter/lanes';
import { SettingsStore } from '../settings/settings-store';
import { pruneRuns, spendWindowStart } from '../runs/history';
import { SystemDiskProbe } from '../gates/disk-probe';
import { localWallTime } from '../gates/quiet-hours';
import { detectGpus, type GpuReport } from '../gates/gpu';
import { sweepTemporaryOutputs, temporaryOutputDir } from '../engines/commit-output';
import { DispatcherLock } from './lock';
import { ManualRuns } from '../arbiter/manual-runs';
import { BacklotError } from '../../src-shared/errors';
import type { OperationId } from '../../src-shared/catalog/operations';
import { UnitPipeline } from '../units/unit-pipeline';
import type { UnitContext, UnitEnded } from '../units/unit-context';
import { jobIdOf } from '../engines/job-paths';
import { setEnginePriority } from '../engines/engine-priority';
import { buildEngineRegistry, type EngineRegistry, type RegistryOptions } from '../engines/registry';
import type { EngineAdapter, EngineEnvironment, EngineProfile } from '../engines/adapter';
import type { TestEngineOptions } from '../engines/test-engine/adapter';
import { LANE_KEYS, type SettingKey, type SettingsValues } from '../../src-shared/settings/settings-schema';
import { resourcesDir } from '../engines/resources';
import { UnitProgress, type ProgressReport } from './unit-progress';
import { DiskFullState } from '../gates/disk-full';
import { HostTurns } from '../system/host-turns';
import { storageErrorCode } from '../db/storage-errors';
import { attachAcquisition, detachAcquisition, type Acquisition } from '../gates/acquisition';
import { calendarPeriod } from '../../src-shared/schedule/calendar-period';
import type { PoolRuntime } from '../pools/pool-runtime';
import { baseLane, poolOf } from '../../src-shared/catalog/pool-lanes';
import type { LaneKey } from '../../src-shared/catalog/lanes';

export interface DispatcherOptions {
  dataDir: string;
  profile: EngineProfile;
  test?: TestEngineOptions;
  /** For tests: a GPU report instead of asking the hardware. */
  gpu?: GpuReport;
  /** For tests: adapters beside the profile's own (a second engine on another lane). */
  extraAdapters?: readonly EngineAdapter[];
  /**
   * The pools' runtime (docs/pools.md "Pool lanes in the tree"): its lanes join the arbiter's, and the
   * units claimed on them run through it. Absent while no pool exists: nothing changes for a local
   * user and nothing touches Redis. The dispatcher subscribes to its changes and never closes it:
   * whoever made it closes it after the dispatcher stopped.
   */
  poolRuntime?: PoolRuntime;
}

export type { UnitEnded };

const MAX_TIMER_MS = 2 ** 31 - 1;
const DISK_REFRESH_MS = 30_000;
const PRUNE_EVERY_MS = 6 * 3600_000;
const OTHER_WRITERS_CHECK_MS = 5_000;
/** Settings another process wrote (a key set through the CLI) are looked for this often: one PRAGMA when none changed. */
const OTHER_SETTINGS_CHECK_MS = 1_000;
/** While the disk is full, how often its free space is read again. */
const DISK_FULL_RECHECK_MS = 2_000;
/** How often running engines' CPU wait is read for the lane page's "waiting for CPU" (unit-progress.ts): a directory and a file per engine thread. */
const CPU_WAIT_SAMPLE_MS = 2_000;
/** What a download is expected to write per second of media (2 Mbit/s), reserved against the disk gate. */
const DOWNLOAD_BYTES_PER_MEDIA_SECOND = 250_000;

export class Dispatcher {
  arbiter!: Arbiter;
  manual!: ManualRuns;
  registry!: EngineRegistry;
  readonly settings: SettingsStore;
  readonly progress = new UnitProgress();
  startedAt = 0;
  private gpu!: GpuReport;
  private env!: EngineEnvironment;
  private readonly lock: DispatcherLock;
  private pipeline!: UnitPipeline;
  private readonly disk: SystemDiskProbe;
  /** Cooldowns, pacing, caps, the ENOSPC shortfall and the folder watcher (docs/acquisition.md). */
  readonly acquisition: Acquisition;
  /** Turns for the units' settle transactions, one per pass of the loop (system/host-turns.ts). */
  private readonly turns = new HostTurns();
  private wakeQueued = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly intervals: NodeJS.Timeout[] = [];
  private stopped = false;
  private dispatching = false;
  private unsubscribe: (() => void) | null = null;
  private unsubscribePools: (() => void) | null = null;
  private rebuilding: Promise<void> | null = null;
  private rebuildsPending = 0;
  private readonly endedListeners = new Set<(e: UnitEnded) => void>();
  private readonly settledListeners = new Set<() => void>();
  readonly diskFull: DiskFullState;
  private diskFullTimer: NodeJS.Timeout | null = null;
  /** The startup sweep could not be written (a restart on a full disk): it runs when space returns. */
  private sweepPending = false;
  /** When the current channel-digest period ends: every roll-up is derived again then. */
  private rollupBoundary = Number.POSITIVE_INFINITY;
  /** Lanes whose spend-cap notice went out; cleared once the lane no longer holds at the cap. */
  private readonly capNoticed = new Set<string>();

  constructor(private readonly host: Host, private readonly options: DispatcherOptions) {
    this.settings = new SettingsStore(host.db);
    this.lock = new DispatcherLock(host.db, `dispatcher-${randomUUID()}`);
    this.disk = new SystemDiskProbe(options.dataDir);
    this.diskFull = new DiskFullState(options.dataDir, () => this.settings.get('diskFull.resumeAboveBytes'));
    this.acquisition = attachAcquisition(host, options.dataDir, () => this.settings.values(), this.disk, () => this.wake());
  }

  isDispatching(): boolean {
    return this.dispatching;
  }

  /**
   * Builds the arbiter over the database without dispatching: what a reader (explain, lanes,
   * the CLI) needs. Idempotent.
   */
  async prepare(): Promise<Arbiter> {
    if (this.arbiter) return this.arbiter;
    this.gpu = this.options.gpu ?? await detectGpus();
    const values = this.settings.values();
    this.env = this.environment(values);
    this.registry = await this.buildRegistry(this.env);
    await this.disk.refresh();
    this.arbiter = new Arbiter(this.host, this.config(values, this.registry.bindings, this.gpu));
    this.pipeline = new UnitPipeline(this.unitContext(), () => this.announceIfSettled());
    this.manual = new ManualRuns(this.host, this.arbiter);
    const pools = this.options.poolRuntime;
    if (pools) {
      this.arbiter.setPoolLanes(pools.lanes());
      // A worker came or went, the transport went down: the lanes are read again and the arbiter wakes.
      this.unsubscribePools = pools.onChange(() => this.poolLanesChanged());
    }
    this.host.work.useRollupPeriod(values['digest.channel.period']);
    return this.arbiter;
  }

  /** Whether this host was given a pool runtime (the worker door and transport open at start, docs/pools.md). */
  get poolsOpen(): boolean {
    return this.options.poolRuntime !== undefined;
  }

  private poolLanesChanged(): void {
    const pools = this.options.poolRuntime;
    if (!pools || this.stopped) return;
    try {
      this.arbiter.setPoolLanes(pools.lanes());
    } catch (e) {
      this.reportInternal('reading the pool lanes', e);
      return;
    }
    this.host.emit('lanes-changed');
    this.wake();
  }

  /** What a unit's pipeline uses of this dispatcher (units/unit-context.ts). */
  private unitContext(): UnitContext {
    return {
      host: this.host,
      arbiter: this.arbiter,
      pools: this.options.poolRuntime ?? null,
      progress: this.progress,
      acquisition: this.acquisition,
      turns: this.turns,
      engines: () => ({ registry: this.registry, env: this.env }),
      stallTimeoutMs: () => this.settings.get('engines.stallTimeoutS') * 1000,
      stopped: () => this.stopped,
      preflightFailed: (unit, engineId, preflight) => {
        if (this.registry.failPreflight(engineId, unit.operation, preflight)) this.arbiter.bindingsChanged();
        this.host.emit('lanes-changed');
      },
      settled: (ended) => this.settled(ended),
      diskFull: () => this.enterDiskFull(),
    };
  }

  private environment(values: SettingsValues): EngineEnvironment {
    return { dataDir: this.options.dataDir, modelsDir: path.join(this.options.dataDir, 'models'), resourcesDir: resourcesDir(), settings: values, gpu: this.gpu };
  }

  private buildRegistry(env: EngineEnvironment, previous?: RegistryOptions['previous']): Promise<EngineRegistry> {
    return buildEngineRegistry({ profile: this.options.profile, env, test: this.options.test, extra: this.options.extraAdapters, ...(previous ? { previous } : {}) });
  }

  /**
   * Takes the lock, sweeps what a dead process left, and starts dispatching. On a full disk it
   * starts held (DISK_FULL) instead of failing, and takes the lock and sweeps once space returns.
   */
  async start(): Promise<{ interruptedRuns: number; releasedClaims: number; adoptedUnits: number }> {
    let swept = { interruptedRuns: 0, releasedClaims: 0, adoptedUnits: 0 };
    try {
      this.lock.acquire();
    } catch (e) {
      if (!storageErrorCode(e)) throw e;
      this.sweepPending = true;
    }
    await this.prepare();
    if (!this.sweepPending) {
      try {
        swept = await this.sweep();
      } catch (e) {
        if (!storageErrorCode(e)) throw e;
        this.sweepPending = true;
      }
    }
    this.rollupBoundary = calendarPeriod(this.host.now(), this.host.work.rollupPeriod()).end;
    this.dispatching = true;
    if (this.sweepPending) this.enterDiskFull();
    setEnginePriority(this.settings.get('engines.priority'));
    this.unsubscribe = this.settings.onChange((change) => this.applySettings(change.key));
    // Settings written by another process reach this host as the API's do (docs/security.md).
    this.settings.noticeOtherWriters();
    this.intervals.push(setInterval(() => this.noticeOtherSettings(), OTHER_SETTINGS_CHECK_MS));
    this.intervals.push(setInterval(() => this.renewLock(), 10_000));
    this.intervals.push(setInterval(() => { void this.disk.refresh().then(() => this.wake(), () => undefined); }, DISK_REFRESH_MS));
    this.intervals.push(setInterval(() => this.prune(), PRUNE_EVERY_MS));
    // Only another process's commit (a CLI pause, tree or scan) is looked for here; everything this
    // process changes wakes the arbiter directly.
    this.intervals.push(setInterval(() => { if (this.arbiter.noticeOtherWriters()) this.wake(); }, OTHER_WRITERS_CHECK_MS));
    this.intervals.push(setInterval(() => {
      if (this.progress.enginesFollowed > 0 && this.progress.sampleCpu(performance.now())) this.host.emit('progress-changed');
    }, CPU_WAIT_SAMPLE_MS));
    for (const i of this.intervals) i.unref();
    this.prune();
    this.startedAt = this.host.now();
    this.acquisition.startWatching();
    this.wake();
    return swept;
  }

  private async sweep(): Promise<{ interruptedRuns: number; releasedClaims: number; adoptedUnits: number }> {
    const adopt = await this.adoptablePoolUnits();
    await sweepTemporaryOutputs(this.options.dataDir, {
      wasRecorded: (jobId) => this.host.db.prepare('SELECT 1 FROM work WHERE output_job = ?').get(jobId) !== undefined,
      keep: new Set(adopt.values()),
    });
    const { adopted, ...swept } = this.host.transaction(() => {
      this.noteEngineFingerprints();
      // A period may have ended while no host ran: every roll-up is derived for the current one.
      this.host.work.recomputeRollups(this.host.now());
      return this.arbiter.startupSweep(this.host.now(), new Set(adopt.keys()));
    });
    // Followed from where they are once the sweep committed; a folder kept for a unit not adopted after all goes.
    for (const [key, jobId] of adopt) if (!adopted.some((u) => u.key === key)) fs.rmSync(temporaryOutputDir(this.options.dataDir, jobId), { recursive: true, force: true });
    for (const unit of adopted) this.startUnit(unit);
    return { ...swept, adoptedUnits: adopted.length };
  }

  /**
   * Host restarts adopt (docs/pools.md "Host restarts"): of the claims a dead process left on pool
   * lanes, those whose job is still in Redis (or Redis cannot be asked now), by claim key with their
   * job id. The others are released by the sweep as before.
   */
  private async adoptablePoolUnits(): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    const pools = this.options.poolRuntime;
    if (!pools?.inquire) return out;
    for (const c of this.arbiter.claims.all()) {
      const pool = poolOf(c.lane);
      if (pool === null || c.run_id === null) continue;
      const jobId = jobIdOf({ runId: c.run_id, operation: c.operation, key: c.key, token: c.token });
      try {
        const answer = await pools.inquire({ pool, lane: baseLane(c.lane) as LaneKey, unitKey: c.key, claimToken: c.token, jobId });
        if (answer === 'adopt') out.set(c.key, jobId);
      } catch {
        // Not adopted: released as before; the unit runs again.
      }
    }
    return out;
  }

  private noticeOtherSettings(): void {
    try {
      this.settings.noticeOtherWriters();
    } catch (e) {
      if (!storageErrorCode(e)) this.reportInternal('reading settings another process wrote', e);
    }
  }

  /** The lock's lease, every 10 s; a full disk keeps the lock (nobody else can write either). */
  private renewLock(): void {
    try {
      if (!this.lock.renew()) return void this.stop();
      // An idle host's writes may never fail on a full volume: its log restarts in room the file
      // already holds (docs/architecture.md "Checkpoints off the host's thread"). The free space
      // says it at once (docs/reliability.md "Disk full").
      if (!this.diskFull.isFull && this.diskFull.confirmedByProbe()) this.enterDiskFull();
    } catch (e) {
      if (storageErrorCode(e) === 'DISK_FULL') this.enterDiskFull();
      else this.reportInternal('renewing the dispatcher lock', e);
    }
  }

  /**
   * Nothing can be written: every lane holds (DISK_FULL), one notice goes out per episode, and the
   * free space is read every couple of seconds until there is room again.
   */
  private enterDiskFull(): void {
    const now = this.host.now();
    if (this.diskFull.enter(now)) {
      const status = this.diskFull.status();
      this.host.notify({ kind: 'disk-full', at: now, code: 'DISK_FULL', params: { path: status?.path ?? this.options.dataDir, freeBytes: status?.freeBytes ?? null }, target: { view: 'lanes' } });
    }
    this.host.emit('lanes-changed');
    if (this.diskFullTimer || this.stopped) return;
    this.diskFullTimer = setInterval(() => { void this.recheckDiskFull(); }, DISK_FULL_RECHECK_MS);
  }

  private async recheckDiskFull(): Promise<void> {
    if (this.stopped || !this.diskFull.recheck()) return;
    if (this.diskFullTimer) clearInterval(this.diskFullTimer);
    this.diskFullTimer = null;
    try {
      if (this.sweepPending) {
        this.lock.acquire();
        await this.sweep();
        this.sweepPending = false;
      } else {
        // Units whose end could not be recorded left their claims: free that work now.
        this.host.transaction(() => this.arbiter.releaseOrphanClaims(this.host.now()));
      }
    } catch (e) {
      if (storageErrorCode(e)) return this.enterDiskFull();
      this.reportInternal('resuming after the disk filled', e);
    }
    this.host.emit('lanes-changed');
    this.wake();
  }

  private reportInternal(what: string, e: unknown): void {
    process.stderr.write(`backlot: INTERNAL while ${what}: ${(e as Error)?.message ?? String(e)}\n`);
  }

  /** An engine whose fingerprint changed since the last start: only the outputs it made go stale. */
  private noteEngineFingerprints(): void {
    const now = this.host.now();
    for (const e of this.registry.engines) this.host.work.noteEngineFingerprint(e.adapter.id, e.adapter.operation, e.fingerprint, now);
  }

  private config(s: SettingsValues, bindings: ArbiterConfig['bindings'], gpu: GpuReport): ArbiterConfig {
    const lanes: LaneConfig[] = LANE_KEYS.map((k) => ({
      ...DEFAULT_LANES[k],
      contendsFor: [...DEFAULT_LANES[k].contendsFor],
      slots: k === 'gpu' ? Math.min(s['lanes.gpu.slots'], gpu.slots) : s[`lanes.${k}.slots`],
      ...(k === 'gpu' && gpu.slots < s['lanes.gpu.slots'] ? { slotsSetting: s['lanes.gpu.slots'] } : {}),
    }));
    return {
      lanes,
      bindings,
      retry: { maxAttempts: s['retry.maxAttempts'], baseS: s['retry.baseS'], maxS: s['retry.maxS'], jitter: s['retry.jitter'] },
      disk: {
        probe: this.acquisition.diskProbe, thresholds: { drainingBelowBytes: s['diskGate.drainingBelowBytes'], shutBelowBytes: s['diskGate.shutBelowBytes'] },
        bytesPerMediaSecond: DOWNLOAD_BYTES_PER_MEDIA_SECOND, expectedBytes: (itemId, estimate) => this.acquisition.expectedBytes(itemId, estimate),
      },
      firstGates: [this.diskFull.gate],
      spendCapUsd: s['spend.capUsd'],
      spendWindowStart: (now) => spendWindowStart(now, s['spend.window']),
      quietHours: s.quietHours,
      wallTime: localWallTime,
      leaseS: s['claims.leaseS'],
      actor: 'arbiter',
      extraGates: this.acquisition.gates(),
      spendCapPerUnit: true,
    };
  }

  private applySettings(key: SettingKey): void {
    const values = this.settings.values();
    // The engines' CPU priority is the spawner's, not an engine's setting: nothing to build again.
    if (key === 'engines.priority') return setEnginePriority(values['engines.priority']);
    const next = this.config(values, this.registry.bindings, this.gpu);
    this.arbiter.reconfigure({
      retry: next.retry, disk: next.disk, spendCapUsd: next.spendCapUsd, spendWindowStart: next.spendWindowStart,
      quietHours: next.quietHours, slots: Object.fromEntries(next.lanes.map((l) => [l.queueKey, l.slots])),
      slotSettings: Object.fromEntries(next.lanes.map((l) => [l.queueKey, l.slotsSetting])),
    });
    if (key === 'digest.channel.period') {
      const now = this.host.now();
      this.host.transaction(() => this.host.work.setRollupPeriod(values['digest.channel.period'], now));
      this.rollupBoundary = calendarPeriod(now, values['digest.channel.period']).end;
    }
    if (key === 'spend.capUsd' || key === 'spend.window') this.capNoticed.clear();
    // Engines read settings (which are enabled, their models and options): the registry is built
    // again and units started from then on use it; running ones finish as they began.
    if (key.startsWith('engines.') || key.includes('.engine') || this.options.profile === 'production') void this.rebuildEngines(values, key);
    this.wake();
  }

  private rebuildEngines(values: SettingsValues, changed: SettingKey): Promise<void> {
    const run = async (): Promise<void> => {
      const env = this.environment(values);
      // Only the engines that read the changed setting are built again (docs/architecture.md "Engines").
      const registry = await this.buildRegistry(env, { registry: this.registry, changed });
      if (this.stopped) return;
      this.registry = registry;
      this.env = env;
      try {
        this.host.transaction(() => this.noteEngineFingerprints());
      } catch (e) {
        if (storageErrorCode(e) !== 'DISK_FULL') throw e;
        this.enterDiskFull();
      }
      this.arbiter.reconfigure({ bindings: registry.bindings });
      this.host.emit('lanes-changed');
      this.wake();
    };
    this.rebuildsPending++;
    const counted = async (): Promise<void> => {
      try {
        await run();
      } catch (e) {
        this.reportInternal('applying changed engine settings', e);
      } finally {
        this.rebuildsPending--;
      }
    };
    this.rebuilding = (this.rebuilding ?? Promise.resolve()).then(counted, counted);
    return this.rebuilding;
  }

  /** Something changed: fill free slots soon (coalesced, so a burst of changes costs one pass). */
  wake(): void {
    if (this.wakeQueued || this.stopped || !this.dispatching) return;
    this.wakeQueued = true;
    setImmediate(() => {
      this.wakeQueued = false;
      if (!this.stopped) this.tick();
    });
  }

  private tick(): void {
    const now = this.host.now();
    let nextRollupBoundary: number | null = null;
    try {
      // pick → claim in one transaction, then each claimed unit starts (units/unit-pipeline.ts).
      this.pipeline.fill(now, () => {
        if (now >= this.rollupBoundary) {
          this.host.work.recomputeRollups(now);
          nextRollupBoundary = calendarPeriod(now, this.host.work.rollupPeriod()).end;
        }
        this.arbiter.advance(now);
      });
      // Only once the roll-ups derived again have committed: a fill that rolled back does it again.
      if (nextRollupBoundary !== null) this.rollupBoundary = nextRollupBoundary;
    } catch (e) {
      // The fill rolled back with its claims; a full disk holds everything until space returns.
      if (storageErrorCode(e) === 'DISK_FULL') this.enterDiskFull();
      else this.reportInternal('filling free slots', e);
      this.scheduleTimer(now);
      return;
    }
    this.noticeSpendCap(now);
    this.host.emit('lanes-changed');
    this.scheduleTimer(now);
    this.announceIfSettled();
  }

  private announceIfSettled(): void {
    if (!this.isSettled()) return;
    for (const l of this.settledListeners) {
      try { l(); } catch { /* a listener's bug never stops dispatch */ }
    }
  }

  /**
   * Nothing runs and nothing can start now: the last fill claimed nothing, no wake is queued and no
   * engine rebuild is pending, and every unit has finished its last step (its temporary folder
   * removed). What is left is done, held, deferred, blocked or on a lane whose
   * preflight failed (`backlot run --until-idle` exits here).
   */
  isSettled(): boolean {
    return this.dispatching && !this.wakeQueued && this.rebuildsPending === 0 && this.arbiter.running().length === 0 && !this.pipeline.busy();
  }

  /** Called after every fill that leaves the host settled. */
  onSettled(listener: () => void): () => void {
    this.settledListeners.add(listener);
    return () => this.settledListeners.delete(listener);
  }

  /** Called for every unit that ended and was committed (done or failed). */
  onUnitEnded(listener: (e: UnitEnded) => void): () => void {
    this.endedListeners.add(listener);
    return () => this.endedListeners.delete(listener);
  }

  /** A spending lane that holds at the cap tells a person once, until it lets go (docs/digests.md "Money"). */
  private noticeSpendCap(now: number): void {
    const cap = this.arbiter.settings().spendCapUsd;
    for (const lane of this.arbiter.laneConfigs()) {
      if (!lane.contendsFor.includes('spend')) continue;
      const gate = this.arbiter.laneHold(lane, now);
      const hold = gate?.code === 'SPEND_CAP' ? gate : gate ? null : this.arbiter.spendCapHold(lane, now);
      if (!hold || cap === null) { if (!gate) this.capNoticed.delete(lane.queueKey); continue; }
      if (this.capNoticed.has(lane.queueKey)) continue;
      this.capNoticed.add(lane.queueKey);
      const window = this.settings.get('spend.window');
      this.host.notify({
        kind: 'spend-cap-reached', at: now, code: 'SPEND_CAP',
        params: { lane: lane.queueKey, capUsd: cap, spentUsd: Math.round(this.arbiter.spentUsd(now) * 1e6) / 1e6, window, until: calendarPeriod(now, window).end },
        target: { view: 'settings', key: 'spend.capUsd' },
      });
    }
  }

  private startUnit(unit: RunningUnit): void {
    this.pipeline.start(unit);
  }

  private scheduleTimer(now: number): void {
    if (this.timer) clearTimeout(this.timer);
    let next = this.arbiter.nextWake(now);
    // A new spend window lets a capped lane go; a new period re-derives the channel digests.
    const edges = [this.rollupBoundary, this.arbiter.settings().spendCapUsd === null ? Infinity : calendarPeriod(now, this.settings.get('spend.window')).end];
    for (const t of edges) if (Number.isFinite(t) && (next === null || t < next)) next = t;
    if (next === null) { this.timer = null; return; }
    const ms = Math.min(MAX_TIMER_MS, Math.max(0, (next - now) * 1000));
    this.timer = setTimeout(() => this.wake(), ms);
    this.timer.unref();
  }

  /** What follows a unit's committed end (units/unit-settlement.ts): the window's events, the listeners, the notices, the next fill. */
  private settled(ended: UnitEnded): void {
    const { unit, result, failedTerminally } = ended;
    this.host.emit('snapshot-changed');
    this.host.emit('runs-changed');
    for (const l of this.endedListeners) {
      try { l(ended); } catch { /* a listener's bug never undoes a committed unit */ }
    }
    if (failedTerminally && result.outcome === 'failed') {
      this.host.notify({ kind: 'run-failed', at: this.host.now(), code: result.code, params: { ...result.params, operation: unit.operation, item: unit.itemId, run: unit.runId }, target: { view: 'runs', run: unit.runId } });
    }
    if (result.outcome === 'done' && unit.operation === 'download') void this.disk.refresh();
    // Units started between the disk filling and the host's own write failing would each meet the
    // full disk in turn: an engine that says so holds every lane now (docs/reliability.md).
    if (result.outcome === 'failed' && result.code === 'DISK_FULL' && this.diskFull.confirmedByProbe()) this.enterDiskFull();
    this.wake();
  }

  private prune(): void {
    try {
      pruneRuns(this.host.db, this.host.now(), this.settings.get('runs.retentionDays'), this.settings.get('spend.window'));
    } catch {
      // Pruning is housekeeping: a failure must never stop dispatch; it is retried on the next period.
    }
  }

  /** Run now / do next: only a dispatching host runs engines; a reader is told so. */
  startRequested(kind: 'runNow' | 'doNext', operation: OperationId, target: string, actor: string): RunningUnit {
    if (!this.dispatching) throw new BacklotError('NOT_DISPATCHING', 'This Backlot is not dispatching work (opened read-only); start the app or "backlot serve" to run work.');
    const now = this.host.now();
    const { unit, claimed } = this.host.transaction(() => {
      const u = kind === 'runNow' ? this.manual.runNow(operation, target, actor, now) : this.manual.doNext(operation, target, actor, now);
      return { unit: u, claimed: this.arbiter.takeClaimed() };
    });
    for (const u of claimed) this.startUnit(u);
    this.host.emit('runs-changed');
    this.host.emit('lanes-changed');
    return unit;
  }

  running(): RunningUnit[] {
    return this.arbiter.running();
  }

  /** What each running unit last reported (ratio, message, ETA) for the lane page. */
  progressOf(unit: RunningUnit): ProgressReport | null {
    return this.progress.of(unit);
  }

  /** Stops dispatching and the engines; open runs are marked interrupted and claims released. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await detachAcquisition(this.acquisition);
    this.unsubscribe?.();
    this.unsubscribePools?.();
    if (this.timer) clearTimeout(this.timer);
    if (this.diskFullTimer) clearInterval(this.diskFullTimer);
    for (const i of this.intervals) clearInterval(i);
    if (!this.dispatching) return;
    await this.pipeline?.stop();
    if (this.host.db.open) {
      try {
        this.host.transaction(() => this.arbiter.startupSweep(this.host.now()));
        this.lock.release();
      } catch (e) {
        // A full disk at shutdown: the next start's sweep marks these runs interrupted instead.
        if (!storageErrorCode(e)) throw e;
      }
    }
  }
}
