// Why reachable work does not run, lane by lane, in the order the arbiter applies its rules
// (docs/scheduling.md "Explain"). One walk shared by `explain` over the database and the preview's
// in-memory simulation, so the two can never name different holds for the same work.
import type { CompiledNode } from '../arbiter/compile-tree';
import type { Candidate, IndexedOrder } from '../arbiter/candidates';
import type { EngineBinding, LaneConfig } from '../arbiter/lanes';
import type { DiskMode } from '../gates/disk-gate';
import { isFull } from '../arbiter/select';
import { laneMatches } from '../../src-shared/catalog/pool-lanes';
import { operationSpec, type OperationId } from '../../src-shared/catalog/operations';

export interface Reason { code: string; params: Record<string, unknown> }

/** What a leaf must know of a row to match it. */
export interface MatchedRow { operation: OperationId; channel_id: string; published_at: number }

export function matches(leaf: CompiledNode, lane: string, row: MatchedRow, now: number): boolean {
  if (leaf.matchesNothing || (leaf.lane !== null && !laneMatches(leaf.lane, lane))) return false;
  if (leaf.operations !== null && !leaf.operations.has(row.operation)) return false;
  if (leaf.channels !== null && !leaf.channels.includes(row.channel_id)) return false;
  if (leaf.publishedWithinS !== null && row.published_at < now - leaf.publishedWithinS) return false;
  return true;
}

/** What the walk asks of the scheduler it explains: the arbiter over SQLite, or the in-memory model. */
export interface LaneReasonView {
  readonly lanes: readonly LaneConfig[];
  readonly leaves: readonly CompiledNode[];
  bindingsOn(lane: string): readonly EngineBinding[];
  /** The gate holding the lane for this unit (pause, quiet hours, spend, ...), or null. */
  hold(lane: LaneConfig): Reason | null;
  diskMode(): DiskMode;
  runningCounter(): (node: CompiledNode) => number;
  leafCandidate(leaf: CompiledNode, lane: string, disk: DiskMode): Candidate | undefined;
  nonPassiveBusy(lane: string, candidateOf: (leaf: CompiledNode) => Candidate | undefined): boolean;
  runningOn(lane: string): number;
  countAhead(me: Candidate, channels: readonly string[] | null, order: IndexedOrder, minPublished: number): number;
}

/** The reason of the lane that would take `me` soonest: READY, or the first rule holding it. */
export function reachableLaneReason(view: LaneReasonView, me: Candidate, now: number): Reason {
  const row: MatchedRow = { operation: me.operation, channel_id: me.channelId, published_at: me.publishedAt };
  const lanes = view.lanes.filter((l) => view.bindingsOn(l.queueKey).some((b) => b.operation === me.operation));
  const reasons: Reason[] = [];
  for (const lane of lanes) {
    const leaves = view.leaves.filter((leaf) => matches(leaf, lane.queueKey, row, now));
    if (leaves.length === 0) { reasons.push({ code: 'NOT_MATCHED', params: {} }); continue; }
    const binding = view.bindingsOn(lane.queueKey).find((b) => b.operation === me.operation)!;
    if (!binding.preflight.ok) { reasons.push({ code: 'PREFLIGHT_FAILED', params: { lane: lane.queueKey, code: binding.preflight.code } }); continue; }
    const hold = view.hold(lane);
    if (hold) { reasons.push(hold); continue; }
    const disk = view.diskMode();
    if (operationSpec(me.operation).writesMedia && disk !== 'open') { reasons.push({ code: 'DISK_GATE', params: { mode: disk } }); continue; }
    const runningIn = view.runningCounter();
    const memo = new Map<CompiledNode, Candidate | undefined>();
    const candidateOf = (leaf: CompiledNode) => {
      if (!memo.has(leaf)) memo.set(leaf, view.leafCandidate(leaf, lane.queueKey, disk));
      return memo.get(leaf);
    };
    const busy = view.nonPassiveBusy(lane.queueKey, candidateOf);
    let held: Reason | null = null;
    let open: CompiledNode | null = null;
    for (const leaf of leaves) {
      let full: CompiledNode | null = null;
      for (let n: CompiledNode | null = leaf; n; n = n.parent) if (isFull(n, { runningIn })) { full = n; break; }
      const reason: Reason | null = full ? { code: 'NODE_FULL', params: { node: full.id } }
        : leaf.passive && busy ? { code: 'PASSIVE_BEHIND', params: { node: leaf.passiveAnchor } } : null;
      if (!reason) { open = leaf; break; }
      held ??= reason;
    }
    if (!open) { reasons.push(held!); continue; }
    const free = lane.slots - view.runningOn(lane.queueKey);
    const order = open.order === 'heaviest' ? 'newest' : open.order;
    const minPublished = open.publishedWithinS === null ? -Number.MAX_VALUE : now - open.publishedWithinS;
    const ahead = view.countAhead(me, open.channels, order, minPublished);
    if (ahead < free) return { code: 'READY', params: { lane: lane.queueKey } };
    reasons.push({ code: 'LANE_BUSY', params: { ahead } });
  }
  return primaryReason(reasons);
}

/** A lane that cannot run this work at all, whatever else happens: no engine check passes, or no slot. */
const CANNOT_RUN = new Set(['PREFLIGHT_FAILED', 'LANE_NO_SLOTS', 'NOT_MATCHED']);

/**
 * Of the lanes that could take the work, the hold of the first one that could run it names the
 * cause (a paused cpu lane, not the gpu lane that has no GPU here); lanes that cannot run it at
 * all are mentioned only as secondary, in `also` (issue 20 item 4, docs/scheduling.md "Explain").
 */
export function primaryReason(reasons: readonly Reason[]): Reason {
  const holding = reasons.find((r) => !CANNOT_RUN.has(r.code));
  const cannot = reasons.filter((r) => r.code !== 'NOT_MATCHED' && CANNOT_RUN.has(r.code));
  if (!holding) return cannot[0] ?? { code: 'NOT_MATCHED', params: {} };
  return cannot.length === 0 ? holding : { code: holding.code, params: { ...holding.params, also: cannot } };
}
