// Runs claimed units (after their claim committed: docs/architecture.md "One pick"): chooses the
// unit's engine, builds its job from the item's facts, runs it (a process, a worker, in-process, or
// on a pool's worker through the PoolRuntime: the launch is the only step that differs), and commits its outputs atomically with the database record. Every failure becomes a reason code
// on the unit, completed through the same path as a success; nothing here throws at its caller.
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import type { Host } from '../host/host';
import type { RunningUnit, UnitResult } from '../arbiter/arbiter';
import { ITEM_OPERATIONS, operationSpec, type OperationId } from '../../src-shared/catalog/operations';
import { NO_NEW_ITEMS, ROLLUP_OPERATION } from '../work/rollup';
import type { Hold } from '../gates/chain';
import type { EngineEnvironment, FailurePlan, InProcessIo, JobContext } from './adapter';
import type { EngineRegistry, RegisteredEngine } from './registry';
import { runEngine, type EngineOutcome, type EngineProgress, type RunEngineOptions } from './runner';
import { EngineWorkers } from './workers';
import { commitOutputs, keepTemporaryOutputDir, prepareTemporaryOutputDir, temporaryOutputDir } from './commit-output';
import { storageErrorCode } from '../db/storage-errors';
import { isBacklotError } from '../../src-shared/errors';
import { baseLane, poolOf } from '../../src-shared/catalog/pool-lanes';
import type { PoolRuntime } from '../pools/pool-runtime';
import { asLogMessage, type LogMessage } from '../../src-shared/runs/log-keys';
import { asProgressMessage, type ProgressMessage } from '../../src-shared/runs/progress-keys';

export interface ExecutorHooks {
  /** Commits a unit's result synchronously (in its own transaction); false if the claim lapsed. */
  complete(unit: RunningUnit, result: UnitResult): boolean;
  renew(unit: RunningUnit): void;
  /** A run log line: plain text, or keyed (src-shared/runs/log-keys.ts). */
  log(unit: RunningUnit, level: 'debug' | 'info' | 'warn' | 'error', line: string | LogMessage): void;
  /** A progress report; its message keyed when the engine sent a key (src-shared/runs/progress-keys.ts). */
  progress(unit: RunningUnit, progress: EngineProgress): void;
  stallTimeoutMs(): number;
  /** A unit found its engine's configuration wrong; the lane's preflight now says so. */
  preflightFailed(unit: RunningUnit, engineId: string, preflight: NonNullable<FailurePlan['preflight']>): void;
  /**
   * A spending engine worked out what this unit costs at most: reserve it under the spend cap, or
   * say why it must wait. `budgetUsd` null: no cap is set.
   */
  reserveSpend(unit: RunningUnit, usd: number): { ok: true; budgetUsd: number | null } | { ok: false; hold: Hold };
}

/** A path segment that is safe on every filesystem, and still unique for odd ids. */
export function safeSegment(id: string): string {
  const clean = id.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 64);
  return clean === id ? id : `${clean}-${createHash('sha1').update(id).digest('hex').slice(0, 8)}`;
}

/** `outputs/<channel>/<item>/<operation>/`: where an operation's sidecars are committed by default. */
export function defaultOutputDir(dataDir: string, channelId: string, itemId: string, operation: OperationId): string {
  return path.join(dataDir, 'outputs', safeSegment(channelId), safeSegment(itemId), operation);
}

export class EngineExecutor {
  private readonly running = new Map<string, AbortController>();
  private readonly finished = new Map<string, Promise<void>>();
  private readonly workers = new EngineWorkers();
  private stopping = false;

  /** `pools`: runs the units of pool lanes (`gpu@studio`) on workers; null while no pool exists. */
  constructor(private readonly host: Host, private registry: EngineRegistry, private env: EngineEnvironment, private readonly hooks: ExecutorHooks, private readonly pools: PoolRuntime | null = null) {}

  /** New settings or a rebuilt registry: units started from now on use them. */
  reconfigure(registry: EngineRegistry, env: EngineEnvironment): void {
    this.registry = registry;
    this.env = env;
  }

  /** Starts a unit whose claim has committed; its end arrives through hooks.complete. */
  start(unit: RunningUnit): void {
    const abort = new AbortController();
    this.running.set(unit.key, abort);
    const done = this.run(unit, abort).catch((e: unknown) => {
      // A full disk or a bug between the engine and the commit: the unit still ends, with a code.
      if (this.stopping) return;
      const storage = storageErrorCode(e);
      try {
        this.hooks.complete(unit, { outcome: 'failed', code: storage ?? 'ENGINE_INTERNAL', params: {}, diagnostic: String((e as Error)?.stack ?? e), disposition: storage === 'DISK_FULL' ? 'requeue' : 'retry' });
      } catch {
        // complete() reports its own failures; nothing may escape into the event loop.
      }
    }).finally(() => {
      this.running.delete(unit.key);
      this.finished.delete(unit.key);
    });
    this.finished.set(unit.key, done);
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

  /** The job id of a claim: the same for the unit a dead host process sent, so a restarted host finds its job (docs/pools.md "Host restarts"). */
  static jobIdOf(claim: { runId: number; operation: string; key: string; token: string }): string {
    return `${claim.runId}-${safeSegment(claim.operation)}-${createHash('sha1').update(claim.key + claim.token).digest('hex').slice(0, 12)}`;
  }

  private jobId(unit: RunningUnit): string {
    return EngineExecutor.jobIdOf(unit);
  }

  private async run(unit: RunningUnit, abort: AbortController): Promise<void> {
    const jobId = this.jobId(unit);
    try {
      const channel = this.host.library.channel(unit.channelId);
      const item = operationSpec(unit.operation).scope === 'item' ? this.host.library.item(unit.itemId) ?? null : null;
      if (!channel || (operationSpec(unit.operation).scope === 'item' && !item)) {
        return this.fail(unit, { outcome: 'failed', code: 'SOURCE_GONE', params: { channel: unit.channelId, item: unit.itemId } });
      }
      const choice = this.registry.choose(unit.binding, channel, item);
      if (!choice.ok) return this.fail(unit, { outcome: 'failed', code: choice.code, params: choice.params, diagnostic: choice.message, disposition: 'fail' });
      const rollup = unit.operation === ROLLUP_OPERATION ? this.host.work.rollupInputs(unit.channelId, this.host.now()) : undefined;
      if (rollup && rollup.members.length === 0) {
        // The period rolled over or its digests were redone since the claim: nothing to roll up now.
        return this.fail(unit, { outcome: 'failed', code: NO_NEW_ITEMS, params: { period: rollup.period.key }, disposition: 'requeue' });
      }
      // An adopted unit's folder may already hold what its worker uploaded before the host restarted: kept.
      const outputDir = unit.adopted ? keepTemporaryOutputDir(this.env.dataDir, jobId) : await prepareTemporaryOutputDir(this.env.dataDir, jobId);
      const job: JobContext = {
        env: this.env, jobId, outputDir, operation: unit.operation, channel, item,
        inputs: this.inputsOf(unit), attempts: this.host.work.row(unit.operation, unit.itemId)?.attempts ?? 0,
        defaultOutputDir: defaultOutputDir(this.env.dataDir, unit.channelId, unit.itemId, unit.operation),
        budgetUsd: null,
        ...(rollup ? { rollup } : {}),
      };
      if (choice.engine.adapter.reserve) {
        const usd = await choice.engine.adapter.reserve(job);
        if (this.stopping) return;
        const reserved = this.hooks.reserveSpend(unit, usd);
        if (!reserved.ok) {
          // Nothing was sent: back to missing, and the arbiter now knows this item's cost.
          return this.fail(unit, { outcome: 'failed', code: reserved.hold.code, params: reserved.hold.params, disposition: 'requeue' });
        }
        job.budgetUsd = reserved.budgetUsd;
      }
      const pool = poolOf(unit.lane);
      const outcome = pool === null ? await this.launch(choice.engine, job, unit, abort) : await this.launchOnPool(pool, choice.engine, job, unit, abort);
      if (this.stopping) return;
      if (!outcome.ok) {
        const plan = choice.engine.adapter.failure?.(job, { code: outcome.code, params: outcome.params, diagnostic: outcome.diagnostic });
        // A worker's configuration is the worker's: it takes itself out of service; the host's own engine stays as it is.
        if (plan?.preflight && pool === null) this.hooks.preflightFailed(unit, choice.engine.adapter.id, plan.preflight);
        return this.fail(unit, {
          outcome: 'failed', code: outcome.code, params: outcome.params, diagnostic: outcome.diagnostic,
          // A lost worker or transport is not the item's fault (DESIGN §9): back to missing, no attempt counted.
          disposition: pool !== null && POOL_REQUEUE_CODES.has(outcome.code) ? 'requeue' : plan?.disposition ?? (outcome.code === 'DISK_FULL' ? 'requeue' : 'retry'),
          record: plan?.record ? (now) => plan.record!({ host: this.host, now, job }) : undefined,
          ...(plan?.usd !== undefined ? { usd: plan.usd } : {}),
        });
      }
      const plan = (await choice.engine.adapter.commit?.(job, outcome)) ?? {};
      const temps = outcome.outputs.map((o) => o.path);
      const finals = plan.finals ?? outcome.outputs.map((o) => path.join(job.defaultOutputDir, path.basename(o.path)));
      const done: UnitResult = {
        outcome: 'done', jobId, engineFingerprint: pool === null ? choice.engine.fingerprint : poolEngineFingerprint(choice.engine, pool),
        bytes: plan.bytes ?? outcome.outputs.reduce((s, o) => s + o.bytes, 0),
        outputPath: plan.recordedPath !== undefined ? plan.recordedPath : finals[0] ?? null,
        ...(plan.usd !== undefined ? { usd: plan.usd } : {}),
        ...(rollup ? { inputFingerprint: rollup.fingerprint } : {}),
        ...(plan.media ? { media: plan.media } : {}),
        ...(plan.record ? { record: (now: number) => plan.record!({ host: this.host, now, job }) } : {}),
      };
      try {
        await commitOutputs(temps, finals, () => {
          if (!this.hooks.complete(unit, done)) throw new Error('claim lapsed');
        });
      } catch (e) {
        // The claim lapsed (someone else may hold the work now) or the files could not be moved:
        // the old state was restored. A move that failed is this unit's failure.
        if ((e as Error).message !== 'claim lapsed' && !this.stopping) {
          const code = storageErrorCode(e) ?? (isBacklotError(e) ? e.code : 'OUTPUT_COMMIT_FAILED');
          const params = isBacklotError(e) ? e.params : {};
          // The record refused because an input changed under the job: the one settlement of this
          // unit is "requeued" (the refused one was rolled back whole), never a failure.
          if (code === 'INPUT_CHANGED') {
            if (!this.stopping) this.hooks.complete(unit, { outcome: 'requeued', code, params, diagnostic: String(e) });
            return;
          }
          // A full disk: not the item's fault, no attempt counted.
          this.fail(unit, { outcome: 'failed', code, params, diagnostic: String(e), disposition: code === 'DISK_FULL' ? 'requeue' : 'retry' });
        }
      }
    } finally {
      try {
        fs.rmSync(temporaryOutputDir(this.env.dataDir, jobId), { recursive: true, force: true });
      } catch {
        // Left for the next start's sweep of the temporary folder.
      }
    }
  }

  private fail(unit: RunningUnit, result: Extract<UnitResult, { outcome: 'failed' }>): void {
    if (!this.stopping) this.hooks.complete(unit, result);
  }

  /**
   * The launch of a pool lane's unit: the transport runs the engine on a worker and resolves once its
   * outputs are uploaded into job.outputDir (docs/pools.md "A unit on a worker"). Everything before
   * (the job, its temporary folder) and after (the adapter's commit, the one settle transaction) is
   * the local path's own code.
   */
  private launchOnPool(pool: string, engine: RegisteredEngine, job: JobContext, unit: RunningUnit, abort: AbortController): Promise<EngineOutcome> {
    if (!this.pools) {
      return Promise.resolve({ ok: false, code: 'POOL_TRANSPORT_DOWN', params: { lane: unit.lane }, diagnostic: 'This host has no pool runtime: the unit of a pool lane cannot be sent to a worker.', logs: [] });
    }
    const io: InProcessIo = {
      signal: abort.signal,
      progress: (ratio, message) => { this.hooks.renew(unit); this.hooks.progress(unit, engineProgress(ratio, message)); },
      log: (level, line) => { this.hooks.renew(unit); this.hooks.log(unit, level, line); },
    };
    return this.pools.run({ pool, lane: baseLane(unit.lane) as PoolUnitLane, unitKey: unit.key, claimToken: unit.token, engineId: engine.adapter.id, job, ...(unit.adopted ? { adopt: true } : {}) }, io);
  }

  private async launch(engine: RegisteredEngine, job: JobContext, unit: RunningUnit, abort: AbortController): Promise<EngineOutcome> {
    const launch = await engine.adapter.launch(job);
    const options: RunEngineOptions = {
      signal: abort.signal,
      stallTimeoutMs: this.hooks.stallTimeoutMs(),
      onProgress: (p) => { this.hooks.renew(unit); this.hooks.progress(unit, p); },
      onLog: (entry) => { this.hooks.renew(unit); this.hooks.log(unit, entry.level, entry); },
    };
    const request = { jobId: job.jobId, operation: unit.operation, outputDir: job.outputDir };
    switch (launch.kind) {
      case 'process':
        return runEngine(launch.command, { ...request, input: launch.input }, { ...options, ...(launch.timeoutMs ? { timeoutMs: launch.timeoutMs } : {}) });
      case 'worker':
        return this.workers.run(`${engine.adapter.id}:${launch.key}`, launch.command, { ...request, input: launch.input }, { ...options, ...(launch.timeoutMs ? { timeoutMs: launch.timeoutMs } : {}) });
      case 'in-process': {
        const io: InProcessIo = {
          signal: abort.signal,
          progress: (ratio, message) => options.onProgress?.(engineProgress(ratio, message)),
          log: (level, line) => options.onLog?.({ level, ...asLogMessage(line), at: Date.now() }),
        };
        return launch.run(io);
      }
      default: {
        const never: never = launch;
        throw new Error(`unknown launch ${JSON.stringify(never)}`);
      }
    }
  }

  /** Committed outputs of the item's other operations, by operation. */
  private inputsOf(unit: RunningUnit): Partial<Record<OperationId, string>> {
    const inputs: Partial<Record<OperationId, string>> = {};
    if (operationSpec(unit.operation).scope !== 'item') return inputs;
    for (const op of ITEM_OPERATIONS) {
      const row = this.host.work.row(op.id, unit.itemId);
      if (row?.output_path) inputs[op.id] = row.output_path;
    }
    const media = this.host.library.item(unit.itemId)?.media_path;
    if (media && !inputs.download) inputs.download = media;
    return inputs;
  }

  /** Live worker processes (the warm-worker benchmark and tests). */
  workerCount(): number {
    return this.workers.count();
  }
}

/** A pool unit's failures that are the pool's, not the item's (docs/pools.md "Holds"). */
export const POOL_REQUEUE_CODES: ReadonlySet<string> = new Set(['POOL_OFFLINE', 'POOL_TRANSPORT_DOWN', 'POOL_TRANSPORT_CLOSED', 'POOL_LANE_GONE', 'POOL_FENCE_REFUSED', 'WORKER_LOST', 'WORKER_LOCK_LOST', 'WORKER_ENGINE_MISSING', 'WORKER_OUT_OF_SERVICE']);

type PoolUnitLane = Parameters<PoolRuntime['run']>[0]['lane'];

/**
 * What a worker's output is recorded with: `<engine>@<pool>@<what shapes it>` (`pocketsphinx@studio@…`),
 * so the item shows `pocketsphinx@studio` and `backlot redo --engine pocketsphinx@studio` finds exactly
 * the outputs of that pool (DESIGN §9 "Engines").
 */
export function poolEngineFingerprint(engine: RegisteredEngine, pool: string): string {
  const id = engine.adapter.id;
  const rest = engine.fingerprint.startsWith(`${id}@`) ? engine.fingerprint.slice(id.length + 1) : engine.fingerprint;
  return `${id}@${pool}@${rest}`;
}

/** An in-process job's progress as the engine protocol's would be: its message as text, key and params. */
function engineProgress(ratio: number, message: string | ProgressMessage | undefined): EngineProgress {
  const m = asProgressMessage(message);
  return m === undefined ? { ratio } : { ratio, message: m };
}
