// The prepare step of a unit (docs/architecture.md "The one pipeline of a unit"): host-side, after
// its claim committed. The unit's engine chosen, its job built from the item's facts and the
// committed outputs it builds on, its temporary folder made, and a spending engine's cost reserved
// under the spend cap. The job carries the host services its adapter may use (the profiles through
// the host's connection, the acquisition state) and what the adapter's `prepare` read of them.
// Whatever refuses here ends the unit with a code, through the settle step.
import type { RunningUnit, UnitResult } from '../arbiter/arbiter';
import { ITEM_OPERATIONS, operationSpec, type OperationId } from '../../src-shared/catalog/operations';
import { NO_NEW_ITEMS, ROLLUP_OPERATION } from '../work/rollup';
import type { JobContext, JobServices } from '../engines/adapter';
import { ProfileStore } from '../speakers/profiles/profile-store';
import type { RegisteredEngine } from '../engines/registry';
import { keepTemporaryOutputDir, prepareTemporaryOutputDir } from '../engines/commit-output';
import { defaultOutputDir } from '../engines/job-paths';
import type { UnitContext } from './unit-context';

export type FailedResult = Extract<UnitResult, { outcome: 'failed' }>;

/** A prepared unit: its engine and job. `failed`: it ends here with that result. `stopped`: the host is stopping. */
export type Prepared =
  | { kind: 'ready'; engine: RegisteredEngine; job: JobContext }
  | { kind: 'failed'; result: FailedResult }
  | { kind: 'stopped' };

export async function prepareUnit(ctx: UnitContext, unit: RunningUnit, jobId: string, stopping: () => boolean): Promise<Prepared> {
  const { host } = ctx;
  const { registry, env } = ctx.engines();
  const channel = host.library.channel(unit.channelId);
  const item = operationSpec(unit.operation).scope === 'item' ? host.library.item(unit.itemId) ?? null : null;
  if (!channel || (operationSpec(unit.operation).scope === 'item' && !item)) {
    return failed({ outcome: 'failed', code: 'SOURCE_GONE', params: { channel: unit.channelId, item: unit.itemId } });
  }
  const choice = registry.choose(unit.binding, channel, item);
  if (!choice.ok) return failed({ outcome: 'failed', code: choice.code, params: choice.params, diagnostic: choice.message, disposition: 'fail' });
  const rollup = unit.operation === ROLLUP_OPERATION ? host.work.rollupInputs(unit.channelId, host.now()) : undefined;
  if (rollup && rollup.members.length === 0) {
    // The period rolled over or its digests were redone since the claim: nothing to roll up now.
    return failed({ outcome: 'failed', code: NO_NEW_ITEMS, params: { period: rollup.period.key }, disposition: 'requeue' });
  }
  // An adopted unit's folder may already hold what its worker uploaded before the host restarted: kept.
  const outputDir = unit.adopted ? keepTemporaryOutputDir(env.dataDir, jobId) : await prepareTemporaryOutputDir(env.dataDir, jobId);
  const job: JobContext = {
    env, jobId, outputDir, operation: unit.operation, channel, item,
    inputs: inputsOf(ctx, unit), attempts: host.work.row(unit.operation, unit.itemId)?.attempts ?? 0,
    defaultOutputDir: defaultOutputDir(env.dataDir, unit.channelId, unit.itemId, unit.operation),
    budgetUsd: null,
    ...(rollup ? { rollup } : {}),
    services: servicesOf(ctx),
  };
  if (choice.engine.adapter.prepare) {
    job.prepared = await choice.engine.adapter.prepare(job);
    if (stopping()) return { kind: 'stopped' };
  }
  if (choice.engine.adapter.reserve) {
    const usd = await choice.engine.adapter.reserve(job);
    if (stopping()) return { kind: 'stopped' };
    const reserved = ctx.arbiter.reserveUnitUsd(unit, usd, host.now());
    if (!reserved.ok) {
      // Nothing was sent: back to missing, and the arbiter now knows this item's cost.
      return failed({ outcome: 'failed', code: reserved.hold.code, params: reserved.hold.params, disposition: 'requeue' });
    }
    job.budgetUsd = reserved.budgetUsd;
  }
  return { kind: 'ready', engine: choice.engine, job };
}

/** The host services a job may use: read through the host's own connection and the dispatcher's state. */
function servicesOf(ctx: UnitContext): JobServices {
  return { profiles: new ProfileStore(ctx.host.db), acquisition: ctx.acquisition, library: ctx.host.library };
}

function failed(result: FailedResult): Prepared {
  return { kind: 'failed', result };
}

/** Committed outputs of the item's other operations, by operation. */
function inputsOf(ctx: UnitContext, unit: RunningUnit): Partial<Record<OperationId, string>> {
  const inputs: Partial<Record<OperationId, string>> = {};
  if (operationSpec(unit.operation).scope !== 'item') return inputs;
  for (const op of ITEM_OPERATIONS) {
    const row = ctx.host.work.row(op.id, unit.itemId);
    if (row?.output_path) inputs[op.id] = row.output_path;
  }
  const media = ctx.host.library.item(unit.itemId)?.media_path;
  if (media && !inputs.download) inputs.download = media;
  return inputs;
}
