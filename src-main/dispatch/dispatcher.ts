// The arbiter in real time: it wakes when a slot frees, work appears, a gate, a setting or the
// tree changes, or a timer (the next retry, the next due sync, a quiet-hours edge) fires, and
// fills the free slots in one transaction. No busy polling. It holds the dispatcher lock so a
// second one on the same library is refused.
import { randomUUID } from 'node:crypto';
import type { Host } from '../host/host';
import { Arbiter, type ArbiterConfig, type RunningUnit, type UnitResult } from '../arbiter/arbiter';
import { DEFAULT_LANES, type LaneConfig } from '../arbiter/lanes';
import { SettingsStore } from '../settings/settings-store';
import { pruneRuns, spendWindowStart } from '../runs/history';
import { SystemDiskProbe } from '../gates/disk-probe';
import { localWallTime } from '../gates/quiet-hours';
import { detectGpus, type GpuReport } from '../gates/gpu';
import { sweepTemporaryOutputs } from '../engines/commit-output';
import { DispatcherLock } from './lock';
import { ManualRuns } from '../arbiter/manual-runs';
import { BacklotError } from '../../src-shared/errors';
import type { OperationId } from '../../src-shared/catalog/operations';
import { EngineExecutor } from './engine-executor';
import { createEngineRegistry, type EngineProfile, type EngineRegistry, type TestEngineOptions } from './engine-registry';
import { LANE_KEYS, type SettingsValues } from '../../src-shared/settings/settings-schema';
import { isBacklotError } from '../../src-shared/errors';

export interface DispatcherOptions {
  dataDir: string;
  profile: EngineProfile;
  test?: TestEngineOptions;
  /** For tests: a GPU report instead of asking the hardware. */
  gpu?: GpuReport;
}

const MAX_TIMER_MS = 2 ** 31 - 1;
const DISK_REFRESH_MS = 30_000;
const PRUNE_EVERY_MS = 6 * 3600_000;
const OTHER_WRITERS_CHECK_MS = 5_000;
/** What a download is expected to write per second of media (2 Mbit/s), reserved against the disk gate. */
const DOWNLOAD_BYTES_PER_MEDIA_SECOND = 250_000;

export class Dispatcher {
  arbiter!: Arbiter;
  manual!: ManualRuns;
  private gpu!: GpuReport;
  private registry!: EngineRegistry;

  isDispatching(): boolean {
    return this.dispatching;
  }
  readonly settings: SettingsStore;
  private readonly lock: DispatcherLock;
  private executor!: EngineExecutor;
  private readonly disk: SystemDiskProbe;
  private wakeQueued = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly intervals: NodeJS.Timeout[] = [];
  private stopped = false;
  private dispatching = false;
  private unsubscribe: (() => void) | null = null;
  startedAt = 0;

  constructor(private readonly host: Host, private readonly options: DispatcherOptions) {
    this.settings = new SettingsStore(host.db);
    this.lock = new DispatcherLock(host.db, `dispatcher-${randomUUID()}`);
    this.disk = new SystemDiskProbe(options.dataDir);
  }

  /**
   * Builds the arbiter over the database without dispatching: what a reader (explain, lanes,
   * the CLI) needs. Idempotent.
   */
  async prepare(): Promise<Arbiter> {
    if (this.arbiter) return this.arbiter;
    const gpu = this.options.gpu ?? await detectGpus();
    const registry = createEngineRegistry(this.options.profile, gpu, this.options.test);
    this.gpu = gpu;
    this.registry = registry;
    this.executor = new EngineExecutor(registry, this.options.dataDir, {
      complete: (unit, result) => this.complete(unit, result),
      renew: (unit) => { this.arbiter.renew(unit, this.host.now()); },
      log: (unit, level, text) => this.arbiter.runs.log(unit.runId, this.host.now(), level, text),
      stallTimeoutMs: () => this.settings.get('engines.stallTimeoutS') * 1000,
    });
    await this.disk.refresh();
    this.arbiter = new Arbiter(this.host, this.config(this.settings.values(), registry.bindings, gpu), this.executor);
    this.manual = new ManualRuns(this.host, this.arbiter);
    return this.arbiter;
  }

  /** Takes the lock, sweeps what a dead process left, and starts dispatching. */
  async start(): Promise<{ interruptedRuns: number; releasedClaims: number }> {
    this.lock.acquire();
    await this.prepare();
    await sweepTemporaryOutputs(this.options.dataDir, {
      wasRecorded: (jobId) => this.host.db.prepare('SELECT 1 FROM work WHERE output_job = ?').get(jobId) !== undefined,
    });
    const swept = this.host.transaction(() => this.arbiter.startupSweep(this.host.now()));
    this.dispatching = true;
    this.unsubscribe = this.settings.onChange(() => this.applySettings());
    this.intervals.push(setInterval(() => { if (!this.lock.renew()) void this.stop(); }, 10_000));
    this.intervals.push(setInterval(() => { void this.disk.refresh().then(() => this.wake()); }, DISK_REFRESH_MS));
    this.intervals.push(setInterval(() => this.prune(), PRUNE_EVERY_MS));
    // Only another process's commit (a CLI pause, tree or scan) is looked for here; everything this
    // process changes wakes the arbiter directly.
    this.intervals.push(setInterval(() => { if (this.arbiter.noticeOtherWriters()) this.wake(); }, OTHER_WRITERS_CHECK_MS));
    for (const i of this.intervals) i.unref();
    this.prune();
    this.startedAt = this.host.now();
    this.wake();
    return swept;
  }

  private config(s: SettingsValues, bindings: ArbiterConfig['bindings'], gpu: GpuReport): ArbiterConfig {
    const lanes: LaneConfig[] = LANE_KEYS.map((k) => ({
      ...DEFAULT_LANES[k],
      contendsFor: [...DEFAULT_LANES[k].contendsFor],
      slots: k === 'gpu' ? Math.min(s['lanes.gpu.slots'], gpu.slots) : s[`lanes.${k}.slots`],
    }));
    return {
      lanes,
      bindings,
      retry: { maxAttempts: s['retry.maxAttempts'], baseS: s['retry.baseS'], maxS: s['retry.maxS'], jitter: s['retry.jitter'] },
      disk: { probe: this.disk, thresholds: { drainingBelowBytes: s['diskGate.drainingBelowBytes'], shutBelowBytes: s['diskGate.shutBelowBytes'] }, bytesPerMediaSecond: DOWNLOAD_BYTES_PER_MEDIA_SECOND },
      spendCapUsd: s['spend.capUsd'],
      spendWindowStart: (now) => spendWindowStart(now, s['spend.window']),
      quietHours: s.quietHours,
      wallTime: localWallTime,
      leaseS: s['claims.leaseS'],
      actor: 'arbiter',
    };
  }

  private applySettings(): void {
    // Engine bindings are fixed at start (a restart key); everything else applies at the next pull.
    const next = this.config(this.settings.values(), this.registry.bindings, this.gpu);
    this.arbiter.reconfigure({
      retry: next.retry, disk: next.disk, spendCapUsd: next.spendCapUsd, spendWindowStart: next.spendWindowStart,
      quietHours: next.quietHours, slots: Object.fromEntries(next.lanes.map((l) => [l.queueKey, l.slots])),
    });
    this.wake();
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
    this.host.transaction(() => {
      this.arbiter.advance(now);
      this.arbiter.fill(now);
    });
    this.host.emit('lanes-changed');
    this.scheduleTimer(now);
  }

  private scheduleTimer(now: number): void {
    if (this.timer) clearTimeout(this.timer);
    const next = [this.arbiter.nextBackoff(now), this.arbiter.nextStale(now), this.arbiter.nextQuietBoundary(now)]
      .filter((t): t is number => t !== null);
    if (next.length === 0) { this.timer = null; return; }
    const ms = Math.min(MAX_TIMER_MS, Math.max(0, (Math.min(...next) - now) * 1000));
    this.timer = setTimeout(() => this.wake(), ms);
    this.timer.unref();
  }

  private complete(unit: RunningUnit, result: UnitResult): boolean {
    if (this.stopped) return false;
    try {
      this.host.transaction(() => this.arbiter.complete(unit, result, this.host.now()));
    } catch (e) {
      if (isBacklotError(e) && e.code === 'CLAIM_LAPSED') return false;
      throw e;
    }
    this.host.emit('snapshot-changed');
    this.host.emit('runs-changed');
    if (result.outcome === 'done' && unit.operation === 'download') void this.disk.refresh();
    this.wake();
    return true;
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
    const unit = this.host.transaction(() => kind === 'runNow'
      ? this.manual.runNow(operation, target, actor, now)
      : this.manual.doNext(operation, target, actor, now));
    this.host.emit('runs-changed');
    this.host.emit('lanes-changed');
    return unit;
  }

  running(): RunningUnit[] {
    return this.arbiter.running();
  }

  /** Stops dispatching and the engines; open runs are marked interrupted and claims released. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.unsubscribe?.();
    if (this.timer) clearTimeout(this.timer);
    for (const i of this.intervals) clearInterval(i);
    if (!this.dispatching) return;
    await this.executor?.stop();
    if (this.host.db.open) {
      this.host.transaction(() => this.arbiter.startupSweep(this.host.now()));
      this.lock.release();
    }
  }
}
