// The settle step of a unit (docs/architecture.md "The one pipeline of a unit"): how a unit's end is
// recorded, once. The engine's outcome becomes data through the adapter's host-side commit or
// failure (final paths, record plans, a disposition or a snooze); then ONE transaction checks the
// claim's token, records the output through its recorders (or the failure's consequence) and the
// run's totals, with the output files renamed into place in the same step; the slot is freed after
// that transaction, and what follows a settle (events, notices, the next fill) after it committed.
import path from 'node:path';
import type { RunningUnit, UnitResult } from '../arbiter/arbiter';
import type { JobContext, RecordPlan } from '../engines/adapter';
import type { RegisteredEngine } from '../engines/registry';
import type { EngineOutcome } from '../engines/runner';
import { commitOutputs } from '../engines/commit-output';
import { storageErrorCode } from '../db/storage-errors';
import { isBacklotError } from '../../src-shared/errors';
import { recordPlans } from './unit-recorders';
import { commitFence } from './commit-fence';
import type { UnitContext } from './unit-context';
import type { FailedResult } from './unit-prepare';

/** A pool unit's failures that are the pool's, not the item's (docs/pools.md "Holds"). */
export const POOL_REQUEUE_CODES: ReadonlySet<string> = new Set(['POOL_OFFLINE', 'POOL_UNIT_WITHDRAWN', 'POOL_TRANSPORT_DOWN', 'POOL_TRANSPORT_CLOSED', 'POOL_LANE_GONE', 'POOL_FENCE_REFUSED', 'WORKER_LOST', 'WORKER_LOCK_LOST', 'WORKER_ENGINE_MISSING', 'WORKER_OUT_OF_SERVICE']);

/** The unit's engine and job, and the pool it ran on (null: a local slot). */
export interface SettleInput {
  engine: RegisteredEngine;
  job: JobContext;
  pool: string | null;
}

/**
 * The engine's outcome, settled: a failure through the adapter's failure plan, a success through its
 * commit plan with the files renamed into place in the settle's transaction. `stopping`: the host
 * began stopping meanwhile (nothing is recorded then).
 */
export async function settleOutcome(ctx: UnitContext, unit: RunningUnit, run: SettleInput, outcome: EngineOutcome, stopping: () => boolean): Promise<void> {
  const { engine, job, pool } = run;
  if (!outcome.ok) {
    const plan = engine.adapter.failure?.(job, { code: outcome.code, params: outcome.params, diagnostic: outcome.diagnostic });
    // A worker's configuration is the worker's: it takes itself out of service; the host's own engine stays as it is.
    if (plan?.preflight && pool === null) ctx.preflightFailed(unit, engine.adapter.id, plan.preflight);
    settleFailure(ctx, unit, {
      outcome: 'failed', code: outcome.code, params: outcome.params, diagnostic: outcome.diagnostic,
      // A lost worker or transport is not the item's fault (DESIGN §9): back to missing, no attempt counted.
      disposition: pool !== null && POOL_REQUEUE_CODES.has(outcome.code) ? 'requeue' : plan?.disposition ?? (outcome.code === 'DISK_FULL' ? 'requeue' : 'retry'),
      ...(plan?.snoozeUntil !== undefined ? { snoozeUntil: plan.snoozeUntil } : {}),
      ...(plan?.usd !== undefined ? { usd: plan.usd } : {}),
    }, plan?.plans ?? [], job.env.dataDir, stopping);
    return;
  }
  const plan = (await engine.adapter.commit?.(job, outcome)) ?? {};
  const temps = outcome.outputs.map((o) => o.path);
  const finals = plan.finals ?? outcome.outputs.map((o) => path.join(job.defaultOutputDir, path.basename(o.path)));
  const done: UnitResult = {
    outcome: 'done', jobId: job.jobId, engineFingerprint: pool === null ? engine.fingerprint : poolEngineFingerprint(engine, pool),
    bytes: plan.bytes ?? outcome.outputs.reduce((s, o) => s + o.bytes, 0),
    outputPath: plan.recordedPath !== undefined ? plan.recordedPath : finals[0] ?? null,
    ...(plan.usd !== undefined ? { usd: plan.usd } : {}),
    ...(job.rollup ? { inputFingerprint: job.rollup.fingerprint } : {}),
    ...(plan.media ? { media: plan.media } : {}),
  };
  try {
    commitFence(job.operation, 'before-commit', job.jobId);
    await commitOutputs(temps, finals, () => {
      commitFence(job.operation, 'before-record', job.jobId);
      if (!settleUnit(ctx, unit, done, plan.plans ?? [], job.env.dataDir)) throw new Error('claim lapsed');
      commitFence(job.operation, 'after-record', job.jobId);
    }, { turn: () => ctx.turns.next() });
  } catch (e) {
    // The claim lapsed (someone else may hold the work now) or the files could not be moved:
    // the old state was restored. A move that failed is this unit's failure.
    if ((e as Error).message === 'claim lapsed' || stopping()) return;
    const code = storageErrorCode(e) ?? (isBacklotError(e) ? e.code : 'OUTPUT_COMMIT_FAILED');
    const params = isBacklotError(e) ? e.params : {};
    // A recorder refused because an input changed under the job: the one settlement of this unit is
    // "requeued" (the refused one was rolled back whole), never a failure.
    if (code === 'INPUT_CHANGED') {
      settleUnit(ctx, unit, { outcome: 'requeued', code, params, diagnostic: String(e) });
      return;
    }
    // A full disk: not the item's fault, no attempt counted.
    settleFailure(ctx, unit, { outcome: 'failed', code, params, diagnostic: String(e), disposition: code === 'DISK_FULL' ? 'requeue' : 'retry' }, [], job.env.dataDir, stopping);
  }
}

/** A unit that ends as failed (before or after its launch); nothing is written while the host stops. */
export function settleFailure(ctx: UnitContext, unit: RunningUnit, result: FailedResult, plans: readonly RecordPlan[], dataDir: string, stopping: () => boolean): void {
  if (!stopping()) settleUnit(ctx, unit, result, plans, dataDir);
}

/**
 * The one transaction of a unit's end: the claim's token checked and released, the adapter's record
 * plans through their recorders, the output's recorder or the failure's consequence, the run's
 * totals. The slot is freed after it, committed or not. False when nothing was recorded: the claim
 * lapsed, the disk is full (the claim stays until space returns) or the host is stopping. Any other
 * refusal (a recorder's INPUT_CHANGED, a constraint) rolls back whole and is thrown.
 */
export function settleUnit(ctx: UnitContext, unit: RunningUnit, result: UnitResult, plans: readonly RecordPlan[] = [], dataDir = ctx.engines().env.dataDir): boolean {
  if (ctx.stopped()) return false;
  ctx.progress.ended(unit);
  const now = ctx.host.now();
  let failedTerminally = false;
  let refusal: unknown = null;
  try {
    failedTerminally = ctx.host.transaction(() => {
      ctx.arbiter.releaseClaim(unit, result);
      recordPlans(plans, {
        host: ctx.host, dataDir, now, acquisition: ctx.acquisition,
        log: (level, line) => ctx.arbiter.runs.log(unit.runId, now, level, line.text, line.key ? { key: line.key, params: line.params } : undefined),
      });
      return ctx.arbiter.recordEnd(unit, result, now);
    }).failedTerminally;
  } catch (e) {
    refusal = e;
  }
  ctx.arbiter.freeSlot(unit, now, refusal === null);
  if (refusal !== null) {
    if (isBacklotError(refusal) && refusal.code === 'CLAIM_LAPSED') return false;
    if (storageErrorCode(refusal) !== 'DISK_FULL') throw refusal;
    // On a full disk nothing was recorded: the claim stays until space returns (then it is released)
    // and the work is done again; every writer holds meanwhile.
    ctx.diskFull();
    return false;
  }
  ctx.settled({ unit, result, failedTerminally, endedAt: ctx.host.now() });
  return true;
}

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
