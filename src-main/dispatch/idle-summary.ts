// What is left when a host settles (`backlot run --until-idle`): the lanes that hold reachable work
// and why, and the lanes whose engines failed their preflight while work waits for them. The same
// gate chain and bindings the arbiter uses answer it, so the summary cannot disagree with explain.
import type { Arbiter } from '../arbiter/arbiter';
import type { OperationId } from '../../src-shared/catalog/operations';

export interface LaneReason {
  lane: string;
  code: string;
}

export interface IdleSummary {
  held: LaneReason[];
  preflight: LaneReason[];
}

/** `reachable`: per operation, missing + stale work (running work excluded). */
export function idleSummary(arbiter: Arbiter, reachable: ReadonlyMap<OperationId, number>, now: number): IdleSummary {
  const held: LaneReason[] = [];
  const preflight: LaneReason[] = [];
  for (const lane of arbiter.laneConfigs()) {
    const bindings = arbiter.bindingsOn(lane.queueKey);
    const waiting = bindings.filter((b) => (reachable.get(b.operation) ?? 0) > 0);
    const failed = waiting.find((b) => !b.preflight.ok);
    if (failed && !failed.preflight.ok && waiting.every((b) => !b.preflight.ok)) {
      preflight.push({ lane: lane.queueKey, code: failed.preflight.code });
      continue;
    }
    if (!arbiter.hasMatchedWork(lane.queueKey, now)) continue;
    const hold = arbiter.laneHold(lane, now);
    if (hold) { held.push({ lane: lane.queueKey, code: hold.code }); continue; }
    const disk = arbiter.currentDiskMode();
    if (disk !== 'open') held.push({ lane: lane.queueKey, code: 'DISK_GATE' });
  }
  return { held, preflight };
}
