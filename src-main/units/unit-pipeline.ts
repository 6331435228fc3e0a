// The one pipeline of a unit (docs/architecture.md "The one pipeline of a unit"), read top to bottom
// as Oban's Executor.call: pick → claim → prepare → launch → follow → settle. Local slots and pool
// slots go through the same steps; the launch is the only one that differs. Every failure becomes a
// reason code on the unit, settled through the same step as a success; nothing here throws at its
// caller.
import fs from 'node:fs';
import type { RunningUnit } from '../arbiter/arbiter';
import { EngineWorkers } from '../engines/workers';
import { temporaryOutputDir } from '../engines/commit-output';
import { jobIdOf } from '../engines/job-paths';
import { storageErrorCode } from '../db/storage-errors';
import { poolOf } from '../../src-shared/catalog/pool-lanes';
import type { UnitContext } from './unit-context';
import { prepareUnit } from './unit-prepare';
import { followUnit, launchLocal, launchOnPool } from './unit-launch';
import { settleFailure, settleOutcome, settleUnit } from './unit-settlement';

export class UnitPipeline {
  private readonly running = new Map<string, AbortController>();
  private readonly finished = new Map<string, Promise<void>>();
  private readonly workers = new EngineWorkers();
  private stopping = false;
  private readonly isStopping = () => this.stopping;

  /** `onAllEnded`: called when the last unit in flight has finished every step, cleanup included. */
  constructor(private readonly ctx: UnitContext, private readonly onAllEnded: () => void = () => undefined) {}

  /** A unit is still in one of its steps (its settle may be recorded while its cleanup is not done). */
  busy(): boolean {
    return this.finished.size > 0;
  }

  /**
   * pick → claim: in ONE transaction the arbiter fills every free slot, lane by lane (the gates, then
   * the tree's leaves pick; each pick's claim, run and slot written: arbiter/arbiter.ts `fill`), after
   * `before` (due times, roll-up periods). Claim, commit, then start: each claimed unit goes on only
   * once its claim committed; a rollback drops them with their claims. Throws what the fill threw.
   */
  fill(now: number, before: () => void = () => undefined): RunningUnit[] {
    const claimed = this.ctx.host.transaction(() => {
      before();
      return this.ctx.arbiter.fill(now);
    });
    for (const unit of claimed) this.start(unit);
    return claimed;
  }

  /** Starts a unit whose claim has committed (a fill's, a manual run's, an adopted one's): the steps below run on. */
  start(unit: RunningUnit): void {
    this.ctx.progress.started(unit, this.ctx.host.now());
    const abort = new AbortController();
    this.running.set(unit.key, abort);
    const done = this.run(unit, abort.signal).catch((e: unknown) => {
      // A full disk or a bug between the engine and the commit: the unit still ends, with a code.
      if (this.stopping) return;
      const storage = storageErrorCode(e);
      try {
        settleUnit(this.ctx, unit, { outcome: 'failed', code: storage ?? 'ENGINE_INTERNAL', params: {}, diagnostic: String((e as Error)?.stack ?? e), disposition: storage === 'DISK_FULL' ? 'requeue' : 'retry' });
      } catch {
        // The settle reports its own failures; nothing may escape into the event loop.
      }
    }).finally(() => {
      this.running.delete(unit.key);
      this.finished.delete(unit.key);
      // Its last step (the temporary folder removed) is done: "settled" may now be true.
      if (this.finished.size === 0) this.onAllEnded();
    });
    this.finished.set(unit.key, done);
  }

  /** prepare → launch → follow → settle, for one claimed unit. */
  private async run(unit: RunningUnit, signal: AbortSignal): Promise<void> {
    const jobId = jobIdOf(unit);
    const dataDir = this.ctx.engines().env.dataDir;
    try {
      // prepare: the engine chosen, the job built, its temporary folder made, its spend reserved (unit-prepare.ts).
      const prepared = await prepareUnit(this.ctx, unit, jobId, this.isStopping);
      if (prepared.kind === 'stopped') return;
      if (prepared.kind === 'failed') return settleFailure(this.ctx, unit, prepared.result, [], dataDir, this.isStopping);
      const { engine, job } = prepared;
      // follow: each report renews the claim's lease and reaches the run's log and the lane page (unit-launch.ts).
      const follow = followUnit(this.ctx, unit);
      // launch: the one step where a local slot and a pool slot differ (unit-launch.ts).
      const pool = poolOf(unit.lane);
      const outcome = pool === null
        ? await launchLocal(engine, job, follow, signal, this.ctx.stallTimeoutMs(), this.workers)
        : await launchOnPool(this.ctx.pools, pool, engine, job, unit, follow, signal);
      if (this.stopping) return;
      // settle: the adapter's commit or failure as data, then one transaction (unit-settlement.ts).
      await settleOutcome(this.ctx, unit, { engine, job, pool }, outcome, this.isStopping);
    } finally {
      // On libuv's thread pool, off the thread that answers the windows (docs/benchmarks.md "Session
      // 8: ten windows"); the unit's last step still: "settled" waits for it (`finished` above). The
      // folder is this claim's alone (its job id carries the claim's token).
      await fs.promises.rm(temporaryOutputDir(dataDir, jobId), { recursive: true, force: true }).catch(() => {
        // Left for the next start's sweep of the temporary folder.
      });
    }
  }

  /** Cancels one running unit (its engine's process tree is killed); the unit ends as cancelled. */
  cancel(key: string): boolean {
    const a = this.running.get(key);
    a?.abort();
    return a !== undefined;
  }

  /** Stops every engine; their units are left to the next start's sweep (interrupted, claims released). */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const a of this.running.values()) a.abort();
    this.workers.stop();
    await Promise.all([...this.finished.values()]);
  }

  /** Live worker processes (the warm-worker benchmark and tests). */
  workerCount(): number {
    return this.workers.count();
  }
}
