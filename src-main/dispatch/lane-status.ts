// What each lane is doing right now, for the lane page, the tray and `backlot lanes`: slots,
// running units, whether it is paused, and the first hold that keeps it from starting work.
import type { Arbiter } from '../arbiter/arbiter';
import type { LaneStatusDto, PoolWorkerDto } from '../../src-shared/api/contract';
import type { PoolWorkerView } from '../arbiter/lanes';
import { baseLane } from '../../src-shared/catalog/pool-lanes';
import { BacklotError } from '../../src-shared/errors';
import { ALL_LANES } from '../gates/pause';

export function laneStatuses(arbiter: Arbiter, now: number): LaneStatusDto[] {
  return arbiter.laneConfigs().map((lane) => {
    const preflight = arbiter.bindingsOn(lane.queueKey).filter((b) => !b.preflight.ok);
    const allFailed = preflight.length > 0 && preflight.length === arbiter.bindingsOn(lane.queueKey).length;
    const hold = arbiter.laneHold(lane, now)
      ?? arbiter.spendCapHold(lane, now)
      ?? (allFailed && !preflight[0].preflight.ok ? { code: 'PREFLIGHT_FAILED', params: { lane: lane.queueKey, code: preflight[0].preflight.code, message: preflight[0].preflight.message } } : null);
    return {
      lane: lane.queueKey,
      slots: lane.slots,
      running: arbiter.runningOn(lane.queueKey).length,
      paused: arbiter.holds.isGateHeld(lane.queueKey),
      hold,
      ...(lane.pool !== undefined ? { pool: { name: lane.pool, base: baseLane(lane.queueKey), workers: (lane.workers ?? []).map((w) => workerDto(w, baseLane(lane.queueKey))) } } : {}),
    };
  });
}

/** A worker as the lanes page shows it: its slots and free slots on this lane, its engines' preflight. */
function workerDto(w: PoolWorkerView, base: string): PoolWorkerDto {
  return {
    id: w.id, host: w.host, version: w.version,
    engines: w.engines.map((e) => ({ id: e.id, ok: e.preflight.ok, code: e.preflight.ok ? null : e.preflight.code })),
    slots: w.slots[base] ?? 0, freeSlots: w.freeSlots[base] ?? 0,
    lastHeartbeat: w.lastHeartbeat, outOfService: w.outOfService,
  };
}

/**
 * The one writer of every pause: a lane by its queue key, or "*" for everything. `declared` adds the
 * pool lanes the pools table names (PoolStore.laneNames): a process with no pool runtime (the CLI,
 * a host started before its first pool) still pauses `cpu@studio` for the host that runs it.
 */
export function setLanePaused(arbiter: Arbiter, lane: string, paused: boolean, now: number, actor: string, declared: readonly string[] = []): void {
  const known = [...new Set([...arbiter.laneKeys(), ...declared])];
  if (lane !== ALL_LANES && !known.includes(lane)) {
    throw new BacklotError('UNKNOWN_LANE', `There is no lane "${lane}"; the lanes are ${known.join(', ')} (or * for all).`, { lane });
  }
  arbiter.holds.setPaused(lane, paused, now, actor);
}
