// The launch and follow steps of a unit (docs/architecture.md "The one pipeline of a unit"): the
// only step where a local slot and a pool slot differ. A local launch runs the adapter's program
// (a one-shot process, a long-lived worker, or in-process); a pool launch hands the same job to a
// worker through the PoolRuntime and resolves once its outputs are uploaded into job.outputDir.
// Following is the same for both: a report renews the claim's lease when due and reaches the lane page.
import type { RunningUnit } from '../arbiter/arbiter';
import type { InProcessIo, JobContext } from '../engines/adapter';
import type { RegisteredEngine } from '../engines/registry';
import { runEngine, type EngineOutcome, type EngineProgress, type RunEngineOptions } from '../engines/runner';
import type { EngineWorkers } from '../engines/workers';
import type { PoolRuntime } from '../pools/pool-runtime';
import { baseLane } from '../../src-shared/catalog/pool-lanes';
import { asLogMessage, type LogMessage } from '../../src-shared/runs/log-keys';
import { asProgressMessage, type ProgressMessage } from '../../src-shared/runs/progress-keys';
import type { UnitContext } from './unit-context';

/** What a running engine reports, as the follow step hears it. */
export interface UnitFollower {
  /** A progress report; its message keyed when the engine sent a key (src-shared/runs/progress-keys.ts). */
  progress(p: EngineProgress): void;
  /** A run log line: plain text, or keyed (src-shared/runs/log-keys.ts). */
  log(level: 'debug' | 'info' | 'warn' | 'error', line: string | LogMessage): void;
  /** The engine's process, once known: its CPU wait is read for the lane page (unit-progress.ts). */
  engineStarted(pid: number): void;
}

/**
 * The follow step: each report reaches the run's log or the lane page's progress, and renews the
 * lease once a quarter of it has passed since the claim or the last renewal, as BullMQ's worker
 * renews its lock on a timer rather than on every event: a write per line was the host's largest
 * cost in following an engine (docs/architecture.md "The one pipeline of a unit", follow).
 */
export function followUnit(ctx: UnitContext, unit: RunningUnit): UnitFollower {
  let renewedAt = unit.startedAt;
  const renew = () => {
    const now = ctx.host.now();
    if (now - renewedAt < ctx.arbiter.leaseRenewalS) return;
    renewedAt = now;
    ctx.arbiter.renew(unit, now);
  };
  return {
    progress: (p) => {
      renew();
      if (ctx.progress.report(unit, p, ctx.host.now())) ctx.host.emit('progress-changed');
    },
    log: (level, line) => {
      renew();
      const m = asLogMessage(line);
      ctx.arbiter.runs.log(unit.runId, ctx.host.now(), level, m.text, m.key ? { key: m.key, params: m.params } : undefined);
    },
    engineStarted: (pid) => ctx.progress.engineStarted(unit, pid),
  };
}

/** A local slot's launch: the adapter's program as a process, a worker, or in-process. */
export async function launchLocal(engine: RegisteredEngine, job: JobContext, follow: UnitFollower, signal: AbortSignal, stallTimeoutMs: number, workers: EngineWorkers): Promise<EngineOutcome> {
  const launch = await engine.adapter.launch(job);
  const options: RunEngineOptions = {
    signal,
    stallTimeoutMs,
    onProgress: (p) => follow.progress(p),
    onLog: (entry) => follow.log(entry.level, entry),
    onSpawn: (pid) => follow.engineStarted(pid),
  };
  const request = { jobId: job.jobId, operation: job.operation, outputDir: job.outputDir };
  switch (launch.kind) {
    case 'process':
      return runEngine(launch.command, { ...request, input: launch.input }, { ...options, ...(launch.timeoutMs ? { timeoutMs: launch.timeoutMs } : {}) });
    case 'worker':
      return workers.run(`${engine.adapter.id}:${launch.key}`, launch.command, { ...request, input: launch.input }, { ...options, ...(launch.timeoutMs ? { timeoutMs: launch.timeoutMs } : {}) });
    case 'in-process': {
      const io: InProcessIo = {
        signal,
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

/**
 * A pool slot's launch: the transport runs the engine on a worker and resolves once its outputs are
 * uploaded into job.outputDir (docs/pools.md "A unit on a worker"). An adopted unit's job is followed
 * where it runs instead of being sent again.
 */
export function launchOnPool(pools: PoolRuntime | null, pool: string, engine: RegisteredEngine, job: JobContext, unit: RunningUnit, follow: UnitFollower, signal: AbortSignal): Promise<EngineOutcome> {
  if (!pools) {
    return Promise.resolve({ ok: false, code: 'POOL_TRANSPORT_DOWN', params: { lane: unit.lane }, diagnostic: 'This host has no pool runtime: the unit of a pool lane cannot be sent to a worker.', logs: [] });
  }
  const io: InProcessIo = {
    signal,
    progress: (ratio, message) => follow.progress(engineProgress(ratio, message)),
    log: (level, line) => follow.log(level, line),
  };
  return pools.run({ pool, lane: baseLane(unit.lane) as PoolUnitLane, unitKey: unit.key, claimToken: unit.token, engineId: engine.adapter.id, job, ...(unit.adopted ? { adopt: true } : {}) }, io);
}

type PoolUnitLane = Parameters<PoolRuntime['run']>[0]['lane'];

/** An in-process job's progress as the engine protocol's would be: its message as text, key and params. */
function engineProgress(ratio: number, message: string | ProgressMessage | undefined): EngineProgress {
  const m = asProgressMessage(message);
  return m === undefined ? { ratio } : { ratio, message: m };
}
