// "Why is this not running?" for one (item, operation): its state and ONE reason code with
// parameters. The state's own reason comes first (a deleted file is MEDIA_GONE even on a paused
// lane); for reachable work, the first gate or rule that holds it, in the order the arbiter
// applies them, on the lane that would otherwise take it (a lane that cannot run it is secondary).
import type { Host } from '../host/host';
import type { Arbiter } from '../arbiter/arbiter';
import type { CompiledNode } from '../arbiter/compile-tree';
import type { Candidate } from '../arbiter/candidates';
import { laneMatches } from '../../src-shared/catalog/pool-lanes';
import { isFull } from '../arbiter/select';
import { itemDependencies, itemSettlesAfter, operationSpec, type OperationId } from '../../src-shared/catalog/operations';
import { assertNever, type WorkState } from '../../src-shared/states/states';
import { BacklotError } from '../../src-shared/errors';
import { UNREADABLE_MEDIA_CODES } from '../../src-shared/reasons/codes';
import { isStillToRun, type WorkRow } from '../work/work-store';

export interface Explanation {
  item: string;
  operation: OperationId;
  state: WorkState;
  reason: { code: string; params: Record<string, unknown> };
}

type Reason = Explanation['reason'];

export function explain(host: Host, arbiter: Arbiter, itemId: string, operation: OperationId, now: number): Explanation {
  arbiter.noticeOtherWriters();
  const row = host.work.row(operation, itemId);
  if (!row) {
    const scope = operationSpec(operation).scope;
    throw new BacklotError('WORK_NOT_FOUND', scope === 'channel'
      ? `There is no channel "${itemId}" for ${operation}.`
      : `There is no item "${itemId}" in the library.`);
  }
  return { item: itemId, operation, state: row.state, reason: reasonFor(host, arbiter, row, now) };
}

function reasonFor(host: Host, arbiter: Arbiter, row: WorkRow, now: number): Reason {
  const state = row.state;
  switch (state) {
    case 'done':
      // A folder's file is the item's media itself: nothing was downloaded, and no run is missing.
      if (row.operation === 'download' && host.library.channel(row.channel_id)?.kind === 'folder') return { code: 'DONE', params: { source: 'folder' } };
      return { code: 'DONE', params: {} };
    case 'missing-input':
      return missingInputReason(host, row);
    case 'blocked': {
      const spec = operationSpec(row.operation);
      const dep = itemDependencies(spec).find((d) => host.work.row(d, row.item_id)?.state !== 'done')
        ?? itemSettlesAfter(spec).find((d) => isStillToRun(host.work.row(d, row.item_id)?.state));
      return { code: 'BLOCKED_ON', params: { operation: dep ?? null } };
    }
    case 'deferred':
      switch (row.deferral_kind) {
        // The failure's own code goes with the wait (HOST_NOT_FOUND, DAILY_CAP...: docs/feeds.md), never the wait alone.
        case 'backoff': return { code: 'BACKOFF_UNTIL', params: { t: row.deferral_until, ...(row.deferral_code ? { code: row.deferral_code } : {}) } };
        case 'failed': return { code: 'FAILED', params: { code: row.deferral_code, attempts: row.attempts } };
        default:
          // A file that cannot be read is not held by a rule: its own reason says why.
          if ((UNREADABLE_MEDIA_CODES as readonly (string | null)[]).includes(row.deferral_code)) {
            return { code: row.deferral_code!, params: { file: host.library.item(row.item_id)?.media_path ?? null } };
          }
          return { code: 'EXCLUDED', params: { code: row.deferral_code } };
      }
    case 'missing':
    case 'stale':
      return reachableReason(arbiter, row, now);
    default:
      return assertNever(state);
  }
}

function missingInputReason(host: Host, row: WorkRow): Reason {
  const removed = host.library.channel(row.channel_id)?.removed_at ?? null;
  if (removed !== null) return { code: 'SOURCE_GONE', params: { channel: row.channel_id } };
  const item = host.library.item(row.item_id);
  if (item && item.url === null && item.media_state !== 'gone' && host.library.channel(row.channel_id)?.kind === 'feed') return { code: 'NO_MEDIA', params: {} };
  return { code: 'MEDIA_GONE', params: {} };
}

export function matches(leaf: CompiledNode, lane: string, row: WorkRow, now: number): boolean {
  if (leaf.matchesNothing || (leaf.lane !== null && !laneMatches(leaf.lane, lane))) return false;
  if (leaf.operations !== null && !leaf.operations.has(row.operation)) return false;
  if (leaf.channels !== null && !leaf.channels.includes(row.channel_id)) return false;
  if (leaf.publishedWithinS !== null && row.published_at < now - leaf.publishedWithinS) return false;
  return true;
}

function reachableReason(arbiter: Arbiter, row: WorkRow, now: number): Reason {
  if (row.claimed) {
    const claim = arbiter.claims.get(`${row.operation}\0${row.item_id}`);
    return { code: 'RUNNING', params: { run: claim?.run_id ?? null } };
  }
  const tree = arbiter.tree(now);
  const lanes = arbiter.laneConfigs().filter((l) => arbiter.bindingsOn(l.queueKey).some((b) => b.operation === row.operation));
  const reasons: Reason[] = [];
  for (const lane of lanes) {
    const leaves = tree.leaves.filter((leaf) => matches(leaf, lane.queueKey, row, now));
    if (leaves.length === 0) { reasons.push({ code: 'NOT_MATCHED', params: {} }); continue; }
    const binding = arbiter.bindingsOn(lane.queueKey).find((b) => b.operation === row.operation)!;
    if (!binding.preflight.ok) { reasons.push({ code: 'PREFLIGHT_FAILED', params: { lane: lane.queueKey, code: binding.preflight.code } }); continue; }
    const hold = arbiter.laneHold(lane, now) ?? arbiter.unitSpendHold(lane, { operation: row.operation, itemId: row.item_id, durationS: row.duration_s }, now);
    if (hold) { reasons.push(hold); continue; }
    const disk = arbiter.currentDiskMode();
    if (operationSpec(row.operation).writesMedia && disk !== 'open') { reasons.push({ code: 'DISK_GATE', params: { mode: disk } }); continue; }
    const runningIn = arbiter.leaves.runningCounter();
    const memo = new Map<CompiledNode, Candidate | undefined>();
    const candidateOf = (leaf: CompiledNode) => {
      if (!memo.has(leaf)) memo.set(leaf, arbiter.leaves.leafCandidate(leaf, lane.queueKey, now, disk));
      return memo.get(leaf);
    };
    const busy = arbiter.leaves.nonPassiveBusy(tree, lane.queueKey, candidateOf);
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
    const free = lane.slots - arbiter.runningOn(lane.queueKey).length;
    const me: Candidate = { operation: row.operation, itemId: row.item_id, channelId: row.channel_id, publishedAt: row.published_at, durationS: row.duration_s, reachableSince: row.reachable_since };
    const order = open.order === 'heaviest' ? 'newest' : open.order;
    const minPublished = open.publishedWithinS === null ? -Number.MAX_VALUE : now - open.publishedWithinS;
    const ahead = arbiter.candidateCount(me, open.channels, order, minPublished);
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
